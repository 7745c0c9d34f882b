// Protobuf services over tri against Python's grpcio (gRPC's C core: a second, independent stack), unary, both
// directions. grpcio comes from Debian's python3-grpcio (scripts/install-grpcio.sh, run by `npm test`).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { Filter, RpcError, RpcErrorCode, type Invocation, type Invoker, type Result } from '@weft/core';
import { Code, defineProtoService, grpcError } from '@weft/serialization-protobuf';
import { freePort } from '@weft/test-utils';

import { Interop as InteropDesc } from './gen/weft/interop/v1/interop_pb.js';
import { BASE_PACKAGES, Harness } from './support/harness.js';

const Interop = defineProtoService(InteropDesc);
const PEER = fileURLToPath(new URL('./support/grpcio-peer.py', import.meta.url));
/** The first Python that imports grpc (pyenv may shadow Debian's /usr/bin/python3). */
const PYTHON = ['python3', '/usr/bin/python3'].find((py) => spawnSync(py, ['-c', 'import grpc'], { stdio: 'ignore' }).status === 0);

const harness = new Harness([...BASE_PACKAGES, '@weft/serialization-protobuf']);
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.stdin?.end();
    if (child.exitCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGTERM');
  }
  await harness.close();
});

/** Runs the Python peer to its end, collecting its output. */
function runPython(args: readonly string[]): Promise<{ stdout: string; stderr: string }> {
  const child = spawn(python(), args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('close', () => resolve({ stdout, stderr })));
}

function python(): string {
  if (PYTHON === undefined) throw new Error('Python with grpcio not found: run scripts/install-grpcio.sh (npm test does).');
  return PYTHON;
}

describe('grpcio client → Weft protobuf provider', () => {
  it('unary messages, metadata both ways (incl. -bin), the deadline, and every status code with its message', async () => {
    const port = await freePort();
    const provider = await harness.start('weft-provider');
    const seen: Invocation[] = [];
    class Tagging extends Filter {
      async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
        seen.push(invocation);
        const result = await invoker.invoke(invocation);
        result.setAttachment('served-by', 'weft');
        result.setAttachment('blob-bin', Buffer.from([0, 1, 2, 255]).toString('base64'));
        return result;
      }
    }
    provider.model.getExtensionLoader(Filter).addExtension('tagging', Tagging, { activate: { group: 'provider' } });
    await provider.export(
      Interop,
      {
        echo: (request) => ({ text: request.text, payload: request.payload, big: request.big }),
        fail: (request) => {
          throw grpcError(request.code as Code, request.message);
        },
        sleep: (request) => new Promise((resolve) => setTimeout(() => resolve({ slept: request.ms }), request.ms)),
      },
      { protocol: 'tri', port },
    );
    // Asynchronously: the provider answers from this process's event loop.
    const run = await runPython([PEER, 'client', String(port)]);
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as {
      echo: { text: string; payload: string; big: string; trailing: Record<string, string> };
      deadline: string;
      statuses: Record<string, [number, string]>;
    };
    expect(out.echo.text).toBe('héllo');
    expect(out.echo.payload).toBe('010203');
    expect(BigInt(out.echo.big)).toBe(9007199254740993n);
    expect(out.echo.trailing['served-by']).toBe('weft');
    expect(out.echo.trailing['blob-bin']).toBe('000102ff');
    expect(seen[0]?.getAttachment('x-trace')).toBe('abc-123');
    expect(seen[0]?.getAttachment('x-raw-bin')).toBe(Buffer.from([9, 8, 7]).toString('base64').replace(/=+$/, ''));
    expect(out.deadline).toBe('DEADLINE_EXCEEDED');
    for (let code = 1; code <= 16; code++) {
      expect(out.statuses[String(code)], `status ${code}`).toEqual([code, `failed with ${code}: 50% ✓ a+b`]);
    }
  }, 40_000);
});

describe('Weft protobuf consumer → grpcio server', () => {
  async function grpcioServer(): Promise<number> {
    const child = spawn(python(), [PEER, 'server'], { stdio: ['pipe', 'pipe', 'inherit'] });
    children.push(child);
    return new Promise((resolve, reject) => {
      let text = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        text += chunk.toString('utf8');
        const match = /PORT (\d+)/.exec(text);
        if (match) resolve(Number(match[1]));
      });
      child.once('exit', (code) => reject(new Error(`grpcio server exited with ${code}`)));
    });
  }

  it('unary messages, metadata both ways (incl. -bin), the deadline, and every status code', async () => {
    const port = await grpcioServer();
    const consumer = await harness.start('weft-consumer');
    const results: Result[] = [];
    class Capture extends Filter {
      async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
        const result = await invoker.invoke(invocation);
        results.push(result);
        return result;
      }
    }
    consumer.model.getExtensionLoader(Filter).addExtension('capture', Capture, { activate: { group: 'consumer' } });
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 2000 });

    const reply = await interop.$call('echo', [{ text: 'héllo', payload: new Uint8Array([1, 2]), big: 9007199254740993n, wantHeaders: ['x-trace', 'x-raw-bin'] }], {
      attachments: { 'x-trace': 'abc-123', 'x-raw-bin': Buffer.from([9, 8, 7]).toString('base64') },
    });
    expect(reply.text).toBe('héllo');
    expect(reply.payload).toStrictEqual(new Uint8Array([1, 2]));
    expect(reply.big).toBe(9007199254740993n);
    expect(reply.headers).toEqual({ 'x-trace': 'abc-123', 'x-raw-bin': 'bytes:090807' });
    expect(results[0]?.getAttachment('served-by')).toBe('grpcio');
    expect(results[0]?.getAttachment('blob-bin')).toBe(Buffer.from([4, 5, 6]).toString('base64').replace(/=+$/, ''));

    expect((await interop.sleep({ ms: 5 })).slept).toBe(5);
    const remaining = Number(results[1]?.getAttachment('remaining-ms'));
    expect(remaining).toBeGreaterThan(1000);
    expect(remaining).toBeLessThanOrEqual(2000);
    const late = await interop.sleep({ ms: 2500 }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(RpcError);
    expect((late as RpcError).code).toBe(RpcErrorCode.TIMEOUT);

    for (let code = 1; code <= 16; code++) {
      const message = `failed with ${code}: 50% ✓ a+b`;
      const error = await interop.fail({ code, message }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RpcError);
      expect((error as RpcError).grpcStatus, `status ${code}`).toBe(code);
      expect((error as RpcError).message).toContain(message);
    }
  }, 40_000);
});
