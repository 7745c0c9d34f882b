// Python grpcio (gRPC's C core) peers for the interop tests: test/support/grpcio-peer.py run as a client against a
// Weft provider, or as a server for a Weft consumer. grpcio comes from Debian's python3-grpcio
// (scripts/install-grpcio.sh, run by `npm test`); the child processes are stopped by the Harness.
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import type { Harness } from './harness.js';

const PEER = fileURLToPath(new URL('./grpcio-peer.py', import.meta.url));
/** The first Python that imports grpc (pyenv's python3 on PATH may shadow Debian's /usr/bin/python3). */
const PYTHON = ['/usr/bin/python3', 'python3'].find((py) => spawnSync(py, ['-c', 'import grpc'], { stdio: 'ignore' }).status === 0);

function python(): string {
  if (PYTHON === undefined) throw new Error('Python with grpcio not found: run scripts/install-grpcio.sh (npm test does).');
  return PYTHON;
}

/** Runs the peer as a client (`mode` `client` or `stream-client`) against `port`, and parses the JSON it prints. */
export async function runGrpcioClient<T>(harness: Harness, mode: string, port: number): Promise<{ seen: T; stderr: string }> {
  const child = spawn(python(), [PEER, mode, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
  harness.onClose(() => {
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  await new Promise((resolve) => child.once('close', resolve));
  if (stdout === '') throw new Error(`the grpcio client printed nothing; stderr: ${stderr}`);
  return { seen: JSON.parse(stdout) as T, stderr };
}

/** A running grpcio server: its port, and the events it reports (one line each, e.g. `CANCELLED LotsOfReplies`). */
export interface GrpcioServer {
  readonly port: number;
  readonly events: string[];
}

/** Starts the peer as a server on a free loopback port (it runs until its stdin closes). */
export function startGrpcioServer(harness: Harness): Promise<GrpcioServer> {
  const child = spawn(python(), [PEER, 'server'], { stdio: ['pipe', 'pipe', 'inherit'] });
  harness.onClose(() => {
    child.stdin.end();
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
  });
  const events: string[] = [];
  return new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => {
      text += chunk.toString('utf8');
      let newline: number;
      while ((newline = text.indexOf('\n')) >= 0) {
        const line = text.slice(0, newline);
        text = text.slice(newline + 1);
        const port = /^PORT (\d+)$/.exec(line);
        if (port) resolve({ port: Number(port[1]), events });
        else events.push(line);
      }
    });
    child.once('exit', (code) => reject(new Error(`grpcio server exited with ${code}`)));
  });
}
