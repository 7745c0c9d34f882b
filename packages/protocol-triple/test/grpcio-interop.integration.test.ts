// Protobuf services over tri against Python's grpcio (gRPC's C core: a second, independent stack), unary, both
// directions. grpcio comes from Debian's python3-grpcio (scripts/install-grpcio.sh, run by `npm test`).
import { afterEach, describe, expect, it } from 'vitest';

import { Filter, RpcError, RpcErrorCode, type Invocation, type Invoker, type Result } from '@weft/core';
import { Code, defineProtoService, grpcError } from '@weft/serialization-protobuf';
import { freePort } from '@weft/test-utils';

import { Interop as InteropDesc } from './gen/weft/interop/v1/interop_pb.js';
import { LIMIT } from './support/grpc-js-peer.js';
import { runGrpcioClient, startGrpcioServer } from './support/grpcio.js';
import { BASE_PACKAGES, captureResults, Harness, waitFor } from './support/harness.js';

const Interop = defineProtoService(InteropDesc);
const harness = new Harness([...BASE_PACKAGES, '@weft/serialization-protobuf']);
afterEach(() => harness.close());

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
    const { seen: out, stderr } = await runGrpcioClient<{
      echo: { text: string; payload: string; big: string; trailing: Record<string, string> };
      deadline: string;
      statuses: Record<string, [number, string, [number, string] | null]>;
      near: number;
      over: [string, string];
    }>(harness, 'client', port);
    expect(stderr).toBe('');
    expect(out.echo.text).toBe('héllo');
    expect(out.echo.payload).toBe('010203');
    expect(BigInt(out.echo.big)).toBe(9007199254740993n);
    expect(out.echo.trailing['served-by']).toBe('weft');
    expect(out.echo.trailing['blob-bin']).toBe('000102ff');
    expect(seen[0]?.getAttachment('x-trace')).toBe('abc-123');
    expect(seen[0]?.getAttachment('x-raw-bin')).toBe(Buffer.from([9, 8, 7]).toString('base64').replace(/=+$/, ''));
    expect(out.deadline).toBe('DEADLINE_EXCEEDED');
    for (let code = 1; code <= 16; code++) {
      const message = `failed with ${code}: 50% ✓ a+b`;
      // The status, its message, and the google.rpc.Status of grpc-status-details-bin as grpcio reads it.
      expect(out.statuses[String(code)], `status ${code}`).toEqual([code, message, [code, message]]);
    }
    expect(out.near).toBe(LIMIT - 64);
    expect(out.over[0]).toBe('RESOURCE_EXHAUSTED');
    expect(out.over[1]).toContain(`exceeds the limit of ${LIMIT} bytes`);
  }, 20_000);
});

describe('Weft protobuf consumer → grpcio server', () => {
  it('unary messages, metadata both ways (incl. -bin), the deadline, cancellation, and every status code', async () => {
    const { port, events } = await startGrpcioServer(harness);
    const consumer = await harness.start('weft-consumer');
    const results = captureResults(consumer);
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 2000 });

    const reply = await interop.$call('echo', [{ text: 'héllo', payload: new Uint8Array([1, 2]), big: 9007199254740993n, wantHeaders: ['x-trace', 'x-raw-bin'] }], {
      attachments: { 'x-trace': 'abc-123', 'x-raw-bin': Buffer.from([9, 8, 7, 6]).toString('base64') },
    });
    expect(reply.text).toBe('héllo');
    expect(reply.payload).toStrictEqual(new Uint8Array([1, 2]));
    expect(reply.big).toBe(9007199254740993n);
    expect(reply.headers).toEqual({ 'x-trace': 'abc-123', 'x-raw-bin': 'bytes:09080706' });
    expect(results[0]?.getAttachment('served-by')).toBe('grpcio');
    // Padded base64 text: the bytes' toString('base64'), whatever padding grpcio sent.
    expect(results[0]?.getAttachment('blob-bin')).toBe(Buffer.from([4, 5, 6]).toString('base64'));

    expect((await interop.sleep({ ms: 5 })).slept).toBe(5);
    const remaining = Number(results[1]?.getAttachment('remaining-ms'));
    expect(remaining).toBeGreaterThan(1000);
    expect(remaining).toBeLessThanOrEqual(2000);
    const late = await interop.sleep({ ms: 2500 }).catch((e: unknown) => e);
    expect(late).toBeInstanceOf(RpcError);
    expect((late as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    await waitFor(() => events.includes('CANCELLED Sleep'), 3000, 'grpcio to see the deadline reset');
    events.length = 0;
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const aborted = await interop.$call('sleep', [{ ms: 1500 }], { signal: controller.signal }).catch((e: unknown) => e);
    expect((aborted as RpcError).code).toBe(RpcErrorCode.CANCELLED);
    await waitFor(() => events.includes('CANCELLED Sleep'), 3000, 'grpcio to see the cancel');

    // Messages just under the payload limit pass both ways; a request over it is not sent, a reply over it refused.
    const near = await interop.$call('echo', [{ payload: new Uint8Array(LIMIT - 64).fill(7) }], { timeout: 10_000 });
    expect(near.payload.length).toBe(LIMIT - 64);
    const over = await interop.$call('echo', [{ payload: new Uint8Array(LIMIT + 1) }], { timeout: 10_000 }).catch((e: unknown) => e);
    expect((over as RpcError).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect((over as RpcError).grpcStatus).toBe(Code.RESOURCE_EXHAUSTED);
    const grown = await interop
      .$call('echo', [{ payload: new Uint8Array(LIMIT - 100), wantHeaders: ['x-pad'] }], { timeout: 10_000, attachments: { 'x-pad': 'p'.repeat(200) } })
      .catch((e: unknown) => e);
    expect((grown as RpcError).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect((grown as RpcError).grpcStatus).toBe(Code.RESOURCE_EXHAUSTED);
    expect((await interop.echo({ text: 'after' })).text).toBe('after');

    for (let code = 1; code <= 16; code++) {
      const message = `failed with ${code}: 50% ✓ a+b`;
      const error = await interop.fail({ code, message }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RpcError);
      expect((error as RpcError).grpcStatus, `status ${code}`).toBe(code);
      expect((error as RpcError).message).toContain(message);
    }
  }, 20_000);
});
