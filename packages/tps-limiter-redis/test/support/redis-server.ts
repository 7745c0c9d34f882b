// A real redis-server for the tests: Debian's `redis-server` (scripts/install-redis.sh installs it), on a free
// loopback port, no persistence (`--save '' --appendonly no`), its working directory a fresh temporary directory;
// stopped by PID. `restart()` starts it again on the same port, empty (as after a crash without persistence).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort } from '@weft/test-utils';

export interface RedisServer {
  readonly port: number;
  /** `redis://127.0.0.1:<port>`. */
  readonly address: string;
  /** Runs a redis-cli command against it and returns its trimmed output. */
  cli(...args: string[]): string;
  /** Sends a signal to the server by PID (`SIGSTOP` freezes it, `SIGCONT` wakes it). */
  signal(signal: NodeJS.Signals): void;
  /** Stops the server (SIGKILL by PID: an abrupt death, as a crash). */
  stop(): Promise<void>;
  /** Starts it again on the same port (when stopped). */
  restart(): Promise<void>;
  /** Stops it and removes its directory. */
  dispose(): Promise<void>;
}

/** The redis-server binary: `$REDIS_SERVER`, else Debian's. */
const SERVER = process.env.REDIS_SERVER ?? 'redis-server';
const CLI = process.env.REDIS_CLI ?? 'redis-cli';

export async function startRedis(options: { password?: string } = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'weft-redis-'));
  let child: ChildProcess | undefined;
  const auth = options.password === undefined ? [] : ['--requirepass', options.password];

  const start = async (): Promise<void> => {
    const proc = spawn(SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--appendonly', 'no', ...auth], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = proc;
    let output = '';
    proc.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    proc.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<never>((_, reject) => proc.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`))));
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (await Promise.race([accepts(port), exited])) return;
      if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port} within 10 s: ${output}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const stop = async (): Promise<void> => {
    const proc = child;
    child = undefined;
    if (proc?.pid === undefined || proc.exitCode !== null) return;
    const gone = new Promise((resolve) => proc.once('exit', resolve));
    process.kill(proc.pid, 'SIGKILL');
    await gone;
  };

  await start();
  return {
    port,
    address: `redis://127.0.0.1:${port}`,
    cli: (...args: string[]) => {
      const pass = options.password === undefined ? [] : ['--no-auth-warning', '-a', options.password];
      const out = spawnSync(CLI, ['-h', '127.0.0.1', '-p', String(port), ...pass, ...args], { encoding: 'utf8' });
      if (out.status !== 0) throw new Error(`redis-cli ${args.join(' ')} failed: ${out.stderr}`);
      return out.stdout.trim();
    },
    signal: (signal: NodeJS.Signals) => {
      if (child?.pid !== undefined) process.kill(child.pid, signal);
    },
    stop,
    restart: async () => {
      if (child === undefined) await start();
    },
    dispose: async () => {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
