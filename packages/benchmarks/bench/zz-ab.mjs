// A/B: the same call through the baseline build (/work/wt/base) and this one, interleaved in one process.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alternate } from './alternate.mjs';
const [, , flt = 'bare', variant = 'default'] = process.argv;
const packages = ['core', 'cluster', ...(flt === 'filters' ? ['filter-context','filter-echo','filter-timeout','filter-exception'] : [])];
async function appOf(base) {
  const { defineService, Logger, WeftApplication } = await import(`${base}/packages/core/dist/index.js`);
  const silent = new (class extends Logger { debug() {} info() {} warn() {} error() {} })();
  const root = mkdtempSync(join(tmpdir(), 'weft-ab-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'bench-app', version: '1.0.0', dependencies: Object.fromEntries(packages.map((p) => [`@weft/${p}`, '*'])) }));
  mkdirSync(join(root, 'node_modules', '@weft'), { recursive: true });
  for (const pkg of packages) symlinkSync(`${base}/packages/${pkg}`, join(root, 'node_modules', '@weft', pkg));
  const Greeter = defineService('bench.Greeter', { sayHello: { args: [String], returns: String } });
  const impl = { sayHello: async (name) => `hello ${name}` };
  const app = await WeftApplication.start({ root, name: 'bench', logger: silent });
  await app.export(Greeter, impl);
  const opts = { default: {}, neither: { timeout: 0, parameters: { copy: 'false' } } }[variant];
  return { app, g: await app.refer(Greeter, opts), impl };
}
const swap = process.env.SWAP === '1';
const A = await appOf(swap ? '/work/main' : '/work/wt/base');
const B = await appOf(swap ? '/work/wt/base' : '/work/main');
if (swap) console.log('(swapped: base column is NEW)');
const rows = await alternate([
  { name: 'direct', fn: () => A.impl.sayHello('ann') },
  { name: 'base', fn: () => A.g.sayHello('ann') },
  { name: 'new', fn: () => B.g.sayHello('ann') },
], { rounds: 401 });
console.log(`${flt} ${variant}: ` + rows.map((r) => `${r.name} ${r.nsPerOp.toFixed(0)} (${r.ratio.toFixed(2)}×)`).join('  ') + `  new/base ${(rows[2].nsPerOp / rows[1].nsPerOp).toFixed(2)}`);
await A.app.shutdown(); await B.app.shutdown();
