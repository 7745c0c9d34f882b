// Streaming over tri (§A.12) against real @grpc/grpc-js peers loading the .proto with @grpc/proto-loader, both
// directions: server-, client- and bidi-streaming, metadata, cancellation both ways, a deadline expiring mid-stream,
// an error status mid-stream, filters seeing a stream once, and back-pressure measured on the writer.
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';

import { Filter, RpcError, RpcErrorCode, type Invocation, type Invoker, type Result, type ServiceImplementation } from '@weft/core';
import { Code, defineProtoService, grpcError } from '@weft/serialization-protobuf';
import { freePort } from '@weft/test-utils';

import { Streamer as StreamerDesc, type StreamRequest } from './gen/weft/interop/v1/streaming_pb.js';
import { grpcJsClient, LIMIT, loadService, readAll, startGrpcJsServer, unaryOutcome } from './support/grpc-js-peer.js';
import { BASE_PACKAGES, Harness, waitFor } from './support/harness.js';

const Streamer = defineProtoService(StreamerDesc);
const harness = new Harness([...BASE_PACKAGES, '@weft/serialization-protobuf']);
afterEach(() => harness.close());

const StreamerClient = loadService('streaming', 'Streamer');
/** Every non-OK gRPC status code. */
const ALL_CODES = Array.from({ length: 16 }, (_, i) => i + 1);

interface Reply {
  readonly text: string;
  readonly index: number;
  readonly padding: Buffer;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the Weft implementation did, for the assertions. */
class Probe {
  produced = 0;
  returned = false;
  aborted = false;
  readonly invocations: Invocation[] = [];
  readonly outcomes: string[] = [];
}

function streamerImpl(probe: Probe): ServiceImplementation<typeof Streamer.methods> {
  return {
    async *lotsOfReplies(request) {
      try {
        for (let i = 0; i < request.count; i++) {
          if (request.failAfter > 0 && i === request.failAfter) throw grpcError(request.failCode as Code, `failed after ${i} replies`);
          probe.produced++;
          yield { text: `${request.text} #${i}`, index: i, padding: new Uint8Array(request.padding) };
          if (request.delayMs > 0) await sleep(request.delayMs);
        }
      } finally {
        probe.returned = true;
      }
    },
    async record(requests) {
      const texts: string[] = [];
      for await (const request of requests) {
        texts.push(request.text);
        if (request.delayMs > 0) await sleep(request.delayMs);
      }
      return { count: texts.length, texts: texts.join(',') };
    },
    async *chat(requests) {
      for await (const request of requests) {
        yield { text: request.text.toUpperCase(), index: request.count };
        if (request.delayMs > 0) await sleep(request.delayMs);
      }
    },
  };
}

async function weftProvider(probe: Probe): Promise<number> {
  const port = await freePort();
  const provider = await harness.start('weft-stream-provider');
  class Watching extends Filter {
    async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
      probe.invocations.push(invocation);
      invocation.signal?.addEventListener('abort', () => (probe.aborted = true));
      const result = await invoker.invoke(invocation);
      // Set when the stream ended: travels in the trailers.
      result.setAttachment('served-by', 'weft');
      result.setAttachment('blob-bin', Buffer.from([0, 1, 2, 255]).toString('base64'));
      return result;
    }
    override onResponse(result: Result, _invoker: Invoker, invocation: Invocation): void {
      const exception = result.exception;
      probe.outcomes.push(`${invocation.methodName}: ${result.hasException() ? `error ${exception instanceof RpcError ? exception.code : String(exception)}` : 'ok'}`);
    }
    override onError(error: unknown, _invoker: Invoker, invocation: Invocation): void {
      probe.outcomes.push(`${invocation.methodName}: rejected ${error instanceof RpcError ? error.code : String(error)}`);
    }
  }
  provider.model.getExtensionLoader(Filter).addExtension('watching', Watching, { activate: { group: 'provider' } });
  await provider.export(Streamer, streamerImpl(probe), { protocol: 'tri', port });
  return port;
}

type StreamerStub = grpc.Client & {
  lotsOfReplies(request: object, metadata?: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientReadableStream<Reply>;
  record(metadata: grpc.Metadata, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, value?: { count: number; texts: string }) => void): grpc.ClientWritableStream<object>;
  chat(metadata?: grpc.Metadata, options?: grpc.CallOptions): grpc.ClientDuplexStream<object, Reply>;
};

function grpcClient(port: number): StreamerStub {
  return grpcJsClient<StreamerStub>(harness, port, StreamerClient);
}

describe('grpc-js client (proto-loader) → Weft streaming provider', () => {
  it('server-streaming: every reply in order, request metadata as attachments, result attachments as trailers, the filters pass once and hear the end once', async () => {
    const probe = new Probe();
    const client = grpcClient(await weftProvider(probe));
    const metadata = new grpc.Metadata();
    metadata.set('x-trace', 'abc-123');
    metadata.set('x-raw-bin', Buffer.from([9, 8, 7, 6]));
    const { messages, error, headers, status } = await readAll(client.lotsOfReplies({ text: 'hi', count: 5 }, metadata));
    expect(error).toBeUndefined();
    expect(headers?.get('content-type')).toEqual(['application/grpc']);
    expect(status.metadata.get('served-by')).toEqual(['weft']);
    expect(status.metadata.get('blob-bin')).toEqual([Buffer.from([0, 1, 2, 255])]);
    expect(probe.invocations[0]?.getAttachment('x-raw-bin')).toBe('CQgHBg==');
    expect(messages.map((m) => m.text)).toEqual(['hi #0', 'hi #1', 'hi #2', 'hi #3', 'hi #4']);
    expect(probe.invocations).toHaveLength(1);
    expect(probe.invocations[0]?.getAttachment('x-trace')).toBe('abc-123');
    await waitFor(() => probe.outcomes.length === 1);
    expect(probe.outcomes).toEqual(['lotsOfReplies: ok']);
  });

  it('client-streaming: the implementation iterates the requests and answers once', async () => {
    const client = grpcClient(await weftProvider(new Probe()));
    const summary = await new Promise<{ count: number; texts: string } | undefined>((resolve, reject) => {
      const call = client.record(new grpc.Metadata(), {}, (error, value) => (error ? reject(error) : resolve(value)));
      for (const text of ['a', 'b', 'c']) call.write({ text });
      call.end();
    });
    expect(summary).toEqual({ count: 3, texts: 'a,b,c' });
  });

  it('bidi: each request answered as it comes (interleaved, not after the half-close)', async () => {
    const client = grpcClient(await weftProvider(new Probe()));
    const call = client.chat();
    const replies: string[] = [];
    const next = () => new Promise<Reply>((resolve) => call.once('data', resolve));
    call.write({ text: 'one' });
    replies.push((await next()).text);
    call.write({ text: 'two' });
    replies.push((await next()).text);
    const rest = readAll(call);
    call.end();
    expect((await rest).error).toBeUndefined();
    expect(replies).toEqual(['ONE', 'TWO']);
  });

  it('an error thrown mid-stream ends the stream with its status, after the replies sent before it', async () => {
    const probe = new Probe();
    const client = grpcClient(await weftProvider(probe));
    const { messages, error } = await readAll(client.lotsOfReplies({ text: 'x', count: 10, failAfter: 2, failCode: grpc.status.FAILED_PRECONDITION }));
    expect(messages.map((m) => m.index)).toEqual([0, 1]);
    expect(error?.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(error?.details).toBe('failed after 2 replies');
    await waitFor(() => probe.outcomes.length === 1);
    expect(probe.outcomes).toEqual(['lotsOfReplies: error biz']);
  });

  it('a client cancel (RST_STREAM CANCEL) aborts the invocation signal and returns the generator', async () => {
    const probe = new Probe();
    const client = grpcClient(await weftProvider(probe));
    const call = client.lotsOfReplies({ text: 'x', count: 1000, delayMs: 20 });
    const ended = readAll(call);
    await new Promise((resolve) => call.once('data', resolve));
    call.cancel();
    expect((await ended).error?.code).toBe(grpc.status.CANCELLED);
    await waitFor(() => probe.returned && probe.outcomes.length === 1);
    expect(probe.aborted).toBe(true);
    expect(probe.produced).toBeLessThan(50);
    expect(probe.outcomes).toEqual(['lotsOfReplies: error cancelled']);
  });

  it('a deadline expiring mid-stream ends it with DEADLINE_EXCEEDED and stops the generator', async () => {
    const probe = new Probe();
    const client = grpcClient(await weftProvider(probe));
    const started = Date.now();
    const { messages, error } = await readAll(client.lotsOfReplies({ text: 'x', count: 1000, delayMs: 50 }, new grpc.Metadata(), { deadline: Date.now() + 400 }));
    expect(error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(messages.length).toBeGreaterThan(2);
    expect(messages.length).toBeLessThan(20);
    expect(Date.now() - started).toBeLessThan(1500);
    await waitFor(() => probe.returned);
    expect(probe.aborted).toBe(true);
  });

  // Node's http2 (so grpc-js) half-closes a stream before resetting it on cancel: the provider must be busy for the
  // reset, not the end of the requests, to be what it sees (the README's "Interoperability" notes say more).
  it('a client cancel of a client-streaming and of a bidi call aborts the provider signal while it works', async () => {
    const probe = new Probe();
    const client = grpcClient(await weftProvider(probe));
    const recorded = await unaryOutcome((callback) => {
      const call = client.record(new grpc.Metadata(), {}, callback);
      call.write({ text: 'a', delayMs: 1000 });
      setTimeout(() => call.cancel(), 100);
      return call;
    });
    expect(recorded.error?.code).toBe(grpc.status.CANCELLED);
    await waitFor(() => probe.aborted, 2000, 'the record signal to abort');
    probe.aborted = false;
    const chat = client.chat();
    const ended = readAll(chat);
    chat.write({ text: 'one', delayMs: 1000 });
    await new Promise((resolve) => chat.once('data', resolve));
    chat.cancel();
    expect((await ended).error?.code).toBe(grpc.status.CANCELLED);
    await waitFor(() => probe.aborted, 2000, 'the chat signal to abort');
    await waitFor(() => probe.outcomes.length === 2, 2000, 'both calls to end');
    expect(probe.outcomes).toEqual(['record: error cancelled', 'chat: error cancelled']);
  });

  it('the deadline covers a whole bidi stream: DEADLINE_EXCEEDED while it is open, the provider signal aborts', async () => {
    const probe = new Probe();
    const client = grpcClient(await weftProvider(probe));
    const started = Date.now();
    const chat = client.chat(new grpc.Metadata(), { deadline: Date.now() + 300 });
    const ended = readAll(chat);
    chat.write({ text: 'one', delayMs: 2000 });
    const { messages, error } = await ended;
    expect(messages.map((m) => m.text)).toEqual(['ONE']);
    expect(error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(Date.now() - started).toBeLessThan(1000);
    await waitFor(() => probe.aborted, 2000, 'the provider signal to abort');
  });

  it('every status code raised mid-stream reaches the client exactly, with its message', async () => {
    const client = grpcClient(await weftProvider(new Probe()));
    for (const code of ALL_CODES) {
      const { messages, error } = await readAll(client.lotsOfReplies({ text: 'x', count: 3, failAfter: 1, failCode: code }));
      expect(messages, `status ${code}`).toHaveLength(1);
      expect(error?.code, `status ${code}`).toBe(code);
      expect(error?.details).toBe('failed after 1 replies');
    }
  });

  it('stream messages just under the payload limit pass; over it, either way, the call ends RESOURCE_EXHAUSTED', async () => {
    const client = grpcClient(await weftProvider(new Probe()));
    const near = await readAll(client.lotsOfReplies({ text: 'x', count: 1, padding: LIMIT - 64 }));
    expect(near.error).toBeUndefined();
    expect(near.messages[0]?.padding.length).toBe(LIMIT - 64);
    const over = await readAll(client.lotsOfReplies({ text: 'x', count: 2, padding: LIMIT + 1 }));
    expect(over.messages).toHaveLength(0);
    expect(over.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(over.error?.details).toContain(`over the limit of ${LIMIT} bytes`);
    const record = (texts: string[]) =>
      unaryOutcome<{ count: number }>((callback) => {
        const call = client.record(new grpc.Metadata(), {}, callback);
        for (const text of texts) call.write({ text });
        call.end();
        return call;
      });
    expect((await record(['a', 'x'.repeat(LIMIT - 64)])).value?.count).toBe(2);
    const refused = await record(['a', 'x'.repeat(LIMIT + 1)]);
    expect(refused.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(refused.error?.details).toContain(`exceeds the limit of ${LIMIT} bytes`);
  });

  it('a slow reader keeps the writer bounded: the generator is not pulled while the HTTP/2 window is closed', async () => {
    const probe = new Probe();
    const client = grpcClient(await weftProvider(probe));
    const total = 5000;
    const call = client.lotsOfReplies({ text: 'x', count: total, padding: 1024 });
    let received = 0;
    call.on('data', () => {
      received++;
      if (received === 1) call.pause();
    });
    const ended = new Promise<void>((resolve, reject) => {
      call.on('end', () => resolve());
      call.on('error', reject);
    });
    await waitFor(() => received >= 1);
    await sleep(500);
    // 5000 × 1 KiB available, the reader paused: what was produced is what the windows and buffers hold.
    // The bound: the provider's 256 KiB write budget plus grpc-js's 64 KiB receive window (and a few in flight).
    const producedWhilePaused = probe.produced;
    expect(producedWhilePaused).toBeLessThan((256 + 64) + 64);
    await sleep(300);
    expect(probe.produced).toBe(producedWhilePaused);
    call.resume();
    await ended;
    expect(received).toBe(total);
    expect(probe.produced).toBe(total);
  });
});

/** What the grpc-js server saw. */
class ServerProbe {
  written = 0;
  cancelled = false;
  metadata: grpc.Metadata | undefined;
}

/** A grpc-js server implementing weft.interop.v1.Streamer from the .proto (proto-loader). */
async function grpcServer(probe: ServerProbe): Promise<number> {
  return startGrpcJsServer(harness, StreamerClient.service, {
    lotsOfReplies: (call: grpc.ServerWritableStream<StreamRequest, object>) => {
      probe.metadata = call.metadata;
      let cancelled = false;
      call.on('cancelled', () => (cancelled = probe.cancelled = true));
      const request = call.request;
      let i = 0;
      const pump = async () => {
        while (i < request.count && !cancelled) {
          if (request.failAfter > 0 && i === request.failAfter) {
            call.emit('error', { code: request.failCode, details: `failed after ${i} replies` });
            return;
          }
          const ok = call.write({ text: `${request.text} #${i}`, index: i, padding: Buffer.alloc(request.padding) });
          probe.written++;
          i++;
          if (!ok) await new Promise((resolve) => call.once('drain', resolve));
          if (request.delayMs > 0) await sleep(request.delayMs);
        }
        const trailers = new grpc.Metadata();
        trailers.set('served-by', 'grpc-js');
        trailers.set('blob-bin', Buffer.from([4, 5, 6, 7]));
        if (!cancelled) call.end(trailers);
      };
      void pump();
    },
    record: (call: grpc.ServerReadableStream<StreamRequest, object>, callback: grpc.sendUnaryData<object>) => {
      probe.metadata = call.metadata;
      call.on('cancelled', () => (probe.cancelled = true));
      const texts: string[] = [];
      call.on('data', (request: StreamRequest) => texts.push(request.text));
      call.on('end', () => callback(null, { count: texts.length, texts: texts.join(',') }));
    },
    chat: (call: grpc.ServerDuplexStream<StreamRequest, object>) => {
      call.on('cancelled', () => (probe.cancelled = true));
      call.on('data', (request: StreamRequest) => call.write({ text: request.text.toUpperCase(), index: request.count }));
      call.on('end', () => call.end());
    },
  });
}

async function weftConsumer(port: number, timeout = 10_000, results: Result[] = []) {
  const consumer = await harness.start('weft-stream-consumer');
  class Capture extends Filter {
    async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
      const result = await invoker.invoke(invocation);
      results.push(result);
      return result;
    }
  }
  consumer.model.getExtensionLoader(Filter).addExtension('capture', Capture, { activate: { group: 'consumer' } });
  return consumer.refer(Streamer, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout });
}

describe('Weft consumer → grpc-js streaming server (proto-loader)', () => {
  it('server-streaming: for await over the replies; attachments arrive as metadata, trailing metadata on the Result', async () => {
    const probe = new ServerProbe();
    const results: Result[] = [];
    const streamer = await weftConsumer(await grpcServer(probe), 10_000, results);
    const texts: string[] = [];
    const attachments = { 'x-trace': 't-1', 'x-raw-bin': Buffer.from([9, 8, 7, 6]).toString('base64') };
    for await (const reply of streamer.$call('lotsOfReplies', [{ text: 'hi', count: 3 }], { attachments })) texts.push(reply.text);
    expect(texts).toEqual(['hi #0', 'hi #1', 'hi #2']);
    expect(probe.metadata?.get('x-trace')).toEqual(['t-1']);
    expect(probe.metadata?.get('x-raw-bin')).toEqual([Buffer.from([9, 8, 7, 6])]);
    // The stream's Result (settled at its end, seen once by consumer filters) carries the trailing metadata.
    expect(results).toHaveLength(1);
    expect(results[0]?.getAttachment('served-by')).toBe('grpc-js');
    expect(results[0]?.getAttachment('blob-bin')).toBe(Buffer.from([4, 5, 6, 7]).toString('base64'));
  });

  it('client-streaming: an async iterable of requests in, one summary out', async () => {
    const streamer = await weftConsumer(await grpcServer(new ServerProbe()));
    async function* requests() {
      for (const text of ['a', 'b', 'c']) yield { text };
    }
    expect(await streamer.record(requests())).toMatchObject({ count: 3, texts: 'a,b,c' });
    expect(await streamer.record([{ text: 'x' }])).toMatchObject({ count: 1, texts: 'x' });
  });

  it('bidi: a request is sent only when the caller yields it, and each reply read as it comes', async () => {
    const streamer = await weftConsumer(await grpcServer(new ServerProbe()));
    const replies: string[] = [];
    let gotReply: () => void = () => undefined;
    async function* requests() {
      for (const text of ['one', 'two', 'three']) {
        const answered = new Promise<void>((resolve) => (gotReply = resolve));
        yield { text };
        await answered;
      }
    }
    for await (const reply of streamer.chat(requests())) {
      replies.push(reply.text);
      gotReply();
    }
    expect(replies).toEqual(['ONE', 'TWO', 'THREE']);
  });

  it('an error status mid-stream is thrown from the iterator as an RpcError with the exact grpcStatus, after the replies before it', async () => {
    const streamer = await weftConsumer(await grpcServer(new ServerProbe()));
    const texts: string[] = [];
    const failure = await (async () => {
      try {
        for await (const reply of streamer.lotsOfReplies({ text: 'x', count: 10, failAfter: 2, failCode: grpc.status.NOT_FOUND })) texts.push(reply.text);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(texts).toEqual(['x #0', 'x #1']);
    expect(failure).toBeInstanceOf(RpcError);
    expect((failure as RpcError).grpcStatus).toBe(grpc.status.NOT_FOUND);
    expect((failure as RpcError).message).toBe('failed after 2 replies');
    expect((failure as RpcError).retryable).toBe(false);
  });

  it('breaking out of the for await cancels the call (the server sees RST_STREAM CANCEL)', async () => {
    const probe = new ServerProbe();
    const streamer = await weftConsumer(await grpcServer(probe));
    for await (const reply of streamer.lotsOfReplies({ text: 'x', count: 1000, delayMs: 10 })) {
      if (reply.index === 2) break;
    }
    await waitFor(() => probe.cancelled);
    expect(probe.written).toBeLessThan(100);
  });

  it('an AbortSignal cancels a bidi call: the iterator throws cancelled, the server sees the cancel', async () => {
    const probe = new ServerProbe();
    const streamer = await weftConsumer(await grpcServer(probe));
    const controller = new AbortController();
    async function* requests() {
      yield { text: 'one' };
      await sleep(5_000);
    }
    const failure = await (async () => {
      try {
        for await (const reply of streamer.$call('chat', [requests()], { signal: controller.signal })) {
          expect(reply.text).toBe('ONE');
          controller.abort();
        }
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect((failure as RpcError).code).toBe(RpcErrorCode.CANCELLED);
    await waitFor(() => probe.cancelled);
  });

  it('an AbortSignal cancels a client-streaming call: it rejects with cancelled, the server sees the cancel', async () => {
    const probe = new ServerProbe();
    const streamer = await weftConsumer(await grpcServer(probe));
    const controller = new AbortController();
    async function* requests() {
      yield { text: 'one' };
      controller.abort();
      await sleep(5_000);
    }
    const started = Date.now();
    const failure = await streamer.$call('record', [requests()], { signal: controller.signal }).catch((e: unknown) => e);
    expect((failure as RpcError).code).toBe(RpcErrorCode.CANCELLED);
    expect(Date.now() - started).toBeLessThan(1000);
    await waitFor(() => probe.cancelled, 2000, 'grpc-js to see the cancel');
  });

  it('every status code a grpc-js server ends a stream with is the exact grpcStatus of the RpcError the iterator throws', async () => {
    const probe = new ServerProbe();
    const streamer = await weftConsumer(await grpcServer(probe));
    for (const code of ALL_CODES) {
      const texts: string[] = [];
      // A CANCELLED status makes grpc-js report the call cancelled: the next call starts afresh.
      probe.cancelled = false;
      const failure = await (async () => {
        try {
          for await (const reply of streamer.lotsOfReplies({ text: 'x', count: 3, failAfter: 1, failCode: code })) texts.push(reply.text);
        } catch (error) {
          return error;
        }
        return undefined;
      })();
      expect(texts, `status ${code}`).toEqual(['x #0']);
      expect(failure).toBeInstanceOf(RpcError);
      expect((failure as RpcError).grpcStatus, `status ${code}`).toBe(code);
      expect((failure as RpcError).message).toBe('failed after 1 replies');
    }
  });

  it('stream messages just under the payload limit pass; over it, either way, the call fails limit-exceeded (RESOURCE_EXHAUSTED)', async () => {
    const probe = new ServerProbe();
    const streamer = await weftConsumer(await grpcServer(probe));
    const sizes: number[] = [];
    for await (const reply of streamer.lotsOfReplies({ text: 'x', count: 1, padding: LIMIT - 64 })) sizes.push(reply.padding.length);
    expect(sizes).toEqual([LIMIT - 64]);
    const tooBig = await (async () => {
      try {
        for await (const reply of streamer.lotsOfReplies({ text: 'x', count: 1, padding: LIMIT + 1 })) sizes.push(reply.padding.length);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(sizes).toHaveLength(1);
    expect((tooBig as RpcError).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect((tooBig as RpcError).grpcStatus).toBe(Code.RESOURCE_EXHAUSTED);
    expect((tooBig as RpcError).message).toContain(`exceeds the limit of ${LIMIT} bytes`);
    expect(await streamer.record([{ text: 'a' }, { text: 'x'.repeat(LIMIT - 64) }])).toMatchObject({ count: 2 });
    const refused = await streamer.record([{ text: 'a' }, { text: 'x'.repeat(LIMIT + 1) }]).catch((e: unknown) => e);
    expect((refused as RpcError).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect((refused as RpcError).grpcStatus).toBe(Code.RESOURCE_EXHAUSTED);
    expect((refused as RpcError).message).toContain('it was not sent');
    await waitFor(() => probe.cancelled, 2000, 'the server to see the refused stream reset');
  });

  it('the timeout covers the whole stream: expiring mid-stream throws timeout and resets the stream', async () => {
    const probe = new ServerProbe();
    const streamer = await weftConsumer(await grpcServer(probe), 400);
    const texts: string[] = [];
    const started = Date.now();
    const failure = await (async () => {
      try {
        for await (const reply of streamer.lotsOfReplies({ text: 'x', count: 1000, delayMs: 50 })) texts.push(reply.text);
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect((failure as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    expect(texts.length).toBeGreaterThan(2);
    expect(Date.now() - started).toBeLessThan(1500);
    await waitFor(() => probe.cancelled);
  });

  it('a slow Weft reader keeps the grpc-js writer bounded (its writes wait for drain while the window is closed)', async () => {
    const probe = new ServerProbe();
    const streamer = await weftConsumer(await grpcServer(probe));
    const total = 5000;
    let received = 0;
    let writtenWhilePaused = -1;
    for await (const reply of streamer.lotsOfReplies({ text: 'x', count: total, padding: 1024 })) {
      expect(reply.padding.length).toBe(1024);
      received++;
      if (received === 1) {
        await sleep(500);
        writtenWhilePaused = probe.written;
        await sleep(300);
        expect(probe.written).toBe(writtenWhilePaused);
      }
    }
    expect(writtenWhilePaused).toBeGreaterThan(0);
    // The bound: the Weft consumer's 1 MiB stream window (initial-window-size) plus grpc-js's 16 KiB write buffer.
    expect(writtenWhilePaused).toBeLessThan(1024 + 16 + 64);
    expect(received).toBe(total);
  });
});
