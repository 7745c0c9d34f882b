// Before/after on a busy machine: the default injvm call (async implementation) through a baseline build and
// through this workspace's, timed in interleaved rounds in one process (alternate.mjs), so both see the same load.
//
//   node --expose-gc packages/benchmarks/bench/ab-default-call.mjs <baseline> [bare|filters] [default|neither]
//
// <baseline>: another checkout with the same packages built (e.g. `git worktree add ../base <rev>` and `tsc -p
// tsconfig.build.json` in its core, cluster and filter packages) whose node_modules/@weft links point to its own
// packages — each application then loads only its own copy of @weft/core. `filters` installs the demo's filter
// packages; `neither` is copy=false with timeout 0. SWAP=1 measures this workspace first (order bias check).
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alternate } from './alternate.mjs';
import { fileURLToPath } from 'node:url';

const [, , baseline, flt = 'bare', variant = 'default'] = process.argv;
if (!baseline) {
  console.error('usage: ab-default-call.mjs <baseline checkout> [bare|filters] [default|neither]');
  process.exit(2);
}
const workspace = fileURLToPath(new globalThis.URL('../../..', import.meta.url)).replace(/\/$/, '');
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
const A = await appOf(swap ? workspace : baseline);
const B = await appOf(swap ? baseline : workspace);
if (swap) console.log('(swapped: the base column is this workspace, new/base reads base/new)');
const rows = await alternate([
  { name: 'direct', fn: () => A.impl.sayHello('ann') },
  { name: 'base', fn: () => A.g.sayHello('ann') },
  { name: 'new', fn: () => B.g.sayHello('ann') },
], { rounds: 401 });
console.log(`${flt} ${variant}: ` + rows.map((r) => `${r.name} ${r.nsPerOp.toFixed(0)} (${r.ratio.toFixed(2)}×)`).join('  ') + `  new/base ${(rows[2].nsPerOp / rows[1].nsPerOp).toFixed(2)}`);
await A.app.shutdown(); await B.app.shutdown();
