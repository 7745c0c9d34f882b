// Protobuf (IDL) services over tri against real @grpc/grpc-js peers that load the .proto with @grpc/proto-loader,
// both directions, unary: messages, metadata both ways (incl. -bin), deadlines, every status code with
// grpc-status-details-bin (google.rpc.Status), messages near the size limit, failover on final statuses.
import http2 from 'node:http2';

import { create } from '@bufbuild/protobuf';
import { anyPack, anyUnpack, StringValueSchema } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';

import { Filter, RpcError, RpcErrorCode, type Invocation, type Invoker, type Result, type ServiceImplementation } from '@weft/core';
import { Code, defineProtoService, grpcError, ProtobufSerialization } from '@weft/serialization-protobuf';
import { freePort } from '@weft/test-utils';

import { Interop as InteropDesc } from './gen/weft/interop/v1/interop_pb.js';
import { grpcJsClient, LIMIT, loadService, startGrpcJsServer, unaryOutcome, type UnaryOutcome } from './support/grpc-js-peer.js';
import { BASE_PACKAGES, Harness, waitFor } from './support/harness.js';

const Interop = defineProtoService(InteropDesc);
/** Reads and writes google.rpc.Status for the assertions (the serialization tri uses, outside any application). */
const protobuf = new ProtobufSerialization();
const harness = new Harness([...BASE_PACKAGES, '@weft/serialization-protobuf']);
afterEach(() => harness.close());

const InteropClient = loadService('interop', 'Interop');

/** Every non-OK gRPC status code. */
const ALL_CODES = Array.from({ length: 16 }, (_, i) => i + 1);
/** Four bytes: their base64 has padding (`CQgHBg==`), which the wire drops and Weft puts back. */
const RAW = Buffer.from([9, 8, 7, 6]);

/** The Weft implementation of weft.interop.v1.Interop. */
const impl: ServiceImplementation<typeof Interop.methods> = {
  // text 'grow' answers 100 bytes more than it was sent (a reply over the limit from a request under it).
  echo: (request) => ({ text: request.text === 'grow' ? 'x'.repeat(100) : request.text, payload: request.payload, big: request.big, labels: request.labels }),
  fail: (request) => {
    if (request.code === 0) throw new Error(request.message);
    // 'rpc:' messages: an RpcError carrying the status, as a filter or a framework part would raise it.
    if (request.message.startsWith('rpc:')) throw new RpcError(RpcErrorCode.BIZ, request.message, { grpcStatus: request.code });
    throw grpcError(request.code as Code, request.message, { details: [anyPack(StringValueSchema, create(StringValueSchema, { value: `detail ${request.code}` }))] });
  },
  sleep: (request) => new Promise((resolve) => setTimeout(() => resolve({ slept: request.ms }), request.ms)),
};

/** Starts a Weft provider of Interop; its filter records the invocations (`seen`) and which signals aborted (`aborted`). */
async function weftProvider(options: { readonly tagging?: boolean; readonly seen?: Invocation[]; readonly aborted?: string[] } = {}): Promise<number> {
  const port = await freePort();
  const provider = await harness.start('weft-provider');
  const seen = options.seen ?? [];
  class Tagging extends Filter {
    async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
      seen.push(invocation);
      invocation.signal?.addEventListener('abort', () => options.aborted?.push(invocation.methodName));
      const result = await invoker.invoke(invocation);
      if (options.tagging === true) {
        result.setAttachment('served-by', 'weft');
        result.setAttachment('blob-bin', Buffer.from([0, 1, 2, 255]).toString('base64'));
      }
      return result;
    }
  }
  provider.model.getExtensionLoader(Filter).addExtension('tagging', Tagging, { activate: { group: 'provider' } });
  await provider.export(Interop, impl, { protocol: 'tri', port });
  return port;
}

function grpcClient(port: number): grpc.Client {
  return grpcJsClient(harness, port, InteropClient);
}

type Outcome = UnaryOutcome<Record<string, unknown>>;

/** One unary call of the proto-loader client. */
function call(client: grpc.Client, method: string, request: object, metadata = new grpc.Metadata(), options: grpc.CallOptions = {}): Promise<Outcome> {
  const fn = (client as unknown as Record<string, (...args: unknown[]) => grpc.ClientUnaryCall>)[method] as (...args: unknown[]) => grpc.ClientUnaryCall;
  return unaryOutcome((callback) => fn.call(client, request, metadata, options, callback));
}

describe('grpc-js client (proto-loader) → Weft protobuf provider', () => {
  it('answers a unary call with the protobuf message (strings, bytes, int64, maps)', async () => {
    const port = await weftProvider();
    const outcome = await call(grpcClient(port), 'echo', { text: 'héllo', payload: Buffer.from([1, 2, 3]), big: '9007199254740993', labels: { a: 'b' } });
    expect(outcome.error).toBeNull();
    expect(outcome.value?.['text']).toBe('héllo');
    expect(Buffer.from(outcome.value?.['payload'] as Uint8Array)).toEqual(Buffer.from([1, 2, 3]));
    expect(outcome.value?.['big']).toBe('9007199254740993');
    expect(outcome.value?.['labels']).toEqual({ a: 'b' });
  });

  it('hands request metadata (incl. -bin) to the implementation and sends result attachments as trailing metadata', async () => {
    const seen: Invocation[] = [];
    const port = await weftProvider({ tagging: true, seen });
    const metadata = new grpc.Metadata();
    metadata.set('x-trace', 'abc-123');
    metadata.set('x-raw-bin', RAW);
    const outcome = await call(grpcClient(port), 'echo', { text: 'x' }, metadata);
    expect(outcome.error).toBeNull();
    expect(outcome.value?.['text']).toBe('x');
    // A -bin value is padded base64 text in the Weft attachment (grpc-js sent it unpadded): the bytes' toString('base64').
    expect(seen[0]?.getAttachment('x-trace')).toBe('abc-123');
    expect(seen[0]?.getAttachment('x-raw-bin')).toBe('CQgHBg==');
    expect(Buffer.from(String(seen[0]?.getAttachment('x-raw-bin')), 'base64')).toEqual(RAW);
    // Response headers first (the content type), then the result attachments in the trailers, -bin as bytes.
    expect(outcome.headers?.get('content-type')).toEqual(['application/grpc']);
    expect(outcome.status.metadata.get('served-by')).toEqual(['weft']);
    expect(outcome.status.metadata.get('blob-bin')).toEqual([Buffer.from([0, 1, 2, 255])]);
  });

  it('honours the client deadline: the provider sees the remaining time, a late answer is DEADLINE_EXCEEDED and its signal aborts', async () => {
    const seen: Invocation[] = [];
    const aborted: string[] = [];
    const port = await weftProvider({ seen, aborted });
    const client = grpcClient(port);
    const started = Date.now();
    const ok = await call(client, 'sleep', { ms: 5 }, new grpc.Metadata(), { deadline: Date.now() + 2000 });
    expect(ok.value?.['slept']).toBe(5);
    const remaining = (seen[0]?.deadline ?? 0) - started;
    expect(remaining).toBeGreaterThan(1000);
    expect(remaining).toBeLessThanOrEqual(2050);
    const late = Date.now();
    const outcome = await call(client, 'sleep', { ms: 1200 }, new grpc.Metadata(), { deadline: Date.now() + 150 });
    expect(outcome.error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(Date.now() - late).toBeLessThan(900);
    expect((seen[1]?.deadline ?? 0) - late).toBeLessThanOrEqual(200);
    await waitFor(() => aborted.includes('sleep'), 2000, 'the provider signal to abort');
  });

  it('a client cancel of a unary call aborts the provider invocation signal', async () => {
    const aborted: string[] = [];
    const port = await weftProvider({ aborted });
    const client = grpcClient(port) as grpc.Client & { sleep: (r: object, cb: (e: grpc.ServiceError | null) => void) => grpc.ClientUnaryCall };
    const outcome = await new Promise<grpc.ServiceError | null>((resolve) => {
      const unaryCall = client.sleep({ ms: 400 }, resolve);
      setTimeout(() => unaryCall.cancel(), 100);
    });
    expect(outcome?.code).toBe(grpc.status.CANCELLED);
    await waitFor(() => aborted.includes('sleep'), 2000, 'the provider signal to abort');
  });

  it('answers every status code an implementation raises, with grpc-message and a google.rpc.Status in grpc-status-details-bin', async () => {
    const port = await weftProvider();
    const client = grpcClient(port);
    for (const code of ALL_CODES) {
      const message = `failed with ${code}: 50% ✓ a+b`;
      const outcome = await call(client, 'fail', { code, message });
      expect(outcome.error?.code, `status ${code}`).toBe(code);
      expect(outcome.error?.details).toBe(message);
      const [details] = outcome.status.metadata.get('grpc-status-details-bin') as Buffer[];
      const status = protobuf.decodeStatus(details as Buffer);
      expect(status.code).toBe(code);
      expect(status.message).toBe(message);
      expect(anyUnpack(status.details[0] as never, StringValueSchema)?.value).toBe(`detail ${code}`);
    }
  });

  it('answers an RpcError carrying a grpcStatus with exactly that status, for every code', async () => {
    const port = await weftProvider();
    const client = grpcClient(port);
    for (const code of ALL_CODES) {
      const outcome = await call(client, 'fail', { code, message: `rpc: status ${code}` });
      expect(outcome.error?.code, `status ${code}`).toBe(code);
      expect(outcome.error?.details).toBe(`rpc: status ${code}`);
      expect(protobuf.decodeStatus(outcome.status.metadata.get('grpc-status-details-bin')[0] as Buffer).code).toBe(code);
    }
  });

  it('answers a plain business error (a thrown Error) with UNKNOWN and its message', async () => {
    const port = await weftProvider();
    const outcome = await call(grpcClient(port), 'fail', { code: 0, message: 'out of stock' });
    expect(outcome.error?.code).toBe(grpc.status.UNKNOWN);
    expect(outcome.error?.details).toBe('out of stock');
  });

  it('carries messages just under the payload limit and refuses one over it with RESOURCE_EXHAUSTED', async () => {
    const port = await weftProvider();
    const client = grpcClient(port);
    const near = Buffer.alloc(LIMIT - 64, 7);
    const ok = await call(client, 'echo', { payload: near });
    expect(ok.error).toBeNull();
    expect((ok.value?.['payload'] as Buffer).length).toBe(near.length);
    // A reply over the limit from a request under it is not sent: RESOURCE_EXHAUSTED.
    const grown = await call(client, 'echo', { text: 'grow', payload: Buffer.alloc(LIMIT - 64, 7) });
    expect(grown.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(grown.error?.details).toContain(`over the limit of ${LIMIT} bytes`);
    const over = await call(client, 'echo', { payload: Buffer.alloc(LIMIT + 1, 7) });
    expect(over.error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(over.error?.details).toContain(`${LIMIT}`);
    // The connection and the server are fine afterwards.
    expect((await call(client, 'echo', { text: 'after' })).value?.['text']).toBe('after');
  });

  it('answers UNIMPLEMENTED for an RPC the service does not have', async () => {
    const port = await weftProvider();
    const client = grpcClient(port);
    const outcome = await new Promise<grpc.ServiceError | null>((resolve) =>
      client.makeUnaryRequest('/weft.interop.v1.Interop/Nope', (x: Buffer) => x, (x: Buffer) => x, Buffer.alloc(0), (error) => resolve(error)),
    );
    expect(outcome?.code).toBe(grpc.status.UNIMPLEMENTED);
    expect(outcome?.details).toContain('has no method "Nope"');
  });
});

/** A grpc-js server of weft.interop.v1.Interop (proto-loader), counting calls. */
async function grpcServer(overrides: Partial<grpc.UntypedServiceImplementation> = {}): Promise<{ port: number; calls: string[] }> {
  const calls: string[] = [];
  const handlers: grpc.UntypedServiceImplementation = {
    echo: (unaryCall: grpc.ServerUnaryCall<Record<string, unknown>, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      calls.push('echo');
      const request = unaryCall.request;
      const headers: Record<string, string> = {};
      for (const name of request['wantHeaders'] as string[]) {
        const value = unaryCall.metadata.get(name)[0];
        headers[name] = Buffer.isBuffer(value) ? `bytes:${value.toString('hex')}` : String(value ?? '');
      }
      const trailer = new grpc.Metadata();
      trailer.set('served-by', 'grpc-js');
      trailer.set('blob-bin', Buffer.from([4, 5, 6, 7]));
      const initial = new grpc.Metadata();
      initial.set('x-initial', 'sent-first');
      unaryCall.sendMetadata(initial);
      callback(null, { ...request, headers }, trailer);
    },
    fail: (unaryCall: grpc.ServerUnaryCall<Record<string, unknown>, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      calls.push('fail');
      const code = unaryCall.request['code'] as number;
      const message = unaryCall.request['message'] as string;
      const metadata = new grpc.Metadata();
      const details = [anyPack(StringValueSchema, create(StringValueSchema, { value: `from grpc-js ${code}` }))];
      metadata.set('grpc-status-details-bin', Buffer.from(protobuf.encodeStatus({ code, message, details })));
      callback({ code, details: message, metadata });
    },
    sleep: (unaryCall: grpc.ServerUnaryCall<Record<string, unknown>, unknown>, callback: grpc.sendUnaryData<unknown>) => {
      calls.push(`sleep deadline=${Math.round(Number(unaryCall.getDeadline()) - Date.now())}`);
      unaryCall.on('cancelled', () => calls.push('sleep cancelled'));
      setTimeout(() => callback(null, { slept: unaryCall.request['ms'] }), unaryCall.request['ms'] as number);
    },
    ...overrides,
  };
  return { port: await startGrpcJsServer(harness, InteropClient.service, handlers), calls };
}

async function failed(promise: Promise<unknown>): Promise<RpcError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

describe('Weft protobuf consumer → grpc-js server (proto-loader)', () => {
  it('calls a unary RPC and gets the typed message back', async () => {
    const { port } = await grpcServer();
    const consumer = await harness.start('weft-consumer');
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    const reply = await interop.echo({ text: 'héllo', payload: new Uint8Array([1, 2]), big: 9007199254740993n, labels: { k: 'v' } });
    expect(reply.$typeName).toBe('weft.interop.v1.EchoReply');
    expect(reply.text).toBe('héllo');
    expect(reply.payload).toStrictEqual(new Uint8Array([1, 2]));
    expect(reply.big).toBe(9007199254740993n);
    expect(reply.labels).toEqual({ k: 'v' });
  });

  it('sends attachments as metadata (incl. -bin) and reads trailing metadata as result attachments', async () => {
    const { port } = await grpcServer();
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
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    const reply = await interop.$call('echo', [{ wantHeaders: ['x-trace', 'x-raw-bin'] }], {
      attachments: { 'x-trace': 'abc-123', 'x-raw-bin': RAW.toString('base64') },
    });
    expect(reply.headers).toEqual({ 'x-trace': 'abc-123', 'x-raw-bin': 'bytes:09080706' });
    expect(results[0]?.getAttachment('served-by')).toBe('grpc-js');
    expect(results[0]?.getAttachment('blob-bin')).toBe(Buffer.from([4, 5, 6, 7]).toString('base64'));
    // The Result's attachments are the trailers (as Dubbo's Java client builds them), not the initial headers.
    expect(results[0]?.getAttachment('x-initial')).toBeUndefined();
  });

  it('refuses a -bin attachment that is not base64, naming it, before anything is sent', async () => {
    const { port, calls } = await grpcServer();
    const consumer = await harness.start('weft-consumer');
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    const error = await failed(interop.$call('echo', [{ text: 'x' }], { attachments: { 'x-raw-bin': 'not base64!' } }));
    expect(error.code).toBe(RpcErrorCode.SERIALIZATION);
    expect(error.message).toContain('Attachment "x-raw-bin" is sent as binary gRPC metadata (its name ends in "-bin"), so its value must be base64 text');
    expect(calls).toEqual([]);
  });

  it('an AbortSignal cancels a unary call: the consumer gets cancelled, the grpc-js server sees the cancel', async () => {
    const { port, calls } = await grpcServer();
    const consumer = await harness.start('weft-consumer');
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 5000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const error = await failed(interop.$call('sleep', [{ ms: 1000 }], { signal: controller.signal }));
    expect(error.code).toBe(RpcErrorCode.CANCELLED);
    expect(Date.now() - started).toBeLessThan(600);
    await waitFor(() => calls.includes('sleep cancelled'), 2000, 'grpc-js to see the cancel');
  });

  it('sends its timeout as grpc-timeout and fails with TIMEOUT when the server is slower', async () => {
    const { port, calls } = await grpcServer();
    const consumer = await harness.start('weft-consumer');
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 300 });
    expect((await interop.sleep({ ms: 10 })).slept).toBe(10);
    const deadline = Number(/deadline=(\d+)/.exec(calls[0] as string)?.[1]);
    expect(deadline).toBeGreaterThan(200);
    expect(deadline).toBeLessThanOrEqual(300);
    const error = await failed(interop.sleep({ ms: 800 }));
    expect(error.code).toBe(RpcErrorCode.TIMEOUT);
    await waitFor(() => calls.includes('sleep cancelled'), 2000, 'grpc-js to see the stream reset at the deadline');
  });

  it('keeps the exact status of every code, its message and the google.rpc.Status details', async () => {
    const { port } = await grpcServer();
    const consumer = await harness.start('weft-consumer');
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    for (const code of ALL_CODES) {
      const message = `failed with ${code}: 50% ✓ a+b`;
      const error = await failed(interop.fail({ code, message }));
      expect(error.grpcStatus, `status ${code}`).toBe(code);
      // Final statuses are rethrown as they came; the others after failover's "Tried n times … Last error is:".
      expect(error.message).toMatch(new RegExp(`(^|Last error is: )${message.replace(/[+?]/g, '\\$&')}$`));
      expect(error.details).toHaveLength(1);
      expect(anyUnpack(error.details[0] as never, StringValueSchema)?.value).toBe(`from grpc-js ${code}`);
    }
  });

  it('maps statuses to RpcError codes a Weft caller knows (§A.7, extended)', async () => {
    const { port } = await grpcServer();
    const consumer = await harness.start('weft-consumer');
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    const codeOf = async (code: number) => (await failed(interop.fail({ code, message: 'm' }))).code;
    expect(await codeOf(Code.DEADLINE_EXCEEDED)).toBe(RpcErrorCode.TIMEOUT);
    expect(await codeOf(Code.PERMISSION_DENIED)).toBe(RpcErrorCode.FORBIDDEN);
    expect(await codeOf(Code.UNAVAILABLE)).toBe(RpcErrorCode.NETWORK);
    expect(await codeOf(Code.UNIMPLEMENTED)).toBe(RpcErrorCode.METHOD_NOT_FOUND);
    expect(await codeOf(Code.RESOURCE_EXHAUSTED)).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect(await codeOf(Code.UNAUTHENTICATED)).toBe(RpcErrorCode.AUTHORIZATION);
    expect(await codeOf(Code.NOT_FOUND)).toBe(RpcErrorCode.UNKNOWN);
  });

  it('fails over only on UNAVAILABLE and lost connections: every other status reaches one provider once', async () => {
    const a = await grpcServer();
    const b = await grpcServer();
    const consumer = await harness.start('weft-consumer');
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${a.port};tri://127.0.0.1:${b.port}`, retries: 2 });
    const final = ALL_CODES.filter((code) => code !== Code.UNAVAILABLE);
    for (const code of final) {
      a.calls.length = 0;
      b.calls.length = 0;
      const error = await failed(interop.fail({ code, message: `final ${code}` }));
      expect(error.grpcStatus).toBe(code);
      expect(error.message).toBe(`final ${code}`);
      expect(a.calls.length + b.calls.length, `status ${code} is not retried`).toBe(1);
    }
    a.calls.length = 0;
    b.calls.length = 0;
    const unavailable = await failed(interop.fail({ code: Code.UNAVAILABLE, message: 'try elsewhere' }));
    expect(a.calls.length + b.calls.length).toBe(3);
    expect(unavailable.message).toContain('Tried 3 times');
    expect(unavailable.message).toContain('Last error is: try elsewhere');
    const deadPort = await freePort();
    const other = await harness.start('weft-consumer-2');
    const flaky = await other.refer(Interop, { url: `tri://127.0.0.1:${deadPort};tri://127.0.0.1:${a.port}`, retries: 2, check: false });
    for (let i = 0; i < 4; i++) expect((await flaky.sleep({ ms: 1 })).slept).toBe(1);
  });

  it('sends and receives messages just under the payload limit; over it, either way, is RESOURCE_EXHAUSTED and the channel stays usable', async () => {
    const { port, calls } = await grpcServer();
    const consumer = await harness.start('weft-consumer');
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 10_000 });
    const near = new Uint8Array(LIMIT - 64).fill(3);
    const reply = await interop.echo({ payload: near });
    expect(reply.payload.length).toBe(near.length);
    // A request over the limit is refused before it is sent.
    const error = await failed(interop.echo({ payload: new Uint8Array(LIMIT + 16) }));
    expect(error.code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect(error.grpcStatus).toBe(Code.RESOURCE_EXHAUSTED);
    expect(error.message).toMatch(new RegExp(`not sent: its request message of ${LIMIT + 16 + 5} bytes exceeds the limit of ${LIMIT} bytes \\(URL key "payload"\\)`));
    expect(calls).toEqual(['echo']);
    // A reply over the limit from a request under it (the echoed header value makes it 200 bytes longer).
    const grown = await failed(
      interop.$call('echo', [{ payload: new Uint8Array(LIMIT - 100), wantHeaders: ['x-pad'] }], { attachments: { 'x-pad': 'p'.repeat(200) } }),
    );
    expect(grown.code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect(grown.grpcStatus).toBe(Code.RESOURCE_EXHAUSTED);
    expect(grown.message).toContain(`${LIMIT}`);
    expect((await interop.echo({ text: 'after' })).text).toBe('after');
  });
});

describe('Weft protobuf consumer → Weft provider', () => {
  it('speaks application/grpc+proto by default and the protobuf JSON mapping with serialization=json', async () => {
    const port = await weftProvider();
    const consumer = await harness.start('weft-consumer');
    const binary = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    const json = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}?serialization=json`, retries: 0 });
    for (const interop of [binary, json]) {
      const reply = await interop.echo({ text: 't', big: -5n, payload: new Uint8Array([255]) });
      expect(reply.text).toBe('t');
      expect(reply.big).toBe(-5n);
      expect(reply.payload).toStrictEqual(new Uint8Array([255]));
    }
    const error = await failed(json.fail({ code: Code.NOT_FOUND, message: 'no user 42' }));
    expect(error.grpcStatus).toBe(Code.NOT_FOUND);
    expect(error.code).toBe(RpcErrorCode.BIZ);
    expect(error.message).toBe('no user 42');
    expect(anyUnpack(error.details[0] as never, StringValueSchema)?.value).toBe('detail 5');
  });

  it('answers application/grpc+json with the JSON mapping and the same content type', async () => {
    const port = await weftProvider();
    const session = http2.connect(`http://127.0.0.1:${port}`);
    harness.onClose(() => session.close());
    const body = Buffer.from(JSON.stringify({ text: 'j', big: '12', payload: 'AQI=' }));
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, body.length]), body]);
    const stream = session.request({ ':method': 'POST', ':path': '/weft.interop.v1.Interop/Echo', 'content-type': 'application/grpc+json', te: 'trailers' });
    stream.end(frame);
    const chunks: Buffer[] = [];
    const [headers, trailers] = await new Promise<[http2.IncomingHttpHeaders, http2.IncomingHttpHeaders]>((resolve) => {
      let h: http2.IncomingHttpHeaders = {};
      stream.on('response', (r) => (h = r));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('trailers', (t) => resolve([h, t]));
    });
    expect(headers['content-type']).toBe('application/grpc+json');
    expect(trailers['grpc-status']).toBe('0');
    expect(JSON.parse(Buffer.concat(chunks).subarray(5).toString('utf8'))).toEqual({ text: 'j', payload: 'AQI=', big: '12' });
  });

  it('binds plain-HTTP JSON bodies with the protobuf JSON mapping', async () => {
    const port = await weftProvider();
    const response = await fetch(`http://127.0.0.1:${port}/weft.interop.v1.Interop/Echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'plain', big: '7', labels: { a: 'b' } }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: 'plain', big: '7', labels: { a: 'b' } });
    const bad = await fetch(`http://127.0.0.1:${port}/weft.interop.v1.Interop/Echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ txet: 'typo' }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toContain('weft.interop.v1.EchoRequest');
    const missing = await fetch(`http://127.0.0.1:${port}/weft.interop.v1.Interop/Fail`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ code: Code.NOT_FOUND, message: 'no user 42' }),
    });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { message: string }).message).toBe('no user 42');
  });

  it('refuses more than one argument for an IDL method, naming it', async () => {
    const port = await weftProvider();
    const consumer = await harness.start('weft-consumer');
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    const error = await failed(interop.$call('echo', [{ text: 'a' }, { text: 'b' }] as unknown as [{ text: string }]));
    expect(error.code).toBe(RpcErrorCode.SERIALIZATION);
    expect(error.message).toContain('echo() is an IDL method: it takes exactly one request message, but 2 arguments were passed');
  });
});

describe('an IDL service without its serialization installed', () => {
  const bare = new Harness(BASE_PACKAGES);
  afterEach(() => bare.close());

  it('fails the export and the refer, naming the serialization, what is available and the package to install', async () => {
    const app = await bare.start('no-protobuf');
    const port = await freePort();
    const expected =
      'weft.interop.v1.Interop is an IDL service encoded by the "protobuf" serialization, but no weft.rpc.Serialization ' +
      'extension "protobuf" is installed (available: json). Install the package that provides it (for protobuf: npm install @weft/serialization-protobuf).';
    await expect(app.export(Interop, impl, { protocol: 'tri', port })).rejects.toThrow(expected);
    await expect(app.refer(Interop, { url: `tri://127.0.0.1:${port}`, check: false })).rejects.toThrow(expected);
  });
});
