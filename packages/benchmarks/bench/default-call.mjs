// One sample, in a fresh process, of the default injvm call (copy, default 1000 ms timeout, async implementation),
// bare and with the demo's default filter packages installed, next to a direct await and Moleculer's local call.
// Prints one JSON line (ns per call). run.mjs runs it several times and reports the median and the range.
//   node --expose-gc packages/benchmarks/bench/default-call.mjs
import { ServiceBroker } from 'moleculer';
import { defineService, Logger, WeftApplication } from '@weft/core';
import { createTestApp } from '@weft/test-utils';

import { measure } from '../../core/bench/harness.mjs';

const silent = new (class extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
})();

const Greeter = defineService('bench.Greeter', { sayHello: { args: [String], returns: String } });
const impl = { sayHello: async (name) => `hello ${name}` };

async function start(packages, name) {
  const testApp = createTestApp(['@weft/core', '@weft/cluster', ...packages], { prefix: `weft-bench-${name}` });
  const app = await WeftApplication.start({ root: testApp.root, name, logger: silent });
  await app.export(Greeter, impl);
  const greeter = await app.refer(Greeter);
  return { app, greeter, cleanup: testApp.cleanup };
}

const bare = await start([], 'default-bare');
const filtered = await start(['@weft/filter-context', '@weft/filter-echo', '@weft/filter-timeout', '@weft/filter-exception'], 'default-filters');

const broker = new ServiceBroker({ logger: false, metrics: false, tracing: false, transporter: null, cacher: null });
broker.createService({ name: 'greeter', actions: { sayHello: async (ctx) => `hello ${ctx.params.name}` } });
await broker.start();
const params = { name: 'ann' };

const options = { warmupMs: 700 };
const sample = {
  direct: (await measure('direct', () => impl.sayHello('ann'), options)).nsPerOp,
  weft: (await measure('weft', () => bare.greeter.sayHello('ann'), options)).nsPerOp,
  weftFilters: (await measure('weft+filters', () => filtered.greeter.sayHello('ann'), options)).nsPerOp,
  moleculer: (await measure('moleculer', () => broker.call('greeter.sayHello', params), options)).nsPerOp,
};
await broker.stop();
for (const s of [bare, filtered]) {
  await s.app.shutdown();
  s.cleanup();
}
process.stdout.write(`${JSON.stringify(sample)}\n`);
