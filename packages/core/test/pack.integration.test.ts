import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `@weft/core` packed with `npm pack` and installed, with a third-party plugin, into a scratch application
// outside the workspace: discovery must work exactly as inside it.

const coreDir = fileURLToPath(new URL('..', import.meta.url));
const pluginDir = fileURLToPath(new URL('./fixtures/pkgs/acme-weft-audit', import.meta.url));
let scratch: string;
let report: {
  core: string;
  packages: string[];
  filters: string[];
  activated: string[];
  value: unknown;
  lines: string[];
  problems: string[];
};

function npm(args: string[], cwd: string): string {
  const result = spawnSync('npm', args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  if (result.status !== 0) throw new Error(`npm ${args.join(' ')} failed in ${cwd}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'weft-scratch-app-')));
  const tarballs = join(scratch, 'tarballs');
  mkdirSync(tarballs);
  npm(['pack', '--silent', '--pack-destination', tarballs], coreDir);
  npm(['pack', '--silent', '--pack-destination', tarballs], pluginDir);
  const [coreTgz, pluginTgz] = ['weft-core-', 'acme-weft-audit-'].map((prefix) => {
    const file = readdirSync(tarballs).find((f) => f.startsWith(prefix));
    if (file === undefined) throw new Error(`npm pack produced no ${prefix}*.tgz`);
    return join(tarballs, file);
  });
  const app = join(scratch, 'app');
  mkdirSync(app);
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'scratch-app',
      version: '1.0.0',
      private: true,
      type: 'module',
      dependencies: { '@weft/core': `file:${coreTgz}`, 'acme-weft-audit': `file:${pluginTgz}` },
    }),
  );
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline'], app);
  writeFileSync(
    join(app, 'check.mjs'),
    `
import { fileURLToPath } from 'node:url';
import { Filter, FrameworkModel, Invocation, Invoker, Result, URL as WeftURL } from '@weft/core';
const root = fileURLToPath(new URL('.', import.meta.url));
const framework = FrameworkModel.create({ root });
const app = framework.newApplication('scratch');
const filters = app.getExtensionLoader(Filter);
await filters.load();
const url = WeftURL.parse('tri://127.0.0.1:1/org.acme.Greeter?audit=true&side=consumer');
const active = filters.getActivateExtensions(url, 'reference.filter', 'consumer');
class Echo extends Invoker { getUrl() { return url; } async invoke(inv) { return Result.of('hi ' + inv.args[0]); } }
const result = await active[0].invoke(new Echo(), new Invocation({ methodName: 'sayHello', args: ['bo'] }));
const { AuditSink } = await import('acme-weft-audit');
console.log(JSON.stringify({
  core: fileURLToPath(import.meta.resolve('@weft/core')),
  packages: framework.index.packages.map((p) => p.name + '@' + p.dir),
  filters: filters.getSupportedExtensions(),
  activated: active.map((f) => filters.getExtensionName(f)),
  value: result.value,
  lines: app.getExtensionLoader(AuditSink).getDefaultExtension().lines,
  problems: framework.index.problems.map((p) => p.message),
}));
await framework.destroy();
`,
  );
  const run = spawnSync(process.execPath, ['check.mjs'], { cwd: app, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`check.mjs failed:\n${run.stdout}\n${run.stderr}`);
  report = JSON.parse(run.stdout.trim().split('\n').pop() as string);
}, 180_000);

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe('npm pack: @weft/core installed outside the workspace', () => {
  it('uses the packed copy of @weft/core in the scratch app, not the workspace', () => {
    expect(report.core.startsWith(scratch)).toBe(true);
    expect(report.core).toContain('/node_modules/@weft/core/dist/index.js');
  });

  it('discovers the plugin and core from the scratch app root, with no problems', () => {
    expect(report.packages).toEqual(
      expect.arrayContaining([expect.stringMatching(/^acme-weft-audit@.*scratch/), expect.stringMatching(/^@weft\/core@.*scratch/)]),
    );
    expect(report.problems).toEqual([]);
    expect(report.filters).toContain('audit');
  });

  it('activates and runs the plugin filter the same way as inside the workspace', () => {
    expect(report.activated).toEqual(['audit']);
    expect(report.value).toBe('hi bo');
    expect(report.lines).toEqual(['consumer sayHello']);
  });
});
