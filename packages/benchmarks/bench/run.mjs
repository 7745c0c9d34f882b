// Cross-package benchmarks: Weft vs the peers named in the issues, in one run, printed as ratios.
//   node --expose-gc packages/benchmarks/bench/run.mjs
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import compose from 'koa-compose';
import { ServiceBroker } from 'moleculer';
import {
  buildFilterChain,
  defineService,
  Filter,
  Invocation,
  Invoker,
  Logger,
  Result,
  URL,
  WeftApplication,
} from '@weft/core';

import { formatRatio, measure, printTable } from '../../core/bench/harness.mjs';

const figures = [];
const silent = new (class extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
})();

// ------------------------------------------------------------------------------------------------------------
// 1. Filter chain: 10 no-op filters vs 10 nested closures (floor) vs koa-compose with 10 no-op middlewares.
{
  const N = 10;
  const done = Promise.resolve(Result.of('ok'));
  const url = URL.parse('injvm://127.0.0.1/bench.Chain');
  class Terminal extends Invoker {
    getUrl() {
      return url;
    }
    invoke() {
      return done;
    }
  }
  class NoopFilter extends Filter {
    invoke(invoker, invocation) {
      return invoker.invoke(invocation);
    }
  }
  const chain = buildFilterChain(new Terminal(), Array.from({ length: N }, () => new NoopFilter()), () => 'noop', silent);
  let closure = () => done;
  for (let i = 0; i < N; i++) {
    const next = closure;
    closure = (ctx) => next(ctx);
  }
  const middleware = compose(Array.from({ length: N }, () => (ctx, next) => next()));
  const invocation = new Invocation({ methodName: 'm' });
  const ctx = {};
  const rows = [
    await measure('10 nested closures (floor)', async () => closure(ctx)),
    await measure('Weft: 10 no-op filters', async () => chain.invoke(invocation)),
    await measure('koa-compose: 10 no-op middlewares', async () => middleware(ctx)),
  ];
  printTable('Filter chain — one call through 10 no-op steps (awaited)', rows, { baseline: '10 nested closures (floor)' });
  const [floor, weft, koa] = rows;
  figures.push(`10 no-op filters: ${formatRatio(weft.nsPerOp / floor.nsPerOp)} the closure floor (target ≤ 2×); koa-compose ${formatRatio(koa.nsPerOp / floor.nsPerOp)}; Weft is ${formatRatio(koa.nsPerOp / weft.nsPerOp)} cheaper than koa-compose`);
}

// ------------------------------------------------------------------------------------------------------------
// 2. An injvm call through the default consumer and provider chains vs a direct call vs Moleculer's local call.
{
  const root = mkdtempSync(join(tmpdir(), 'weft-bench-app-'));
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: 'bench-app', version: '1.0.0', dependencies: { '@weft/core': '*', '@weft/cluster': '*' } }),
  );
  // Resolve @weft/* from this workspace: link them into the temp app.
  const { symlinkSync, mkdirSync } = await import('node:fs');
  const { fileURLToPath } = await import('node:url');
  mkdirSync(join(root, 'node_modules', '@weft'), { recursive: true });
  for (const pkg of ['core', 'cluster']) {
    symlinkSync(fileURLToPath(new globalThis.URL(`../../${pkg}`, import.meta.url)), join(root, 'node_modules', '@weft', pkg));
  }

  const Greeter = defineService('bench.Greeter', { sayHello: { args: [String], returns: String } });
  const impl = { sayHello: (name) => `hello ${name}` };
  const app = await WeftApplication.start({ root, name: 'bench', logger: silent });
  await app.export(Greeter, impl);
  const zeroCopy = await app.refer(Greeter, { timeout: 0, parameters: { copy: 'false' } });
  const zeroCopyTimeout = await app.refer(Greeter, { group: undefined, parameters: { copy: 'false' } });
  const copying = await app.refer(Greeter, { timeout: 0 });
  const copyingTimeout = await app.refer(Greeter, {});

  const broker = new ServiceBroker({ logger: false, metrics: false, tracing: false, transporter: null, cacher: null });
  broker.createService({ name: 'greeter', actions: { sayHello: (ctx) => `hello ${ctx.params.name}` } });
  await broker.start();
  const params = { name: 'ann' };

  const rows = [
    await measure('direct: await impl.sayHello()', async () => impl.sayHello('ann')),
    await measure('Weft injvm, zero-copy, timeout 0', () => zeroCopy.sayHello('ann')),
    await measure('Weft injvm, zero-copy, timeout 1000 (default)', () => zeroCopyTimeout.sayHello('ann')),
    await measure('Weft injvm, copying (json), timeout 0', () => copying.sayHello('ann')),
    await measure('Weft injvm, copying (json), timeout 1000', () => copyingTimeout.sayHello('ann')),
    await measure('Moleculer 0.14 local broker.call', () => broker.call('greeter.sayHello', params)),
  ];
  printTable('injvm call — proxy → cluster → consumer chain → injvm → provider chain → implementation', rows, {
    baseline: 'direct: await impl.sayHello()',
  });
  // Throughput with 64 calls in flight (Promise.all of 64, per call), the same three stacks.
  const batch = (call) => () => {
    const pending = new Array(64);
    for (let i = 0; i < 64; i++) pending[i] = call();
    return Promise.all(pending);
  };
  const concurrent = [
    await measure('direct, 64 in flight', batch(async () => impl.sayHello('ann'))),
    await measure('Weft injvm zero-copy timeout 0, 64 in flight', batch(() => zeroCopy.sayHello('ann'))),
    await measure('Moleculer local call, 64 in flight', batch(() => broker.call('greeter.sayHello', params))),
  ];
  printTable('injvm call — throughput with 64 calls in flight (time per batch of 64)', concurrent, { baseline: 'direct, 64 in flight' });
  figures.push(
    `injvm zero-copy, 64 in flight: Weft throughput = ${formatRatio(concurrent[2].nsPerOp / concurrent[1].nsPerOp)} Moleculer's ` +
      `(Weft ${formatRatio(concurrent[1].nsPerOp / concurrent[0].nsPerOp)} direct, Moleculer ${formatRatio(concurrent[2].nsPerOp / concurrent[0].nsPerOp)} direct)`,
  );
  const [direct, zc, zct, cp, , mol] = rows;
  figures.push(
    `injvm zero-copy (timeout 0, as Moleculer's default): ${formatRatio(zc.nsPerOp / direct.nsPerOp)} a direct call; ` +
      `Moleculer local call ${formatRatio(mol.nsPerOp / direct.nsPerOp)}; Weft throughput = ${formatRatio(mol.nsPerOp / zc.nsPerOp)} Moleculer's (target ≥ 3×)`,
  );
  figures.push(
    `injvm zero-copy with the default 1000 ms timeout: ${formatRatio(zct.nsPerOp / direct.nsPerOp)} a direct call (${formatRatio(mol.nsPerOp / zct.nsPerOp)} Moleculer's throughput); copying mode (json): ${formatRatio(cp.nsPerOp / direct.nsPerOp)}`,
  );
  await broker.stop();
  await app.shutdown();
  rmSync(root, { recursive: true, force: true });
}

// ------------------------------------------------------------------------------------------------------------
// 3. What @weft/mock's MockClusterWrapper adds to a normal (non-mocked) call, vs the unwrapped cluster.
{
  const { createTestApp } = await import('@weft/test-utils');
  const { Cluster, Invocation, StaticDirectory } = await import('@weft/core');
  const { root, cleanup } = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock']);
  const Greeter = defineService('bench.Greeter', { sayHello: { args: [String], returns: String } });
  const app = await WeftApplication.start({ root, name: 'bench-mock', logger: silent });
  const done = Promise.resolve(Result.of('ok'));
  const consumerUrl = URL.parse('consumer://127.0.0.1/bench.Greeter?interface=bench.Greeter&side=consumer&methods=sayHello');
  const providerUrl = URL.parse('injvm://127.0.0.1/bench.Greeter?interface=bench.Greeter');
  class Provider extends Invoker {
    getUrl() {
      return providerUrl;
    }
    invoke() {
      return done;
    }
  }
  const directory = new StaticDirectory(Greeter, consumerUrl, [new Provider()]);
  const clusters = app.model.getExtensionLoader(Cluster);
  const wrapped = clusters.getExtension('failover').join(directory);
  const bare = clusters.getExtension('failover', false).join(directory);
  const invocation = Invocation.of('sayHello', ['ann'], Greeter);
  const rows = [
    await measure('failover, unwrapped', () => bare.invoke(invocation)),
    await measure('failover + MockClusterWrapper (no mock set)', () => wrapped.invoke(invocation)),
  ];
  printTable('@weft/mock — the wrapper on a normal call (cluster invoke, trivial provider)', rows, { baseline: 'failover, unwrapped' });
  figures.push(`MockClusterWrapper on a non-mocked call: ${formatRatio(rows[1].nsPerOp / rows[0].nsPerOp)} the unwrapped failover cluster (+${(rows[1].nsPerOp - rows[0].nsPerOp).toFixed(1)} ns)`);
  await app.shutdown();
  cleanup();
}

console.log('\nFigures (@weft/benchmarks):');
for (const line of figures) console.log(`  ${line}`);
