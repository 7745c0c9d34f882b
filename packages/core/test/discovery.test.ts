import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { discoverManifests } from '@weft/core/spi';

import { appDir } from './support/fixtures.js';

let root: string;

function writeJson(file: string, value: unknown): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

/** Writes a package at `dir` with optional manifest entries for point `t.point.Thing`. */
function pkg(dir: string, json: Record<string, unknown>, entries?: Record<string, unknown>): void {
  writeJson(join(dir, 'package.json'), { version: '1.0.0', ...json });
  if (entries !== undefined) writeJson(join(dir, 'META-INF', 'weft', 't.point.Thing.json'), entries);
}

beforeAll(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'weft-discovery-')));
  // app → a, b, c(optional, missing), d(missing), e(peer, missing), ../evil (invalid name)
  // a → shared ; b → shared (hoisted, one copy) ; b → nested (own nested copy v2, and a hoisted v1 used by app)
  pkg(join(root, 'app'), {
    name: 'app',
    dependencies: { a: '1', b: '1', d: '1', nested: '1', linked: '1', '../evil': '1' },
    optionalDependencies: { c: '1' },
    peerDependencies: { e: '1' },
    devDependencies: { devonly: '1' },
  });
  const nm = join(root, 'app', 'node_modules');
  pkg(join(nm, 'a'), { name: 'a', dependencies: { shared: '1' } }, { 'from-a': { module: './a.js' } });
  pkg(join(nm, 'b'), { name: 'b', dependencies: { shared: '1', nested: '2' } });
  pkg(join(nm, 'shared'), { name: 'shared' }, { shared: { module: './s.js' } });
  pkg(join(nm, 'nested'), { name: 'nested', version: '1.0.0' }, { nested: { module: './n.js' } });
  pkg(join(nm, 'b', 'node_modules', 'nested'), { name: 'nested', version: '2.0.0' }, { nested: { module: './n.js' } });
  pkg(join(nm, 'devonly'), { name: 'devonly' }, { dev: { module: './d.js' } });
  // a workspace-style symlink: node_modules/linked → ../../linked-src, and a second symlink to the same place
  pkg(join(root, 'linked-src'), { name: 'linked', dependencies: { alias: '1' } }, { linked: { module: './l.js' } });
  symlinkSync(join(root, 'linked-src'), join(nm, 'linked'));
  symlinkSync(join(root, 'linked-src'), join(nm, 'alias'));
  writeJson(join(nm, 'a', 'META-INF', 'weft', 'not-a-point.json'), {});
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('discoverManifests', () => {
  it('follows dependencies, optionalDependencies and installed peers transitively, not devDependencies', () => {
    const index = discoverManifests(join(root, 'app'));
    const names = index.packages.map((p) => `${p.name}@${p.version}`);
    expect(names[0]).toBe('app@1.0.0');
    expect(names).toEqual(expect.arrayContaining(['a@1.0.0', 'b@1.0.0', 'shared@1.0.0', 'nested@1.0.0', 'nested@2.0.0', 'linked@1.0.0']));
    expect(names.some((n) => n.startsWith('devonly@'))).toBe(false);
  });

  it('de-duplicates by real path: a hoisted package reached twice, and two symlinks to one directory', () => {
    const index = discoverManifests(join(root, 'app'));
    expect(index.packages.filter((p) => p.name === 'shared')).toHaveLength(1);
    expect(index.packages.filter((p) => p.name === 'linked')).toHaveLength(1);
    expect(index.packages.find((p) => p.name === 'linked')?.dir).toBe(join(root, 'linked-src'));
  });

  it('resolves like Node: a nested copy is a different package, both found', () => {
    const index = discoverManifests(join(root, 'app'));
    const nested = index.records.get('t.point.Thing')?.filter((r) => r.entry.name === 'nested') ?? [];
    expect(nested.map((r) => r.pkg.version).sort()).toEqual(['1.0.0', '2.0.0']);
  });

  it('records missing dependencies (not optional or peer ones) and invalid names as problems, never throws', () => {
    const index = discoverManifests(join(root, 'app'));
    const messages = index.problems.map((p) => p.message);
    expect(messages).toContain('dependency "d" of app is not installed (run npm install)');
    expect(messages.some((m) => m.includes('"c"'))).toBe(false);
    expect(messages.some((m) => m.includes('"e"'))).toBe(false);
    expect(messages).toContain('ignored dependency with an invalid name "../evil"');
  });

  it('reports a manifest file whose name is not an extension point id', () => {
    const index = discoverManifests(join(root, 'app'));
    expect(index.problems).toEqual(
      expect.arrayContaining([expect.objectContaining({ pointId: 'not-a-point', message: expect.stringMatching(/not an extension point id/) })]),
    );
  });

  it('always includes @weft/core itself, even when the app does not depend on it', () => {
    const index = discoverManifests(join(root, 'app'));
    expect(index.packages.map((p) => p.name)).toContain('@weft/core');
  });

  it('records which @weft/core range each package declares', () => {
    const index = discoverManifests(appDir('app-greeter'));
    expect(index.packages.find((p) => p.name === 'acme-weft-audit')?.coreRange).toBe('>=0.1.0');
  });

  it('finds a fixture app installed by npm: transitive packages and their manifests, in discovery order', () => {
    const index = discoverManifests(appDir('app-greeter'));
    const greeters = index.records.get('fixture.greeting.Greeter') ?? [];
    expect(greeters.map((r) => `${r.pkg.name}:${r.entry.name}`)).toEqual([
      '@fixture/greeter-spi:plain',
      '@fixture/greeter-spi:loud',
      '@fixture/greeter-spi:brackets',
      '@fixture/greeter-spi:stars',
      '@fixture/greeter-extra:polite',
      '@fixture/greeter-deep:whisper',
    ]);
    expect(greeters.find((r) => r.entry.name === 'polite')?.entry.activate).toEqual({
      groups: ['formal'],
      conditions: [{ key: 'polite', expected: undefined }],
      order: -10,
      before: [],
      after: [],
    });
  });
});
