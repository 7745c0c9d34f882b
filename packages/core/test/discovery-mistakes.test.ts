// Discovery mistakes are reported, never silent, and never kill the discovery of the other packages (issue 12):
// misspelt weft.* manifest ids, plugins only in devDependencies, two copies of @weft/core, dangling symlinks,
// byte order marks, unreadable package.json and manifests, a module whose top-level await never settles.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ExtensionError, ExtensionErrorCode, Filter, FrameworkModel, Logger, WeftApplication } from '@weft/core';
import { discoverManifests } from '@weft/core/spi';

import { appDir } from './support/fixtures.js';

class MemoryLogger extends Logger {
  readonly lines: string[] = [];
  debug(message: string): void {
    this.lines.push(`debug: ${message}`);
  }
  info(message: string): void {
    this.lines.push(`info: ${message}`);
  }
  warn(message: string): void {
    this.lines.push(`warn: ${message}`);
  }
  error(message: string): void {
    this.lines.push(`error: ${message}`);
  }
}

describe('misspelt weft.* manifest ids (fixture app-mistakes)', () => {
  it('are reported with the closest known id, naming the file; their entries are not loaded', () => {
    const index = discoverManifests(appDir('app-mistakes'));
    const messages = index.problems.filter((p) => p.file.includes('typo-point')).map((p) => p.message);
    expect(messages).toEqual([
      '"weft.rpc.Filters" (from @fixture/typo-point) is not a known extension point: the "weft." prefix is reserved for ' +
        "Weft's own points, and its entries are not loaded. Did you mean weft.rpc.Filter? Rename the file to weft.rpc.Filter.json.",
      '"weft.rpc.filter" (from @fixture/typo-point) is not a known extension point: the "weft." prefix is reserved for ' +
        "Weft's own points, and its entries are not loaded. Did you mean weft.rpc.Filter? Rename the file to weft.rpc.Filter.json.",
    ]);
    const typo = index.problems.find((p) => p.file.endsWith('weft.rpc.Filters.json'));
    expect(typo?.error).toBeInstanceOf(ExtensionError);
    expect(typo?.error.code).toBe(ExtensionErrorCode.INVALID_MANIFEST);
    expect(typo?.error.message).toMatch(/typo-point\/META-INF\/weft\/weft\.rpc\.Filters\.json: "weft\.rpc\.Filters"/);
    expect(index.records.has('weft.rpc.Filters')).toBe(false);
  });

  it('are logged as warnings when the framework is created, and the application still starts', async () => {
    const logger = new MemoryLogger();
    const app = await WeftApplication.start({ root: appDir('app-mistakes'), logger });
    try {
      expect(logger.lines.filter((l) => l.startsWith('warn:') && l.includes('weft.rpc.Filters'))).toEqual([
        expect.stringMatching(/^warn: discovery: .*weft\.rpc\.Filters\.json: "weft\.rpc\.Filters" .* Did you mean weft\.rpc\.Filter\? .*\[ERR_SPI_INVALID_MANIFEST\]$/),
      ]);
      expect(app.model.getExtensionLoader(Filter).getSupportedExtensions()).toEqual(['bom']);
    } finally {
      await app.shutdown();
    }
  });
});

describe('a Weft plugin only in devDependencies', () => {
  it('is reported as a warning: found in devDependencies; extensions are discovered from dependencies', () => {
    const index = discoverManifests(appDir('app-mistakes'));
    const dev = index.problems.filter((p) => p.severity === 'warning');
    expect(dev.map((p) => p.message)).toEqual([
      '"acme-weft-audit" is a Weft plugin found in devDependencies of fixture-app-mistakes; extensions are discovered from ' +
        'dependencies, so its extensions are not loaded. Move it to "dependencies" (npm install acme-weft-audit) if the application uses it.',
    ]);
    expect(dev[0]?.error.code).toBe(ExtensionErrorCode.DISCOVERY);
    expect(index.packages.map((p) => p.name)).not.toContain('acme-weft-audit');
  });
});

describe('a byte order mark', () => {
  it('in package.json and in a manifest is accepted: the plugin is discovered and loads', async () => {
    const index = discoverManifests(appDir('app-mistakes'));
    expect(index.packages.map((p) => p.name)).toContain('@fixture/bom-plugin');
    expect(index.records.get('weft.rpc.Filter')?.map((r) => r.entry.name)).toEqual(['bom']);
    expect(index.problems.filter((p) => p.file.includes('bom-plugin'))).toEqual([]);
  });
});

describe('broken files in dependencies (built in a temporary directory)', () => {
  let root: string;
  beforeAll(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'weft-mistakes-')));
    const app = join(root, 'app');
    const nm = join(app, 'node_modules');
    const write = (file: string, text: string) => {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, text);
    };
    write(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { good: '1', gone: '1', dirjson: '1', garbled: '1', badmanifest: '1' } }));
    write(join(nm, 'good', 'package.json'), JSON.stringify({ name: 'good', version: '1.0.0' }));
    write(join(nm, 'good', 'META-INF', 'weft', 't.point.Thing.json'), JSON.stringify({ fine: { module: './f.js' } }));
    symlinkSync(join(root, 'nowhere'), join(nm, 'gone'));
    mkdirSync(join(nm, 'dirjson', 'package.json'), { recursive: true });
    write(join(nm, 'garbled', 'package.json'), '{ "name": "garbled", ');
    write(join(nm, 'badmanifest', 'package.json'), JSON.stringify({ name: 'badmanifest', version: '1.0.0' }));
    mkdirSync(join(nm, 'badmanifest', 'META-INF', 'weft'), { recursive: true });
    symlinkSync(join(root, 'missing.json'), join(nm, 'badmanifest', 'META-INF', 'weft', 't.point.Thing.json'));
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('each gets an ExtensionError naming the file; the other packages are discovered', () => {
    const index = discoverManifests(join(root, 'app'));
    const names = index.packages.map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['app', '@weft/core', 'good', 'badmanifest']));
    expect(names.filter((n) => ['gone', 'dirjson', 'garbled'].includes(n))).toEqual([]);
    expect(index.records.get('t.point.Thing')?.map((r) => r.entry.name)).toEqual(['fine']);
    const byFile = new Map(index.problems.map((p) => [p.file.slice(root.length + 1), p]));
    expect([...byFile.keys()].sort()).toEqual([
      'app/node_modules/badmanifest/META-INF/weft/t.point.Thing.json',
      'app/node_modules/dirjson/package.json',
      'app/node_modules/garbled/package.json',
      'app/node_modules/gone',
    ]);
    expect(byFile.get('app/node_modules/gone')?.message).toBe(
      `dependency "gone" is a dangling symlink node_modules/gone → ${join(root, 'nowhere')}, which does not exist (reinstall it, or remove the link)`,
    );
    expect(byFile.get('app/node_modules/dirjson/package.json')?.message).toBe(
      'unreadable package.json (a directory, not a file); the package is skipped, the others are discovered',
    );
    expect(byFile.get('app/node_modules/garbled/package.json')?.message).toMatch(
      /^unreadable package\.json \(not valid JSON: .*\); the package is skipped, the others are discovered$/,
    );
    expect(byFile.get('app/node_modules/badmanifest/META-INF/weft/t.point.Thing.json')?.message).toBe(
      `unreadable manifest (a dangling symlink to ${join(root, 'missing.json')}, which does not exist)`,
    );
    for (const p of index.problems) {
      expect(p.error).toBeInstanceOf(ExtensionError);
      expect(p.error.message.startsWith(`${p.file}: `)).toBe(true);
    }
    expect(byFile.get('app/node_modules/gone')?.error.code).toBe(ExtensionErrorCode.DISCOVERY);
    expect(byFile.get('app/node_modules/badmanifest/META-INF/weft/t.point.Thing.json')?.error.code).toBe(ExtensionErrorCode.INVALID_MANIFEST);
  });
});

describe('two copies of @weft/core', () => {
  let root: string;
  beforeAll(() => {
    // app → @weft/core (the copy in use) and acme-plugin → its own private copy of @weft/core (a real, working one).
    root = realpathSync(mkdtempSync(join(tmpdir(), 'weft-two-cores-')));
    const app = join(root, 'app');
    const nm = join(app, 'node_modules');
    const require = createRequire(import.meta.url);
    const coreDir = dirname(require.resolve('@weft/core/package.json'));
    mkdirSync(join(nm, '@weft'), { recursive: true });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { '@weft/core': '0.1.0', 'acme-plugin': '1.0.0' } }));
    symlinkSync(coreDir, join(nm, '@weft', 'core'));
    const coreJson = JSON.parse(readFileSync(join(coreDir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(coreJson.dependencies ?? {})) {
      // The workspace's installed copy (hoisted to the repository's node_modules).
      symlinkSync(join(coreDir, '..', '..', 'node_modules', dep), join(nm, dep));
    }
    const plugin = join(nm, 'acme-plugin');
    const copy = join(plugin, 'node_modules', '@weft', 'core');
    for (const part of ['package.json', 'dist', 'META-INF']) cpSync(join(coreDir, part), join(copy, part), { recursive: true });
    mkdirSync(join(plugin, 'META-INF', 'weft'), { recursive: true });
    writeFileSync(join(plugin, 'package.json'), JSON.stringify({ name: 'acme-plugin', version: '1.0.0', type: 'module', dependencies: { '@weft/core': '0.1.0' } }));
    writeFileSync(
      join(plugin, 'filters.js'),
      "import { Filter } from '@weft/core/spi';\n" +
        'export class AFilter extends Filter { invoke(i, inv) { return i.invoke(inv); } }\n' +
        'export class BFilter extends Filter { invoke(i, inv) { return i.invoke(inv); } }\n',
    );
    writeFileSync(
      join(plugin, 'META-INF', 'weft', 'weft.rpc.Filter.json'),
      JSON.stringify({ 'acme-a': { module: './filters.js', export: 'AFilter' }, 'acme-b': { module: './filters.js', export: 'BFilter' } }),
    );
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const expected = (root: string) =>
    `two copies of @weft/core are installed: 0.1.0 at ${realpathSync(dirname(createRequire(import.meta.url).resolve('@weft/core/package.json')))} (the one in use); ` +
    `0.1.0 at ${join(root, 'app', 'node_modules', 'acme-plugin', 'node_modules', '@weft', 'core')} (pulled in by acme-plugin). ` +
    'Extensions built against one copy do not extend the classes of the other, so only the one in use is loaded. ' +
    'Declare @weft/core as a peerDependency (not a dependency) of acme-plugin, then run "npm dedupe" ("npm ls @weft/core" shows every copy).';

  it('discovery reports it once, with the fix, and ignores the second copy\'s manifests (no duplicate names)', () => {
    const index = discoverManifests(join(root, 'app'));
    expect(index.problems.map((p) => p.message)).toEqual([expected(root)]);
    expect(index.problems[0]?.error.code).toBe(ExtensionErrorCode.DUPLICATE_CORE);
    expect(index.records.get('weft.rpc.Protocol')?.map((r) => r.entry.name)).toEqual(['injvm', 'filter']);
  });

  it('start() fails once with "two copies of @weft/core", not a cascade of duplicate-name or not-a-subclass errors', async () => {
    const logger = new MemoryLogger();
    let caught: unknown;
    try {
      await WeftApplication.start({ root: join(root, 'app'), logger });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ExtensionError);
    expect((caught as ExtensionError).code).toBe(ExtensionErrorCode.DUPLICATE_CORE);
    expect((caught as ExtensionError).message).toBe(
      `${expected(root)} Loading weft.rpc.Filter in application "weft-application" failed because of it (2 extensions extend the other copy's Filter).`,
    );
    expect(logger.lines.filter((l) => l.includes('copies of @weft/core'))).toHaveLength(1);
  });
});

describe('a module whose top-level await never settles (fixture app-hang)', () => {
  it('fails load() after the import timeout, naming the module; the other extensions load', async () => {
    const framework = FrameworkModel.create({ root: appDir('app-hang'), importTimeout: 300, logger: new MemoryLogger() });
    try {
      const app = framework.newApplication('hang');
      const started = Date.now();
      let caught: unknown;
      try {
        await app.loadExtensions(Filter);
      } catch (error) {
        caught = error;
      }
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(caught).toBeInstanceOf(ExtensionError);
      expect((caught as ExtensionError).code).toBe(ExtensionErrorCode.LOAD_TIMEOUT);
      const file = join(realpathSync(appDir('app-hang')), 'node_modules', '@fixture', 'hang-plugin', 'hang-filter.js');
      expect((caught as ExtensionError).message).toBe(
        `Cannot load extension "hang" of weft.rpc.Filter from package @fixture/hang-plugin@1.0.0 (${join(dirname(file), 'META-INF', 'weft', 'weft.rpc.Filter.json')}): ` +
          `importing ${file} did not finish within 300 ms (a top-level await in the module, or in a module it imports, never settles). ` +
          'Fix the module, or raise the limit with FrameworkModel.create({ importTimeout }) / WeftApplication.start({ importTimeout }).',
      );
      expect(app.getExtensionLoader(Filter).getSupportedExtensions()).toEqual(['bom']);
    } finally {
      await framework.destroy();
    }
  });

  it('the timeout is validated', () => {
    expect(() => FrameworkModel.create({ root: appDir('app-hang'), importTimeout: 0 })).toThrow(
      'FrameworkModel.create(): importTimeout must be a positive number of ms (got 0).',
    );
  });
});

