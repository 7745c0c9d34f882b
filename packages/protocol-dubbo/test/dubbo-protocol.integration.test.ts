// Weft consumer ↔ Weft provider over dubbo:// in one process (two applications, the real @weft/serialization-hessian2
// codec): values, business errors, framework failures as statuses, attachments both ways, deadlines, one-way
// calls, $echo, group/version routing, the token filter, the readonly event at shutdown and reconnect.
import { afterEach, describe, expect, it } from 'vitest';

import { Invocation, Protocol, RpcError, RpcErrorCode } from '@weft/core';
import { DubboInvoker, DubboProtocol } from '@weft/protocol-dubbo';

import { Declined, Greeter, greeterImpl, Harness, HESSIAN_PACKAGES, waitFor, freePort } from './support/harness.js';

const harness = new Harness(HESSIAN_PACKAGES, false);
afterEach(() => harness.close());

describe('dubbo protocol: the extension', () => {
  it('is the `dubbo` Protocol extension, default port 20880', async () => {
    const app = await harness.start('wiring');
    const protocols = app.model.getExtensionLoader(Protocol);
    expect(protocols.getSupportedExtensions()).toContain('dubbo');
    expect(protocols.getExtension('dubbo', false)).toBeInstanceOf(DubboProtocol);
    expect(protocols.getExtension('dubbo').getDefaultPort()).toBe(20880);
  });

  it('refuses a serialization that is not an ObjectSerialization, naming the key and the fix', async () => {
    const app = await harness.start('json');
    const error = await app.export(Greeter, greeterImpl(), { protocol: 'dubbo', port: await freePort(), parameters: { serialization: 'json' } }).catch((e: unknown) => e);
    expect((error as Error).message).toContain('serialization=json cannot encode dubbo:// bodies (it is not an ObjectSerialization');
    expect((error as Error).message).toContain('use serialization=hessian2');
  });
});

describe('dubbo protocol: calls', () => {
  it('answers calls with their values, and many concurrent calls over one connection', async () => {
    const { greeter, seen } = await harness.pair();
    expect(await greeter.sayHello('world')).toBe('hello world');
    expect(await greeter.add(2, 40)).toBe(42);
    expect(await greeter.join(['a', 'b', 'c'])).toBe('a+b+c');
    expect(await greeter.nothing()).toBeUndefined();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => greeter.add(i, 1)));
    expect(answers).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    expect(new Set(seen.map((i) => i.getAttachment('remote.address'))).size).toBe(1);
  });

  it('delivers a business error rebuilt as the declared class, and an undeclared one as an Error with its name', async () => {
    const { greeter } = await harness.pair();
    const error = await greeter.decline('too late').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Declined);
    expect(error).not.toBeInstanceOf(RpcError);
    expect((error as Declined).message).toBe('declined: too late');
    expect((error as Declined).reason).toBe('too late');
    const crash = await greeter.crash('boom').catch((e: unknown) => e);
    expect(crash).toBeInstanceOf(Error);
    expect((crash as Error).message).toBe('crashed: boom');
  });

  it('carries attachments to the provider, with the keys a Java 3.x consumer sends', async () => {
    const { consumer, port, seen } = await harness.pair();
    const invoker = await harness.referInvoker(consumer, port, { version: '' });
    const result = await invoker.invoke(new Invocation({ methodName: 'sayHello', args: ['x'], service: Greeter, attachments: { traceId: 't-1', n: 7 } }));
    expect(result.value).toBe('hello x');
    const got = seen.at(-1) as Invocation;
    expect(got.getAttachment('traceId')).toBe('t-1');
    expect(got.getAttachment('n')).toBe(7);
    expect(got.getAttachment('remote.application')).toBe('consumer-app');
    expect(Number(got.getAttachment('timeout'))).toBeGreaterThan(0);
    // Routing keys select the service; they are not passed on.
    expect(got.getAttachment('path')).toBeUndefined();
    expect(got.deadline).toBeGreaterThan(Date.now() - 1000);
    await invoker.destroy();
  });

  it('times out a slow call with `timeout`, and drops the late response', async () => {
    const { greeter, consumer } = await harness.pair({ refer: { timeout: 100 } });
    const started = Date.now();
    const error = await greeter.sleep(600).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    expect(Date.now() - started).toBeLessThan(500);
    const protocol = consumer.model.getExtensionLoader(Protocol).getExtension('dubbo', false) as DubboProtocol;
    expect(protocol).toBeInstanceOf(DubboProtocol);
    expect(await greeter.sayHello('after')).toBe('hello after');
  });

  it('sends a one-way call (`<method>.return=false`) without waiting, and the provider still runs it', async () => {
    const told: string[] = [];
    const { greeter } = await harness.pair({ told, refer: { methods: { notify: { return: false } } } });
    expect(await greeter.notify('fire')).toBeUndefined();
    await waitFor(() => told.length === 1, 2000, 'the one-way call');
    expect(told).toEqual(['fire']);
  });

  it('answers $echo through the echo filter', async () => {
    const { greeter } = await harness.pair();
    expect(await greeter.$echo('ping')).toBe('ping');
  });

  it('routes by group and version, and answers a missing service with status 70 naming what is exported', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, group: 'g1', version: '1.0.0' });
    const consumer = await harness.start('consumer');
    const good = await consumer.refer(Greeter, { url: `dubbo://127.0.0.1:${port}`, group: 'g1', version: '1.0.0', retries: 0 });
    expect(await good.sayHello('g')).toBe('hello g');
    const wrong = await consumer.refer(Greeter, { url: `dubbo://127.0.0.1:${port}`, group: 'g2', version: '1.0.0', retries: 0 });
    const error = (await wrong.sayHello('g').catch((e: unknown) => e)) as RpcError;
    expect(error).toBeInstanceOf(RpcError);
    expect(error.message).toContain('status 70 SERVICE_ERROR: org.apache.dubbo.remoting.RemotingException: Not found exported service: g2/org.acme.Greeter:1.0.0:');
    expect(error.message).toContain('in [g1/org.acme.Greeter:1.0.0]');
  });

  it('runs provider filters: a wrong token is refused with the exact code `forbidden`', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, parameters: { token: 'secret' } });
    const consumer = await harness.start('consumer');
    const good = await consumer.refer(Greeter, { url: `dubbo://127.0.0.1:${port}?token=secret`, retries: 0 });
    expect(await good.sayHello('t')).toBe('hello t');
    const bad = await consumer.refer(Greeter, { url: `dubbo://127.0.0.1:${port}?token=nope`, retries: 0 });
    const error = (await bad.sayHello('t').catch((e: unknown) => e)) as RpcError;
    expect(error.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(error.message).toMatch(/status 70 SERVICE_ERROR: .*token/i);
  });

  it('refuses to send a request body over `payload` (limit-exceeded, never sent)', async () => {
    const { greeter, seen } = await harness.pair({ refer: { parameters: { payload: 1024 } } });
    const error = (await greeter.sayHello('x'.repeat(900) + 'y'.repeat(200)).catch((e: unknown) => e)) as RpcError;
    expect(error.code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect(error.unsent).toBe(true);
    expect(error.message).toContain('exceeds the payload limit of 1024 bytes (URL key "payload")');
    expect(seen).toHaveLength(0);
  });

  it('answers a response over the provider payload with status 25', async () => {
    const { greeter } = await harness.pair({ export: { parameters: { payload: 300 } } });
    expect(await greeter.repeat('z', 200)).toBe('z'.repeat(200));
    const error = (await greeter.repeat('z', 400).catch((e: unknown) => e)) as RpcError;
    expect(error.code).toBe(RpcErrorCode.SERIALIZATION);
    expect(error.message).toContain('status 25 SERIALIZATION_ERROR: Data length too large:');
    expect(error.message).toContain('max payload: 300');
  });
});

describe('dubbo protocol: connection life cycle', () => {
  it('marks the provider unavailable on its readonly event at shutdown, then reconnects when it comes back', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    const exported = await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port });
    const consumer = await harness.start('consumer');
    const invoker = (await harness.referInvoker(consumer, port, { 'reconnect-backoff': '20' })) as DubboInvoker;
    expect(invoker.isAvailable()).toBe(true);
    const slow = Promise.resolve(invoker.invoke(new Invocation({ methodName: 'sleep', args: [300], service: Greeter })));
    await new Promise((r) => setTimeout(r, 50));
    const closing = exported.unexport();
    await waitFor(() => invoker.connection.readonly, 2000, 'the readonly event');
    expect(invoker.isAvailable()).toBe(false);
    // The call in flight still completes: the provider drains before closing.
    expect((await slow).value).toBe(300);
    await closing;
    expect(harness.logger.of('info').some((m) => m.includes('is shutting down (readonly event)'))).toBe(true);
    const again = await harness.start('provider-again');
    await again.export(Greeter, greeterImpl(), { protocol: 'dubbo', port });
    await waitFor(() => invoker.isAvailable(), 5000, 'the reconnect');
    expect((await invoker.invoke(new Invocation({ methodName: 'sayHello', args: ['back'], service: Greeter }))).value).toBe('hello back');
    await invoker.destroy();
  });

  it('fails calls pending on a lost connection with `network` (CHANNEL_INACTIVE)', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, parameters: { 'shutdown-timeout': 50 } });
    const consumer = await harness.start('consumer');
    const invoker = (await harness.referInvoker(consumer, port)) as DubboInvoker;
    const pending = Promise.resolve(invoker.invoke(new Invocation({ methodName: 'sleep', args: [2000], service: Greeter, timeout: 5000 })));
    pending.catch(() => undefined);
    await new Promise((r) => setTimeout(r, 50));
    await provider.shutdown({ timeout: 100 });
    const error = (await Promise.resolve(pending).catch((e: unknown) => e)) as RpcError;
    expect(error.code).toBe(RpcErrorCode.NETWORK);
    expect(error.message).toContain('CHANNEL_INACTIVE');
    await invoker.destroy();
  });

  it('keeps an idle connection alive with heartbeats both ways', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, parameters: { heartbeat: 100 } });
    const consumer = await harness.start('consumer');
    const invoker = (await harness.referInvoker(consumer, port, { heartbeat: '100' })) as DubboInvoker;
    // The consumer's heartbeats, answered by the provider, keep the idle connection open past 3 × heartbeat on both sides.
    await new Promise((r) => setTimeout(r, 700));
    expect(invoker.isAvailable()).toBe(true);
    expect(harness.logger.messages.filter((m) => m.message.includes('closing idle connection') || m.message.includes('read nothing for'))).toEqual([]);
    await invoker.destroy();
  });

  it('closes a connection idle for 3 × heartbeat on the provider, with a logged reason (the consumer reconnects)', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    // 3 × 250 ms: long enough that a loaded machine still calls on the new connection before it idles out too.
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, parameters: { heartbeat: 250 } });
    const consumer = await harness.start('consumer');
    const invoker = (await harness.referInvoker(consumer, port, { heartbeat: '0', 'reconnect-backoff': '20' })) as DubboInvoker;
    await waitFor(() => harness.logger.of('info').some((m) => m.includes('closing idle connection')), 4000, 'the idle close');
    expect(harness.logger.of('info').find((m) => m.includes('closing idle connection'))).toMatch(/nothing read or written for 750 ms, 3 × heartbeat/);
    // The provider logs before the consumer has seen the close: a call in between may still take the closing
    // connection (and fail as CHANNEL_INACTIVE). What must hold is that the consumer reconnects and calls again.
    const deadline = Date.now() + 3000;
    let value: unknown;
    for (;;) {
      await waitFor(() => invoker.isAvailable(), 2000, 'the reconnect');
      try {
        value = (await invoker.invoke(new Invocation({ methodName: 'add', args: [1, 2], service: Greeter }))).value;
        break;
      } catch (error) {
        if (!(error instanceof RpcError) || error.code !== RpcErrorCode.NETWORK || Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    expect(value).toBe(3);
    await invoker.destroy();
  });
});
