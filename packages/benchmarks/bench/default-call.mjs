// One sample, in a fresh process, of the default injvm call (copy, default 1000 ms timeout, async implementation),
// bare and with the demo's default filter packages installed, next to a direct await and Moleculer's local call.
// Prints one JSON line (ns per call). run.mjs runs it several times and reports the median and the range.
//   node --expose-gc packages/benchmarks/bench/default-call.mjs
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { ServiceBroker } from 'moleculer';
import { defineService, Logger, WeftApplication } from '@weft/core';
import { createTestApp } from '@weft/test-utils';

import { formatRatio, printTable, summarize } from '../../core/bench/harness.mjs';

import { alternate } from './alternate.mjs';

async function sample() {
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

  // Interleaved rounds (alternate.mjs): the four stacks see the same machine load.
  const [direct, weft, weftFilters, moleculer] = await alternate([
    { name: 'direct', fn: () => impl.sayHello('ann') },
    { name: 'weft', fn: () => bare.greeter.sayHello('ann') },
    { name: 'weft+filters', fn: () => filtered.greeter.sayHello('ann') },
    { name: 'moleculer', fn: () => broker.call('greeter.sayHello', params) },
  ]);
  const sample = { direct: direct.nsPerOp, weft: weft.nsPerOp, weftFilters: weftFilters.nsPerOp, moleculer: moleculer.nsPerOp };
  await broker.stop();
  for (const s of [bare, filtered]) {
    await s.app.shutdown();
    s.cleanup();
  }
  return sample;
}

/** Runs `processes` fresh samples and adds the table and the figures (for run.mjs). */
export async function benchDefaultCall(figures, processes = Number(process.env.WEFT_BENCH_PROCESSES ?? 5)) {
  const script = fileURLToPath(import.meta.url);
  const samples = [];
  for (let i = 0; i < processes; i++) {
    const out = execFileSync(process.execPath, ['--expose-gc', script], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
    samples.push(JSON.parse(out.trim().split('\n').pop()));
  }
  const row = (name, key) => summarize(name, samples.map((s) => s[key]));
  const rows = [
    row('direct: await asyncImpl.sayHello()', 'direct'),
    row('Weft injvm, defaults (copy, timeout 1000), async impl', 'weft'),
    row('… with context, echo, timeout, exception installed', 'weftFilters'),
    row('Moleculer 0.14 local call, async action', 'moleculer'),
  ];
  printTable(`Default injvm call, async implementation (median of ${processes} processes)`, rows, { baseline: 'direct: await asyncImpl.sayHello()' });
  const per = (a, b) => samples.map((s) => formatRatio(s[a] / s[b])).join(', ');
  const [direct, weft, filtered, mol] = rows;
  figures.push(
    `issue 15, default injvm call (async impl): ${formatRatio(weft.nsPerOp / direct.nsPerOp)} a direct await (goal ≤ 4×; per process ${per('weft', 'direct')}), ` +
      `throughput ${formatRatio(mol.nsPerOp / weft.nsPerOp)} Moleculer's (goal ≥ 2×; ${per('moleculer', 'weft')}); with the default filter packages ` +
      `${formatRatio(filtered.nsPerOp / direct.nsPerOp)} (goal ≤ 5×; ${per('weftFilters', 'direct')})`,
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(`${JSON.stringify(await sample())}\n`);
