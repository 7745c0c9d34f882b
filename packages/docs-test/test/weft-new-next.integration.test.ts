// `weft new`'s "Next:" steps, followed as printed in a scratch application outside the repository that installed
// @weft/core from its `npm pack` tarball: the scaffold installs (from the tarball, as the text says to until Weft
// is on the registry), its tests pass, and `npm install --install-links <dir>` puts it into the application with
// one copy of @weft/core — where a plain `npm install <dir>` (a symlink) gets two.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const weftBin = join(repoRoot, 'packages', 'cli', 'bin', 'weft.js');

let scratch: string;
let tarballs: string;
let app: string;
let env: Record<string, string>;
let printed: string;

function sh(command: string, cwd: string): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('bash', ['-c', command], { cwd, env, encoding: 'utf8', timeout: 150_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

function ok(command: string, cwd: string): string {
  const result = sh(command, cwd);
  if (result.status !== 0) throw new Error(`${command} (in ${cwd}) failed with ${String(result.status)}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

function weft(args: string, cwd: string): { status: number | null; stdout: string; stderr: string } {
  return sh(`${JSON.stringify(process.execPath)} ${JSON.stringify(weftBin)} ${args}`, cwd);
}

beforeAll(() => {
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'weft-new-next-')));
  tarballs = join(scratch, 'weft', 'packs');
  const pack = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'pack.mjs'), '--no-build', '--out', tarballs], { encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`scripts/pack.mjs failed:\n${pack.stdout}\n${pack.stderr}`);
  env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(VITEST|npm_|WEFT_)/i.test(key) && key !== 'NODE_OPTIONS' && key !== 'INIT_CWD') env[key] = value;
  }
  env['PATH'] = (env['PATH'] ?? '').split(':').filter((dir) => !dir.includes('node_modules')).join(':');
  const home = join(scratch, 'home');
  mkdirSync(home);
  Object.assign(env, { HOME: home, npm_config_cache: join(homedir(), '.npm'), npm_config_update_notifier: 'false', NO_COLOR: '1', CI: 'true' });
  app = join(scratch, 'app');
  mkdirSync(app);
  ok('npm init -y && npm pkg set type=module', app);
  ok(`npm install --no-audit --no-fund --prefer-offline ${join(tarballs, 'weft-core-0.1.0.tgz')}`, app);
  const created = weft('new filter audit-trail --group provider --key audit', app);
  if (created.status !== 0) throw new Error(`weft new failed:\n${created.stdout}\n${created.stderr}`);
  printed = created.stdout;
}, 60_000);

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe('weft new: the Next steps', () => {
  it('says how to install the tools (from the core tarball until Weft is on the registry), test, and install it copied', () => {
    const dir = join(app, 'weft-filter-audit-trail');
    expect(printed.slice(printed.indexOf('\nNext:'))).toBe(
      '\nNext:\n' +
        '  cd weft-filter-audit-trail\n' +
        '  npm install\n' +
        '  npm test      # builds dist/, then runs it from its manifest\n' +
        'Until Weft is on the npm registry, install @weft/core from its tarball instead of "npm install"\n' +
        '(npm run pack in a checkout of Weft writes it to packs/):\n' +
        '  npm install --save-dev <weft checkout>/packs/weft-core-0.1.0.tgz\n' +
        '\n' +
        'Then install it into an application, as a dependency, copied rather than linked (through a link it would\n' +
        'load its own devDependency copy of @weft/core), and check it with weft extensions / weft explain:\n' +
        `  npm install --install-links ${dir}\n`,
    );
  });

  it('followed as printed, the package installs, passes its tests, and is discovered with one copy of @weft/core', () => {
    // The indented lines are the commands, in order; `<weft checkout>` is where the tarballs were packed.
    const commands = printed
      .slice(printed.indexOf('\nNext:'))
      .split('\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .map((line) => line.replace('<weft checkout>', join(scratch, 'weft')));
    expect(commands[0]).toBe('cd weft-filter-audit-trail');
    const plugin = resolve(app, 'weft-filter-audit-trail');
    // Not on the registry yet: the tarball line stands in for `npm install`.
    const [, install, test, tarball, intoApp] = commands as [string, string, string, string, string];
    expect(install).toBe('npm install');
    ok(`${tarball} --no-audit --no-fund --prefer-offline`, plugin);
    const own = sh(test, plugin);
    expect(`${own.stdout}\n${own.stderr}`).toMatch(/Tests\s+4 passed \(4\)/);
    expect(own.status).toBe(0);

    // What the text warns against: npm's default, a symlink, loads the plugin's own copy of @weft/core.
    ok(`npm install --no-audit --no-fund --prefer-offline ${plugin}`, app);
    const linked = weft('doctor', app);
    expect(linked.status).toBe(1);
    expect(linked.stdout).toContain('duplicate-core');

    ok(`${intoApp} --no-audit --no-fund --prefer-offline`, app);
    const copies = readdirSync(join(app, 'node_modules', 'weft-filter-audit-trail'));
    expect(copies).toEqual(expect.arrayContaining(['META-INF', 'dist', 'package.json']));
    expect(copies).not.toContain('node_modules');
    const doctor = weft('doctor', app);
    expect(doctor.stdout).not.toContain('duplicate-core');
    expect(doctor.stdout).toMatch(/0 problems/);
    const explained = weft('explain --side provider org.acme.Greeter --param audit=on', app);
    expect(explained.stdout).toMatch(/1\s+audit-trail\s+weft-filter-audit-trail@0\.1\.0\s+activated automatically/);
  }, 170_000);
});
