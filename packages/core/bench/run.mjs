// Benchmarks of @weft/core's extension kernel. Run: `node --expose-gc packages/core/bench/run.mjs`, or
// `npm run bench` at the repository root (which builds first). Needs a built dist/ (`npx tsc -p tsconfig.build.json`).
//
//   (a) getExtension(name) on an already-created name, and getExtension('default'), vs a plain Map.get (the floor)
//   (b) getActivateExtensions(url, 'service.filter', 'provider'): cached (same URL object) vs the floor, and
//       uncached (a fresh URL.parse each call), reported separately from URL.parse alone
//   (c) discovery over 200 installed packages (FrameworkModel.create: package.jsons + manifests, no code), and the
//       first `await loader.load()` of the 600 manifest entries (in fresh processes, so imports are really cold)
//
// See harness.mjs for how to read the tables. Temporary files go to os.tmpdir() and are removed at the end.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { FrameworkModel, URL } from '@weft/core';
import { SPI } from '@weft/core/spi';

import { blackhole, formatNs, measure, printTable, summarize } from './harness.mjs';

const PACKAGES = 200;
const ENTRIES_PER_PACKAGE = 3;
const POINT_ID = 'bench.point.Thing';
const SELF = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------------------------------------------------------
// Child mode: one cold discovery + first load in a fresh process (module cache and JIT both cold).

if (process.argv[2] === '--cold-child') {
  const root = process.argv[3];
  const { Thing } = await import(pathToFileURL(join(root, 'node_modules', '@bench', 'spi', 'index.js')).href);
  SPI({ id: POINT_ID })(Thing);
  const t0 = process.hrtime.bigint();
  const framework = FrameworkModel.create({ root });
  const t1 = process.hrtime.bigint();
  const loader = framework.newApplication('bench').getExtensionLoader(Thing);
  await loader.load();
  const t2 = process.hrtime.bigint();
  const entries = loader.getSupportedExtensions().length;
  await framework.destroy();
  process.stdout.write(JSON.stringify({ discoveryNs: Number(t1 - t0), loadNs: Number(t2 - t1), entries }));
  process.exit(0);
}

// ---------------------------------------------------------------------------------------------------------------

const tempDirs = [];
function makeTempDir(prefix) {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
  tempDirs.push(dir);
  return dir;
}
function cleanup() {
  for (const dir of tempDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    cleanup();
    process.exit(130);
  });
}

const writeJson = (file, value) => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
const figures = [];
const ratioText = (row, base) => `${(row.nsPerOp / base.nsPerOp).toFixed(2)}×`;

console.log('\n══ @weft/core — extension kernel ══');
console.log(
  `node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}` +
    (typeof globalThis.gc === 'function' ? ', --expose-gc' : ' (run with --expose-gc for steadier figures)'),
);

// ---------------------------------------------------------------------------------------------------------------
// (a) + (b): a programmatic extension point with 12 activatable filters.

const appRoot = makeTempDir('weft-bench-app-');
writeJson(join(appRoot, 'package.json'), { name: 'weft-bench-app', version: '1.0.0', private: true });

class Filter {
  invoke(value) {
    return value;
  }
}
SPI({ id: 'bench.rpc.Filter', default: 'f01' })(Filter);

/** name → activate options; 8 of the 12 activate for URL_TEXT in group provider. */
const FILTERS = {
  f01: { group: ['provider'], order: 10 }, //                      on
  f02: { group: ['provider', 'consumer'], order: 20 }, //          on
  f03: { group: ['provider'], order: 30, after: ['f04'] }, //      on (ordered after f04)
  f04: { group: ['provider'], order: 40 }, //                      on
  f05: { group: ['provider'], order: 50 }, //                      on
  f06: { group: ['provider'], order: 60 }, //                      removed by "-f06" in service.filter
  f07: { group: ['provider'], order: 70, value: ['cache'] }, //    on (cache=lru)
  f08: { group: ['provider'], order: 80, value: ['validation'] }, // off (no such parameter)
  f09: { group: ['consumer'], order: 90 }, //                      off (consumer only)
  f10: { group: ['provider', 'consumer'], order: 100, value: ['side:provider'] }, // on
  f11: { group: ['consumer'], order: 110, value: ['cache'] }, //   off (consumer only)
  f12: undefined, //                                                no @Activate: on, because service.filter names it
};
const URL_TEXT =
  'dubbo://10.20.30.40:20880/org.example.bench.DemoService?anyhost=true&application=bench&cache=lru' +
  '&interface=org.example.bench.DemoService&methods=sayHello,sayBye&service.filter=f12,-f06&side=provider' +
  '&timeout=3000&version=1.0.0';

const framework = FrameworkModel.create({ root: appRoot });
const app = framework.newApplication('bench');
const loader = app.getExtensionLoader(Filter);
for (const [name, activate] of Object.entries(FILTERS)) {
  const cls = { [name.toUpperCase()]: class extends Filter {} }[name.toUpperCase()];
  loader.addExtension(name, cls, activate === undefined ? {} : { activate });
}

// (a) getExtension
// The floor map mirrors the loader's instance cache: same keys, inserted in the same order, so the same layout.
const floorA = new Map();
const create = (name) => {
  const instance = loader.getExtension(name);
  if (!floorA.has(name)) floorA.set(name, instance);
  return instance;
};
const f05 = create('f05');
for (const name of Object.keys(FILTERS)) create(name);
create('default');
if (floorA.get('f05') !== f05 || loader.getExtension('default') !== floorA.get('f01')) throw new Error('getExtension returned another instance');

// Each name gets its own floor: a Map lookup's cost depends on the key's bucket chain, which changes from one
// process to the next (hash seeds are random), so only a lookup of the same key in the same layout is comparable.
const rowsA = [];
rowsA.push(await measure("Map.get('f05') (floor)", () => floorA.get('f05')));
rowsA.push(await measure("getExtension('f05')", () => loader.getExtension('f05')));
rowsA.push(await measure("Map.get('default') (floor)", () => floorA.get('default')));
rowsA.push(await measure("getExtension('default')", () => loader.getExtension('default')));
printTable('(a) getExtension on an already-created name', rowsA, {
  baseline: (row) => `Map.get('${row.name.includes('default') ? 'default' : 'f05'}') (floor)`,
});

// (b) getActivateExtensions
const url = URL.parse(URL_TEXT);
const chain = loader.getActivateExtensions(url, 'service.filter', 'provider');
const activated = chain.map((f) => loader.getExtensionName(f));
const expected = ['f12', 'f01', 'f02', 'f04', 'f03', 'f05', 'f07', 'f10']; // f12 has no order: 0, first
if (activated.join() !== expected.join()) throw new Error(`unexpected activation: ${activated.join()} (expected ${expected.join()})`);
const floorB = new Map([['provider', chain]]);

const rowsB = [];
rowsB.push(await measure('Map.get (floor)', () => floorB.get('provider')));
rowsB.push(await measure('getActivateExtensions, cached', () => loader.getActivateExtensions(url, 'service.filter', 'provider')));
// Both allocate (and register each URL in WeakMaps), so GC makes them noisy: give them more rounds.
const parseRow = await measure('URL.parse alone', () => URL.parse(URL_TEXT), { minTimeMs: 1500 });
rowsB.push(parseRow);
const uncachedRow = await measure(
  'URL.parse + getActivateExtensions (uncached)',
  () => loader.getActivateExtensions(URL.parse(URL_TEXT), 'service.filter', 'provider'),
  { minTimeMs: 1500 },
);
rowsB.push(uncachedRow);
// Cross-check without subtraction: each batch gets fresh URLs parsed beforehand (untimed), one per call.
const POOL = 2048;
let pool = [];
let next = 0;
const freshUrls = (n) => {
  pool = Array.from({ length: n }, () => URL.parse(URL_TEXT));
  next = 0;
};
const directRow = await measure(
  'getActivateExtensions (uncached, URLs pre-parsed)',
  () => loader.getActivateExtensions(pool[next++], 'service.filter', 'provider'),
  { batch: POOL, setup: freshUrls, minTimeMs: 1000 },
);
rowsB.push(directRow);
pool = [];
printTable(
  `(b) getActivateExtensions(url, 'service.filter', 'provider'): 12 registered, ${chain.length} activate [${activated.join(', ')}]`,
  rowsB,
  { baseline: 'Map.get (floor)' },
);
const selectionNs = uncachedRow.nsPerOp - parseRow.nsPerOp;
console.log(
  `    uncached selection alone ≈ (parse + select) − parse = ${formatNs(selectionNs)}/op; measured directly on ` +
    `pre-parsed URLs: ${formatNs(directRow.nsPerOp)}/op (GC-sensitive: each new URL is a new WeakMap key)`,
);
await framework.destroy();

// ---------------------------------------------------------------------------------------------------------------
// (c) discovery over 200 installed packages, and the first load of their 600 entries.

const discoveryRoot = makeTempDir('weft-bench-discovery-');
const pkgName = (i) => `@bench/p${String(i).padStart(3, '0')}`;
{
  const nm = join(discoveryRoot, 'node_modules', '@bench');
  const deps = Object.fromEntries(Array.from({ length: PACKAGES }, (_, i) => [pkgName(i), '1.0.0']));
  writeJson(join(discoveryRoot, 'package.json'), {
    name: 'weft-bench-discovery-app',
    version: '1.0.0',
    private: true,
    type: 'module',
    dependencies: { '@bench/spi': '1.0.0', ...deps },
  });
  mkdirSync(join(nm, 'spi'), { recursive: true });
  writeJson(join(nm, 'spi', 'package.json'), { name: '@bench/spi', version: '1.0.0', type: 'module', main: './index.js' });
  writeFileSync(join(nm, 'spi', 'index.js'), 'export class Thing {\n  describe() {\n    return this.constructor.name;\n  }\n}\n');
  for (let i = 0; i < PACKAGES; i++) {
    const name = pkgName(i);
    const short = name.slice('@bench/'.length);
    const dir = join(nm, short);
    mkdirSync(join(dir, 'META-INF', 'weft'), { recursive: true });
    writeJson(join(dir, 'package.json'), {
      name,
      version: '1.0.0',
      type: 'module',
      main: './index.js',
      // Two other bench packages each (cycles included), to exercise the graph walk and its de-duplication.
      dependencies: { '@bench/spi': '1.0.0', [pkgName((i + 1) % PACKAGES)]: '1.0.0', [pkgName((i + 17) % PACKAGES)]: '1.0.0' },
    });
    writeFileSync(
      join(dir, 'index.js'),
      "import { Thing } from '@bench/spi';\n\nexport class A extends Thing {}\nexport class B extends Thing {}\nexport class C extends Thing {}\n",
    );
    writeJson(join(dir, 'META-INF', 'weft', `${POINT_ID}.json`), {
      [`${short}-a`]: { module: './index.js', export: 'A', description: `A of ${name}`, activate: { group: ['provider'], order: i } },
      [`${short}-b`]: { module: './index.js', export: 'B' },
      [`${short}-c`]: { module: './index.js', export: 'C' },
    });
  }
}

// Sanity: discovery sees every package and entry, without problems.
{
  const fw = FrameworkModel.create({ root: discoveryRoot });
  const records = fw.index.records.get(POINT_ID)?.length ?? 0;
  if (records !== PACKAGES * ENTRIES_PER_PACKAGE || fw.index.problems.length > 0) {
    throw new Error(`discovery fixture: ${records} records, problems: ${JSON.stringify(fw.index.problems.slice(0, 3))}`);
  }
  console.log(
    `\n(c) fixture: ${PACKAGES} packages @bench/p000…p${PACKAGES - 1} (+ @bench/spi, the app, @weft/core: ` +
      `${fw.index.packages.length} discovered), ${records} manifest entries, in ${discoveryRoot}`,
  );
  await fw.destroy();
}

const discoveryRow = await measure(
  `FrameworkModel.create (${PACKAGES} pkgs)`,
  () => FrameworkModel.create({ root: discoveryRoot }),
  { batch: 1, minRounds: 15, warmupMs: 300, minTimeMs: 700 },
);
printTable('(c) discovery: FrameworkModel.create({ root }) — reads package.jsons and manifests, imports no code', [discoveryRow]);
console.log(`    ${formatNs(discoveryRow.nsPerOp)} per discovery = ${formatNs(discoveryRow.nsPerOp / PACKAGES)} per package (warm process, OS file cache warm)`);

// The first load imports each package's module: only a fresh process has a cold module cache, so it runs in children.
const COLD_RUNS = 7;
const cold = [];
for (let i = 0; i < COLD_RUNS; i++) {
  const child = spawnSync(process.execPath, [SELF, '--cold-child', discoveryRoot], { encoding: 'utf8' });
  if (child.status !== 0) throw new Error(`cold-load child failed (exit ${child.status}):\n${child.stderr}`);
  const out = JSON.parse(child.stdout);
  if (out.entries !== PACKAGES * ENTRIES_PER_PACKAGE) throw new Error(`cold-load child loaded ${out.entries} entries`);
  cold.push(out);
}
const coldDiscovery = summarize(`FrameworkModel.create, fresh process`, cold.map((c) => c.discoveryNs));
const coldLoad = summarize(`first load() of ${PACKAGES * ENTRIES_PER_PACKAGE} entries, fresh process`, cold.map((c) => c.loadNs));

// In this process: loads of new frameworks whose modules are already in Node's module cache.
const { Thing } = await import(pathToFileURL(join(discoveryRoot, 'node_modules', '@bench', 'spi', 'index.js')).href);
SPI({ id: POINT_ID })(Thing);
const warmLoads = [];
let provider;
let providerFramework;
for (let i = 0; i < 16; i++) {
  const fw = FrameworkModel.create({ root: discoveryRoot });
  const thingLoader = fw.newApplication('bench').getExtensionLoader(Thing);
  const t0 = process.hrtime.bigint();
  await thingLoader.load();
  const took = Number(process.hrtime.bigint() - t0);
  if (i > 0) warmLoads.push(took); // the first one of this process imports the modules: not a warm figure
  blackhole(thingLoader.getSupportedExtensions());
  if (i === 15) [provider, providerFramework] = [thingLoader, fw];
  else await fw.destroy();
}
const warmLoad = summarize(`load() of ${PACKAGES * ENTRIES_PER_PACKAGE} entries, modules already imported`, warmLoads);
printTable(`(c) first load of ${POINT_ID} (${COLD_RUNS} fresh processes; then 15 new frameworks in this one)`, [
  coldDiscovery,
  coldLoad,
  warmLoad,
]);

// For information: selection over 600 candidates (200 in group provider), a fresh (pre-parsed) URL each call.
const bigUrlText = 'dubbo://10.20.30.40:20880/org.example.bench.DemoService?application=bench&side=provider';
const bigChain = provider.getActivateExtensions(URL.parse(bigUrlText), undefined, 'provider');
if (bigChain.length !== PACKAGES) throw new Error(`expected ${PACKAGES} activated, got ${bigChain.length}`);
const bigRow = await measure(
  `getActivateExtensions (uncached, URLs pre-parsed), 600 candidates → ${PACKAGES}`,
  () => provider.getActivateExtensions(pool[next++], undefined, 'provider'),
  {
    batch: 256,
    setup: (n) => {
      pool = Array.from({ length: n }, () => URL.parse(bigUrlText));
      next = 0;
    },
    minTimeMs: 500,
    warmupMs: 200,
  },
);
pool = [];
printTable('(c) for information: uncached activation over the 600 discovered entries', [bigRow]);
console.log(`    ${formatNs(bigRow.nsPerOp / PACKAGES)} per activated extension`);
await providerFramework.destroy();

// ---------------------------------------------------------------------------------------------------------------

const [floorRowA, extRow, floorRowDefault, defRow] = rowsA;
const [floorRowB, cachedRow] = rowsB;
const ms = (ns) => `${(ns / 1e6).toFixed(2)} ms`;
figures.push(
  ['getExtension(name), already created', `${formatNs(extRow.nsPerOp)}/op  = ${ratioText(extRow, floorRowA)} the Map.get floor (${formatNs(floorRowA.nsPerOp)})`],
  ["getExtension('default')", `${formatNs(defRow.nsPerOp)}/op  = ${ratioText(defRow, floorRowDefault)} the Map.get floor (${formatNs(floorRowDefault.nsPerOp)})`],
  ['getActivateExtensions, cached (8 of 12)', `${formatNs(cachedRow.nsPerOp)}/op  = ${ratioText(cachedRow, floorRowB)} the Map.get floor (${formatNs(floorRowB.nsPerOp)})`],
  ['getActivateExtensions, uncached (8 of 12)', `${formatNs(directRow.nsPerOp)}/op on pre-parsed URLs; URL.parse + it ${formatNs(uncachedRow.nsPerOp)}/op, URL.parse alone ${formatNs(parseRow.nsPerOp)}/op`],
  [`getActivateExtensions, uncached (${PACKAGES} of 600)`, `${formatNs(bigRow.nsPerOp)}/op on pre-parsed URLs`],
  [`discovery, ${PACKAGES} packages`, `${ms(discoveryRow.nsPerOp)} per FrameworkModel.create = ${formatNs(discoveryRow.nsPerOp / PACKAGES)}/package (warm process); ${ms(coldDiscovery.nsPerOp)} in a fresh process`],
  [`first load(), ${PACKAGES * ENTRIES_PER_PACKAGE} entries`, `${ms(coldLoad.nsPerOp)} in a fresh process (imports ${PACKAGES} modules); ${ms(warmLoad.nsPerOp)} with the modules already imported`],
);
console.log('\nFigures:');
const labelWidth = Math.max(...figures.map(([label]) => label.length));
for (const [label, value] of figures) console.log(`  ${`${label}:`.padEnd(labelWidth + 1)}  ${value}`);
cleanup();
