// Benchmark of @weft/filter-context: the per-call cost of the `context` and `consumercontext` filters on an injvm
// call. Run: `node --expose-gc packages/filter-context/bench/run.mjs` (needs built dist/ of core, cluster and this
// package: `npx tsc -p tsconfig.build.json` in each).
//
//   (a) a top-level call (no current RpcContext): without the filters (core + cluster only), with consumercontext
//       alone (provider exported with service.filter=-context: the consumer side never creates a context), and
//       with both — with the default copying injvm, and with copy=false (zero-copy, where the filters weigh most)
//       — plus, to tell the filter's own work from Node 20's global AsyncLocalStorage cost, the zero-copy call
//       without filters in a process where one RpcContext.run happened once (promise hooks enabled)
//   (b) a nested call: Front's implementation calls Echo (two calls), with a traceId attachment; with both filters
//       the attachment is passed through and the deadline propagated
//
// Every scenario runs in its own Node process: on Node 20, the first AsyncLocalStorage.run enables promise hooks
// for the whole process, which would otherwise slow down the rows measured after it. See
// ../../core/bench/harness.mjs for how to read the tables.
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

import { formatNs, formatRatio, measure, printTable } from '../../core/bench/harness.mjs';

const SELF = fileURLToPath(import.meta.url);

const SCENARIOS = {
  'top-level, no context filters': { packages: ['@weft/core', '@weft/cluster'], nested: false },
  'top-level, consumercontext only': { packages: ['@weft/core', '@weft/cluster', '@weft/filter-context'], nested: false, exportFilter: '-context' },
  'top-level, context + consumercontext': { packages: ['@weft/core', '@weft/cluster', '@weft/filter-context'], nested: false },
  'top-level copy=false, no context filters': { packages: ['@weft/core', '@weft/cluster'], nested: false, copy: false },
  'top-level copy=false, no context filters, AsyncLocalStorage enabled': {
    packages: ['@weft/core', '@weft/cluster'],
    nested: false,
    copy: false,
    enableStorage: true,
  },
  'top-level copy=false, consumercontext only': {
    packages: ['@weft/core', '@weft/cluster', '@weft/filter-context'],
    nested: false,
    copy: false,
    exportFilter: '-context',
  },
  'top-level copy=false, context + consumercontext': { packages: ['@weft/core', '@weft/cluster', '@weft/filter-context'], nested: false, copy: false },
  'nested (2 calls), no context filters': { packages: ['@weft/core', '@weft/cluster'], nested: true },
  'nested (2 calls), context + consumercontext': { packages: ['@weft/core', '@weft/cluster', '@weft/filter-context'], nested: true },
};

// ---------------------------------------------------------------------------------------------------------------
// Child mode: one scenario, one row of JSON on stdout.

if (process.argv[2] === '--child') {
  const name = process.argv[3];
  const scenario = SCENARIOS[name];
  const { Invocation, RpcContext, URL, WeftApplication, defineService } = await import('@weft/core');
  if (scenario.enableStorage) {
    // What any RpcContext.run does once per process on Node 20: turn on the promise hooks of AsyncLocalStorage.
    RpcContext.run(new RpcContext('provider', Invocation.of('warm', []), URL.parse('injvm://127.0.0.1/bench.Warm')), () => undefined);
  }
  const { createTestApp } = await import('@weft/test-utils');
  const { root, cleanup } = createTestApp(scenario.packages, { prefix: 'weft-bench-context' });
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const app = await WeftApplication.start({ root, name: 'bench', logger: silent });
  try {
    const Echo = defineService('bench.Echo', { echo: { args: [String], returns: String } });
    const Front = defineService('bench.Front', { call: { args: [String], returns: String } });
    const exportOptions = scenario.exportFilter === undefined ? {} : { filter: scenario.exportFilter };
    const referOptions = { retries: 0, ...(scenario.copy === false ? { parameters: { copy: false } } : {}) };
    let nestedSawTrace = false;
    await app.export(
      Echo,
      {
        echo: (text) => {
          if (RpcContext.current()?.getAttachment('traceId') === 't-1') nestedSawTrace = true;
          return text;
        },
      },
      exportOptions,
    );
    const echo = await app.refer(Echo, referOptions);
    await app.export(Front, { call: (text) => echo.echo(text) }, exportOptions);
    const front = await app.refer(Front, referOptions);
    const options = { attachments: { traceId: 't-1' } };
    const fn = scenario.nested ? () => front.$call('call', ['hi'], options) : () => echo.echo('hi');
    if ((await fn()) !== 'hi') throw new Error(`${name}: unexpected answer`);
    const row = await measure(name, fn, { minTimeMs: 1500 });
    const withFilters = scenario.packages.includes('@weft/filter-context');
    if (scenario.nested && nestedSawTrace !== withFilters) throw new Error(`${name}: traceId passthrough is ${nestedSawTrace}`);
    process.stdout.write(JSON.stringify(row));
  } finally {
    await app.shutdown();
    cleanup();
  }
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------------------------

console.log('\n══ @weft/filter-context — context and consumercontext on an injvm call ══');
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}` +
    (typeof globalThis.gc === 'function' ? ', --expose-gc' : ' (run with --expose-gc for steadier figures)') +
    '; one process per row',
);

const rows = new Map();
for (const name of Object.keys(SCENARIOS)) {
  const child = spawnSync(process.execPath, [...process.execArgv, SELF, '--child', name], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (child.status !== 0) {
    process.stderr.write(child.stderr);
    throw new Error(`scenario "${name}" failed (exit ${child.status})`);
  }
  rows.set(name, JSON.parse(child.stdout));
}

const row = (name) => rows.get(name);
const floorOf = (r) => (r.name.startsWith('nested') ? 'nested (2 calls), no context filters' : r.name.includes('copy=false') ? 'top-level copy=false, no context filters' : 'top-level, no context filters');
printTable('(a) top-level call echo.echo("hi"), injvm, retries=0', [...rows.values()].filter((r) => r.name.startsWith('top-level')), {
  baseline: floorOf,
});
printTable('(b) nested call: Front.call → Echo.echo, with a traceId attachment', [...rows.values()].filter((r) => r.name.startsWith('nested')), {
  baseline: floorOf,
});

const extra = (name) => row(name).nsPerOp - row(floorOf(row(name))).nsPerOp;
const ratio = (name) => formatRatio(row(name).nsPerOp / row(floorOf(row(name))).nsPerOp);
console.log('\nFigures:');
const floors = new Set([...rows.values()].map((r) => floorOf(r)));
for (const name of Object.keys(SCENARIOS)) {
  if (floors.has(name)) {
    console.log(`  ${name}: ${formatNs(row(name).nsPerOp)}/op`);
  } else {
    const delta = extra(name);
    console.log(`  ${name}: ${formatNs(row(name).nsPerOp)}/op, ${ratio(name)} its floor (${delta >= 0 ? '+' : '−'}${formatNs(Math.abs(delta))}/op)`);
  }
}
const own = row('top-level copy=false, context + consumercontext').nsPerOp - row('top-level copy=false, no context filters, AsyncLocalStorage enabled').nsPerOp;
console.log(
  `  of which Node's AsyncLocalStorage promise hooks (on for the whole process after the first RpcContext.run): ` +
    `${formatNs(extra('top-level copy=false, no context filters, AsyncLocalStorage enabled'))}/op; both filters vs that floor: ` +
    `${own >= 0 ? '+' : '−'}${formatNs(Math.abs(own))}/op (differences under ~100 ns between processes are noise)`,
);
