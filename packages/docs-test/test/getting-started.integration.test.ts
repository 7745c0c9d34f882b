// docs/guide/getting-started.md, followed word for word as a new user would, in an empty folder outside the
// repository: every file it shows is written and every command it shows is run, in order (the marking
// convention is in support/guide-steps.ts), and what the guide says a command prints is what it prints.
//
// What the test maps, because Weft is not on the npm registry yet, exactly as the guide's "not on the npm
// registry yet" note tells users to: `@weft/<name>` in an `npm install` command is the tarball `npm pack` makes
// of that package (scripts/pack.mjs, run once), and `@weft/registry-zookeeper` and `@weft/routers` are pointed at their tarballs with
// `npm pkg set overrides…` before `@weft/cli` is installed. Besides, port 50051 becomes a free port, and the
// embedded registry's folder (under TMPDIR) and HOME are the scratch folder's own, so that nothing is shared
// with other tests or the user's machine.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { freePort } from '@weft/test-utils';

import { guideSteps, type GuideStep, type ShellStep } from './support/guide-steps.ts';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const guidePath = join(repoRoot, 'docs', 'guide', 'getting-started.md');

interface Ran {
  readonly command: string;
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let scratch: string;
let tarballs: string;
let steps: GuideStep[];
let port: number;
let env: Record<string, string>;
let cwd: string;
let provider: { child: ChildProcess; stdout: string; stderr: string; exit: Promise<number | null> } | undefined;
const ran: Ran[] = [];

function tarballOf(name: string): string {
  const file = `weft-${name}-`;
  const found = readdirSync(tarballs).find((f) => f.startsWith(file) && /^\d/.test(f.slice(file.length)));
  if (found === undefined) throw new Error(`no tarball of @weft/${name} in ${tarballs} (the guide installs a package that does not exist)`);
  return join(tarballs, found);
}

/** The command the test runs for a command of the guide (see the header). */
function mapped(command: string): string[] {
  let text = command.replaceAll('50051', String(port));
  if (!/^npm install\b/.test(text)) return [text];
  const before: string[] = [];
  if (/(^|\s)@weft\/cli(\s|$)/.test(text)) {
    before.push(`npm pkg set overrides.@weft/registry-zookeeper=file:${tarballOf('registry-zookeeper')} overrides.@weft/routers=file:${tarballOf('routers')}`);
  }
  text = text.replace(/(^|\s)@weft\/([a-z0-9-]+)(?=\s|$)/g, (_all, space: string, name: string) => `${space}${tarballOf(name)}`);
  return [...before, `${text} --no-audit --no-fund --prefer-offline`];
}

function run(command: string): Ran {
  const cd = /^cd (\S+)$/.exec(command);
  if (cd !== null) {
    cwd = resolve(cwd, cd[1] as string);
    const result = { command, status: existsSync(cwd) ? 0 : 1, stdout: '', stderr: '' };
    ran.push(result);
    return result;
  }
  const result = spawnSync('bash', ['-c', command], { cwd, env, encoding: 'utf8', timeout: 120_000 });
  const done = { command, status: result.status, stdout: result.stdout, stderr: result.stderr };
  ran.push(done);
  return done;
}

function failure(step: ShellStep, what: string, result?: Ran): Error {
  const output = result === undefined ? '' : `\n--- stdout\n${result.stdout}\n--- stderr\n${result.stderr}`;
  return new Error(`${guidePath}:${step.line}: ${what}${output}`);
}

async function startProvider(step: ShellStep): Promise<void> {
  if (provider !== undefined) throw failure(step, 'terminal 1 is already running a command');
  const command = mapped(step.commands[0] as string)[0] as string;
  const child = spawn('bash', ['-c', `exec ${command}`], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const started = { child, stdout: '', stderr: '', exit: new Promise<number | null>((done) => child.once('exit', (code) => done(code))) };
  provider = started;
  child.stdout?.on('data', (chunk: Buffer) => (started.stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (started.stderr += chunk.toString()));
  const ready = (step.expected ?? '').replaceAll('50051', String(port)).trim();
  const deadline = Date.now() + 20_000;
  while (!started.stdout.includes(ready) || ready === '') {
    if (child.exitCode !== null) throw failure(step, `${command} exited (${child.exitCode}) before printing "${ready}"`, { command, status: child.exitCode, ...started });
    if (Date.now() > deadline) throw failure(step, `${command} did not print "${ready}" within 20 s`, { command, status: null, ...started });
    await new Promise((r) => setTimeout(r, 50));
  }
  ran.push({ command, status: null, stdout: started.stdout, stderr: started.stderr });
}

async function interruptProvider(step: ShellStep): Promise<void> {
  if (provider === undefined) throw failure(step, 'Ctrl-C, but terminal 1 runs nothing');
  const { child, exit } = provider;
  child.kill('SIGINT');
  const code = await Promise.race([exit, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 10_000))]);
  if (code === 'hung') {
    child.kill('SIGKILL');
    throw failure(step, 'the provider did not exit within 10 s of Ctrl-C');
  }
  if (code !== 0) throw failure(step, `the provider exited with ${String(code)} after Ctrl-C`, { command: 'Ctrl-C', status: code, stdout: provider.stdout, stderr: provider.stderr });
  provider = undefined;
}

beforeAll(async () => {
  steps = guideSteps(readFileSync(guidePath, 'utf8'), guidePath);
  scratch = realpathSync(mkdtempSync(join(tmpdir(), 'weft-getting-started-')));
  tarballs = join(scratch, 'tarballs');
  const pack = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'pack.mjs'), '--no-build', '--out', tarballs], { encoding: 'utf8' });
  if (pack.status !== 0) throw new Error(`scripts/pack.mjs failed:\n${pack.stdout}\n${pack.stderr}`);
  port = await freePort();
  const home = join(scratch, 'home');
  const tmp = join(scratch, 'tmp');
  mkdirSync(home);
  mkdirSync(tmp);
  env = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !/^(VITEST|npm_|WEFT_)/i.test(key) && key !== 'NODE_OPTIONS' && key !== 'INIT_CWD') env[key] = value;
  }
  // Only the app's own node_modules/.bin: `npx weft` must find the `weft` the guide installed, not the repository's.
  env['PATH'] = (env['PATH'] ?? '').split(':').filter((dir) => !dir.includes('node_modules')).join(':');
  // The npm cache stays the user's (it is what makes installs fast); everything else is the scratch folder's.
  Object.assign(env, { HOME: home, TMPDIR: tmp, npm_config_cache: join(homedir(), '.npm'), npm_config_update_notifier: 'false', NO_COLOR: '1' });
  cwd = join(scratch, 'work');
  mkdirSync(cwd);
}, 60_000);

afterAll(async () => {
  if (provider !== undefined) {
    provider.child.kill('SIGKILL');
    await provider.exit;
  }
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe('the getting-started guide, followed word for word in an empty folder', () => {
  it('shows the application\'s files, and commands that create, build, run and inspect it', () => {
    expect(steps.filter((s) => s.kind === 'file').map((s) => s.path)).toEqual(['tsconfig.json', 'src/greeter.ts', 'src/provider.ts', 'src/consumer.ts']);
    const commands = steps.flatMap((s) => (s.kind === 'sh' ? s.commands : []));
    expect(commands.slice(0, 4)).toEqual(['mkdir greeter', 'cd greeter', 'npm init -y', 'npm pkg set type=module']);
    // @weft/cli is installed before any `weft` command runs.
    const cli = commands.findIndex((c) => /^npm install .*@weft\/cli\b/.test(c));
    expect(cli).toBeGreaterThan(0);
    expect(commands.findIndex((c) => c.startsWith('npx weft'))).toBeGreaterThan(cli);
    expect(commands).toContain('npx tsc');
    expect(commands).toContain('node dist/consumer.js');
  });

  it('every step works, and every output the guide shows is what the command prints', async () => {
    for (const step of steps) {
      if (step.kind === 'file') {
        mkdirSync(dirname(join(cwd, step.path)), { recursive: true });
        writeFileSync(join(cwd, step.path), step.content.replaceAll('50051', String(port)));
      } else if (step.interrupt) {
        await interruptProvider(step);
      } else if (step.background) {
        await startProvider(step);
      } else {
        let last: Ran | undefined;
        for (const command of step.commands) {
          for (const actual of mapped(command)) {
            last = run(actual);
            if (last.status !== 0) throw failure(step, `${actual} failed (exit ${String(last.status)})`, last);
          }
        }
        if (step.expected !== undefined && last !== undefined) {
          expect(last.stdout.trimEnd(), `${guidePath}:${step.line}: ${last.command}`).toBe(step.expected.replaceAll('50051', String(port)).trimEnd());
        }
      }
    }
    expect(provider, 'the guide leaves the provider running').toBeUndefined();
  }, 170_000);

  it('installs the plugins as dependencies and the tools as devDependencies, one copy of @weft/core', () => {
    const pkg = JSON.parse(readFileSync(join(cwd, 'package.json'), 'utf8')) as { type: string; dependencies: Record<string, string>; devDependencies: Record<string, string> };
    expect(pkg.type).toBe('module');
    expect(Object.keys(pkg.dependencies).sort()).toEqual([
      '@weft/cluster',
      '@weft/core',
      '@weft/filter-accesslog',
      '@weft/filter-tpslimit',
      '@weft/mock',
      '@weft/protocol-triple',
      '@weft/registry-embedded',
    ]);
    expect(Object.keys(pkg.devDependencies).sort()).toEqual(['@types/node', '@weft/cli', 'typescript']);
    const copies = spawnSync('find', ['node_modules', '-path', '*/@weft/core/package.json'], { cwd, encoding: 'utf8' });
    expect(copies.stdout.trim().split('\n')).toEqual(['node_modules/@weft/core/package.json']);
  });

  it('the fallback answers sayHello with the provider down and logs a warning; greet fails with no-invoker', () => {
    const down = ran.filter((r) => r.command === 'node dist/consumer.js' && r.stdout.startsWith('Hello from the fallback'));
    expect(down).toHaveLength(1);
    expect(down[0]?.stderr).toMatch(/warn.*org\.acme\.Greeter.*sayHello/);
  });

  it('without check: false, refer fails at once with no-invoker when no provider is registered', () => {
    const script = `
import { WeftApplication } from '@weft/core';
import { Greeter } from './dist/greeter.js';
const app = await WeftApplication.start({ root: process.cwd(), name: 'greeter-consumer', registry: 'embedded://' });
try {
  await app.refer(Greeter, { methods: { sayHello: { mock: 'fail:return "Hello from the fallback"' } } });
  console.log('referred');
} catch (error) {
  console.log(error.code + ': ' + error.message);
}
await app.shutdown();
`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd, env, encoding: 'utf8' });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^no-invoker: refer\(org\.acme\.Greeter\): no provider of org\.acme\.Greeter is registered at /);
  });

  it('weft explain puts tps in the provider chain and says why accesslog is not in it; weft doctor passes', () => {
    const explain = ran.find((r) => r.command.startsWith('npx weft explain'));
    expect(explain?.stdout).toMatch(/exporter → \[ tps \] → service implementation/);
    expect(explain?.stdout).toMatch(/accesslog\s+@weft\/filter-accesslog@0\.1\.0\s+needs URL key accesslog/);
    const extensions = ran.find((r) => r.command.startsWith('npx weft extensions'));
    expect(extensions?.stdout).toMatch(/weft\.rpc\.Filter\n.*\n\s+accesslog\s+extension\s+@weft\/filter-accesslog@0\.1\.0/);
    const doctor = ran.find((r) => r.command.startsWith('npx weft doctor'));
    expect(doctor?.stdout).toMatch(/0 problems/);
  });

  it('the access log has one line per call the provider answered', () => {
    const log = ran.find((r) => r.command === 'cat access.log')?.stdout ?? '';
    expect(log).toContain('org.acme.Greeter sayHello(String) ["curl"]');
    expect(log).toContain('org.acme.Greeter sayHello(String) ["Ann"]');
    expect(log).toContain('org.acme.Greeter greet(String) ["Bo"]');
    // Two runs reached the provider (before the fallback, and after the override was removed), plus curl; the
    // forced run answered sayHello without calling it.
    expect(log.match(/sayHello\(String\) \["Ann"\]/g)).toHaveLength(2);
  });
});
