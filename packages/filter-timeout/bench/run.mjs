// Benchmarks of the standard provider filters: @weft/filter-timeout, -exception, -echo and -token. Run:
// `node --expose-gc packages/filter-timeout/bench/run.mjs`, or `npm run bench` at the repository root (which builds
// first). Needs the built dist/ of @weft/core, @weft/cluster and the four filter packages.
//
// What it measures: the per-call cost of one injvm call made through a typed proxy (consumer: failover cluster,
// consumer timeout on core's deadline wheel; provider: the filter chain, then the implementation), awaited one
// after another, with
//   (a) zero-copy injvm (`copy=false`), so the filters' own cost is not hidden by the JSON copy:
//       no provider filter (`-default`) — the floor —, then each filter alone, then all four;
//   (b) the default copying injvm (json), no filter vs all four: what an application actually pays;
//   (c) an undeclared business error, without and with the exception filter (the wrap + one logged warning);
//   (d) `$echo` answered by the echo filter vs a real call through the same chain;
//   (e) for information, `new AbortController().signal` alone: most of the timeout filter's cost.
// The token rows include core's share: injvm adds the `token` attachment to every call of a provider with a token.
// One temporary application links every package (through @weft/test-utils); it is removed at the end.
import { cpus, loadavg } from 'node:os';

import { defineService, Filter, Logger, WeftApplication } from '@weft/core';
import { createTestApp } from '@weft/test-utils';

import { formatNs, formatRatio, measure, printTable } from '../../core/bench/harness.mjs';

const testApp = createTestApp(
  ['@weft/core', '@weft/cluster', '@weft/filter-timeout', '@weft/filter-exception', '@weft/filter-echo', '@weft/filter-token'],
  { prefix: 'weft-bench-filters' },
);
const cleanup = () => testApp.cleanup();
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    cleanup();
    process.exit(130);
  });
}

/** Counts warnings instead of printing them (the exception rows log one per call). */
class CountingLogger extends Logger {
  warnings = 0;
  debug() {}
  info() {}
  warn() {
    this.warnings++;
  }
  error(message, error) {
    console.error(message, error);
  }
}

console.log('\n══ @weft/filter-timeout, -exception, -echo, -token — provider filter cost per call ══');
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}` +
    (typeof globalThis.gc === 'function' ? ', --expose-gc' : ' (run with --expose-gc for steadier figures)'),
);

class StockDbError extends Error {}
const Bench = defineService('org.acme.bench.Bench', {
  ping: { args: [String], returns: String },
  fail: { args: [String] },
});
const implementation = {
  ping: (s) => s,
  fail: (s) => {
    throw new StockDbError(`no stock for ${s}`);
  },
};

const logger = new CountingLogger();
const app = await WeftApplication.start({ root: testApp.root, name: 'bench', logger });

/** Provider configurations, one export each (told apart by version). */
const configs = [
  { key: 'none', label: 'no provider filter (-default)', filter: '-default' },
  { key: 'timeout', label: 'timeout', filter: '-default,timeout' },
  { key: 'exception', label: 'exception', filter: '-default,exception' },
  { key: 'echo', label: 'echo, on a non-$echo call', filter: '-default,echo' },
  { key: 'token', label: 'token', filter: '-default,token', token: true },
  { key: 'all', label: 'all four', filter: undefined, token: true },
];
const proxies = {};
for (const config of configs) {
  const { url } = await app.export(Bench, implementation, {
    version: config.key,
    filter: config.filter,
    parameters: config.token ? { token: true } : {},
  });
  const chain = app.model.getExtensionLoader(Filter).selectActivateNames(url, 'service.filter', 'provider');
  const expected = config.key === 'all' ? ['echo', 'timeout', 'exception', 'token'] : config.key === 'none' ? [] : [config.key];
  if (JSON.stringify(chain) !== JSON.stringify(expected)) throw new Error(`${config.key}: chain is ${chain.join(',')}, expected ${expected.join(',')}`);
  proxies[config.key] = {
    zeroCopy: await app.refer(Bench, { version: config.key, retries: 0, parameters: { copy: false } }),
    copying: await app.refer(Bench, { version: config.key, retries: 0 }),
  };
}

// Sanity: every configuration answers, and the filters do their job.
for (const config of configs) {
  if ((await proxies[config.key].zeroCopy.ping('x')) !== 'x') throw new Error(`${config.key}: wrong answer`);
}
const wrapped = await proxies.all.copying.fail('a').catch((e) => e);
if (wrapped.name !== 'UndeclaredError') throw new Error(`exception filter did not wrap: ${wrapped.name}`);

const options = { minTimeMs: 700, warmupMs: 300 };

// (a)
const rowsA = [];
for (const config of configs) {
  const proxy = proxies[config.key].zeroCopy;
  rowsA.push(await measure(`${config.label}`, () => proxy.ping('x'), options));
}
printTable('(a) one zero-copy injvm call (copy=false), sequential', rowsA, { baseline: rowsA[0].name });

// (b)
const rowsB = [
  await measure('no provider filter (-default), json copy', () => proxies.none.copying.ping('x'), options),
  await measure('all four, json copy', () => proxies.all.copying.ping('x'), options),
];
printTable('(b) one copying injvm call (json), sequential', rowsB, { baseline: rowsB[0].name });

// (c)
const swallow = () => 0;
const rowsC = [
  await measure('undeclared error, no filter', () => proxies.none.zeroCopy.fail('x').catch(swallow), options),
  await measure('undeclared error, exception filter (wrap + warn)', () => proxies.exception.zeroCopy.fail('x').catch(swallow), options),
];
printTable('(c) a call failing with an undeclared business error (zero-copy)', rowsC, { baseline: rowsC[0].name });

// (d)
const echoProxy = proxies.all.zeroCopy;
const rowsD = [
  await measure('ping through all four (zero-copy)', () => echoProxy.ping('x'), options),
  await measure('$echo answered by echo (zero-copy)', () => echoProxy.$echo('x'), options),
];
printTable('(d) $echo vs a real call, same chain', rowsD, { baseline: rowsD[0].name });

// (e) what most of the timeout filter's cost is: Node's AbortSignal, which the implementation needs per call.
const signalRow = await measure('new AbortController().signal', () => new AbortController().signal, options);
printTable('(e) for information: one AbortController with its signal', [signalRow]);

await app.shutdown();

// ---------------------------------------------------------------------------------------------------------------

const floor = rowsA[0];
const extra = (row, base) => {
  const d = row.nsPerOp - base.nsPerOp;
  return `${d < 0 ? '−' : '+'}${formatNs(Math.abs(d))}/call`;
};
const figures = [];
for (const row of rowsA.slice(1)) {
  figures.push([`${row.name} (zero-copy)`, `${formatNs(row.nsPerOp)}/call = ${formatRatio(row.nsPerOp / floor.nsPerOp)} the bare call (${formatNs(floor.nsPerOp)}), ${extra(row, floor)}`]);
}
figures.push(
  ['all four (json copy)', `${formatNs(rowsB[1].nsPerOp)}/call = ${formatRatio(rowsB[1].nsPerOp / rowsB[0].nsPerOp)} the bare copying call (${formatNs(rowsB[0].nsPerOp)}), ${extra(rowsB[1], rowsB[0])}`],
  ['undeclared error wrapped', `${formatNs(rowsC[1].nsPerOp)}/call = ${formatRatio(rowsC[1].nsPerOp / rowsC[0].nsPerOp)} the unwrapped failure (${formatNs(rowsC[0].nsPerOp)}), ${extra(rowsC[1], rowsC[0])}`],
  ['$echo', `${formatNs(rowsD[1].nsPerOp)}/call = ${formatRatio(rowsD[1].nsPerOp / rowsD[0].nsPerOp)} a real call through the same chain`],
  ['AbortController + signal (Node)', `${formatNs(signalRow.nsPerOp)} — of the timeout filter's ${extra(rowsA[1], floor).slice(1)}`],
);
console.log('\nFigures:');
const labelWidth = Math.max(...figures.map(([label]) => label.length));
for (const [label, value] of figures) console.log(`  ${`${label}:`.padEnd(labelWidth + 1)}  ${value}`);
console.log(`  (${logger.warnings} warnings logged by the exception filter during (c), counted, not printed)`);
cleanup();
