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

import { formatRatio, measure, printTable, summarize } from '../../core/bench/harness.mjs';

/** The figures block's first lines: the default configuration, then tuned (section 2), then tri JSON (section 5). */
const headline = [];
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
// 2. An injvm call, in the DEFAULT configuration first, then tuned — each next to a direct await and Moleculer.
//
// Each sample is a fresh process (injvm-vs-moleculer.mjs <mode>): at tens of ns per call, which functions the JIT
// inlines moves every stack by ±10–15 % from one process to the next. Each process measures one configuration and
// the direct await and Moleculer alongside; the table shows, per row, the median over the processes and their range.
//   default  what refer() gives with no keys: json copy, the 1000 ms timeout, an async implementation, failover
//   filters  the same with the demo's filter packages installed (context, echo, timeout, exception)
//   tuned    copy=false, timeout 0, a synchronous implementation (the configuration of the old headline figure)
{
  const { execFileSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const script = fileURLToPath(new globalThis.URL('./injvm-vs-moleculer.mjs', import.meta.url));
  const processes = Number(process.env.WEFT_BENCH_PROCESSES ?? (process.env.WEFT_BENCH_QUICK === '1' ? 1 : 3));
  const LABELS = {
    default: 'DEFAULT configuration (json copy, timeout 1000 ms, async implementation)',
    filters: 'DEFAULT + filter packages (context, echo, timeout, exception)',
    tuned: 'TUNED (copy=false, timeout 0, sync implementation)',
  };
  const GOALS = { default: { direct: 4, moleculer: 2 }, filters: { direct: 5 }, tuned: {} };
  for (const mode of ['default', 'filters', 'tuned']) {
    const samples = [];
    for (let i = 0; i < processes; i++) {
      const out = execFileSync(process.execPath, ['--expose-gc', script, mode], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
      samples.push(JSON.parse(out.trim().split('\n').pop()));
    }
    const row = (name, key) => summarize(name, samples.map((s) => s[key]));
    const sequential = [row('direct: await impl.sayHello()', 'direct'), row(`Weft injvm — ${mode}`, 'weft'), row('Moleculer 0.14 local broker.call', 'moleculer')];
    printTable(`${LABELS[mode]} — one call at a time, median of ${processes} process(es) (min…max across them)`, sequential, {
      baseline: 'direct: await impl.sayHello()',
    });
    const concurrent = [row('direct, 64 in flight', 'direct64'), row(`Weft injvm — ${mode}, 64 in flight`, 'weft64'), row('Moleculer, 64 in flight', 'moleculer64')];
    printTable(`${LABELS[mode]} — 64 calls in flight, time per batch of 64`, concurrent, { baseline: 'direct, 64 in flight' });
    const [direct, weft, mol] = sequential;
    const range = (values) => (values.length > 1 ? ` (per process: ${values.map(formatRatio).join(', ')})` : '');
    const goal = GOALS[mode];
    headline.push(
      `${LABELS[mode]}: Weft ${formatRatio(weft.nsPerOp / direct.nsPerOp)} a direct await${goal.direct ? ` (target ≤ ${goal.direct}×)` : ''}` +
        `${range(samples.map((s) => s.weft / s.direct))}; throughput ${formatRatio(mol.nsPerOp / weft.nsPerOp)} Moleculer's${goal.moleculer ? ` (target ≥ ${goal.moleculer}×)` : ''}` +
        `${range(samples.map((s) => s.moleculer / s.weft))}; Moleculer ${formatRatio(mol.nsPerOp / direct.nsPerOp)} direct; ` +
        `64 in flight: Weft ${formatRatio(concurrent[1].nsPerOp / concurrent[0].nsPerOp)} direct, ${formatRatio(concurrent[2].nsPerOp / concurrent[1].nsPerOp)} Moleculer's throughput`,
    );
  }
}

// The injvm copy itself vs plain JSON and structuredClone of the same values.
await (await import('./injvm-copy.mjs')).benchInjvmCopy(figures);

// The other modes (default timeout, copying, async implementation), measured in this process.
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
  // The same service with an async implementation: the call then really waits, so every layer that must see the
  // outcome pays for promises (Moleculer is given an async action too).
  const AsyncGreeter = defineService('bench.AsyncGreeter', { sayHello: { args: [String], returns: String } });
  const asyncImpl = { sayHello: async (name) => `hello ${name}` };
  const app = await WeftApplication.start({ root, name: 'bench', logger: silent });
  await app.export(Greeter, impl);
  await app.export(AsyncGreeter, asyncImpl);
  const zeroCopy = await app.refer(Greeter, { timeout: 0, parameters: { copy: 'false' } });
  const asyncZeroCopy = await app.refer(AsyncGreeter, { timeout: 0, parameters: { copy: 'false' } });
  const zeroCopyTimeout = await app.refer(Greeter, { group: undefined, parameters: { copy: 'false' } });
  const copying = await app.refer(Greeter, { timeout: 0 });
  const copyingTimeout = await app.refer(Greeter, {});

  const broker = new ServiceBroker({ logger: false, metrics: false, tracing: false, transporter: null, cacher: null });
  broker.createService({ name: 'greeter', actions: { sayHello: (ctx) => `hello ${ctx.params.name}` } });
  broker.createService({ name: 'asyncGreeter', actions: { sayHello: async (ctx) => `hello ${ctx.params.name}` } });
  await broker.start();
  const params = { name: 'ann' };

  const rows = [
    await measure('direct: await impl.sayHello()', async () => impl.sayHello('ann')),
    await measure('Weft injvm, zero-copy, timeout 0 (in this process)', () => zeroCopy.sayHello('ann')),
    await measure('Weft injvm, zero-copy, timeout 1000 (default)', () => zeroCopyTimeout.sayHello('ann')),
    await measure('Weft injvm, copying (json), timeout 0', () => copying.sayHello('ann')),
    await measure('Weft injvm, copying (json), timeout 1000', () => copyingTimeout.sayHello('ann')),
    await measure('Moleculer 0.14 local broker.call', () => broker.call('greeter.sayHello', params)),
    await measure('async impl — direct: await asyncImpl.sayHello()', () => asyncImpl.sayHello('ann')),
    await measure('async impl — Weft injvm, zero-copy, timeout 0', () => asyncZeroCopy.sayHello('ann')),
    await measure('async impl — Moleculer local broker.call', () => broker.call('asyncGreeter.sayHello', params)),
  ];
  printTable('injvm call, every mode (one process) — proxy → cluster → consumer chain → injvm → provider chain → implementation', rows, {
    baseline: 'direct: await impl.sayHello()',
  });
  const [direct, , zct, cp, , mol, asyncDirect, asyncZc, asyncMol] = rows;
  figures.push(
    `injvm zero-copy, async implementation (the call really waits): ${formatRatio(asyncZc.nsPerOp / direct.nsPerOp)} a direct call; ` +
      `Moleculer with an async action ${formatRatio(asyncMol.nsPerOp / direct.nsPerOp)}; Weft throughput = ${formatRatio(asyncMol.nsPerOp / asyncZc.nsPerOp)} Moleculer's ` +
      `(direct await of the async implementation: ${formatRatio(asyncDirect.nsPerOp / direct.nsPerOp)})`,
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

// ------------------------------------------------------------------------------------------------------------
// Redis limiter (@weft/tps-limiter-redis) vs the memory limiter: decisions/s and the latency added per call.
await (await import('./redis-limiter.mjs')).benchRedisLimiter(figures, silent);
// Hessian2 (@weft/serialization-hessian2) vs hessian.js: typed POJO and 1,000-element list, encode and decode.
await (await import('./hessian.mjs')).benchHessian(figures);
// dubbo:// echo, 64 in flight: Weft's dubbo consumer vs apache-dubbo-js's client and Weft's tri, on one Weft provider.
await (await import('./dubbo-echo.mjs')).benchDubboEcho(figures);
// Rule scale (issue 18): 10,000 override rules applied by a RegistryDirectory, in one notification and one at a time
// (in a fresh process: the heap this one built up by now would be in its figures).
{
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const script = fileURLToPath(new globalThis.URL('./rule-scale.mjs', import.meta.url));
  const run = spawnSync(process.execPath, ['--expose-gc', script, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) throw new Error(`rule-scale.mjs failed (${run.signal ?? `exit ${run.status}`}):\n${run.stdout}`);
  const lines = run.stdout.trimEnd().split('\n');
  const last = JSON.parse(lines.pop());
  console.log(lines.join('\n'));
  figures.push(...last.figures);
}
// @weft/filter-metrics and @weft/filter-tracing: added cost per call (fresh processes; observability.mjs).
await (await import('./observability.mjs')).benchObservability(figures);
// Routing (issue 18): per-call cost of 3 routers on 100 providers vs none.
await (await import('./routing.mjs')).benchRouting(figures, silent);
// 4. Streaming over tri vs @grpc/grpc-js: server-streaming throughput, bidi ping-pong latency, 1,000 idle
// connections' server RSS. Servers run in child processes (grpc-streaming.mjs spawns stream-server.mjs per stack).
{
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const script = fileURLToPath(new globalThis.URL('./grpc-streaming.mjs', import.meta.url));
  const run = spawnSync(process.execPath, ['--expose-gc', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) throw new Error(`grpc-streaming.mjs failed (${run.signal ?? `exit ${run.status}`}):\n${run.stdout}`);
  const lines = run.stdout.trimEnd().split('\n');
  const last = JSON.parse(lines.pop());
  console.log(lines.join('\n'));
  figures.push(...last.figures);
}

// Token comparison (@weft/filter-token): time by candidate length.
await (await import('./token-compare.mjs')).benchTokenCompare(figures);
// ------------------------------------------------------------------------------------------------------------
// 5. tri with the JSON codec vs grpc-js (64 B, 64 KiB, 1 MiB; 64 in flight) and the 64 × 1 MiB burst (tri-json.mjs).
{
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const script = fileURLToPath(new globalThis.URL('./tri-json.mjs', import.meta.url));
  const run = spawnSync(process.execPath, ['--expose-gc', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  if (run.status !== 0) throw new Error(`tri-json.mjs failed (${run.signal ?? `exit ${run.status}`}):\n${run.stdout}`);
  const lines = run.stdout.trimEnd().split('\n');
  const last = JSON.parse(lines.pop());
  console.log(lines.join('\n'));
  const perRound = (row) => row.perRound.map(formatRatio).join(', ');
  headline.push(
    `tri JSON echo, 64 in flight: Weft throughput ${last.rows.map((r) => `${formatRatio(r.grpc / r.weft)} grpc-js's at ${r.label}`).join(', ')} ` +
      `(target ≥ 1.0× at 64 KiB and 1 MiB; per round: ${last.rows.map((r) => `${r.label} ${perRound(r)}`).join('; ')})`,
  );
  headline.push(
    `tri 64 × 1 MiB burst, twice: ${last.burst.failures} failures, ${last.burst.executions} executions for ${last.burst.calls} calls (target 0 / ${last.burst.calls})`,
  );
}
// Issue 15 call-path goals (fastcore), each in fresh processes.
await (await import('./default-call.mjs')).benchDefaultCall(figures);
await (await import('./filter-chain.mjs')).benchFilterChain(figures);
await (await import('./context-await.mjs')).benchContextAwait(figures);
await (await import('./timeout-cost.mjs')).benchTimeoutCost(figures);

console.log('\nFigures (@weft/benchmarks):');
for (const line of headline) console.log(`  ${line}`);
for (const line of figures) console.log(`  ${line}`);
