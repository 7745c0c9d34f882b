// Interop with real @grpc/grpc-js peers (JSON serializers on the grpc-js side), both directions: a grpc-js
// client calling a Weft provider, and a Weft consumer calling a grpc-js server (§A.3–§A.9, §A.14, §A.16).
import * as grpc from '@grpc/grpc-js';
import { afterEach, describe, expect, it } from 'vitest';

import { Filter, RpcError, RpcErrorCode, type Invocation, type Invoker, type Result } from '@weft/core';
import { freePort } from '@weft/test-utils';

import { grpcJsClient, unaryOutcome, type UnaryOutcome } from './support/grpc-js-peer.js';
import { Declined, Greeter, greeterImpl, Harness, waitFor } from './support/harness.js';

const harness = new Harness();
afterEach(() => harness.close());

const serialize = (value: unknown): Buffer => Buffer.from(JSON.stringify(value));
const deserialize = (bytes: Buffer): unknown => JSON.parse(bytes.toString('utf8'));

type Outcome = UnaryOutcome<unknown>;

function grpcClient(port: number, options: grpc.ClientOptions = {}): grpc.Client {
  return grpcJsClient(harness, port, grpc.Client, options);
}

function unary(client: grpc.Client, path: string, request: unknown, metadata = new grpc.Metadata(), options: grpc.CallOptions = {}): Promise<Outcome> {
  return unaryOutcome((callback) => client.makeUnaryRequest(path, serialize, deserialize, request, metadata, options, callback));
}

async function grpcServer(handlers: Record<string, grpc.handleUnaryCall<unknown, unknown>>): Promise<number> {
  const server = new grpc.Server();
  const definition: Record<string, grpc.MethodDefinition<unknown, unknown>> = {};
  for (const name of Object.keys(handlers)) {
    definition[name] = {
      path: `/org.acme.Greeter/${name}`,
      requestStream: false,
      responseStream: false,
      requestSerialize: serialize,
      requestDeserialize: deserialize,
      responseSerialize: serialize,
      responseDeserialize: deserialize,
    };
  }
  server.addService(definition, handlers);
  const port = await freePort();
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())),
  );
  harness.onClose(() => new Promise<void>((resolve) => server.tryShutdown(() => resolve())));
  return port;
}

describe('grpc-js client → Weft provider', () => {
  it('calls a method with the argument array, or the bare value of a one-argument method', async () => {
    const { port } = await harness.pair();
    const client = grpcClient(port);
    const a = await unary(client, '/org.acme.Greeter/sayHello', ['world']);
    expect(a.error).toBeNull();
    expect(a.value).toBe('hello world');
    expect(a.headers?.get('content-type')).toEqual(['application/grpc']);
    const b = await unary(client, '/org.acme.Greeter/sayHello', 'bare');
    expect(b.value).toBe('hello bare');
    const c = await unary(client, '/org.acme.Greeter/add', [20, 22]);
    expect(c.value).toBe(42);
    // Dubbo's method-name rule: the name with its first letter upper-cased reaches the method.
    const d = await unary(client, '/org.acme.Greeter/SayHello', ['caps']);
    expect(d.value).toBe('hello caps');
  });

  it('routes on tri-service-group/tri-service-version metadata', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, { ...greeterImpl(), sayHello: (n: string) => `v1 ${n}` }, { protocol: 'tri', port, version: '1.0.0' });
    await provider.export(Greeter, { ...greeterImpl(), sayHello: (n: string) => `v2 ${n}` }, { protocol: 'tri', port, version: '2.0.0' });
    await provider.export(Greeter, { ...greeterImpl(), sayHello: (n: string) => `blue ${n}` }, { protocol: 'tri', port, group: 'blue', version: '2.0.0' });
    const client = grpcClient(port);
    const md = (entries: Record<string, string>) => {
      const metadata = new grpc.Metadata();
      for (const [k, v] of Object.entries(entries)) metadata.set(k, v);
      return metadata;
    };
    expect((await unary(client, '/org.acme.Greeter/sayHello', ['a'], md({ 'tri-service-version': '2.0.0' }))).value).toBe('v2 a');
    expect((await unary(client, '/org.acme.Greeter/sayHello', ['a'], md({ 'tri-service-version': '1.0.0' }))).value).toBe('v1 a');
    expect(
      (await unary(client, '/org.acme.Greeter/sayHello', ['a'], md({ 'tri-service-group': 'blue', 'tri-service-version': '2.0.0' }))).value,
    ).toBe('blue a');
    expect((await unary(client, '/org.acme.Greeter/sayHello', ['a'])).value).toBe('v1 a');
  });

  it('turns metadata into attachments and result attachments into trailing metadata', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    const seen: Invocation[] = [];
    class Tagging extends Filter {
      async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
        seen.push(invocation);
        const result = await invoker.invoke(invocation);
        result.setAttachment('served-by', 'weft');
        return result;
      }
    }
    provider.model.getExtensionLoader(Filter).addExtension('tagging', Tagging, { activate: { group: 'provider' } });
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    const metadata = new grpc.Metadata();
    metadata.set('traceid', 'abc-123');
    metadata.set('tri-consumer-appname', 'grpc-js-app');
    const outcome = await unary(grpcClient(port), '/org.acme.Greeter/sayHello', ['x'], metadata);
    expect(outcome.value).toBe('hello x');
    expect(outcome.status?.metadata.get('served-by')).toEqual(['weft']);
    const invocation = seen[0] as Invocation;
    expect(invocation.getAttachment('traceid')).toBe('abc-123');
    expect(invocation.getAttachment('remote.application')).toBe('grpc-js-app');
    expect(String(invocation.getAttachment('user-agent'))).toContain('grpc-node-js');
  });

  it('shows a business error as a normal response marked tri-exception-code: 3, with the error data as the message', async () => {
    const { port } = await harness.pair();
    const outcome = await unary(grpcClient(port), '/org.acme.Greeter/decline', ['nope']);
    expect(outcome.error).toBeNull();
    expect(outcome.status?.code).toBe(grpc.status.OK);
    expect(outcome.headers?.get('tri-exception-code')).toEqual(['3']);
    expect(outcome.value).toEqual({ name: 'Declined', message: 'declined: nope', reason: 'nope' });
  });

  it('answers UNIMPLEMENTED for an unknown method or service', async () => {
    const { port } = await harness.pair();
    const client = grpcClient(port);
    const method = await unary(client, '/org.acme.Greeter/noSuchMethod', []);
    expect(method.error?.code).toBe(grpc.status.UNIMPLEMENTED);
    expect(method.error?.details).toContain('noSuchMethod');
    const service = await unary(client, '/org.acme.Nope/sayHello', ['x']);
    expect(service.error?.code).toBe(grpc.status.UNIMPLEMENTED);
    expect(service.error?.details).toContain('org.acme.Nope');
    // The server is still fine.
    expect((await unary(client, '/org.acme.Greeter/sayHello', ['ok'])).value).toBe('hello ok');
  });

  it('honours the grpc-js deadline: DEADLINE_EXCEEDED, and the provider invocation is cancelled', async () => {
    const { port, seen } = await harness.pair();
    const started = Date.now();
    const outcome = await unary(grpcClient(port), '/org.acme.Greeter/sleep', [800], new grpc.Metadata(), { deadline: Date.now() + 150 });
    expect(outcome.error?.code).toBe(grpc.status.DEADLINE_EXCEEDED);
    expect(Date.now() - started).toBeLessThan(700);
    const invocation = seen[0] as Invocation;
    expect(invocation.deadline).toBeGreaterThan(started);
    expect(invocation.deadline).toBeLessThanOrEqual(started + 200);
    await waitFor(() => invocation.aborted, 2000, 'the provider call to be cancelled');
  });

  it('maps a framework failure to its grpc-status, with a percent-encoded grpc-message and the exact Weft code', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    class Refuse extends Filter {
      invoke(): Promise<Result> {
        return Promise.reject(new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'tps limit 100% reached + more: ✓'));
      }
    }
    provider.model.getExtensionLoader(Filter).addExtension('refuse', Refuse, { activate: { group: 'provider' } });
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    const outcome = await unary(grpcClient(port), '/org.acme.Greeter/sayHello', ['x']);
    expect(outcome.error?.code).toBe(grpc.status.UNAVAILABLE);
    // '%' and non-ASCII are percent-encoded and decoded; '+' is sent as %2B (Dubbo's Java client would read a bare
    // '+' as a space), which grpc-js's decodeURI leaves as is.
    expect(outcome.error?.details).toBe('tps limit 100% reached %2B more: ✓');
    expect(outcome.status?.metadata.get('weft-error-code')).toEqual(['limit-exceeded']);
  });

  it('decompresses gzip requests from a grpc-js client configured to compress', async () => {
    const { port } = await harness.pair();
    const client = grpcClient(port, { 'grpc.default_compression_algorithm': grpc.compressionAlgorithms.gzip });
    const long = 'x'.repeat(5000);
    const outcome = await unary(client, '/org.acme.Greeter/sayHello', [long]);
    expect(outcome.error).toBeNull();
    expect(outcome.value).toBe(`hello ${long}`);
  });
});

describe('Weft consumer → grpc-js server', () => {
  it('calls with the argument array and gets the value; group, version, application and attachments arrive as metadata', async () => {
    let metadata: grpc.Metadata | undefined;
    let request: unknown;
    const port = await grpcServer({
      sayHello: (call, callback) => {
        metadata = call.metadata;
        request = call.request;
        const trailer = new grpc.Metadata();
        trailer.set('served-by', 'grpc-js');
        callback(null, `hi ${(call.request as string[])[0]}`, trailer);
      },
    });
    const consumer = await harness.start('weft-consumer');
    const results: Result[] = [];
    class ResultSpy extends Filter {
      async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
        const result = await invoker.invoke(invocation);
        results.push(result);
        return result;
      }
    }
    consumer.model.getExtensionLoader(Filter).addExtension('result-spy', ResultSpy, { activate: { group: 'consumer' } });
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, version: '1.2.3', group: 'g', retries: 0 });
    expect(await greeter.$call('sayHello', ['ann'], { attachments: { traceId: 'T1' } })).toBe('hi ann');
    expect(request).toEqual(['ann']);
    expect(metadata?.get('tri-service-version')).toEqual(['1.2.3']);
    expect(metadata?.get('tri-service-group')).toEqual(['g']);
    expect(metadata?.get('tri-consumer-appname')).toEqual(['weft-consumer']);
    expect(metadata?.get('traceid')).toEqual(['T1']);
    expect(metadata?.get('tri-header-convert')).toHaveLength(1);
    expect(results[0]?.getAttachment('served-by')).toBe('grpc-js');
  });

  it('propagates the deadline as grpc-timeout and resets the stream when it passes (the server sees the cancellation)', async () => {
    let deadline: grpc.Deadline | undefined;
    let cancelled = false;
    const port = await grpcServer({
      sleep: (call, callback) => {
        deadline = call.getDeadline();
        call.on('cancelled', () => {
          cancelled = true;
        });
        setTimeout(() => callback(null, (call.request as number[])[0]), (call.request as number[])[0]);
      },
    });
    const consumer = await harness.start('weft-consumer');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, timeout: 200, retries: 0 });
    const started = Date.now();
    expect(await greeter.sleep(10)).toBe(10);
    const seen = deadline instanceof Date ? deadline.getTime() : Number(deadline);
    expect(seen).toBeGreaterThan(started + 100);
    expect(seen).toBeLessThanOrEqual(Date.now() + 250);
    const error = await greeter.sleep(1000).catch((e: unknown) => e);
    expect((error as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    await waitFor(() => cancelled, 2000, 'grpc-js to see the call cancelled');
  });

  it('maps grpc-status codes to RpcError codes (§A.7) and decodes grpc-message', async () => {
    const statuses: Record<string, grpc.status> = {
      sayHello: grpc.status.PERMISSION_DENIED,
      add: grpc.status.UNAVAILABLE,
      later: grpc.status.DEADLINE_EXCEEDED,
      join: grpc.status.NOT_FOUND,
      crash: grpc.status.INTERNAL,
      nothing: grpc.status.RESOURCE_EXHAUSTED,
      sleep: grpc.status.UNAUTHENTICATED,
    };
    const handlers: Record<string, grpc.handleUnaryCall<unknown, unknown>> = {};
    for (const [name, code] of Object.entries(statuses)) {
      handlers[name] = (_call, callback) => callback({ code, details: `${name} failed: 50% ✓ a+b` });
    }
    const port = await grpcServer(handlers);
    const consumer = await harness.start('weft-consumer');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    const codeOf = async (call: Promise<unknown>) => {
      const error = await call.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RpcError);
      return error as RpcError;
    };
    const denied = await codeOf(greeter.sayHello('x'));
    expect(denied.code).toBe(RpcErrorCode.FORBIDDEN);
    // PERMISSION_DENIED is final: the cluster rethrows it as is (no "Failed to invoke … Last error is:" wrapper).
    expect(denied.message).toBe('sayHello failed: 50% ✓ a+b');
    expect(denied.grpcStatus).toBe(grpc.status.PERMISSION_DENIED);
    expect(denied.retryable).toBe(false);
    expect((await codeOf(greeter.add(1, 2))).code).toBe(RpcErrorCode.NETWORK);
    expect((await codeOf(greeter.later(new Date()))).code).toBe(RpcErrorCode.TIMEOUT);
    const notFound = await codeOf(greeter.join(['a']));
    expect(notFound.code).toBe(RpcErrorCode.UNKNOWN);
    expect(notFound.grpcStatus).toBe(grpc.status.NOT_FOUND);
    expect((await codeOf(greeter.crash('x'))).code).toBe(RpcErrorCode.UNKNOWN);
    expect((await codeOf(greeter.nothing())).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect((await codeOf(greeter.sleep(1))).code).toBe(RpcErrorCode.AUTHORIZATION);
    // A method the grpc-js server does not implement.
    expect((await codeOf(greeter.decline('x'))).code).toBe(RpcErrorCode.METHOD_NOT_FOUND);
  });

  it('rebuilds a business error sent the Triple way (tri-exception-code in the initial metadata)', async () => {
    const port = await grpcServer({
      decline: (call, callback) => {
        const headers = new grpc.Metadata();
        headers.set('tri-exception-code', '3');
        call.sendMetadata(headers);
        callback(null, { name: 'Declined', message: 'declined by grpc-js', reason: 'policy' });
      },
    });
    const consumer = await harness.start('weft-consumer');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    const error = await greeter.decline('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Declined);
    expect((error as Declined).message).toBe('declined by grpc-js');
    expect((error as Declined).reason).toBe('policy');
  });
});
