import { afterEach, describe, expect, it } from 'vitest';

import { Invocation, Protocol, Result, RpcContext, URL, WeftApplication, type Invoker } from '@weft/core';
import { getServerAttachments, isReservedAttachmentKey } from '@weft/filter-context';

import { chainAround, jitter, Orders, seen, sleep, startApp, Stock, STOCK_URLS, StubInvoker, type Seen, type Started } from './support/shop.js';

let started: Started | undefined;
afterEach(async () => {
  await started?.close();
  started = undefined;
});

/** Exports Orders whose `inspect` snapshots the context (after an optional delay) and refers it. */
async function ordersApp(options: { exportFilter?: string; referTimeout?: number; delay?: () => Promise<void>; sync?: boolean } = {}) {
  started = await startApp();
  const { app } = started;
  await app.export(
    Orders,
    {
      place: async () => seen(),
      inspect: async () => {
        await options.delay?.();
        return seen();
      },
    },
    {
      ...(options.exportFilter === undefined ? {} : { filter: options.exportFilter }),
      // `inspect` reads the context after an await: carried across awaits unless the test checks the default.
      ...(options.sync === true ? {} : { parameters: { 'context.async': true } }),
    },
  );
  return app.refer(Orders, { retries: 0, ...(options.referTimeout === undefined ? {} : { timeout: options.referTimeout }) });
}

describe('context (provider)', () => {
  it('shows the implementation the call being handled: side, method, url, caller, attachments, deadline', async () => {
    const orders = await ordersApp();
    const before = Date.now();
    const s = (await orders.$call('inspect', [], { attachments: { traceId: 't1', 'remote.application': 'spoofed' } })) as Seen;
    const after = Date.now();
    expect(s).toMatchObject({
      present: true,
      side: 'provider',
      methodName: 'inspect',
      path: 'org.acme.Orders',
      hasParent: false,
      // Set by consumercontext from the reference's application, whatever the caller sent.
      remoteApplication: 'shop',
      server: { traceId: 't1' },
    });
    expect(s.attachments).toEqual({ traceId: 't1', 'remote.application': 'shop' });
    // The default consumer timeout (1000 ms) became the provider-side deadline.
    expect(s.deadline).toBeGreaterThanOrEqual(before + 1000);
    expect(s.deadline).toBeLessThanOrEqual(after + 1000);
    const other = (await orders.place('x')) as Seen;
    expect(other).toMatchObject({ present: true, methodName: 'place', server: {} });
  });

  it('keeps the context across awaits in the implementation', async () => {
    const orders = await ordersApp({ delay: () => sleep(15) });
    const s = (await orders.$call('inspect', [], { attachments: { traceId: 'after-await' } })) as Seen;
    expect(s).toMatchObject({ present: true, methodName: 'inspect', server: { traceId: 'after-await' } });
  });

  it('by default (context.async=false) shows the context until the first await, then nothing — never another call\'s', async () => {
    started = await startApp();
    const { app } = started;
    await app.export(Stock, {
      reserve: async () => seen(),
    });
    const stock = await app.refer(Stock, { retries: 0 });
    await app.export(Orders, {
      // At the start, after an await, and a nested call after an await made inside RpcContext.run(captured, …).
      place: async () => {
        const captured = RpcContext.current();
        const atStart = seen();
        await sleep(5);
        const afterAwait = seen();
        const lost = await stock.reserve('bare');
        const passed = await RpcContext.run(captured as RpcContext, () => stock.reserve('in-run'));
        return { atStart, afterAwait, kept: seen(captured), lost, passed };
      },
      inspect: async () => seen(),
    });
    const orders = await app.refer(Orders, { retries: 0 });
    const out = (await orders.$call('place', ['x'], { attachments: { traceId: 't-sync' } })) as Record<string, Seen>;
    expect(out['atStart']).toMatchObject({ present: true, side: 'provider', methodName: 'place', server: { traceId: 't-sync' } });
    expect(out['afterAwait']).toEqual({ present: false });
    expect(out['kept']).toMatchObject({ present: true, methodName: 'place', server: { traceId: 't-sync' } });
    expect(out['lost']).toMatchObject({ present: true, methodName: 'reserve' });
    expect(out['lost']?.server).toEqual({});
    expect(out['passed']).toMatchObject({ present: true, methodName: 'reserve', server: { traceId: 't-sync' } });
  });

  it('leaves no context outside a call', async () => {
    const orders = await ordersApp();
    expect(RpcContext.current()).toBeUndefined();
    const pending = orders.$call('inspect', [], { attachments: { traceId: 't1' } });
    expect(RpcContext.current()).toBeUndefined();
    const afterThen = await pending.then(() => RpcContext.current());
    expect(afterThen).toBeUndefined();
    expect(RpcContext.current()).toBeUndefined();
    expect(getServerAttachments().size).toBe(0);
    const inTimer = await new Promise<RpcContext | undefined>((resolve) => setTimeout(() => resolve(RpcContext.current()), 1));
    expect(inTimer).toBeUndefined();
  });

  it('leaves reserved keys out of getServerAttachments, but keeps them on the invocation', async () => {
    const orders = await ordersApp();
    const attachments = {
      traceId: 't1',
      tenant: 'acme',
      token: 'secret',
      timeout: 5,
      _TO: '9000',
      async: true,
      'dubbo.tag': 'gray',
      'Content-Type': 'application/json',
      'grpc-timeout': '1S',
      'tri-service-version': '1.0.0',
      'accept-language': 'fr',
    };
    const before = Date.now();
    const s = (await orders.$call('inspect', [], { attachments })) as Seen;
    expect(s.server).toEqual({ traceId: 't1', tenant: 'acme' });
    expect(s.attachments).toEqual({ ...attachments, 'remote.application': 'shop' });
    // The call had a deadline (the 1000 ms consumer timeout): `_TO` did not replace it.
    expect(s.deadline).toBeLessThan(before + 2000);
    for (const key of Object.keys(attachments)) expect(isReservedAttachmentKey(key)).toBe(!['traceId', 'tenant'].includes(key));
  });

  it('derives the deadline from Dubbo\'s `_TO` attachment when the call has none', async () => {
    const orders = await ordersApp({ referTimeout: 0 });
    const before = Date.now();
    const numeric = (await orders.$call('inspect', [], { attachments: { _TO: 300 } })) as Seen;
    const lower = (await orders.$call('inspect', [], { attachments: { _to: '250' } })) as Seen;
    const after = Date.now();
    expect(numeric.deadline).toBeGreaterThanOrEqual(before + 300);
    expect(numeric.deadline).toBeLessThanOrEqual(after + 300);
    expect(lower.deadline).toBeGreaterThanOrEqual(before + 250);
    expect(lower.deadline).toBeLessThanOrEqual(after + 250);
    const none = (await orders.inspect()) as Seen;
    expect(none).toMatchObject({ present: true });
    expect(none.deadline).toBeUndefined();
    const notNumeric = (await orders.$call('inspect', [], { attachments: { _TO: 'soon' } })) as Seen;
    expect(notNumeric.deadline).toBeUndefined();
  });

  it('never mixes up the contexts of 100 concurrent calls', async () => {
    const orders = await ordersApp({ delay: () => jitter(20) });
    const seenBy = await Promise.all(
      Array.from({ length: 100 }, (_, i) => orders.$call('inspect', [], { attachments: { traceId: `t${i}` } }) as Promise<Seen>),
    );
    expect(seenBy.map((s) => s.server?.['traceId'])).toEqual(Array.from({ length: 100 }, (_, i) => `t${i}`));
    expect(new Set(seenBy.map((s) => s.methodName))).toEqual(new Set(['inspect']));
  });

  it('is removed with service.filter=-context: a top-level call then shows the implementation no context', async () => {
    const orders = await ordersApp({ exportFilter: '-context' });
    const s = (await orders.$call('inspect', [], { attachments: { traceId: 't1' } })) as Seen;
    expect(s).toEqual({ present: false });
  });
});

/** A raw consumer invoker of Orders over injvm: the chains the protocol builds, no cluster, no proxy. */
function rawOrders(app: WeftApplication): Promise<Invoker> {
  const url = new URL({ protocol: 'injvm', host: '127.0.0.1', path: Orders.name, parameters: { interface: Orders.name, application: 'shop' } });
  return app.model.getExtensionLoader(Protocol).getExtension('injvm').refer(Orders, url);
}

describe('context (provider), synchronous calls', () => {
  it('shows a synchronous implementation the call, and the call answers synchronously end to end', async () => {
    started = await startApp();
    const { app } = started;
    let during: RpcContext | undefined;
    await app.export(Orders, {
      place: () => seen(),
      inspect: () => {
        during = RpcContext.current();
        return seen();
      },
    });
    const raw = await rawOrders(app);
    try {
      const answer = raw.invoke(new Invocation({ methodName: 'inspect', service: Orders, attachments: { traceId: 't-sync' } }));
      expect(answer).toBeInstanceOf(Result);
      // The context lived exactly as long as the synchronous call: nothing leaked into the caller's flow.
      expect(RpcContext.current()).toBeUndefined();
      expect((answer as Result).value).toMatchObject({
        present: true,
        side: 'provider',
        methodName: 'inspect',
        path: 'org.acme.Orders',
        hasParent: false,
        remoteApplication: 'shop',
        server: { traceId: 't-sync' },
      });
      expect(during?.side).toBe('provider');
    } finally {
      await raw.destroy();
    }
  });

  it('answers with the inner Result itself, value or business error, run inside the provider context', async () => {
    started = await startApp();
    const value = Result.of('fine');
    const failure = Result.ofException(new Error('out of stock'));
    for (const expected of [value, failure]) {
      const inner = new StubInvoker(STOCK_URLS.provider, () => expected);
      const chain = chainAround(started.app, 'provider', inner);
      const invocation = new Invocation({ methodName: 'reserve', args: ['apple'], attachments: { traceId: 't1', _TO: 500 } });
      const before = Date.now();
      const answer = chain.invoke(invocation);
      expect(answer).toBe(expected);
      expect(RpcContext.current()).toBeUndefined();
      const context = inner.seenContexts[0];
      expect(context?.side).toBe('provider');
      expect(context?.invocation).toBe(invocation);
      expect(context?.url).toBe(STOCK_URLS.provider);
      expect(context?.parent).toBeUndefined();
      expect(getServerAttachments(context)).toEqual(new Map([['traceId', 't1']]));
      // `_TO` became the deadline before the synchronous call ran.
      expect(context?.deadline).toBeGreaterThanOrEqual(before + 500);
    }
  });

  it('lets a synchronous throw of the inner chain through, and leaves no context behind', async () => {
    started = await startApp();
    const boom = new Error('inner chain threw');
    const inner = new StubInvoker(STOCK_URLS.provider, () => {
      throw boom;
    });
    const chain = chainAround(started.app, 'provider', inner);
    expect(() => chain.invoke(new Invocation({ methodName: 'reserve', args: ['apple'] }))).toThrow(boom);
    expect(inner.seenContexts[0]?.side).toBe('provider');
    expect(RpcContext.current()).toBeUndefined();
  });
});
