// Instruction counts of the observability rows, for a deterministic before/after comparison on a busy machine (the
// wall-clock figures of observability.mjs move by ±30 % when other processes share the cores). One process runs one
// row: it builds the same application as observability.mjs, makes `warm` calls (JIT settled), then `calls` more.
// Run it twice under callgrind, once with `calls` = 0, and divide the difference by `calls`:
//
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --predictable --predictable-gc-schedule \
//     --hash-seed=1 --random-seed=1 packages/benchmarks/bench/observability-instructions.mjs <row> <warm> <calls>
//
//   rows: base | metrics | tracing (the injvm zero-copy call of each application)
//         chain | chain-metrics | chain-tracing (one filter alone around a completed Result, vs the empty chain)
//
// `node bench/observability-instructions.mjs --all [calls] [warm] [saved-build-dir]` does that for every row (needs
// valgrind on the PATH; about ten minutes) and prints instructions per call, and the instructions the filters add per
// call against base / chain. With a saved build (a directory holding copies of packages/filter-metrics and
// packages/filter-tracing — package.json, META-INF, dist — each with a node_modules link to the workspace's), it
// also counts the filter rows with those copies: before and after a change, from one command.
import { spawn } from 'node:child_process';
import { rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROWS = ['base', 'metrics', 'tracing', 'chain', 'chain-metrics', 'chain-tracing'];

async function run(row, warm, calls) {
  const { buildFilterChain, defineService, Filter, Invocation, Invoker, Logger, Result, URL, WeftApplication } = await import('@weft/core');
  const { createTestApp } = await import('@weft/test-utils');
  const silent = new (class extends Logger {
    debug() {}
    info() {}
    warn() {}
    error() {}
  })();
  const Greeter = defineService('bench.Greeter', { sayHello: { args: [String], returns: String } });
  const extra = { base: [], metrics: ['@weft/filter-metrics'], tracing: ['@weft/filter-tracing'] }[row.replace(/^chain-?/, '') || 'base'];
  const root = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-context', ...extra], { prefix: `weft-count-${row}` });
  // WEFT_BENCH_PACKAGES_FROM=<dir>: link the observability packages from <dir>/<name> instead (a saved earlier build,
  // with a node_modules link to the workspace's), to count the same row before and after a change.
  const from = process.env.WEFT_BENCH_PACKAGES_FROM;
  for (const name of from === undefined ? [] : extra) {
    const link = join(root.root, 'node_modules', name);
    rmSync(link);
    symlinkSync(join(from, name.slice('@weft/'.length)), link, 'dir');
  }
  const app = await WeftApplication.start({ root: root.root, name: `count-${row}`, logger: silent, importTimeout: 600_000 });
  await app.export(Greeter, { sayHello: (name) => `hello ${name}` });
  const greeter = await app.refer(Greeter, { timeout: 0, parameters: { copy: 'false' } });
  let call;
  if (row.startsWith('chain')) {
    const url = URL.parse('injvm://127.0.0.1/bench.Greeter?interface=bench.Greeter&side=provider');
    const done = Result.of('ok');
    class Terminal extends Invoker {
      getUrl() {
        return url;
      }
      invoke() {
        return done;
      }
    }
    const name = row === 'chain' ? undefined : row.slice('chain-'.length);
    const filters = name === undefined ? [] : [app.model.getExtensionLoader(Filter).getExtension(name)];
    const chain = buildFilterChain(new Terminal(), filters, () => name ?? 'none', silent);
    const invocation = Invocation.of('sayHello', ['ann'], Greeter);
    call = async () => chain.invoke(invocation);
  } else {
    call = () => greeter.sayHello('ann');
  }
  let sink = 0;
  for (let i = 0; i < warm; i++) if ((await call()) === undefined) sink++;
  for (let i = 0; i < calls; i++) if ((await call()) === undefined) sink++;
  await app.shutdown();
  root.cleanup();
  return sink;
}

/** V8 made deterministic (one thread, fixed seeds, GC by allocation only): repeated counts differ by < 0.1 %. */
const NODE_FLAGS = ['--predictable', '--predictable-gc-schedule', '--hash-seed=1', '--random-seed=1'];

/** Total instructions of one process under callgrind (`from`: WEFT_BENCH_PACKAGES_FROM for it). */
function total(row, warm, calls, from) {
  const script = fileURLToPath(import.meta.url);
  const env = { ...process.env };
  if (from === undefined) delete env.WEFT_BENCH_PACKAGES_FROM;
  else env.WEFT_BENCH_PACKAGES_FROM = from;
  return new Promise((resolve, reject) => {
    const child = spawn('valgrind', ['--tool=callgrind', '--callgrind-out-file=/dev/null', process.execPath, ...NODE_FLAGS, script, row, String(warm), String(calls)], {
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => (err += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      const match = /Collected : (\d+)/.exec(err);
      if (code !== 0 || match === null) reject(new Error(`callgrind of ${row} failed (exit ${code}):\n${err.slice(-2000)}`));
      else resolve(Number(match[1]));
    });
  });
}

/** Runs the jobs two at a time (the counts do not depend on the load; the wall time does). */
async function pooled(jobs, width = 2) {
  const results = new Array(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const at = next++;
      results[at] = await jobs[at]();
    }
  };
  await Promise.all(Array.from({ length: width }, worker));
  return results;
}

if (process.argv[2] === '--all') {
  // --all [calls] [warm] [saved-build-dir]: every row; with a saved build, its filter rows too, side by side.
  const calls = Number(process.argv[3] ?? 50000);
  const warm = Number(process.argv[4] ?? 30000);
  const saved = process.argv[5];
  const variants = [{ label: 'now', from: undefined }, ...(saved === undefined ? [] : [{ label: 'saved', from: saved }])];
  const cells = [];
  for (const row of ROWS) for (const variant of row === 'base' || row === 'chain' ? variants.slice(0, 1) : variants) cells.push({ row, variant });
  const counts = await pooled(cells.flatMap(({ row, variant }) => [() => total(row, warm, calls, variant.from), () => total(row, warm, 0, variant.from)]));
  const per = new Map(cells.map((cell, i) => [`${cell.row}/${cell.variant.label}`, (counts[2 * i] - counts[2 * i + 1]) / calls]));
  const of = (row, label) => per.get(`${row}/${label}`) ?? per.get(`${row}/now`);
  for (const { label } of variants) {
    console.log(`${label === 'now' ? 'this build' : `saved build ${saved}`} (instructions per call, ${calls} calls after ${warm}):`);
    for (const row of ROWS) console.log(`  ${row.padEnd(14)} ${of(row, label).toFixed(0).padStart(7)}`);
    console.log(`  metrics added ${(of('metrics', label) - of('base', label)).toFixed(0)}, alone ${(of('chain-metrics', label) - of('chain', label)).toFixed(0)}`);
    console.log(`  tracing added ${(of('tracing', label) - of('base', label)).toFixed(0)}, alone ${(of('chain-tracing', label) - of('chain', label)).toFixed(0)}`);
  }
} else if (ROWS.includes(process.argv[2])) {
  await run(process.argv[2], Number(process.argv[3] ?? 30000), Number(process.argv[4] ?? 50000));
  process.exit(0);
} else {
  console.error(`usage: observability-instructions.mjs <${ROWS.join('|')}> <warm> <calls> | --all [calls] [warm] [saved-build-dir]`);
  process.exit(2);
}
