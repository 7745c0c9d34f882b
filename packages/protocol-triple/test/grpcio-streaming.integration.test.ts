// Streaming over tri against Python's grpcio (gRPC's C core: a second, independent stack), both directions:
// server-, client- and bidi-streaming, an error status mid-stream, and a client cancel.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { RpcError, type ServiceImplementation } from '@weft/core';
import { Code, defineProtoService, grpcError } from '@weft/serialization-protobuf';
import { freePort } from '@weft/test-utils';

import { Streamer as StreamerDesc } from './gen/weft/interop/v1/streaming_pb.js';
import { BASE_PACKAGES, Harness, waitFor } from './support/harness.js';

const Streamer = defineProtoService(StreamerDesc);
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

function python(): string {
  if (PYTHON === undefined) throw new Error('Python with grpcio not found: run scripts/install-grpcio.sh (npm test does).');
  return PYTHON;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('grpcio client → Weft streaming provider', () => {
  it('server, client and bidi streams; an error status mid-stream; a client cancel returns the generator', async () => {
    const port = await freePort();
    const provider = await harness.start('weft-stream-provider');
    const probe = { cancelledReturned: false };
    const impl: ServiceImplementation<typeof Streamer.methods> = {
      async *lotsOfReplies(request) {
        try {
          for (let i = 0; i < request.count; i++) {
            if (request.failAfter > 0 && i === request.failAfter) throw grpcError(request.failCode as Code, `failed after ${i} replies`);
            yield { text: `${request.text} #${i}`, index: i };
            if (request.delayMs > 0) await sleep(request.delayMs);
          }
        } finally {
          if (request.count === 1000) probe.cancelledReturned = true;
        }
      },
      async record(requests) {
        const texts: string[] = [];
        for await (const request of requests) texts.push(request.text);
        return { count: texts.length, texts: texts.join(',') };
      },
      async *chat(requests) {
        for await (const request of requests) yield { text: request.text.toUpperCase() };
      },
    };
    await provider.export(Streamer, impl, { protocol: 'tri', port });

    const child = spawn(python(), [PEER, 'stream-client', String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    await new Promise((resolve) => child.once('close', resolve));
    expect(stderr).toBe('');
    const seen = JSON.parse(stdout) as Record<string, unknown>;
    expect(seen['server']).toEqual([
      ['py #0', 0],
      ['py #1', 1],
      ['py #2', 2],
    ]);
    expect(seen['client']).toEqual([3, 'a,b,c']);
    expect(seen['bidi']).toEqual([
      ['ONE', 0],
      ['TWO', 0],
    ]);
    expect(seen['failure']).toEqual([2, 'FAILED_PRECONDITION', 'failed after 2 replies']);
    expect(seen['cancel']).toBe('CANCELLED');
    await waitFor(() => probe.cancelledReturned);
  }, 40_000);
});

describe('Weft consumer → grpcio streaming server', () => {
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

  it('server, client and bidi streams, and an error status mid-stream as an RpcError with its grpcStatus', async () => {
    const port = await grpcioServer();
    const consumer = await harness.start('weft-stream-consumer');
    const streamer = await consumer.refer(Streamer, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 5000 });

    const texts: string[] = [];
    for await (const reply of streamer.lotsOfReplies({ text: 'hi', count: 3 })) texts.push(reply.text);
    expect(texts).toEqual(['hi #0', 'hi #1', 'hi #2']);

    const summary = await streamer.record((async function* () {
      yield { text: 'a' };
      yield { text: 'b' };
    })());
    expect(summary.count).toBe(2);
    expect(summary.texts).toBe('a,b');

    const shouted: string[] = [];
    for await (const reply of streamer.chat([{ text: 'one' }, { text: 'two' }])) shouted.push(reply.text);
    expect(shouted).toEqual(['ONE', 'TWO']);

    const before: number[] = [];
    const failure = await (async () => {
      try {
        for await (const reply of streamer.lotsOfReplies({ text: 'x', count: 10, failAfter: 2, failCode: Code.OUT_OF_RANGE })) before.push(reply.index);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(before).toEqual([0, 1]);
    expect(failure).toBeInstanceOf(RpcError);
    expect((failure as RpcError).grpcStatus).toBe(Code.OUT_OF_RANGE);
    expect((failure as RpcError).message).toBe('failed after 2 replies');
  }, 40_000);
});
