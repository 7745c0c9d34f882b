// Benchmarks of the circuit breaker filter. Run: `node --expose-gc packages/filter-circuitbreaker/bench/run.mjs`, or
// `npm run bench` at the repository root (which builds first). Needs built dist/ of @weft/core, @weft/cluster and
// this package.
//
//   (a) the filter alone, closed, in a chain built by buildFilterChain around an invoker that answers at once
//       (a completed Result — the synchronous path) and with a resolved promise (the asynchronous path): against
//       the same chain with a no-op filter. Also the heap allocated per call on the synchronous path.
//   (c) the same awaited call (an invoker answering with a resolved promise) bare, through Weft's chain with a
//       closed breaker, and wrapped by opossum's and cockatiel's closed circuit breakers: the added cost of each.
//   (b) one awaited injvm call through a real application with the breaker closed vs a no-op consumer filter vs
//       no filter.
//
// See ../../core/bench/harness.mjs for how to read the tables.
import { cpus, loadavg } from 'node:os';

import { buildFilterChain, defineService, Filter, Invocation, Invoker, Logger, PendingResult, Result, URL, WeftApplication } from '@weft/core';
import { CircuitBreakerFilter } from '@weft/filter-circuitbreaker';
import { createTestApp } from '@weft/test-utils';
import { circuitBreaker as cockatielBreaker, ConsecutiveBreaker, handleAll } from 'cockatiel';
import Opossum from 'opossum';

import { blackhole, formatNs, formatRatio, measure, printTable } from '../../core/bench/harness.mjs';
import { alternate } from '../../benchmarks/bench/alternate.mjs';

const figures = [];
const silent = new (class extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
})();

console.log('\n══ @weft/filter-circuitbreaker — closed-breaker overhead ══');
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}` +
    (typeof globalThis.gc === 'function' ? ', --expose-gc' : ' (run with --expose-gc for steadier figures)'),
);

class NoopFilter extends Filter {
  invoke(invoker, invocation) {
    return invoker.invoke(invocation);
  }
}

class AnsweringInvoker extends Invoker {
  constructor(url, async) {
    super();
    this.url = url;
    this.result = Result.of('hello');
    this.async = async;
  }
  getUrl() {
    return this.url;
  }
  invoke() {
    // 'pending': what Weft's protocol invokers answer with for a call that waits (a PendingResult, settled here by a
    // resolved promise); true: a resolved native promise (a foreign invoker); false: the completed Result.
    if (this.async === 'pending') return PendingResult.from(Promise.resolve(this.result));
    return this.async ? Promise.resolve(this.result) : this.result;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// (a) the filter alone

{
  const base = 'tri://10.0.0.1:50051/bench.Greeter?interface=bench.Greeter&side=consumer';
  const errorRatio = URL.parse(`${base}&circuitbreaker=error-ratio`);
  const slowRatio = URL.parse(`${base}&circuitbreaker=slow-ratio&circuitbreaker.slow-rt=1000`);
  const plainUrl = URL.parse(base);
  const breaker = new CircuitBreakerFilter(silent);
  const chain = (filter, url, async) => buildFilterChain(new AnsweringInvoker(url, async), [filter], () => 'f', silent);
  const call = new Invocation({ methodName: 'sayHello', args: ['ann'] });
  const rows = [];
  for (const async of [false, true]) {
    const how = async ? 'promise' : 'sync Result';
    const noop = chain(new NoopFilter(), plainUrl, async);
    const er = chain(breaker, errorRatio, async);
    const sr = chain(breaker, slowRatio, async);
    rows.push(await measure(`no-op filter (${how})`, () => noop.invoke(call)));
    rows.push(await measure(`circuitbreaker error-ratio, closed (${how})`, () => er.invoke(call)));
    rows.push(await measure(`circuitbreaker slow-ratio, closed (${how})`, () => sr.invoke(call)));
  }
  printTable('one call through a one-filter chain (closed breaker vs a no-op filter)', rows, {
    baseline: (row) => (row.name.includes('promise') ? 'no-op filter (promise)' : 'no-op filter (sync Result)'),
  });
  const [noopSync, erSync, srSync, noopAsync, erAsync, srAsync] = rows;
  figures.push(['filter alone, sync', `${formatNs(erSync.nsPerOp)}/call error-ratio, ${formatNs(srSync.nsPerOp)} slow-ratio vs ${formatNs(noopSync.nsPerOp)} no-op (+${formatNs(erSync.nsPerOp - noopSync.nsPerOp)})`]);
  figures.push(['filter alone, promise', `${formatNs(erAsync.nsPerOp)}/call error-ratio, ${formatNs(srAsync.nsPerOp)} slow-ratio vs ${formatNs(noopAsync.nsPerOp)} no-op (+${formatNs(erAsync.nsPerOp - noopAsync.nsPerOp)})`]);

  // Heap allocated per call on the synchronous path (GC off between two readings; rough, but zero means zero).
  if (typeof globalThis.gc === 'function') {
    const er = chain(breaker, errorRatio, false);
    const noop = chain(new NoopFilter(), plainUrl, false);
    const bytesPerCall = (invoker) => {
      for (let i = 0; i < 100_000; i++) invoker.invoke(call);
      globalThis.gc();
      const before = process.memoryUsage().heapUsed;
      const n = 200_000;
      let sink = 0;
      for (let i = 0; i < n; i++) if (invoker.invoke(call) !== undefined) sink++;
      const after = process.memoryUsage().heapUsed;
      blackhole(sink);
      return Math.max(0, (after - before) / n);
    };
    const a = bytesPerCall(noop);
    const b = bytesPerCall(er);
    figures.push(['heap per sync call', `${b.toFixed(1)} B with the breaker, ${a.toFixed(1)} B with a no-op filter`]);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// (c) next to opossum and cockatiel, on the same call: a Weft pending answer, then a plain resolved promise

for (const kind of ['pending', true]) {
  const how = kind === 'pending' ? "Weft's pending answer" : 'a resolved native promise';
  const url = URL.parse('tri://10.0.0.1:50051/bench.Greeter?interface=bench.Greeter&side=consumer&circuitbreaker=error-ratio');
  const target = new AnsweringInvoker(url, kind);
  const call = new Invocation({ methodName: 'sayHello', args: ['ann'] });
  const weft = buildFilterChain(target, [new CircuitBreakerFilter(silent)], () => 'circuitbreaker', silent);
  // Closed breakers with comparable rules: opossum's rolling error percentage (50 %, 10 buckets over 1 s) with
  // no timeout of its own; cockatiel's simplest (consecutive failures) breaker.
  const opossum = new Opossum((invocation) => target.invoke(invocation), {
    timeout: false,
    errorThresholdPercentage: 50,
    rollingCountTimeout: 1000,
    rollingCountBuckets: 10,
    volumeThreshold: 5,
    resetTimeout: 5000,
  });
  const cockatiel = cockatielBreaker(handleAll, { halfOpenAfter: 5000, breaker: new ConsecutiveBreaker(5) });
  // Interleaved short rounds (10th percentile of each row): the four see the same machine load.
  const rows = await alternate([
    { name: `bare call (${how}), awaited`, fn: () => target.invoke(call) },
    { name: `Weft circuitbreaker filter (closed), ${how}`, fn: () => weft.invoke(call) },
    { name: `opossum 9 fire() (closed), ${how}`, fn: () => opossum.fire(call) },
    { name: `cockatiel 3 execute() (closed), ${how}`, fn: () => cockatiel.execute(() => target.invoke(call)) },
  ]);
  console.log(`\nclosed circuit breaker around the same awaited call (${how}) — interleaved rounds, 10th percentile`);
  for (const row of rows) console.log(`  ${row.name.padEnd(60)} ${formatNs(row.nsPerOp).padStart(9)}  ${formatRatio(row.ratio)}`);
  const [bare, w, o, c] = rows;
  const added = (row) => row.nsPerOp - bare.nsPerOp;
  const cheaper = Math.min(added(o), added(c));
  figures.push([
    `added cost per call, ${how}`,
    `Weft +${formatNs(added(w))}, opossum +${formatNs(added(o))}, cockatiel +${formatNs(added(c))}: Weft = ` +
      `${(added(w) / cheaper).toFixed(2)}× the cheaper of the two${kind === 'pending' ? ' (goal ≤ 0.5×)' : ''}`,
  ]);
  opossum.shutdown();
}

// ---------------------------------------------------------------------------------------------------------------
// (b) injvm call through a real application

{
  const testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-circuitbreaker'], { prefix: 'weft-bench-circuitbreaker' });
  try {
    const Greeter = defineService('bench.Greeter', { sayHello: { args: [String], returns: String } });
    const impl = { sayHello: async (name) => `hello ${name}` };
    const app = await WeftApplication.start({ root: testApp.root, name: 'bench-circuitbreaker', logger: silent });
    app.model.getExtensionLoader(Filter).addExtension('noop', NoopFilter, { activate: { group: 'consumer', value: 'noop' } });
    const fast = { copy: 'false' };
    await app.export(Greeter, impl, { parameters: fast });
    const refer = (parameters = {}) => app.refer(Greeter, { retries: 0, timeout: 0, parameters: { ...fast, ...parameters } });
    const plain = await refer();
    const noop = await refer({ noop: true });
    const breaker = await refer({ circuitbreaker: 'error-ratio' });
    const rows = [
      await measure('injvm call, no consumer filter (baseline)', () => plain.sayHello('ann')),
      await measure('injvm call + a no-op consumer filter', () => noop.sayHello('ann')),
      await measure('injvm call + circuitbreaker (closed)', () => breaker.sayHello('ann')),
    ];
    printTable('injvm call (async implementation, zero-copy, timeout 0, awaited)', rows, { baseline: 'injvm call, no consumer filter (baseline)' });
    const [base, n, b] = rows;
    figures.push(['injvm call baseline', `${formatNs(base.nsPerOp)} per call`]);
    figures.push(['+ circuitbreaker', `${formatRatio(b.nsPerOp / base.nsPerOp)} (+${formatNs(b.nsPerOp - base.nsPerOp)}; +${formatNs(b.nsPerOp - n.nsPerOp)} over a no-op filter)`]);
    await app.shutdown();
  } finally {
    testApp.cleanup();
  }
}

console.log('\nFigures:');
const labelWidth = Math.max(...figures.map(([label]) => label.length));
for (const [label, value] of figures) console.log(`  ${`${label}:`.padEnd(labelWidth + 1)}  ${value}`);
