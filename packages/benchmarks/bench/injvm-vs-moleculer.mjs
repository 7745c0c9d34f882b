// One sample of the in-process comparison, in a fresh process: a direct await, Weft's injvm call and Moleculer's local
// call. Prints one JSON line.
//
//   node --expose-gc packages/benchmarks/bench/injvm-vs-moleculer.mjs             the default configuration
//   node --expose-gc packages/benchmarks/bench/injvm-vs-moleculer.mjs filters     … with the default filter packages
//   node --expose-gc packages/benchmarks/bench/injvm-vs-moleculer.mjs tuned       zero-copy, no timeout, sync impl
//
// The default configuration is what `refer()` gives with no keys: copying (json), the 1000 ms timeout, an `async`
// implementation (the call really waits), the default cluster. `filters` installs the demo's filter packages
// (@weft/filter-context, -echo, -timeout, -exception) in the application. `tuned` is the configuration of the old
// headline figure: `copy=false`, `timeout: 0`, a synchronous implementation. Each process measures one
// configuration next to a direct await and Moleculer (with an async or sync action to match), so the ratios are of
// one process; `run.mjs` runs several processes per configuration and reports the median and range.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ServiceBroker } from 'moleculer';
import { defineService, Logger, WeftApplication } from '@weft/core';

import { measure } from '../../core/bench/harness.mjs';

const mode = process.argv[2] ?? 'default';
const silent = new (class extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
})();

// A throwaway application root that resolves @weft/* from this workspace.
const FILTERS = ['filter-context', 'filter-echo', 'filter-timeout', 'filter-exception'];
const packages = ['core', 'cluster', ...(mode === 'filters' ? FILTERS : [])];
const root = mkdtempSync(join(tmpdir(), 'weft-bench-app-'));
writeFileSync(
  join(root, 'package.json'),
  JSON.stringify({ name: 'bench-app', version: '1.0.0', dependencies: Object.fromEntries(packages.map((p) => [`@weft/${p}`, '*'])) }),
);
mkdirSync(join(root, 'node_modules', '@weft'), { recursive: true });
for (const pkg of packages) {
  symlinkSync(fileURLToPath(new globalThis.URL(`../../${pkg}`, import.meta.url)), join(root, 'node_modules', '@weft', pkg));
}

const Greeter = defineService('bench.Greeter', { sayHello: { args: [String], returns: String } });
const tuned = mode === 'tuned';
const impl = tuned ? { sayHello: (name) => `hello ${name}` } : { sayHello: async (name) => `hello ${name}` };
const app = await WeftApplication.start({ root, name: 'bench', logger: silent });
await app.export(Greeter, impl);
const greeter = await app.refer(Greeter, tuned ? { timeout: 0, parameters: { copy: 'false' } } : {});

const broker = new ServiceBroker({ logger: false, metrics: false, tracing: false, transporter: null, cacher: null });
broker.createService({ name: 'greeter', actions: { sayHello: tuned ? (ctx) => `hello ${ctx.params.name}` : async (ctx) => `hello ${ctx.params.name}` } });
await broker.start();
const params = { name: 'ann' };
if ((await greeter.sayHello('ann')) !== 'hello ann') throw new Error('unexpected answer');

const batch = (call) => () => {
  const pending = new Array(64);
  for (let i = 0; i < 64; i++) pending[i] = call();
  return Promise.all(pending);
};

// A longer warm-up than the harness default, for every row alike: the whole stack is then optimised with settled
// type feedback before timing starts.
const options = { warmupMs: 1000 };
const sample = {
  mode,
  // The direct await of the implementation, as issue 15 measures it (and default-call.mjs): the async
  // implementation's own promise is awaited, with no wrapper; a synchronous one (tuned) is awaited as a value.
  direct: (await measure('direct', tuned ? async () => impl.sayHello('ann') : () => impl.sayHello('ann'), options)).nsPerOp,
  weft: (await measure('weft', () => greeter.sayHello('ann'), options)).nsPerOp,
  moleculer: (await measure('moleculer', () => broker.call('greeter.sayHello', params), options)).nsPerOp,
  direct64: (await measure('direct64', batch(tuned ? async () => impl.sayHello('ann') : () => impl.sayHello('ann')), options)).nsPerOp,
  weft64: (await measure('weft64', batch(() => greeter.sayHello('ann')), options)).nsPerOp,
  moleculer64: (await measure('moleculer64', batch(() => broker.call('greeter.sayHello', params)), options)).nsPerOp,
};
await broker.stop();
await app.shutdown();
rmSync(root, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(sample)}\n`);
