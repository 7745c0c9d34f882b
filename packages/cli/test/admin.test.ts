// weft admin: starts the console on loopback, prints where (and the token when it generated one), answers the API,
// and stops on SIGTERM with exit code 0; refuses a network bind without --allow-remote and a missing registry.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { main } from '@weft/cli';

import { cliDir, weft } from './support/cli.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-cli-admin-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('weft admin', () => {
  it('runs until stopped: prints the URL, answers a login with the token from WEFT_ADMIN_TOKEN (not printed), exits 0', async () => {
    let stdout = '';
    let stop: () => void = () => undefined;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const running = main(['admin', '--registry', `embedded://${dir}`, '--port', '0'], {
      cwd: dir,
      stdout: { write: (chunk: string) => (stdout += chunk) },
      stderr: { write: (chunk: string) => (stdout += chunk) },
      env: { WEFT_ADMIN_TOKEN: 'from-the-environment' },
      stop: stopped,
    });
    const deadline = Date.now() + 10_000;
    while (!stdout.includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const match = /^Weft admin on (http:\/\/127\.0\.0\.1:\d+)\n$/.exec(stdout);
    expect(match, stdout).not.toBeNull();
    const url = (match as RegExpExecArray)[1] as string;
    const login = await fetch(`${url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: 'from-the-environment' }) });
    expect(login.status).toBe(200);
    stop();
    expect(await running).toBe(0);
    await expect(fetch(`${url}/api/session`)).rejects.toThrow();
  });

  it('as a process: prints the generated token, and SIGTERM stops it with exit code 0', async () => {
    const child = spawn(process.execPath, [join(cliDir, 'bin', 'weft.js'), 'admin', '--registry', `embedded://${dir}`, '--port', '0'], {
      env: { ...process.env, WEFT_ADMIN_TOKEN: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
      const deadline = Date.now() + 15_000;
      while (!out.includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      const match = /^Weft admin on (http:\/\/127\.0\.0\.1:\d+) \(token: ([\w-]{24,})\)\n$/.exec(out);
      expect(match, out).not.toBeNull();
      const [, url, token] = match as RegExpExecArray;
      const login = await fetch(`${url}/api/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
      expect(login.status).toBe(200);
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null && child.pid !== undefined) child.kill('SIGKILL');
    }
  });

  it('refuses a non-loopback host without --allow-remote (exit 1), a missing registry and a bad port (exit 2)', async () => {
    const remote = await weft(['admin', '--registry', `embedded://${dir}`, '--host', '0.0.0.0', '--port', '0', '--token', 'long-enough-token']);
    expect(remote.code).toBe(1);
    expect(remote.stderr).toContain('weft admin: error: refusing to listen on 0.0.0.0: it is not a loopback address');
    expect(remote.stderr).toContain('--allow-remote');
    const missing = await weft(['admin']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('missing --registry <url>');
    const port = await weft(['admin', '--registry', `embedded://${dir}`, '--port', '70000']);
    expect(port.code).toBe(2);
    const metrics = await weft(['admin', '--registry', `embedded://${dir}`, '--metrics', 'ftp://x']);
    expect(metrics.code).toBe(2);
    expect(metrics.stderr).toContain('--metrics ftp://x: expected an http:// URL');
  });
});
