// One sample of the headline comparison, in a fresh process: a direct call, Weft's injvm call (zero-copy, no
// timeout) and Moleculer's local call, one after another and with 64 calls in flight. Prints one JSON line.
//
// Why a fresh process per sample: calls this short (tens of ns) depend on which functions the JIT happened to
// inline, which varies from one process to the next by ±10–15 % for every stack alike. `run.mjs` runs this file
// several times and reports the median of the processes (and their range), the same way for Weft and Moleculer.
//   node --expose-gc packages/benchmarks/bench/injvm-vs-moleculer.mjs
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ServiceBroker } from 'moleculer';
import { defineService, Logger, WeftApplication } from '@weft/core';

import { measure } from '../../core/bench/harness.mjs';

const silent = new (class extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
})();

// A throwaway application root that resolves @weft/* from this workspace.
const root = mkdtempSync(join(tmpdir(), 'weft-bench-app-'));
writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'bench-app', version: '1.0.0', dependencies: { '@weft/core': '*', '@weft/cluster': '*' } }));
mkdirSync(join(root, 'node_modules', '@weft'), { recursive: true });
for (const pkg of ['core', 'cluster']) {
  symlinkSync(fileURLToPath(new globalThis.URL(`../../${pkg}`, import.meta.url)), join(root, 'node_modules', '@weft', pkg));
}

const Greeter = defineService('bench.Greeter', { sayHello: { args: [String], returns: String } });
const impl = { sayHello: (name) => `hello ${name}` };
const app = await WeftApplication.start({ root, name: 'bench', logger: silent });
await app.export(Greeter, impl);
const greeter = await app.refer(Greeter, { timeout: 0, parameters: { copy: 'false' } });

const broker = new ServiceBroker({ logger: false, metrics: false, tracing: false, transporter: null, cacher: null });
broker.createService({ name: 'greeter', actions: { sayHello: (ctx) => `hello ${ctx.params.name}` } });
await broker.start();
const params = { name: 'ann' };

const batch = (call) => () => {
  const pending = new Array(64);
  for (let i = 0; i < 64; i++) pending[i] = call();
  return Promise.all(pending);
};

// A longer warm-up than the harness default, for every row alike: the whole stack is then optimised with settled
// type feedback before timing starts.
const options = { warmupMs: 1000 };
const sample = {
  direct: (await measure('direct', async () => impl.sayHello('ann'), options)).nsPerOp,
  weft: (await measure('weft', () => greeter.sayHello('ann'), options)).nsPerOp,
  moleculer: (await measure('moleculer', () => broker.call('greeter.sayHello', params), options)).nsPerOp,
  direct64: (await measure('direct64', batch(async () => impl.sayHello('ann')), options)).nsPerOp,
  weft64: (await measure('weft64', batch(() => greeter.sayHello('ann')), options)).nsPerOp,
  moleculer64: (await measure('moleculer64', batch(() => broker.call('greeter.sayHello', params)), options)).nsPerOp,
};
await broker.stop();
await app.shutdown();
rmSync(root, { recursive: true, force: true });
process.stdout.write(`${JSON.stringify(sample)}\n`);
