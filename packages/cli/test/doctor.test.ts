// weft doctor on fixture projects: a clean one, and one with every problem it knows.
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createTestApp, type TestApp } from '@weft/test-utils';

import { json, TRIPWIRE_MODULE, weft, writePackage } from './support/cli.ts';

interface Finding {
  severity: 'error' | 'warning';
  kind: string;
  message: string;
  file: string | null;
  fix: string;
}
interface Report {
  ok: boolean;
  root: string;
  packages: number;
  manifests: number;
  core: { version: string; dir: string }[];
  findings: Finding[];
}

const auditManifest = { 'weft.rpc.Filter': { audit: { module: './index.js', activate: { group: ['provider'], value: ['audit'] } } } };

describe('weft doctor', () => {
  it('reports no problems for a clean install (exit 0)', async () => {
    const app = createTestApp(['@weft/core', '@weft/mock', '@weft/registry-embedded']);
    try {
      writePackage(app.root, { name: 'good-plugin', peerDependencies: { '@weft/core': '^0.1.0' }, files: { 'index.js': TRIPWIRE_MODULE }, manifests: auditManifest });
      const result = await weft(['doctor'], { cwd: app.root });
      expect(result.stdout).toContain('No problems found.');
      expect(result.stdout).toContain('@weft/core 0.1.0');
      expect(result.code).toBe(0);
      const report = json<Report>(await weft(['doctor', '--json'], { cwd: app.root }));
      expect(report).toMatchObject({ ok: true, root: app.root, findings: [] });
      expect(report.core).toHaveLength(1);
    } finally {
      app.cleanup();
    }
  });

  describe('on a broken install', () => {
    let app: TestApp;
    let report: Report;

    beforeAll(async () => {
      app = createTestApp(['@weft/core', '@weft/mock']);
      // A second copy of @weft/core, nested under a plugin that lists it as a dependency.
      const dupDir = writePackage(app.root, { name: 'plugin-dup-core', dependencies: { '@weft/core': '0.0.9' } });
      writePackage(app.root, { name: '@weft/core', version: '0.0.9' }, { dir: join('node_modules', 'plugin-dup-core', 'node_modules', '@weft', 'core'), depend: false });
      writePackage(app.root, { name: 'plugin-bad-manifest', peerDependencies: { '@weft/core': '*' }, manifests: { 'weft.rpc.Filter': { audit: { module: 'dist/audit.js' } } } });
      writePackage(app.root, { name: 'plugin-clash-a', version: '1.0.0', peerDependencies: { '@weft/core': '^0.1.0' }, files: { 'index.js': TRIPWIRE_MODULE }, manifests: auditManifest });
      writePackage(app.root, { name: 'plugin-clash-b', version: '2.0.0', peerDependencies: { '@weft/core': '0.1.x' }, files: { 'index.js': TRIPWIRE_MODULE }, manifests: auditManifest });
      writePackage(app.root, { name: 'plugin-old-core', version: '3.0.0', peerDependencies: { '@weft/core': '^0.2.0' } });
      writePackage(app.root, { name: 'plugin-missing-dep', dependencies: { 'not-installed-anywhere': '1.0.0' } });
      writePackage(app.root, { name: 'plugin-unbuilt', peerDependencies: { '@weft/core': '>=0.1.0 <1.0.0' }, manifests: { 'weft.rpc.Protocol': { fast: { module: './dist/fast.js' } } } });
      writePackage(app.root, { name: 'plugin-workspace-range', peerDependencies: { '@weft/core': 'workspace:*' } });
      void dupDir;
      const result = await weft(['doctor', '--json'], { cwd: app.root });
      expect(result.code).toBe(1);
      report = json<Report>(result);
    });
    afterAll(() => app.cleanup());

    const of = (kind: string) => report.findings.filter((f) => f.kind === kind);

    it('finds the duplicate copy of @weft/core', () => {
      expect(report.core.map((c) => c.version).sort()).toEqual(['0.0.9', '0.1.0']);
      expect(of('duplicate-core')).toEqual([expect.objectContaining({ severity: 'error' })]);
      expect(of('duplicate-core')[0]?.message).toContain('two copies of @weft/core are installed');
      expect(of('duplicate-core')[0]?.message).toContain('(pulled in by plugin-dup-core)');
      expect(of('duplicate-core')[0]?.message).toContain('Declare @weft/core as a peerDependency (not a dependency) of plugin-dup-core, then run "npm dedupe"');
      expect(of('duplicate-core')[0]?.message).toContain('0.0.9 at ');
    });

    it('finds the manifest that fails validation', () => {
      expect(of('invalid-manifest')).toEqual([
        expect.objectContaining({
          severity: 'error',
          file: 'node_modules/plugin-bad-manifest/META-INF/weft/weft.rpc.Filter.json',
          message: 'invalid manifest for weft.rpc.Filter: /audit/module: "dist/audit.js" must start with "./" (a path inside the package)',
        }),
      ]);
    });

    it('finds the extension name two packages declare for one point', () => {
      expect(of('name-clash')).toHaveLength(1);
      expect(of('name-clash')[0]?.message).toBe(
        'extension name "audit" of weft.rpc.Filter is declared by plugin-clash-a@1.0.0 (node_modules/plugin-clash-a/META-INF/weft/weft.rpc.Filter.json) ' +
          'and plugin-clash-b@2.0.0 (node_modules/plugin-clash-b/META-INF/weft/weft.rpc.Filter.json): the loader refuses the name, and loading weft.rpc.Filter fails',
      );
    });

    it('finds the package built for another @weft/core (and accepts the compatible ranges)', () => {
      expect(of('core-range').map((f) => f.message)).toEqual([expect.stringMatching(/^plugin-old-core@3\.0\.0 is built for @weft\/core "\^0\.2\.0", but it gets @weft\/core 0\.1\.0 \(/)]);
      expect(of('core-range')[0]?.file).toBe('node_modules/plugin-old-core/package.json');
    });

    it('finds the missing dependency and the module a manifest names that does not exist', () => {
      expect(of('missing-dependency').map((f) => f.message)).toEqual(['dependency "not-installed-anywhere" of plugin-missing-dep is not installed (run npm install)']);
      expect(of('missing-module').map((f) => f.message)).toEqual([expect.stringContaining('plugin-unbuilt@1.0.0: extension "fast" of weft.rpc.Protocol names ./dist/fast.js, which does not exist')]);
    });

    it('warns (without failing) about a plugin listing @weft/core as a dependency and a range it cannot check', () => {
      expect(of('core-as-dependency')).toEqual([expect.objectContaining({ severity: 'warning', message: expect.stringContaining('plugin-dup-core@1.0.0 lists @weft/core under "dependencies"') })]);
      expect(of('unchecked-range')).toEqual([expect.objectContaining({ severity: 'warning', message: expect.stringContaining('plugin-workspace-range@1.0.0 declares @weft/core "workspace:*"') })]);
      expect(report.findings.filter((f) => f.severity === 'warning')).toHaveLength(2);
      expect(report.findings.filter((f) => f.severity === 'error')).toHaveLength(6);
      expect(report.ok).toBe(false);
    });

    it('prints every finding with its file and fix, and a summary (exit 1)', async () => {
      const result = await weft(['doctor'], { cwd: app.root });
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('error [duplicate-core] two copies of @weft/core are installed');
      expect(result.stdout).toContain('error [name-clash] extension name "audit" of weft.rpc.Filter');
      expect(result.stdout).toContain('  file: node_modules/plugin-old-core/package.json');
      expect(result.stdout).toContain('  fix:  Uninstall one of the packages, or rename the extension');
      expect(result.stdout).toContain('6 problems, 2 warnings.');
    });
  });

  it('reports packages that need @weft/core when none is installed', async () => {
    const app = createTestApp([]);
    try {
      writePackage(app.root, { name: 'lonely-plugin', peerDependencies: { '@weft/core': '^0.1.0' } });
      const report = json<Report>(await weft(['doctor', '--json'], { cwd: app.root }));
      expect(report.core).toEqual([]);
      expect(report.findings.map((f) => [f.kind, f.message])).toEqual([['no-core', '@weft/core is not installed, but lonely-plugin needs it']]);
    } finally {
      app.cleanup();
    }
  });

  it('takes no arguments', async () => {
    const result = await weft(['doctor', 'now']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('doctor takes no arguments');
  });
});

describe('weft doctor and URL keys', () => {
  const rateManifest = (keys?: unknown[]) => ({
    'weft.rpc.Filter': { rate: { module: './index.js', activate: { group: ['provider'], value: ['tsp'] }, ...(keys === undefined ? {} : { keys }) } },
  });
  const warning =
    '`tsp`: extension "rate" of weft.rpc.Filter (plugin-rate@1.0.0) activates on it, but neither Weft nor any installed extension reads it; did you mean `tps`?';

  it('warns about an activation key close to a known one; --strict makes it a problem (exit 1)', async () => {
    const app = createTestApp(['@weft/core']);
    try {
      writePackage(app.root, { name: 'plugin-rate', peerDependencies: { '@weft/core': '^0.1.0' }, files: { 'index.js': TRIPWIRE_MODULE }, manifests: rateManifest() });
      const relaxed = await weft(['doctor'], { cwd: app.root });
      expect(relaxed.code).toBe(0);
      expect(relaxed.stdout).toContain(`warning [unknown-key] ${warning}`);
      expect(relaxed.stdout).toContain('file: node_modules/plugin-rate/META-INF/weft/weft.rpc.Filter.json');
      expect(relaxed.stdout).toContain('0 problems, 1 warning.');
      const strict = await weft(['doctor', '--strict'], { cwd: app.root });
      expect(strict.code).toBe(1);
      expect(strict.stdout).toContain(`error [unknown-key] ${warning}`);
      const report = json<Report>(await weft(['doctor', '--strict', '--json'], { cwd: app.root }));
      expect(report.ok).toBe(false);
      expect(report.findings).toEqual([expect.objectContaining({ severity: 'error', kind: 'unknown-key', message: warning })]);
    } finally {
      app.cleanup();
    }
  });

  it('is satisfied when the extension declares the key it activates on, or when the key is far from every known key', async () => {
    const app = createTestApp(['@weft/core']);
    try {
      writePackage(app.root, { name: 'plugin-rate', peerDependencies: { '@weft/core': '^0.1.0' }, files: { 'index.js': TRIPWIRE_MODULE }, manifests: rateManifest([{ key: 'tsp', method: true }]) });
      writePackage(app.root, { name: 'good-plugin', peerDependencies: { '@weft/core': '^0.1.0' }, files: { 'index.js': TRIPWIRE_MODULE }, manifests: auditManifest });
      const result = await weft(['doctor', '--strict'], { cwd: app.root });
      expect(result.stdout).toContain('No problems found.');
      expect(result.code).toBe(0);
    } finally {
      app.cleanup();
    }
  });
});

describe('weft doctor: discovery mistakes (issue 12)', () => {
  it('shows a misspelt weft.* manifest id, a dangling symlink and a devDependency-only plugin', async () => {
    const app = createTestApp(['@weft/core']);
    try {
      writePackage(app.root, { name: 'plugin-typo', peerDependencies: { '@weft/core': '*' }, manifests: { 'weft.rpc.Filters': { audit: { module: './audit.js' } } } });
      writePackage(app.root, { name: 'plugin-dev-only', peerDependencies: { '@weft/core': '*' }, manifests: { 'weft.rpc.Filter': { dev: { module: './dev.js' } } } }, { depend: false });
      const pkgFile = join(app.root, 'package.json');
      const pkgJson = JSON.parse(readFileSync(pkgFile, 'utf8')) as Record<string, Record<string, string>>;
      pkgJson['dependencies'] = { ...pkgJson['dependencies'], gone: '1.0.0' };
      pkgJson['devDependencies'] = { 'plugin-dev-only': '1.0.0' };
      writeFileSync(pkgFile, JSON.stringify(pkgJson));
      symlinkSync(join(app.root, 'nowhere'), join(app.root, 'node_modules', 'gone'));
      const report = json<Report>(await weft(['doctor', '--json'], { cwd: app.root }));
      const messages = report.findings.map((f) => `${f.severity} ${f.kind} ${f.message}`);
      expect(messages).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^error discovery "weft\.rpc\.Filters" \(from plugin-typo\) is not a known extension point: .* Did you mean weft\.rpc\.Filter\? Rename the file to weft\.rpc\.Filter\.json\.$/),
          `error discovery dependency "gone" is a dangling symlink node_modules/gone → ${join(app.root, 'nowhere')}, which does not exist (reinstall it, or remove the link)`,
          expect.stringMatching(/^warning dev-dependency "plugin-dev-only" is a Weft plugin found in devDependencies of .*; extensions are discovered from dependencies/),
        ]),
      );
    } finally {
      app.cleanup();
    }
  });
});
