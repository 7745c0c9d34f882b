// Benchmarks of the limit filters. Run: `node --expose-gc packages/filter-tpslimit/bench/run.mjs`, or
// `npm run bench` at the repository root (which builds first). Needs built dist/ of @weft/core, @weft/cluster and
// the three filter packages (`npx tsc -p tsconfig.build.json` in each).
//
//   (a) MemoryTpsLimiter.isAllowable decisions per second — admitted (service window, method window) and refused —
//       against a plain Map.get (the floor)
//   (b) one awaited injvm call with each of the three filters active (tps, executelimit, active-limit) vs the same
//       call without any filter (the baseline): the per-call cost of each filter as a ratio
//
// The filters are linked into one throwaway application with @weft/test-utils, as an application installs them;
// this bench file is not runtime code of the package (the package itself imports no other plugin).
// See ../../core/bench/harness.mjs for how to read the tables.
import { cpus, loadavg } from 'node:os';

import { defineService, Filter, Invocation, Logger, URL, WeftApplication } from '@weft/core';
import { MemoryTpsLimiter } from '@weft/filter-tpslimit';
import { createTestApp } from '@weft/test-utils';

import { blackhole, formatNs, formatRatio, measure, printTable } from '../../core/bench/harness.mjs';

const figures = [];
const silent = new (class extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
})();

console.log('\n══ @weft/filter-tpslimit, @weft/filter-executelimit, @weft/filter-activelimit — limit filters ══');
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}` +
    (typeof globalThis.gc === 'function' ? ', --expose-gc' : ' (run with --expose-gc for steadier figures)'),
);

// ---------------------------------------------------------------------------------------------------------------
// (a) isAllowable decisions

{
  const limiter = new MemoryTpsLimiter();
  const open = URL.parse('injvm://127.0.0.1/bench.Greeter?interface=bench.Greeter&tps=1000000000000&tps.interval=60000');
  const perMethod = URL.parse('injvm://127.0.0.1/bench.Other?interface=bench.Other&tps=10&sayHello.tps=1000000000000');
  const exhausted = URL.parse('injvm://127.0.0.1/bench.Busy?interface=bench.Busy&tps=1&tps.interval=3600000');
  const call = new Invocation({ methodName: 'sayHello' });
  limiter.isAllowable(exhausted, call); // spends the one admission of the hour
  const map = new Map([[open.getServiceKey(), { admitted: 0 }]]);
  const key = open.getServiceKey();
  const rows = [
    await measure('floor: Map.get(serviceKey)', () => map.get(key)),
    await measure('isAllowable, service window, admitted', () => limiter.isAllowable(open, call)),
    await measure('isAllowable, method window, admitted', () => limiter.isAllowable(perMethod, call)),
    await measure('isAllowable, refused (window exhausted)', () => limiter.isAllowable(exhausted, call)),
  ];
  printTable('MemoryTpsLimiter.isAllowable — one decision (sync)', rows, { baseline: 'floor: Map.get(serviceKey)' });
  const [, service, method, refused] = rows;
  blackhole(limiter.size);
  figures.push([
    'tps isAllowable',
    `${(service.opsPerSec / 1e6).toFixed(1)} M decisions/s (service window), ${(method.opsPerSec / 1e6).toFixed(1)} M/s (method window), ` +
      `${(refused.opsPerSec / 1e6).toFixed(1)} M/s refusing — ${formatNs(service.nsPerOp)} per admitted decision`,
  ]);
}

// ---------------------------------------------------------------------------------------------------------------
// (b) injvm call with each filter vs without

{
  const testApp = createTestApp(
    ['@weft/core', '@weft/cluster', '@weft/filter-tpslimit', '@weft/filter-executelimit', '@weft/filter-activelimit'],
    { prefix: 'weft-bench-limits' },
  );
  try {
    const Greeter = defineService('bench.Greeter', { sayHello: { args: [String], returns: String } });
    const impl = { sayHello: (name) => `hello ${name}` };
    const app = await WeftApplication.start({ root: testApp.root, name: 'bench-limits', logger: silent });
    // A filter that only passes the call on: what any one filter costs, for comparison.
    class NoopFilter extends Filter {
      invoke(invoker, invocation) {
        return invoker.invoke(invocation);
      }
    }
    app.model.getExtensionLoader(Filter).addExtension('noop', NoopFilter, { activate: { group: 'provider', value: 'noop' } });
    // Zero-copy and no timeout: the floor is as low as an injvm call gets, so each filter's cost shows in full.
    const fast = { copy: 'false' };
    await app.export(Greeter, impl, { version: 'plain', parameters: fast });
    await app.export(Greeter, impl, { version: 'noop', parameters: { ...fast, noop: true } });
    await app.export(Greeter, impl, { version: 'tps', parameters: { ...fast, tps: 1e12, 'tps.interval': 60_000 } });
    await app.export(Greeter, impl, { version: 'executes', parameters: { ...fast, executes: 1000 } });
    const refer = (version, parameters = {}) => app.refer(Greeter, { version, retries: 0, timeout: 0, parameters: { ...fast, ...parameters } });
    const plain = await refer('plain');
    const noop = await refer('noop');
    const tps = await refer('tps');
    const executes = await refer('executes');
    const actives = await refer('plain', { actives: 1000 });

    const rows = [
      await measure('injvm call, no filter (baseline)', () => plain.sayHello('ann')),
      await measure('injvm call + a no-op filter (provider)', () => noop.sayHello('ann')),
      await measure('injvm call + tps (provider)', () => tps.sayHello('ann')),
      await measure('injvm call + executelimit (provider)', () => executes.sayHello('ann')),
      await measure('injvm call + active-limit (consumer)', () => actives.sayHello('ann')),
    ];
    printTable('injvm call (zero-copy, timeout 0, awaited) — with one limit filter vs without', rows, {
      baseline: 'injvm call, no filter (baseline)',
    });
    const [base, n, t, e, a] = rows;
    const extra = (row) =>
      `${formatRatio(row.nsPerOp / base.nsPerOp)} the call without filters (+${formatNs(row.nsPerOp - base.nsPerOp)}; ` +
      `+${formatNs(row.nsPerOp - n.nsPerOp)} over a no-op filter)`;
    figures.push(['injvm call baseline', `${formatNs(base.nsPerOp)} per call (${(base.opsPerSec / 1e3).toFixed(0)} k calls/s)`]);
    figures.push(['+ a no-op filter', `${formatRatio(n.nsPerOp / base.nsPerOp)} (+${formatNs(n.nsPerOp - base.nsPerOp)})`]);
    figures.push(['+ tps', extra(t)]);
    figures.push(['+ executelimit', extra(e)]);
    figures.push(['+ active-limit', extra(a)]);
    await app.shutdown();
  } finally {
    testApp.cleanup();
  }
}

console.log('\nFigures:');
const labelWidth = Math.max(...figures.map(([label]) => label.length));
for (const [label, value] of figures) console.log(`  ${`${label}:`.padEnd(labelWidth + 1)}  ${value}`);
