// A burst of 64 concurrent 1 MiB calls over tri, twice: every call succeeds and the implementation runs exactly once
// per call (before: Node's 10 MB HTTP/2 session memory reset streams with ENHANCE_YOUR_CALM after the provider had
// run them, and failover sent them again: 246 runs for 128 calls); under the default buffer caps, the calls past
// them are refused unexecuted and none runs twice.
// Then how an ENHANCE_YOUR_CALM reset is reported: sent, may have run, not retried for an `idempotent: false` method.
import http2 from 'node:http2';

import { afterEach, describe, expect, it } from 'vitest';

import { defineService, RpcError, RpcErrorCode } from '@weft/core';
import { freePort } from '@weft/test-utils';

import { Harness } from './support/harness.js';

const harness = new Harness();
afterEach(() => harness.close());

const Blobs = defineService('org.acme.Blobs', {
  size: { args: [String], returns: Number },
  store: { args: [String], returns: Number, idempotent: false },
});

async function burst(exportParameters: Record<string, number>): Promise<{ runs: number; ok: number; failures: RpcError[] }> {
  const port = await freePort();
  let runs = 0;
  const provider = await harness.start('burst-provider');
  await provider.export(
    Blobs,
    {
      size: async (blob) => {
        runs++;
        return blob.length;
      },
      store: async (blob) => blob.length,
    },
    { protocol: 'tri', port, parameters: exportParameters },
  );
  const consumer = await harness.start('burst-consumer');
  // The default cluster (failover, 2 retries): a stream reset after the provider ran the call would run it again.
  const blobs = await consumer.refer(Blobs, { url: `tri://127.0.0.1:${port}`, timeout: 15_000 });
  const blob = 'x'.repeat(1 << 20);
  const failures: RpcError[] = [];
  let ok = 0;
  for (let round = 0; round < 2; round++) {
    const settled = await Promise.allSettled(Array.from({ length: 64 }, () => blobs.size(blob)));
    for (const outcome of settled) {
      if (outcome.status === 'rejected') failures.push(outcome.reason as RpcError);
      else if (outcome.value === 1 << 20) ok++;
    }
  }
  return { runs, ok, failures };
}

describe('tri: a burst of 64 × 1 MiB calls, twice', () => {
  it('succeeds with exactly one execution per call (128 calls, 128 runs) when the buffer caps admit the burst', async () => {
    // 64 MiB of requests in flight on one connection: above the default caps (32 MiB per connection, 64 MiB per server).
    const { runs, ok, failures } = await burst({ 'max-connection-buffer': 128 << 20, 'max-server-buffer': 256 << 20 });
    expect(failures.map((e) => e.message)).toEqual([]);
    expect(ok).toBe(128);
    expect(runs).toBe(128);
  }, 20_000);

  it('under the default caps, refuses the calls past them before they run, and never runs a call twice', async () => {
    const { runs, ok, failures } = await burst({});
    expect(ok + failures.length).toBe(128);
    expect(runs).toBe(ok);
    expect(failures.length).toBeGreaterThan(0);
    for (const failure of failures) {
      expect(failure.code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
      expect(failure.message).toMatch(/Request refused: \d+ more buffered bytes would pass the cap of 33554432 bytes per connection \(URL key "max-connection-buffer"/);
    }
  }, 20_000);
});

describe('tri: a stream reset with ENHANCE_YOUR_CALM', () => {
  it('is reported as sent and possibly run (not the provider refusing it), and never re-sent for idempotent: false', async () => {
    const port = await freePort();
    let requests = 0;
    const server = http2.createServer();
    const sessions = new Set<http2.ServerHttp2Session>();
    server.on('session', (session) => sessions.add(session));
    server.on('stream', (stream) => {
      requests++;
      stream.on('error', () => {});
      stream.on('data', () => {});
      stream.on('end', () => stream.close(http2.constants.NGHTTP2_ENHANCE_YOUR_CALM));
    });
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const consumer = await harness.start('calm-consumer');
      const blobs = await consumer.refer(Blobs, { url: `tri://127.0.0.1:${port}`, timeout: 3000, retries: 2 });
      const error = await blobs.store('x').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RpcError);
      const rpc = error as RpcError;
      expect(rpc.code).toBe(RpcErrorCode.NETWORK);
      expect(rpc.message).toContain(
        `Call org.acme.Blobs.store() to 127.0.0.1:${port} failed: the stream was reset with ENHANCE_YOUR_CALM (HTTP/2 "excessive load": ` +
          `this consumer's session passed its maxSessionMemory, or the provider shed load); the request was sent and may have run.`,
      );
      expect(rpc.message).toContain('Not retried: store() is declared idempotent: false');
      expect(requests).toBe(1);
    } finally {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
