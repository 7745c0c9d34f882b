// weft new: the scaffolded packages build, pass their own tests, validate, and are discovered once installed.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Filter, FrameworkModel, URL } from '@weft/core';
import { discoverManifests, parseManifest } from '@weft/core/spi';
import { createTestApp, type TestApp } from '@weft/test-utils';

import { addDependency, json, repoRoot, weft } from './support/cli.ts';

const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
const vitest = join(repoRoot, 'node_modules', 'vitest', 'vitest.mjs');
const rootPins = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies;

interface PackageJson {
  name: string;
  type: string;
  exports: Record<string, unknown>;
  files: string[];
  scripts: Record<string, string>;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
}

let app: TestApp;

beforeAll(() => {
  app = createTestApp(['@weft/core']);
  // What `npm install` of the scaffold's devDependencies provides (typescript is run from the repository).
  for (const name of ['vitest', '@types/node']) {
    mkdirSync(join(app.root, 'node_modules', name, '..'), { recursive: true });
    symlinkSync(join(repoRoot, 'node_modules', name), join(app.root, 'node_modules', name), 'dir');
  }
});
afterAll(() => app.cleanup());

function build(dir: string): void {
  execFileSync(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: dir, stdio: 'pipe' });
}

/** Runs the scaffold's own test suite with vitest, as `npm test` does after building. */
function runOwnTests(dir: string): { status: number | null; output: string } {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !/^VITEST/.test(key) && key !== 'NODE_OPTIONS') env[key] = value;
  const result = spawnSync(process.execPath, [vitest, 'run'], { cwd: dir, env: { ...env, CI: 'true', NO_COLOR: '1' }, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, output: `${result.stdout}\n${result.stderr}` };
}

/** Copies a package into the application's node_modules and makes it a dependency, as installing it does. */
function install(dir: string, name: string): string {
  const target = join(app.root, 'node_modules', name);
  cpSync(dir, target, { recursive: true, filter: (src) => !src.includes(`${dir}/dist`) });
  addDependency(app.root, name, '0.1.0');
  return target;
}

describe('weft new filter', () => {
  let dir: string;

  beforeAll(async () => {
    const result = await weft(['new', 'filter', 'audit-trail', '--group', 'provider', '--key', 'audit', '--order', '-5', '--json'], { cwd: join(app.root) });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    dir = json<{ dir: string }>(result).dir;
  });

  it('writes a complete plugin package into ./<package-name>', () => {
    expect(dir).toBe(join(app.root, 'weft-filter-audit-trail'));
    for (const file of ['package.json', 'tsconfig.json', 'vitest.config.ts', '.gitignore', 'README.md', 'META-INF/weft/weft.rpc.Filter.json', 'src/audit-trail-filter.ts', 'src/index.ts', 'test/audit-trail-filter.test.ts']) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;
    expect(pkg).toMatchObject({
      name: 'weft-filter-audit-trail',
      type: 'module',
      exports: { '.': { types: './dist/index.d.ts', default: './dist/index.js' }, './package.json': './package.json' },
      files: ['dist', 'META-INF', 'README.md'],
      peerDependencies: { '@weft/core': '^0.1.0' },
    });
    expect(pkg.scripts['test']).toBe('npm run build && vitest run');
    // Pinned as the repository pins them.
    expect(pkg.devDependencies).toEqual({ '@types/node': rootPins['@types/node'], '@weft/core': '0.1.0', typescript: rootPins['typescript'], vitest: rootPins['vitest'] });
    const tsconfig = JSON.parse(readFileSync(join(dir, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    expect(tsconfig.compilerOptions).toMatchObject({ experimentalDecorators: true, emitDecoratorMetadata: true, rootDir: 'src', outDir: 'dist' });
    const source = readFileSync(join(dir, 'src', 'audit-trail-filter.ts'), 'utf8');
    expect(source).toContain('export class AuditTrailFilter extends Filter {');
    expect(source).toContain(' * Extension `audit-trail` of `weft.rpc.Filter`');
    expect(readFileSync(join(dir, 'README.md'), 'utf8')).toMatch(/^# weft-filter-audit-trail\n\nA Weft filter that runs on every call of the services whose URL sets audit\.\n/);
  });

  it('its manifest validates, with the activation asked for', () => {
    const { entries, problems } = parseManifest(readFileSync(join(dir, 'META-INF', 'weft', 'weft.rpc.Filter.json'), 'utf8'));
    expect(problems).toEqual([]);
    expect(entries).toEqual([
      expect.objectContaining({
        name: 'audit-trail',
        kind: 'extension',
        module: './dist/audit-trail-filter.js',
        exportName: 'AuditTrailFilter',
        activate: { groups: ['provider'], conditions: [{ key: 'audit', expected: undefined }], order: -5, before: [], after: [] },
      }),
    ]);
  });

  it('builds with the repository\'s TypeScript, and its own tests pass', () => {
    build(dir);
    expect(existsSync(join(dir, 'dist', 'audit-trail-filter.js'))).toBe(true);
    expect(existsSync(join(dir, 'dist', 'index.d.ts'))).toBe(true);
    const own = runOwnTests(dir);
    expect(own.output).toMatch(/Tests\s+4 passed \(4\)/);
    expect(own.status).toBe(0);
  }, 180_000);

  it('installed into an application (copied into node_modules and compiled), it is discovered, explained and loaded', async () => {
    const installed = install(dir, 'weft-filter-audit-trail');
    build(installed);
    const index = discoverManifests(app.root);
    expect(index.problems).toEqual([]);
    expect(index.records.get('weft.rpc.Filter')?.map((r) => [r.entry.name, r.pkg.name, r.pkg.dir])).toEqual([['audit-trail', 'weft-filter-audit-trail', installed]]);

    const explained = json<{ chain: { name: string; package: string }[] }>(await weft(['explain', '--json', '--side', 'provider', 'org.acme.Greeter', '--param', 'audit=on'], { cwd: app.root }));
    expect(explained.chain).toEqual([expect.objectContaining({ name: 'audit-trail', package: 'weft-filter-audit-trail@0.1.0' })]);
    expect((await weft(['doctor'], { cwd: app.root })).code).toBe(0);

    const framework = FrameworkModel.create({ root: app.root });
    try {
      const model = framework.newApplication('scaffold-check');
      await model.loadExtensions(Filter);
      const filters = model.getExtensionLoader(Filter);
      expect(filters.getExtension('audit-trail')).toBeInstanceOf(Filter);
      const url = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?audit=on');
      expect(filters.selectActivateNames(url, 'service.filter', 'provider')).toEqual(['audit-trail']);
      expect(filters.selectActivateNames(url, 'reference.filter', 'consumer')).toEqual([]);
    } finally {
      await framework.destroy();
    }
  }, 60_000);
});

describe('weft new extension', () => {
  it('scaffolds a new extension point with its default extension that builds, passes its tests and is discovered', async () => {
    const result = await weft(['new', 'extension', 'memory', '--point', 'acme.cache.CacheStore'], { cwd: app.root });
    expect(result.code).toBe(0);
    const dir = join(app.root, 'acme-weft-cache');
    expect(result.stdout).toContain(`Created acme-weft-cache in ${dir}:`);
    for (const file of ['src/cache-store.ts', 'src/memory-cache-store.ts', 'src/index.ts', 'META-INF/weft/acme.cache.CacheStore.json', 'test/memory-cache-store.test.ts', 'README.md']) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
    expect(readFileSync(join(dir, 'src', 'cache-store.ts'), 'utf8')).toContain("@SPI({ id: 'acme.cache.CacheStore', default: 'memory' })\nexport abstract class CacheStore {");
    const { entries, problems } = parseManifest(readFileSync(join(dir, 'META-INF', 'weft', 'acme.cache.CacheStore.json'), 'utf8'));
    expect(problems).toEqual([]);
    expect(entries.map((e) => [e.name, e.kind, e.module, e.exportName])).toEqual([['memory', 'extension', './dist/memory-cache-store.js', 'MemoryCacheStore']]);

    build(dir);
    const own = runOwnTests(dir);
    expect(own.output).toMatch(/Tests\s+2 passed \(2\)/);
    expect(own.status).toBe(0);

    const installed = install(dir, 'acme-weft-cache');
    build(installed);
    const listed = json<{ points: { id: string; extensions: { name: string; package: string }[] }[] }>(await weft(['extensions', 'acme.cache.CacheStore', '--json'], { cwd: app.root }));
    expect(listed.points).toEqual([{ id: 'acme.cache.CacheStore', extensions: [expect.objectContaining({ name: 'memory', package: 'acme-weft-cache' })] }]);
  }, 180_000);
});

describe('weft new: bad input', () => {
  it('exits 2 for bad names, kinds, groups, keys, point ids and package names', async () => {
    const cases: [string[], string][] = [
      [[], 'missing what to create: filter or extension'],
      [['widget', 'x'], 'cannot create "widget": expected filter or extension'],
      [['filter'], 'missing <name>'],
      [['filter', 'Audit'], '"Audit" is not lowercase kebab-case'],
      [['filter', 'default'], '"default" is reserved'],
      [['filter', '2x'], '"2x" must start with a letter'],
      [['filter', 'audit', 'extra'], 'unexpected arguments: extra'],
      [['filter', 'audit', '--group', 'server'], '--group must be provider, consumer or provider,consumer'],
      [['filter', 'audit', '--key', 'a=b'], '--key "a=b" is not a URL key'],
      [['filter', 'audit', '--order', 'first'], '--order must be a whole number'],
      [['filter', 'audit', '--package', 'Not A Name'], '--package "Not A Name" is not a valid npm package name'],
      [['filter', 'audit', '--point', 'acme.x.Y'], '--point is for "weft new extension"'],
      [['extension', 'memory'], 'missing --point <id>'],
      [['extension', 'memory', '--point', 'CacheStore'], '--point "CacheStore" is not an extension point id'],
      [['extension', 'memory', '--point', 'weft.cache.CacheStore'], 'ids starting with "weft." belong to Weft'],
      [['extension', 'memory', '--point', 'acme.cache.cacheStore'], 'must be PascalCase'],
      [['extension', 'memory', '--point', 'acme.cache.CacheStore', '--group', 'provider'], '--group is for "weft new filter"'],
    ];
    for (const [argv, message] of cases) {
      const result = await weft(['new', ...argv], { cwd: app.root });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toContain(message);
    }
  });

  it('refuses a non-empty target directory (exit 1) and writes nothing', async () => {
    const target = join(app.root, 'occupied');
    mkdirSync(target);
    const marker = join(target, 'keep.txt');
    execFileSync(process.execPath, ['-e', `require('node:fs').writeFileSync(${JSON.stringify(marker)}, 'x')`]);
    const result = await weft(['new', 'filter', 'audit', '--dir', 'occupied'], { cwd: app.root });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`${target} exists and is not empty; choose another --dir (nothing was written)`);
    expect(existsSync(join(target, 'package.json'))).toBe(false);
  });
});
