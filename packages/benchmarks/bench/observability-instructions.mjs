// Instruction counts of the observability rows, for a deterministic before/after comparison on a busy machine (the
// wall-clock figures of observability.mjs move by ±30 % when other processes share the cores). One process runs one
// row: it builds the same application as observability.mjs, makes `warm` calls (JIT settled), then `calls` more.
// Run it twice under callgrind, once with `calls` = 0, and divide the difference by `calls`:
//
//   valgrind --tool=callgrind --callgrind-out-file=/dev/null node --single-threaded \
//     packages/benchmarks/bench/observability-instructions.mjs <row> <warm> <calls>
//
//   rows: base | metrics | tracing (the injvm zero-copy call of each application)
//         chain | chain-metrics | chain-tracing (one filter alone around a completed Result, vs the empty chain)
//
// `node bench/observability-instructions.mjs --all [calls]` does that for every row (needs valgrind on the PATH)
// and prints instructions per call, and the added instructions per call against base / chain.
import { spawnSync } from 'node:child_process';
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

if (process.argv[2] === '--all') {
  const calls = Number(process.argv[3] ?? 20000);
  const warm = Number(process.argv[4] ?? 20000);
  const script = fileURLToPath(import.meta.url);
  const total = (row, n) => {
    const err = spawnSync(
      'sh',
      ['-c', `valgrind --tool=callgrind --callgrind-out-file=/dev/null "${process.execPath}" --single-threaded "${script}" ${row} ${warm} ${n} 2>&1 >/dev/null`],
      { encoding: 'utf8' },
    ).stdout;
    const match = /Collected : (\d+)/.exec(err);
    if (match === null) throw new Error(`callgrind of ${row} printed no total:\n${err.slice(-2000)}`);
    return Number(match[1]);
  };
  const per = {};
  for (const row of ROWS) {
    per[row] = (total(row, calls) - total(row, 0)) / calls;
    console.log(`${row.padEnd(14)} ${per[row].toFixed(0).padStart(7)} instructions per call`);
  }
  console.log(`metrics added: ${(per.metrics - per.base).toFixed(0)} per call; alone: ${(per['chain-metrics'] - per.chain).toFixed(0)}`);
  console.log(`tracing added: ${(per.tracing - per.base).toFixed(0)} per call; alone: ${(per['chain-tracing'] - per.chain).toFixed(0)}`);
} else if (ROWS.includes(process.argv[2])) {
  await run(process.argv[2], Number(process.argv[3] ?? 20000), Number(process.argv[4] ?? 20000));
  process.exit(0);
} else {
  console.error(`usage: observability-instructions.mjs <${ROWS.join('|')}> <warm> <calls> | --all [calls] [warm]`);
  process.exit(2);
}
