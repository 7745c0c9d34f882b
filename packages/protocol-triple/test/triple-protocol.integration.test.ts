// Weft consumer ↔ Weft provider over tri, in one process (two applications): values realised against declared
// types, business errors (§A.8.1), framework failures as grpc-status (§A.7), deadlines and cancellation (§A.14),
// attachments both ways (§A.9), group/version routing with Dubbo's fallback (§A.2), and graceful shutdown.
import http2 from 'node:http2';

import { afterEach, describe, expect, it } from 'vitest';

import { Filter, Invocation, Protocol, RpcError, RpcErrorCode, type Invoker, type Result } from '@weft/core';
import { TripleProtocol } from '@weft/protocol-triple';
import { freePort } from '@weft/test-utils';

import { Declined, Greeter, greeterImpl, Harness, Item, synchronousFilter, waitFor } from './support/harness.js';

const harness = new Harness();
afterEach(() => harness.close());

describe('tri protocol: the extension', () => {
  it('is the `tri` Protocol extension, default port 50051, wrapped so exports know their service definition', async () => {
    const app = await harness.start('wiring');
    const protocols = app.model.getExtensionLoader(Protocol);
    expect(protocols.getSupportedExtensions()).toContain('tri');
    const bare = protocols.getExtension('tri', false);
    expect(bare).toBeInstanceOf(TripleProtocol);
    expect(protocols.getExtension('tri').getDefaultPort()).toBe(50051);
    expect(protocols.getExtension('tri')).not.toBe(bare);
  });

  it('keeps one protocol instance (servers, pools) per application', async () => {
    const a = await harness.start('a');
    const b = await harness.start('b');
    expect(a.model.getExtensionLoader(Protocol).getExtension('tri', false)).not.toBe(b.model.getExtensionLoader(Protocol).getExtension('tri', false));
  });
});

describe('tri protocol: calls', () => {
  it('answers calls with values realised against the declared types on both sides', async () => {
    const { greeter } = await harness.pair();
    expect(await greeter.sayHello('world')).toBe('hello world');
    expect(await greeter.add(2, 40)).toBe(42);
    const later = await greeter.later(new Date(0));
    expect(later).toBeInstanceOf(Date);
    expect(later.toISOString()).toBe('1970-01-01T00:00:01.000Z');
    const item = await greeter.item(Object.assign(new Item(), { name: 'tea', price: 3 }));
    expect(item).toBeInstanceOf(Item);
    expect(item.name).toBe('tea @ 3');
    expect(item.price).toBe(6);
    expect(await greeter.join(['a', 'b', 'c'])).toBe('a+b+c');
    expect(await greeter.nothing()).toBeUndefined();
  });

  it('multiplexes many concurrent calls over one connection', async () => {
    const { greeter } = await harness.pair();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => greeter.add(i, 1)));
    expect(answers).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('spreads calls over `connections` HTTP/2 connections to one provider', async () => {
    const { greeter, seen } = await harness.pair({ refer: { parameters: { connections: 2 } } });
    await Promise.all(Array.from({ length: 20 }, (_, i) => greeter.add(i, i)));
    const peers = new Set(seen.map((invocation) => invocation.getAttachment('remote.address')));
    expect(peers.size).toBe(2);
  });

  it('delivers a business error as a Result exception rebuilt as the declared class, not as an RpcError', async () => {
    const { greeter, consumer, port } = await harness.pair();
    const error = await greeter.decline('too late').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Declined);
    expect(error).not.toBeInstanceOf(RpcError);
    expect((error as Declined).message).toBe('declined: too late');
    expect((error as Declined).reason).toBe('too late');
    // An undeclared standard error keeps its class too.
    const crash = await greeter.crash('boom').catch((e: unknown) => e);
    expect(crash).toBeInstanceOf(TypeError);
    expect((crash as Error).message).toBe('crashed: boom');
    // Seen by the invoker: a normal completion (resolved) carrying the exception.
    const invoker = await harness.referInvoker(consumer, port);
    const result = await invoker.invoke(new Invocation({ methodName: 'decline', args: ['x'], service: Greeter }));
    expect(result.hasException()).toBe(true);
    expect(result.exception).toBeInstanceOf(Declined);
    await invoker.destroy();
  });

  it('rejects framework failures of the provider chain with the exact RpcError code', async () => {
    const port = await freePort();
    const provider = await harness.start('limits');
    class LimitFilter extends Filter {
      invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
        if (invocation.methodName === 'add') return Promise.reject(new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'too many adds'));
        if (invocation.methodName === 'join') return Promise.reject(new RpcError(RpcErrorCode.FORBIDDEN, 'no joins'));
        return invoker.invoke(invocation);
      }
    }
    provider.model.getExtensionLoader(Filter).addExtension('limit', LimitFilter, { activate: { group: 'provider' } });
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    const limited = await greeter.add(1, 2).catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RpcError);
    expect((limited as RpcError).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect((limited as RpcError).message).toContain('too many adds');
    const forbidden = await greeter.join(['x']).catch((e: unknown) => e);
    expect((forbidden as RpcError).code).toBe(RpcErrorCode.FORBIDDEN);
    expect(await greeter.sayHello('still works')).toBe('hello still works');
  });

  it('answers calls the provider chain completed synchronously: values, business errors, short-circuits and synchronous throws', async () => {
    const port = await freePort();
    const provider = await harness.start('sync-provider');
    const answers: string[] = [];
    provider.model.getExtensionLoader(Filter).addExtension('sync-probe', synchronousFilter(answers), { activate: { group: 'provider', order: -1000 } });
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    expect(await greeter.sayHello('world')).toBe('hello world');
    expect(await greeter.add(40, 2)).toBe(42);
    expect(await greeter.sayHello('short')).toBe('short-circuited');
    const declined = await greeter.decline('now').catch((e: unknown) => e);
    expect(declined).toBeInstanceOf(Declined);
    expect((declined as Declined).message).toBe('declined: now');
    const thrown = await greeter.join(['a']).catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(RpcError);
    expect((thrown as RpcError).code).toBe(RpcErrorCode.FORBIDDEN);
    expect((thrown as RpcError).message).toContain('no joins (thrown synchronously)');
    expect(await greeter.sleep(5)).toBe(5);
    // Synchronous implementations completed the provider chain synchronously; only `sleep` was pending.
    expect(answers).toEqual(['sayHello sync', 'add sync', 'decline sync', 'sleep async']);
    // A synchronous throw answered one call, not the connection: the next call is served as usual.
    expect(await greeter.sayHello('again')).toBe('hello again');
  });

  it('carries attachments as headers to the provider and result attachments back in the trailers', async () => {
    const port = await freePort();
    const provider = await harness.start('attachments');
    const seen: Invocation[] = [];
    class EchoAttachments extends Filter {
      async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
        seen.push(invocation);
        const result = await invoker.invoke(invocation);
        result.setAttachment('served-by', 'provider-1');
        result.setAttachment('Mixed-Case', 'yes');
        result.setAttachment('count', 3);
        return result;
      }
    }
    provider.model.getExtensionLoader(Filter).addExtension('echo-attachments', EchoAttachments, { activate: { group: 'provider' } });
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    const consumer = await harness.start('caller-app');
    const results: Result[] = [];
    class ResultSpy extends Filter {
      async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
        const result = await invoker.invoke(invocation);
        results.push(result);
        return result;
      }
    }
    consumer.model.getExtensionLoader(Filter).addExtension('result-spy', ResultSpy, { activate: { group: 'consumer' } });
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    await greeter.$call('sayHello', ['ann'], { attachments: { traceId: 't-1', _TO: 250, flag: true } });
    const invocation = seen[0] as Invocation;
    expect(invocation.getAttachment('traceId')).toBe('t-1');
    expect(invocation.getAttachment('_TO')).toBe('250');
    expect(invocation.getAttachment('flag')).toBe('true');
    expect(invocation.getAttachment('remote.application')).toBe('caller-app');
    expect(invocation.getAttachment('remote.address')).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(invocation.getAttachment('tri-consumer-appname')).toBeUndefined();
    expect(invocation.getAttachment(':path')).toBeUndefined();
    expect(invocation.method?.name).toBe('sayHello');
    const result = results[0] as Result;
    expect(result.getAttachment('served-by')).toBe('provider-1');
    expect(result.getAttachment('Mixed-Case')).toBe('yes');
    expect(result.getAttachment('count')).toBe('3');
    expect(result.getAttachment('grpc-status')).toBeUndefined();
  });

  it('refuses an attachment whose value cannot be an HTTP/2 header, without sending the call', async () => {
    const { greeter, seen } = await harness.pair();
    const error = await greeter.$call('sayHello', ['x'], { attachments: { note: 'line\nbreak' } }).catch((e: unknown) => e);
    expect((error as RpcError).code).toBe(RpcErrorCode.SERIALIZATION);
    expect(seen).toHaveLength(0);
  });
});

describe('tri protocol: deadlines and cancellation (§A.14)', () => {
  it('sends the remaining time as grpc-timeout: the provider invocation carries the consumer deadline', async () => {
    const { greeter, seen } = await harness.pair({ refer: { timeout: 800 } });
    const before = Date.now();
    await greeter.sayHello('x');
    const deadline = (seen[0] as Invocation).deadline as number;
    expect(deadline).toBeGreaterThan(before + 600);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 800 + 50);
  });

  it('times out on the consumer, resets the stream, and the provider sees its signal abort', async () => {
    const { greeter, seen } = await harness.pair({ refer: { timeout: 150 } });
    const started = Date.now();
    const error = await greeter.sleep(1000).catch((e: unknown) => e);
    expect((error as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    expect(Date.now() - started).toBeLessThan(900);
    const invocation = seen[0] as Invocation;
    await waitFor(() => invocation.aborted, 3000, 'the provider invocation to be aborted');
    expect(invocation.signal?.aborted).toBe(true);
  });

  it('cancels through the caller signal: RST_STREAM reaches the provider', async () => {
    const { greeter, seen } = await harness.pair();
    const controller = new AbortController();
    const pending = greeter.$call('sleep', [1000], { signal: controller.signal }).catch((e: unknown) => e);
    await waitFor(() => seen.length === 1, 3000, 'the call to reach the provider');
    const invocation = seen[0] as Invocation;
    expect(invocation.aborted).toBe(false);
    controller.abort(new Error('user gave up'));
    expect(((await pending) as RpcError).code).toBe(RpcErrorCode.CANCELLED);
    await waitFor(() => invocation.aborted, 3000, 'the provider invocation to be aborted');
  });

  it('answers DEADLINE_EXCEEDED when the implementation finishes after the deadline', async () => {
    const port = await freePort();
    const provider = await harness.start('late');
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    const session = http2.connect(`http://127.0.0.1:${port}`);
    try {
      const stream = session.request({
        ':method': 'POST',
        ':path': '/org.acme.Greeter/sleep',
        'content-type': 'application/grpc+json',
        'grpc-timeout': '50m',
      });
      const body = Buffer.from('[200]');
      const frame = Buffer.alloc(5 + body.length);
      frame.writeUInt32BE(body.length, 1);
      body.copy(frame, 5);
      stream.end(frame);
      const trailers = await new Promise<http2.IncomingHttpHeaders>((resolve) => {
        stream.on('response', (headers) => {
          if (headers['grpc-status'] !== undefined) resolve(headers);
        });
        stream.on('trailers', resolve);
        stream.resume();
      });
      expect(trailers['grpc-status']).toBe('4');
    } finally {
      session.destroy();
    }
  });
});

describe('tri protocol: routing (§A.2)', () => {
  it('routes by tri-service-group/version, falls back to the first export, and keeps versions apart', async () => {
    const port = await freePort();
    const provider = await harness.start('versions');
    await provider.export(Greeter, { ...greeterImpl(), sayHello: (n: string) => `v1 ${n}` }, { protocol: 'tri', port, version: '1.0.0' });
    await provider.export(Greeter, { ...greeterImpl(), sayHello: (n: string) => `v2 ${n}` }, { protocol: 'tri', port, version: '2.0.0' });
    await provider.export(Greeter, { ...greeterImpl(), sayHello: (n: string) => `g ${n}` }, { protocol: 'tri', port, group: 'blue', version: '1.0.0' });
    const consumer = await harness.start('consumer');
    const url = `tri://127.0.0.1:${port}`;
    expect(await (await consumer.refer(Greeter, { url, version: '1.0.0' })).sayHello('a')).toBe('v1 a');
    expect(await (await consumer.refer(Greeter, { url, version: '2.0.0' })).sayHello('a')).toBe('v2 a');
    expect(await (await consumer.refer(Greeter, { url, group: 'blue', version: '1.0.0' })).sayHello('a')).toBe('g a');
    // No headers: the first export of the interface answers.
    expect(await (await consumer.refer(Greeter, { url })).sayHello('a')).toBe('v1 a');
    // Unknown group with version 2.0.0: falls back to blue/…:1.0.0? No such key: then the bare path (first export).
    expect(await (await consumer.refer(Greeter, { url, group: 'red', version: '2.0.0' })).sayHello('a')).toBe('v1 a');
    // Unknown version in group blue: falls back to blue/…:1.0.0.
    expect(await (await consumer.refer(Greeter, { url, group: 'blue', version: '3.0.0' })).sayHello('a')).toBe('g a');
  });

  it('with resolve-fallback-to-default=false, an unknown version is UNIMPLEMENTED (method-not-found)', async () => {
    const port = await freePort();
    const provider = await harness.start('strict');
    await provider.export(Greeter, greeterImpl(), {
      protocol: 'tri',
      port,
      version: '1.0.0',
      parameters: { 'resolve-fallback-to-default': false },
    });
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, version: '2.0.0', retries: 0 });
    const error = await greeter.sayHello('a').catch((e: unknown) => e);
    expect((error as RpcError).code).toBe(RpcErrorCode.METHOD_NOT_FOUND);
    expect((error as RpcError).message).toContain('org.acme.Greeter:2.0.0');
  });

  it('refuses to export the same service key twice on one port', async () => {
    const port = await freePort();
    const provider = await harness.start('twice');
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    await expect(provider.export(Greeter, greeterImpl(), { protocol: 'tri', port })).rejects.toThrow(/already exported/);
  });
});

describe('tri protocol: availability, unexport and shutdown', () => {
  it('isAvailable() follows the connection; calls fail fast with `network` while the provider is gone, and work after it returns', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    const exported = await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    const consumer = await harness.start('consumer');
    const invoker = await harness.referInvoker(consumer, port, { 'reconnect-backoff': '20', 'reconnect-max-backoff': '100' });
    const greeter = await consumer.refer(Greeter, {
      url: `tri://127.0.0.1:${port}`,
      retries: 0,
      parameters: { 'reconnect-backoff': 20, 'reconnect-max-backoff': 100 },
    });
    expect(invoker.isAvailable()).toBe(true);
    expect(await greeter.sayHello('before')).toBe('hello before');

    await exported.unexport();
    await waitFor(() => !invoker.isAvailable(), 3000, 'the invoker to become unavailable');
    const error = await greeter.sayHello('during').catch((e: unknown) => e);
    expect((error as RpcError).code).toBe(RpcErrorCode.NETWORK);

    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    await waitFor(() => invoker.isAvailable(), 5000, 'the invoker to reconnect');
    expect(await greeter.sayHello('after')).toBe('hello after');
    await invoker.destroy();
  });

  it('unexport lets in-flight calls finish, then closes the port (GOAWAY)', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    const exported = await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    const watcher = http2.connect(`http://127.0.0.1:${port}`);
    watcher.on('error', () => undefined);
    const goaway = new Promise<{ code: number; data: string }>((resolve) =>
      watcher.once('goaway', (code: number, _last: number, data?: Buffer) => resolve({ code, data: data?.toString() ?? '' })),
    );
    await new Promise((resolve) => watcher.once('remoteSettings', resolve));
    const inflight = greeter.sleep(300);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await exported.unexport();
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(await inflight).toBe(300);
    expect(await goaway).toEqual({ code: http2.constants.NGHTTP2_NO_ERROR, data: 'weft: server shutting down' });
    watcher.destroy();
    const refused = await new Promise<string>((resolve) => {
      const session = http2.connect(`http://127.0.0.1:${port}`);
      session.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      session.on('connect', () => {
        session.destroy();
        resolve('connected');
      });
    });
    expect(refused).toBe('ECONNREFUSED');
  });

  it('keeps the port while another service is exported on it; an unexported service answers UNIMPLEMENTED', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    const v1 = await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port, version: '1' });
    await provider.export(Greeter, { ...greeterImpl(), sayHello: (n: string) => `two ${n}` }, { protocol: 'tri', port, version: '2' });
    const consumer = await harness.start('consumer');
    const one = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, version: '1', retries: 0, parameters: { 'resolve-fallback-to-default': false } });
    expect(await one.sayHello('a')).toBe('hello a');
    await v1.unexport();
    const two = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, version: '2', retries: 0 });
    expect(await two.sayHello('a')).toBe('two a');
    // No exact key any more: the bare path now belongs to version 2 (fallback on by default).
    expect(await one.sayHello('a')).toBe('two a');
  });

  it('application shutdown stops the server and closes the consumer pools', async () => {
    const { provider, consumer, greeter, port } = await harness.pair();
    expect(await greeter.sayHello('x')).toBe('hello x');
    await consumer.shutdown();
    await provider.shutdown();
    const code = await new Promise<string>((resolve) => {
      const session = http2.connect(`http://127.0.0.1:${port}`);
      session.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      session.on('connect', () => {
        session.destroy();
        resolve('connected');
      });
    });
    expect(code).toBe('ECONNREFUSED');
  });

  it('refers a provider that is down without failing; the invoker is unavailable and calls fail with `network`', async () => {
    const consumer = await harness.start('consumer');
    const port = await freePort();
    const invoker = await harness.referInvoker(consumer, port);
    expect(invoker.isAvailable()).toBe(false);
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    const error = await greeter.sayHello('x').catch((e: unknown) => e);
    expect((error as RpcError).code).toBe(RpcErrorCode.NETWORK);
    expect((error as RpcError).message).toMatch(/ECONNREFUSED|reconnecting/);
    await invoker.destroy();
  });
});
