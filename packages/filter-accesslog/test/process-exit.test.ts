// Queued lines reach the file however the process ends: SIGTERM with no handler, a handler that calls
// process.exit(), the event loop running dry — and counters agree with the file after a disk-full part-way.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createTestApp, type TestApp } from '@weft/test-utils';

const CHILD = `
import { defineService, Logger, WeftApplication } from '@weft/core';
import { AccessLogStats } from '@weft/filter-accesslog';
const [mode, file, count] = process.argv.slice(2);
process.on('SIGXFSZ', () => {}); // the file-size limit answers EFBIG instead of killing the process
const quiet = new (class extends Logger { debug() {} info() {} warn() {} error(m) { process.stderr.write(m + '\\n'); } })();
const Greeter = defineService('org.acme.Greeter', { seq: { args: [Number], returns: Number } });
const app = await WeftApplication.start({ root: process.cwd(), name: 'child', logger: quiet });
await app.export(Greeter, { seq: async (n) => n }, {
  parameters: { accesslog: file, 'accesslog.flush.interval': 600000, 'accesslog.buffer.size': 1000000 },
});
const greeter = await app.refer(Greeter, { retries: 0 });
if (mode === 'exit-handler') process.on('SIGTERM', () => process.exit(3));
for (let i = 0; i < Number(count); i++) await greeter.seq(i);
if (mode === 'disk-full') {
  await app.shutdown({ timeout: 2000 });
  process.stdout.write(JSON.stringify(app.model.getService(AccessLogStats).file(file)) + '\\n');
} else if (mode === 'natural') {
  process.stdout.write('done\\n'); // and the event loop runs dry
} else {
  process.stdout.write('ready\\n');
  setInterval(() => {}, 1000); // alive until signalled
}
`;

let testApp: TestApp;
let dir: string;

beforeAll(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-accesslog']);
  writeFileSync(join(testApp.root, 'child.mjs'), CHILD);
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'weft-accesslog-exit-')));
});
afterAll(() => {
  testApp.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

interface Ended {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
}

/** Runs the child; `signal` is sent once it prints `ready`. `fileSizeKiB` limits the size of files it writes. */
function run(mode: string, file: string, count: number, options: { signal?: NodeJS.Signals; fileSizeKiB?: number } = {}): Promise<Ended> {
  const args = [join(testApp.root, 'child.mjs'), mode, file, String(count)];
  const child =
    options.fileSizeKiB === undefined
      ? spawn(process.execPath, args, { cwd: testApp.root, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn('bash', ['-c', `ulimit -f ${options.fileSizeKiB}; exec "$0" "$@"`, process.execPath, ...args], { cwd: testApp.root, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    if (options.signal !== undefined && stdout.includes('ready\n')) child.kill(options.signal);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child ${mode} did not end: ${stderr}`));
    }, 15_000);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout });
    });
  });
}

function lineCount(file: string): number {
  const text = readFileSync(file, 'utf8');
  return text.split('\n').length - 1;
}

describe('lines reach the file however the process ends', () => {
  it('SIGTERM and no handler: all 3120 queued lines are written, then the process dies of SIGTERM as it would have', async () => {
    const file = join(dir, 'sigterm.log');
    const ended = await run('plain', file, 3120, { signal: 'SIGTERM' });
    expect(ended.signal).toBe('SIGTERM');
    expect(lineCount(file)).toBe(3120);
    expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
  });

  it('SIGINT and no handler: the same', async () => {
    const file = join(dir, 'sigint.log');
    const ended = await run('plain', file, 500, { signal: 'SIGINT' });
    expect(ended.signal).toBe('SIGINT');
    expect(lineCount(file)).toBe(500);
  });

  it("a SIGTERM handler that calls process.exit(): the handler decides (exit code 3), and no line is lost", async () => {
    const file = join(dir, 'exit-handler.log');
    const ended = await run('exit-handler', file, 3120, { signal: 'SIGTERM' });
    expect(ended).toMatchObject({ code: 3, signal: null });
    expect(lineCount(file)).toBe(3120);
  });

  it('an application never shut down, whose event loop runs dry: the lines are written on beforeExit', async () => {
    const file = join(dir, 'natural.log');
    const ended = await run('natural', file, 800);
    expect(ended).toMatchObject({ code: 0, signal: null });
    expect(lineCount(file)).toBe(800);
  });

  it('a disk that fills part-way through the shutdown write: written equals the whole lines in the file, the rest is unwritable', async () => {
    const file = join(dir, 'disk-full.log');
    const ended = await run('disk-full', file, 3000, { fileSizeKiB: 64 });
    expect(ended.code).toBe(0);
    const stats = JSON.parse(ended.stdout.trim().split('\n').pop() as string) as { written: number; unwritable: number; pending: number };
    const text = readFileSync(file, 'utf8');
    expect(text.length).toBe(64 * 1024); // the limit cut a line in the middle
    const whole = text.split('\n').length - 1;
    expect(whole).toBeGreaterThan(0);
    expect(stats.written).toBe(whole);
    expect(stats.unwritable).toBe(3000 - whole);
    expect(stats.pending).toBe(0);
  });
});
