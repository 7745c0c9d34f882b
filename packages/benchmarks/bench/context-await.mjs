// What @weft/filter-context costs code that has nothing to do with Weft: an unrelated `await` loop timed in a
// fresh process where the context filters ran one call (default settings, then `context.async=true`), against the
// same loop in a clean process. Each mode is its own child process (Node's promise hooks, once enabled, stay on
// for the process); the three of a round run at the same time, several rounds. Run by run.mjs via benchContextAwait(); alone:
//   node --expose-gc packages/benchmarks/bench/context-await.mjs <clean|context|context-async>   (one JSON line)
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';

import { formatRatio, printTable, summarize } from '../../core/bench/harness.mjs';

import { alternate } from './alternate.mjs';

/** The unrelated code: an async function awaiting ten others, each awaiting a settled promise. */
async function leaf(x) {
  return x + 1;
}
async function unrelated() {
  let x = 0;
  for (let i = 0; i < 10; i++) x = await leaf(x);
  return x;
}

async function sample(mode) {
  if (mode !== 'clean') {
    const { defineService, Logger, WeftApplication } = await import('@weft/core');
    const { createTestApp } = await import('@weft/test-utils');
    const silent = new (class extends Logger {
      debug() {}
      info() {}
      warn() {}
      error() {}
    })();
    const packages = ['@weft/core', '@weft/cluster', ...(mode === 'weft' ? [] : ['@weft/filter-context'])];
    const testApp = createTestApp(packages, { prefix: 'weft-bench-context' });
    const Greeter = defineService('bench.Greeter', { sayHello: { args: [String], returns: String } });
    const app = await WeftApplication.start({ root: testApp.root, name: 'bench-context', logger: silent });
    const parameters = mode === 'context-async' ? { 'context.async': true } : {};
    await app.export(Greeter, { sayHello: async (name) => `hello ${name}` }, { parameters });
    const greeter = await app.refer(Greeter, { parameters });
    // The context filters ran (both sides): one call is enough to turn promise hooks on, when they are used.
    if ((await greeter.sayHello('ann')) !== 'hello ann') throw new Error('the call failed');
    await app.shutdown();
    testApp.cleanup();
  }
  // Short rounds, 10th percentile: a round the scheduler preempted is left out.
  const [row] = await alternate([{ name: `await loop (${mode})`, fn: unrelated }]);
  return row.nsPerOp;
}

/** Runs the three modes in alternating fresh processes and adds the table and the figure (for run.mjs). */
export async function benchContextAwait(figures, rounds = Number(process.env.WEFT_BENCH_PROCESSES ?? 5)) {
  const script = fileURLToPath(import.meta.url);
  const modes = ['clean', 'context', 'context-async'];
  const samples = Object.fromEntries(modes.map((m) => [m, []]));
  const run = promisify(execFile);
  for (let i = 0; i < rounds; i++) {
    // The three processes of a round run at the same time: they share whatever load the machine has.
    const outs = await Promise.all(modes.map((mode) => run(process.execPath, ['--expose-gc', script, mode], { encoding: 'utf8' })));
    outs.forEach(({ stdout }, at) => samples[modes[at]].push(JSON.parse(stdout.trim().split('\n').pop())));
  }
  const rows = [
    summarize('unrelated await loop, clean process', samples.clean),
    summarize('… after the context filters ran (default)', samples.context),
    summarize('… after they ran with context.async=true', samples['context-async']),
  ];
  printTable(`@weft/filter-context and unrelated code — an async fn awaiting 10 others (median of ${rounds} processes each)`, rows, {
    baseline: 'unrelated await loop, clean process',
  });
  const pairs = samples.context.map((ns, i) => formatRatio(ns / samples.clean[i])).join(', ');
  figures.push(
    `unrelated await loop after the context filters ran: ${formatRatio(rows[1].nsPerOp / rows[0].nsPerOp)} a clean process (goal ≤ 1.1×; ` +
      `per round ${pairs}); with context.async=true (AsyncLocalStorage): ${formatRatio(rows[2].nsPerOp / rows[0].nsPerOp)}`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(`${JSON.stringify(await sample(process.argv[2] ?? 'clean'))}\n`);
