// gzip over tri, both ways: with real @grpc/grpc-js peers (a grpc-js client with
// `grpc.default_compression_algorithm` = gzip calling a Weft provider; a Weft consumer with `compression=gzip`
// calling a grpc-js server), and Weft to Weft for unary and the three streaming kinds with compressed requests and
// responses (the provider configured with `compression=gzip`, answering clients that accept it).
import { fileURLToPath } from 'node:url';

import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterEach, describe, expect, it } from 'vitest';

import { defineService, RpcError, type ServiceImplementation } from '@weft/core';
import { defineProtoService } from '@weft/serialization-protobuf';
import { freePort } from '@weft/test-utils';

import { Interop as InteropDesc } from './gen/weft/interop/v1/interop_pb.js';
import { Streamer as StreamerDesc } from './gen/weft/interop/v1/streaming_pb.js';
import { BASE_PACKAGES, Greeter, greeterImpl, Harness } from './support/harness.js';

const harness = new Harness([...BASE_PACKAGES, '@weft/serialization-protobuf']);
const closers: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await harness.close();
});

const serialize = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const deserialize = (bytes: Buffer): unknown => JSON.parse(bytes.toString('utf8'));
const GZIP = 2; // grpc-js compressionAlgorithms.gzip

function grpcClient(port: number, options: grpc.ClientOptions = {}): grpc.Client {
  const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), options);
  closers.push(() => client.close());
  return client;
}

function unary(client: grpc.Client, path: string, request: unknown): Promise<{ value: unknown; error: grpc.ServiceError | null; headers: grpc.Metadata | undefined }> {
  return new Promise((resolve) => {
    let headers: grpc.Metadata | undefined;
    const call = client.makeUnaryRequest(path, serialize, deserialize, request, new grpc.Metadata(), {}, (error, value) => resolve({ value, error, headers }));
    call.on('metadata', (md: grpc.Metadata) => (headers = md));
  });
}

const Stream = defineService('org.acme.Stream', {
  echo: { args: [String], returns: String },
  repeat: { args: [String, Number], returns: String, stream: 'server' },
  fill: { args: [Number], returns: String },
  total: { args: [String], returns: Number, stream: 'client' },
  upper: { args: [String], returns: String, stream: 'bidi' },
});

const streamImpl = {
  echo: (text: string) => text,
  fill: (size: number) => 'q'.repeat(size),
  async *repeat(text: string, n: number) {
    for (let i = 0; i < n; i++) yield `${i}:${text}`;
  },
  async total(requests: AsyncIterable<string>) {
    let total = 0;
    for await (const text of requests) total += text.length;
    return total;
  },
  async *upper(requests: AsyncIterable<string>) {
    for await (const text of requests) yield text.toUpperCase();
  },
};

async function* texts(n: number, size: number): AsyncGenerator<string> {
  for (let i = 0; i < n; i++) yield 'abc'.repeat(size);
}

describe('grpc-js client with gzip → Weft provider', () => {
  it('inflates the compressed request (bounded by payload: a message inflating past it is RESOURCE_EXHAUSTED)', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port, parameters: { payload: 1024 * 1024 } });
    const client = grpcClient(port, { 'grpc.default_compression_algorithm': GZIP });
    const ok = await unary(client, '/org.acme.Greeter/sayHello', ['gzip']);
    expect(ok.error).toBeNull();
    expect(ok.value).toBe('hello gzip');
    // 3 MiB of text compresses to a few KiB on the wire: only inflating it shows it is over the 1 MiB limit.
    const big = await unary(client, '/org.acme.Greeter/sayHello', ['a'.repeat(3 * 1024 * 1024)]);
    expect(big.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(big.error?.details).toContain('Decompressed gRPC message exceeds the limit of 1048576 bytes (URL key "payload")');
  });

  it('answers gzip-compressed when the provider is configured with compression=gzip (grpc-js accepts gzip)', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port, parameters: { compression: 'gzip' } });
    const client = grpcClient(port);
    const answer = await unary(client, '/org.acme.Greeter/sayHello', ['x'.repeat(100_000)]);
    expect(answer.error).toBeNull();
    expect(answer.value).toBe(`hello ${'x'.repeat(100_000)}`);
  });
});

describe('Weft consumer with compression=gzip → grpc-js server', () => {
  it('sends compressed requests grpc-js inflates, and reads its answers', async () => {
    // grpc-js checks its receive limit on the frame, then on the inflated message: which message a request over the
    // limit gets shows whether it travelled compressed.
    const server = new grpc.Server({ 'grpc.max_receive_message_length': 1000 });
    server.addService(
      {
        sayHello: {
          path: '/org.acme.Greeter/sayHello',
          requestStream: false,
          responseStream: false,
          requestSerialize: serialize,
          requestDeserialize: deserialize,
          responseSerialize: serialize,
          responseDeserialize: deserialize,
        },
      },
      {
        sayHello: (call: grpc.ServerUnaryCall<unknown, unknown>, callback: grpc.sendUnaryData<unknown>) => {
          const args = call.request as string[];
          callback(null, `grpc-js ${(args[0] ?? '').length}`);
        },
      },
    );
    const port = await freePort();
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())),
    );
    closers.push(() => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0, parameters: { compression: 'gzip' } });
    expect(await greeter.sayHello('y'.repeat(500))).toBe('grpc-js 500');
    await expect(greeter.sayHello('y'.repeat(200_000))).rejects.toThrow('Received message that decompresses to a size larger than 1000');
  });
});

describe('Weft ↔ Weft with gzip both ways', () => {
  async function pair(providerParameters: Record<string, string>, consumerParameters: Record<string, string>) {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Stream, streamImpl, { protocol: 'tri', port, parameters: providerParameters });
    const consumer = await harness.start('consumer');
    return consumer.refer(Stream, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 10_000, parameters: consumerParameters });
  }

  it('unary and all streaming kinds carry compressed requests and responses', async () => {
    const stream = await pair({ compression: 'gzip' }, { compression: 'gzip' });
    expect(await stream.echo('z'.repeat(50_000))).toBe('z'.repeat(50_000));
    const replies: string[] = [];
    for await (const reply of stream.repeat('r', 5)) replies.push(reply);
    expect(replies).toEqual(['0:r', '1:r', '2:r', '3:r', '4:r']);
    expect(await stream.total(texts(20, 10_000))).toBe(20 * 30_000);
    const upper: string[] = [];
    for await (const reply of stream.upper(texts(3, 2))) upper.push(reply);
    expect(upper).toEqual(['ABCABC', 'ABCABC', 'ABCABC']);
  });

  it('a compressed response inflating past the consumer payload is refused with a clear error', async () => {
    const stream = await pair({ compression: 'gzip', payload: String(16 * 1024 * 1024) }, { payload: String(1024 * 1024) });
    // A small request, a 2 MiB (compressible) answer: the consumer inflates it and stops at its own payload.
    const error = await stream.fill(2 * 1024 * 1024).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).message).toContain('Decompressed gRPC message exceeds the limit of 1048576 bytes');
  });

  it('rejects an unknown compression name at refer time', async () => {
    const port = await freePort();
    const consumer = await harness.start('consumer');
    await expect(consumer.refer(Stream, { url: `tri://127.0.0.1:${port}`, parameters: { compression: 'snappy', lazy: 'true' } })).rejects.toThrow(
      'compression=snappy is not supported; use identity (the default), gzip or deflate.',
    );
  });
});

const Interop = defineProtoService(InteropDesc);
const interopImpl: ServiceImplementation<typeof Interop.methods> = {
  echo: (request) => ({ text: request.text, payload: request.payload, big: request.big, labels: request.labels }),
  fail: () => {
    throw new Error('unused');
  },
  sleep: (request) => ({ slept: request.ms }),
};
const PROTO = fileURLToPath(new URL('./proto/weft/interop/v1/interop.proto', import.meta.url));

describe('protobuf (IDL) services with gzip', () => {
  it('Weft to Weft: compressed binary protobuf both ways', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Interop, interopImpl, { protocol: 'tri', port, parameters: { compression: 'gzip' } });
    const consumer = await harness.start('consumer');
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0, parameters: { compression: 'gzip' } });
    const reply = await interop.echo({ text: 'p'.repeat(100_000), payload: new Uint8Array([1, 2, 3]), big: 7n, labels: { k: 'v' } });
    expect(reply.text).toBe('p'.repeat(100_000));
    expect(reply.payload).toStrictEqual(new Uint8Array([1, 2, 3]));
    expect(reply.big).toBe(7n);
  });

  it('a grpc-js proto-loader client with gzip calls the Weft IDL provider', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Interop, interopImpl, { protocol: 'tri', port, parameters: { compression: 'gzip' } });
    const definition = protoLoader.loadSync(PROTO, { longs: String, defaults: true, keepCase: false });
    const loaded = grpc.loadPackageDefinition(definition) as unknown as { weft: { interop: { v1: { Interop: grpc.ServiceClientConstructor } } } };
    const client = new loaded.weft.interop.v1.Interop(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { 'grpc.default_compression_algorithm': GZIP });
    closers.push(() => client.close());
    const reply = await new Promise<{ text: string }>((resolve, reject) => {
      const echo = client['echo'] as (request: object, callback: (error: grpc.ServiceError | null, reply: { text: string }) => void) => void;
      echo.call(client, { text: 'g'.repeat(50_000) }, (error, value) => (error ? reject(error) : resolve(value)));
    });
    expect(reply.text).toBe('g'.repeat(50_000));
  });
});

const Streamer = defineProtoService(StreamerDesc);
const streamerImpl: ServiceImplementation<typeof Streamer.methods> = {
  async *lotsOfReplies(request) {
    for (let i = 0; i < request.count; i++) yield { text: `${request.text} #${i}`, index: i, padding: new Uint8Array(request.padding) };
  },
  async record(requests) {
    const texts: string[] = [];
    for await (const request of requests) texts.push(request.text);
    return { count: texts.length, texts: texts.join(',') };
  },
  async *chat(requests) {
    let index = 0;
    for await (const request of requests) yield { text: request.text.toUpperCase(), index: index++, padding: new Uint8Array(0) };
  },
};

describe('protobuf streaming with gzip, Weft to Weft', () => {
  it('server, client and bidi streams carry compressed protobuf both ways', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Streamer, streamerImpl, { protocol: 'tri', port, parameters: { compression: 'gzip' } });
    const consumer = await harness.start('consumer');
    const streamer = await consumer.refer(Streamer, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 10_000, parameters: { compression: 'gzip' } });
    const replies: string[] = [];
    for await (const reply of streamer.lotsOfReplies({ text: 'r', count: 4, padding: 20_000 })) {
      expect(reply.padding.length).toBe(20_000);
      replies.push(reply.text);
    }
    expect(replies).toEqual(['r #0', 'r #1', 'r #2', 'r #3']);
    const requests = async function* () {
      for (const text of ['a', 'b', 'c']) yield { text: text.repeat(10_000) };
    };
    const summary = await streamer.record(requests());
    expect(summary.count).toBe(3);
    expect(summary.texts).toBe(['a', 'b', 'c'].map((t) => t.repeat(10_000)).join(','));
    const chat: string[] = [];
    for await (const reply of streamer.chat(requests())) chat.push(reply.text.slice(0, 2));
    expect(chat).toEqual(['AA', 'BB', 'CC']);
  });
});
