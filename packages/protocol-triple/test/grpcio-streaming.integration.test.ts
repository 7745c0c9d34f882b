// Streaming over tri against Python's grpcio (gRPC's C core: a second, independent stack), both directions:
// server-, client- and bidi-streaming, an error status mid-stream, and a client cancel.
import { afterEach, describe, expect, it } from 'vitest';

import { Filter, RpcError, RpcErrorCode, type Invocation, type Invoker, type Result, type ServiceImplementation } from '@weft/core';
import { Code, defineProtoService, grpcError } from '@weft/serialization-protobuf';
import { freePort } from '@weft/test-utils';

import { Streamer as StreamerDesc } from './gen/weft/interop/v1/streaming_pb.js';
import { runGrpcioClient, startGrpcioServer } from './support/grpcio.js';
import { BASE_PACKAGES, captureResults, Harness, waitFor } from './support/harness.js';

const Streamer = defineProtoService(StreamerDesc);
const harness = new Harness([...BASE_PACKAGES, '@weft/serialization-protobuf']);
afterEach(() => harness.close());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('grpcio client → Weft streaming provider', () => {
  it('server, client and bidi streams; an error status mid-stream; a client cancel returns the generator', async () => {
    const port = await freePort();
    const provider = await harness.start('weft-stream-provider');
    const probe = { cancelledReturned: false, deadlineReturned: false };
    const seenInvocations: Invocation[] = [];
    class Tagging extends Filter {
      async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
        seenInvocations.push(invocation);
        const result = await invoker.invoke(invocation);
        result.setAttachment('blob-bin', Buffer.from([0, 1, 2, 255]).toString('base64'));
        return result;
      }
    }
    provider.model.getExtensionLoader(Filter).addExtension('tagging', Tagging, { activate: { group: 'provider' } });
    const impl: ServiceImplementation<typeof Streamer.methods> = {
      async *lotsOfReplies(request) {
        try {
          for (let i = 0; i < request.count; i++) {
            if (request.failAfter > 0 && i === request.failAfter) throw grpcError(request.failCode as Code, `failed after ${i} replies`);
            yield { text: `${request.text} #${i}`, index: i };
            if (request.delayMs > 0) await sleep(request.delayMs);
          }
        } finally {
          if (request.count === 1000 && request.delayMs === 20) probe.cancelledReturned = true;
          if (request.count === 1000 && request.delayMs === 50) probe.deadlineReturned = true;
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

    const { seen, stderr } = await runGrpcioClient<Record<string, unknown>>(harness, 'stream-client', port);
    expect(stderr).toBe('');
    // Metadata both ways on a stream: -bin as padded base64 text in the attachment, result attachments as trailers.
    const lots = seenInvocations.find((invocation) => invocation.getAttachment('x-trace') === 'py-1');
    expect(lots?.getAttachment('x-raw-bin')).toBe(Buffer.from([9, 8, 7, 6]).toString('base64'));
    expect(seen['server_trailing']).toMatchObject({ 'blob-bin': '000102ff' });
    const [received, deadline] = seen['deadline'] as [number, string];
    expect(deadline).toBe('DEADLINE_EXCEEDED');
    expect(received).toBeGreaterThan(2);
    expect(received).toBeLessThan(20);
    await waitFor(() => probe.deadlineReturned, 3000, 'the generator to stop at the deadline');
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
  }, 20_000);
});

describe('Weft consumer → grpcio streaming server', () => {
  it('server, client and bidi streams, and an error status mid-stream as an RpcError with its grpcStatus', async () => {
    const { port, events } = await startGrpcioServer(harness);
    const consumer = await harness.start('weft-stream-consumer');
    const results = captureResults(consumer);
    const streamer = await consumer.refer(Streamer, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 5000 });

    const texts: string[] = [];
    const attachments = { 'x-raw-bin': Buffer.from([9, 8, 7, 6]).toString('base64') };
    for await (const reply of streamer.$call('lotsOfReplies', [{ text: 'hi', count: 3 }], { attachments })) texts.push(reply.text);
    expect(texts).toEqual(['hi #0', 'hi #1', 'hi #2']);
    // grpcio got the bytes; its trailing metadata is the stream Result's attachments.
    expect(results[0]?.getAttachment('seen-raw')).toBe('09080706');
    expect(results[0]?.getAttachment('blob-bin')).toBe(Buffer.from([4, 5, 6, 7]).toString('base64'));

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

    // The timeout covers the whole stream: TIMEOUT mid-stream, and grpcio sees the reset.
    const timed = await consumer.refer(Streamer, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 400 });
    let got = 0;
    const expired = await (async () => {
      try {
        for await (const reply of timed.lotsOfReplies({ text: 'x', count: 1000, delayMs: 50 })) got = reply.index + 1;
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect((expired as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    expect(got).toBeGreaterThan(2);
    await waitFor(() => events.includes('CANCELLED LotsOfReplies'), 3000, 'grpcio to see the deadline reset');
    events.length = 0;

    // An AbortSignal cancels the stream: the iterator throws cancelled, grpcio sees the cancel.
    const controller = new AbortController();
    const cancelled = await (async () => {
      try {
        for await (const reply of streamer.$call('lotsOfReplies', [{ text: 'x', count: 1000, delayMs: 20 }], { signal: controller.signal })) {
          if (reply.index === 1) controller.abort();
        }
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect((cancelled as RpcError).code).toBe(RpcErrorCode.CANCELLED);
    await waitFor(() => events.includes('CANCELLED LotsOfReplies'), 3000, 'grpcio to see the cancel');
  }, 20_000);
});
