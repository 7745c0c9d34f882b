// The command line as a whole: help, version, exit codes, argument parsing, and the real binary.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { ExitCode } from '@weft/cli';
import { createTestApp } from '@weft/test-utils';

import { ACME_FILTERS, cliDir, weft, writePackage } from './support/cli.ts';

const COMMANDS = ['extensions', 'explain', 'override', 'doctor', 'new'];
const version = (JSON.parse(readFileSync(join(cliDir, 'package.json'), 'utf8')) as { version: string }).version;

describe('global', () => {
  it('exports the documented exit codes', () => {
    expect(ExitCode).toEqual({ OK: 0, FAILURE: 1, USAGE: 2 });
  });

  it('--help lists every command and the exit codes, on stdout, exit 0', async () => {
    const result = await weft(['--help']);
    expect(result.code).toBe(0);
    for (const command of COMMANDS) expect(result.stdout).toMatch(new RegExp(`^  ${command}\\s+\\S`, 'm'));
    expect(result.stdout).toContain('2  usage error');
    expect(result.stderr).toBe('');
  });

  it('without arguments prints the help on stderr and exits 2', async () => {
    const result = await weft([]);
    expect(result.code).toBe(ExitCode.USAGE);
    expect(result.stderr).toContain('Usage:');
    expect(result.stdout).toBe('');
  });

  it('--version prints the package version', async () => {
    const result = await weft(['--version']);
    expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  });

  it('an unknown command exits 2 with a suggestion', async () => {
    const result = await weft(['explian']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command "explian" (did you mean explain?)');
    expect(result.stderr).toContain('Run "weft --help" for usage.');
  });

  it.each(COMMANDS)('weft %s --help, -h and weft help <command> print the same help, exit 0', async (command) => {
    const a = await weft([command, '--help']);
    const b = await weft(['help', command]);
    const c = await weft([command, '-h']);
    expect(a.code).toBe(0);
    expect(a.stdout).toContain(`weft ${command} — `);
    expect(a.stdout).toContain('Exit codes:');
    expect(b.stdout).toBe(a.stdout);
    expect(c.stdout).toBe(a.stdout);
  });

  it('an unknown flag exits 2, naming the flag and suggesting a close one', async () => {
    const result = await weft(['extensions', '--jsno']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('weft extensions: unknown flag --jsno (did you mean --json?)');
    expect(result.stderr).toContain('Run "weft extensions --help" for usage.');
  });

  it('a flag missing its value, or with a value outside its choices, exits 2', async () => {
    expect((await weft(['explain', 'org.acme.Greeter', '--side'])).stderr).toContain('--side needs a value provider|consumer');
    const bad = await weft(['explain', 'org.acme.Greeter', '--side=both']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--side must be one of provider, consumer (got "both")');
    expect((await weft(['doctor', '--json=yes'])).stderr).toContain('--json takes no value');
  });

  it('with --json, a usage error is also reported as JSON on stdout', async () => {
    const result = await weft(['explain', '--json', 'not a service!', '--side', 'provider']);
    expect(result.code).toBe(2);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, exitCode: 2 });
  });

  it('commands that read a project exit 2 when there is no package.json above the working directory', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'weft-cli-empty-'));
    try {
      for (const command of ['extensions', 'doctor']) {
        const result = await weft([command], { cwd: empty });
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(`no package.json in ${empty} or any directory above it`);
      }
      const root = await weft(['doctor', '--root', 'nowhere'], { cwd: empty });
      expect(root.code).toBe(2);
      expect(root.stderr).toContain(`--root nowhere: there is no package.json in ${join(empty, 'nowhere')}`);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('bin/weft.js (a real process)', () => {
  const app = createTestApp(['@weft/core']);
  writePackage(app.root, ACME_FILTERS);
  afterAll(() => app.cleanup());

  function spawnWeft(argv: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [join(cliDir, 'bin', 'weft.js'), ...argv], { cwd: app.root, env: { ...process.env, WEFT_REGISTRY: '' } });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
    });
  }

  it('prints its version and exits 0', async () => {
    const result = await spawnWeft(['--version']);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${version}\n`);
  });

  it('explains a chain from the working directory, exit 0', async () => {
    const result = await spawnWeft(['explain', '--side', 'provider', 'org.acme.Greeter', '--param', 'tps=5']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('exporter → [ echo → tps ] → service implementation');
  });

  it('exits 2 on bad input, with the message on stderr', async () => {
    const result = await spawnWeft(['explain', '--side', 'provider', 'tri://127.0.0.1:99999/org.acme.Greeter']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('cannot parse the URL');
    expect(result.stdout).toBe('');
  });

  it('exits 1 within seconds when the registry is unreachable', async () => {
    const result = await spawnWeft(['override', 'list', '--registry', 'zookeeper://127.0.0.1:1', '--service', 'org.acme.Greeter', '--timeout', '1000']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('zookeeper://127.0.0.1:1');
    expect(result.ms).toBeLessThan(8000);
  });

  it('stops quietly when the reader closes the pipe early (weft extensions | head)', async () => {
    const result = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, [join(cliDir, 'bin', 'weft.js'), 'extensions'], { cwd: app.root, env: { ...process.env, WEFT_REGISTRY: '' } });
      let stderr = '';
      child.stdout.destroy(); // the reader is gone before the first line is written: every write meets EPIPE
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });
});
