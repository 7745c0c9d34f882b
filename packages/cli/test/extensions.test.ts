// weft extensions: points and extensions from manifests only, on fixture projects.
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createTestApp, type TestApp } from '@weft/test-utils';

import { ACME_FILTERS, addDependency, json, repoRoot, TRIPWIRE_MODULE, weft, writePackage } from './support/cli.ts';

interface Listed {
  root: string;
  points: { id: string; extensions: { name: string; kind: string; package: string; version: string; manifest: string; use: string; activate: unknown; wrapper: unknown; clashesWith: string[] }[] }[];
  problems: { point: string | null; file: string; message: string }[];
}

describe('weft extensions', () => {
  let app: TestApp;
  let acmeDir: string;

  beforeAll(() => {
    app = createTestApp(['@weft/core', '@weft/mock']);
    acmeDir = writePackage(app.root, ACME_FILTERS);
    // A third-party plugin with its own extension point (core's fixture, installed as a user would).
    cpSync(join(repoRoot, 'packages', 'core', 'test', 'fixtures', 'pkgs', 'acme-weft-audit'), join(app.root, 'node_modules', 'acme-weft-audit'), { recursive: true });
    addDependency(app.root, 'acme-weft-audit', '1.2.3');
  });
  afterAll(() => app.cleanup());

  it('lists every point with its extensions: name, kind, package@version, manifest, activation (--json)', async () => {
    const result = await weft(['extensions', '--json'], { cwd: app.root });
    expect(result.code).toBe(0);
    const listed = json<Listed>(result);
    expect(listed.root).toBe(app.root);
    expect(listed.points.map((p) => p.id)).toEqual([
      'acme.audit.AuditSink',
      'weft.config.ConfigValidator',
      'weft.rpc.Cluster',
      'weft.rpc.Filter',
      'weft.rpc.Protocol',
      'weft.rpc.Serialization',
    ]);
    const filters = listed.points.find((p) => p.id === 'weft.rpc.Filter')?.extensions ?? [];
    expect(filters.map((e) => e.name)).toEqual(['echo', 'tps', 'audit', 'consumer-log', 'cache', 'plain', 'audit']);
    expect(filters.find((e) => e.name === 'tps')).toEqual({
      name: 'tps',
      kind: 'extension',
      package: 'acme-filters',
      version: '2.0.0',
      manifest: 'node_modules/acme-filters/META-INF/weft/weft.rpc.Filter.json',
      module: './index.js',
      export: 'Tripwire',
      description: undefined,
      use: 'group provider; value tps; order 0',
      activate: { group: ['provider'], value: ['tps'], order: 0, before: [], after: [] },
      wrapper: undefined,
      clashesWith: [],
    });
    expect(filters.find((e) => e.name === 'plain')).toMatchObject({ kind: 'extension', use: 'by name only' });
    expect(filters.find((e) => e.name === 'plain')?.activate).toBeUndefined();
    expect(filters.find((e) => e.name === 'cache')?.activate).toEqual({ group: ['provider', 'consumer'], value: ['cache:lru'], order: 0, before: [], after: [] });
    const cluster = listed.points.find((p) => p.id === 'weft.rpc.Cluster')?.extensions ?? [];
    expect(cluster).toEqual([expect.objectContaining({ name: 'mock', kind: 'wrapper', package: '@weft/mock', wrapper: { order: 0, matches: [], mismatches: [] } })]);
    const sinks = listed.points.find((p) => p.id === 'acme.audit.AuditSink')?.extensions ?? [];
    expect(sinks).toEqual([expect.objectContaining({ name: 'memory', package: 'acme-weft-audit', version: '1.2.3', manifest: 'node_modules/acme-weft-audit/META-INF/weft/acme.audit.AuditSink.json' })]);
    expect(listed.problems).toEqual([]);
  });

  it('marks a name two packages declare for one point as a clash', async () => {
    const listed = json<Listed>(await weft(['extensions', 'weft.rpc.Filter', '--json'], { cwd: app.root }));
    const audits = listed.points[0]?.extensions.filter((e) => e.name === 'audit') ?? [];
    expect(audits.map((e) => [e.package, e.clashesWith])).toEqual([
      ['acme-filters', ['acme-weft-audit@1.2.3']],
      ['acme-weft-audit', ['acme-filters@2.0.0']],
    ]);
    const text = await weft(['extensions', 'weft.rpc.Filter'], { cwd: app.root });
    expect(text.stdout).toContain('audit [CLASH with acme-weft-audit@1.2.3]');
  });

  it('filters by point id, as a table with the manifest of each extension', async () => {
    const result = await weft(['extensions', 'weft.rpc.Filter'], { cwd: app.root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('weft.rpc.Filter\n');
    expect(result.stdout).not.toContain('weft.rpc.Protocol');
    expect(result.stdout).toMatch(/NAME\s+KIND\s+PACKAGE\s+USE\s+MANIFEST/);
    expect(result.stdout).toMatch(/tps\s+extension\s+acme-filters@2\.0\.0\s+group provider; value tps; order 0\s+node_modules\/acme-filters\/META-INF\/weft\/weft\.rpc\.Filter\.json/);
    expect(result.stdout).toMatch(/plain\s+extension\s+acme-filters@2\.0\.0\s+by name only/);
  });

  it('works from a subdirectory of the project, and with --root', async () => {
    const fromSub = json<Listed>(await weft(['extensions', '--json'], { cwd: join(app.root, 'node_modules', 'acme-filters', 'META-INF') }));
    // The nearest package.json above META-INF is the acme-filters package itself.
    expect(fromSub.root).toBe(acmeDir);
    const withRoot = json<Listed>(await weft(['extensions', '--json', '--root', '../..'], { cwd: acmeDir }));
    expect(withRoot.root).toBe(app.root);
  });

  it('never imports extension code', async () => {
    await weft(['extensions'], { cwd: app.root });
    expect(existsSync(join(acmeDir, 'imported.txt'))).toBe(false);
  });

  it('a point nothing contributes to exits 1; a malformed point id exits 2', async () => {
    const none = await weft(['extensions', 'acme.nothing.Here'], { cwd: app.root });
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('no package under');
    expect(none.stderr).toContain('Extension points with extensions: acme.audit.AuditSink, weft.config.ConfigValidator');
    const bad = await weft(['extensions', 'Filter'], { cwd: app.root });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('"Filter" is not an extension point id');
  });

  it('shows discovery problems (an invalid manifest contributes nothing)', async () => {
    const broken = createTestApp(['@weft/core']);
    try {
      writePackage(broken.root, {
        name: 'broken-plugin',
        peerDependencies: { '@weft/core': '*' },
        files: { 'x.js': TRIPWIRE_MODULE },
        manifests: { 'weft.rpc.Filter': { Bad_Name: { module: './x.js' }, good: { module: 'x.js' } } },
      });
      const listed = json<Listed>(await weft(['extensions', '--json'], { cwd: broken.root }));
      expect(listed.points.map((p) => p.id)).toEqual(['weft.rpc.Protocol', 'weft.rpc.Serialization']);
      expect(listed.problems.map((p) => p.message)).toEqual([
        '/Bad_Name: "Bad_Name" is not lowercase kebab-case (letters a-z, digits and single dashes, e.g. "active-limit")',
        '/good/module: "x.js" must start with "./" (a path inside the package)',
      ]);
      expect(listed.problems[0]?.file).toBe('node_modules/broken-plugin/META-INF/weft/weft.rpc.Filter.json');
      const text = await weft(['extensions'], { cwd: broken.root });
      expect(text.code).toBe(0);
      expect(text.stdout).toContain('Discovery problems (2); run "weft doctor" for the full diagnosis:');
    } finally {
      broken.cleanup();
    }
  });

  it('does not count the CLI\'s own @weft/core in a project that does not use it', async () => {
    const bare = createTestApp([]);
    try {
      writePackage(bare.root, { name: 'no-weft-here', manifests: {} });
      const listed = json<Listed>(await weft(['extensions', '--json'], { cwd: bare.root }));
      expect(listed.points).toEqual([]);
      expect(listed.problems).toEqual([]);
    } finally {
      bare.cleanup();
    }
  });
});
