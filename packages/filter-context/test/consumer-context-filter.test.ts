import { afterEach, describe, expect, it } from 'vitest';

import {
  Filter,
  Invocation,
  Result,
  RpcContext,
  RpcError,
  RpcErrorCode,
  type CallableProxy,
  type Invoker,
  type ReferOptions,
  type ServiceDefinition,
} from '@weft/core';
import { getClientAttachments, getServerAttachments, withAttachments } from '@weft/filter-context';

import { chainAround, jitter, Orders, seen, sleep, startApp, Stock, STOCK_URLS, StubInvoker, type Seen, type Started } from './support/shop.js';

let started: Started | undefined;
afterEach(async () => {
  await started?.close();
  started = undefined;
});

type StockProxy = CallableProxy<typeof Stock extends ServiceDefinition<infer M> ? M : never>;

type Placed = {
  readonly own: Seen;
  readonly nested: Seen;
};

/**
 * An application where `Orders.place` calls `Stock.reserve` through a reference (injvm, retries 0) and returns
 * what both implementations saw of their context.
 */
async function shop(
  options: {
    stockRefer?: ReferOptions;
    ordersTimeout?: number;
    stockImpl?: (item: string) => Promise<Seen>;
    place?: (stock: StockProxy, item: string) => Promise<unknown>;
  } = {},
) {
  started = await startApp();
  const { app } = started;
  await app.export(Stock, { reserve: options.stockImpl ?? (async () => seen()) });
  const stock = await app.refer(Stock, { retries: 0, timeout: 10_000, ...options.stockRefer });
  await app.export(Orders, {
    place: async (item: string) => {
      const own = seen();
      const nested = options.place ? await options.place(stock, item) : await stock.reserve(item);
      return { own, nested };
    },
    inspect: async () => seen(),
  }, {
    // Nested calls made after an await: the provider context must follow the implementation's async flow.
    parameters: { 'context.async': true },
  });
  const orders = await app.refer(Orders, { retries: 0, timeout: options.ordersTimeout ?? 2000 });
  return { app, stock, orders };
}

/** A promise and its resolve function. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('consumercontext (consumer)', () => {
  it('passes the incoming attachments on to a nested call, with a deadline no later than the caller\'s', async () => {
    const { orders } = await shop();
    const placed = (await orders.$call('place', ['apple'], { attachments: { traceId: 't1', tenant: 'acme' } })) as Placed;
    expect(placed.own).toMatchObject({ side: 'provider', methodName: 'place', server: { traceId: 't1', tenant: 'acme' } });
    expect(placed.nested).toMatchObject({
      present: true,
      side: 'provider',
      methodName: 'reserve',
      path: 'org.acme.Stock',
      remoteApplication: 'shop',
      server: { traceId: 't1', tenant: 'acme' },
    });
    // Stock's reference has a 10 s timeout, Orders' call 2 s: the nested call inherited the earlier deadline.
    expect(placed.own.deadline).toBeTypeOf('number');
    expect(placed.nested.deadline).toBeTypeOf('number');
    expect(placed.nested.deadline as number).toBeLessThanOrEqual(placed.own.deadline as number);
    expect(placed.nested.deadline).toBe(placed.own.deadline);
  });

  it('keeps a nested call\'s own deadline when it is earlier than the caller\'s', async () => {
    const { orders } = await shop({ stockRefer: { timeout: 100 } });
    const before = Date.now();
    const placed = (await orders.place('apple')) as Placed;
    expect(placed.nested.deadline as number).toBeLessThan(placed.own.deadline as number);
    expect(placed.nested.deadline as number).toBeLessThanOrEqual(Date.now() + 100);
    expect(placed.nested.deadline as number).toBeGreaterThanOrEqual(before + 100);
  });

  it('bounds a longer per-call timeout of the nested call by the caller\'s deadline', async () => {
    const { orders } = await shop({ place: (stock, item) => stock.$call('reserve', [item], { timeout: 60_000 }) });
    const placed = (await orders.place('apple')) as Placed;
    expect(placed.nested.deadline).toBe(placed.own.deadline);
  });

  it('never passes reserved keys on, and names the calling application in remote.application', async () => {
    const { orders } = await shop();
    const placed = (await orders.$call('place', ['apple'], {
      attachments: {
        traceId: 't1',
        token: 'secret',
        timeout: 5,
        _TO: '100',
        async: true,
        'dubbo.tag': 'gray',
        'dubbo.force.tag': true,
        'Content-Type': 'application/json',
        'grpc-timeout': '1S',
        'remote.application': 'spoofed',
      },
    })) as Placed;
    expect(placed.nested.attachments).toEqual({ traceId: 't1', 'remote.application': 'shop' });
    expect(placed.nested.remoteApplication).toBe('shop');
    expect(placed.own.remoteApplication).toBe('shop');
  });

  it('lets attachments set on the nested call win over passed-through ones', async () => {
    const { orders } = await shop({
      place: (stock) => stock.$call('reserve', ['apple'], { attachments: { traceId: 'explicit' } }),
    });
    const placed = (await orders.$call('place', ['apple'], { attachments: { traceId: 't1', tenant: 'acme' } })) as Placed;
    expect(placed.nested.server).toEqual({ traceId: 'explicit', tenant: 'acme' });
  });

  it('never mixes up 100 concurrent nested calls', async () => {
    const { orders } = await shop({
      stockImpl: async () => {
        await jitter(15);
        return seen();
      },
      place: async (stock, item) => {
        await jitter(15);
        const nested = await stock.reserve(item);
        // Still this call's context after awaiting another call.
        expect(getServerAttachments().get('traceId')).toBe(`t${item}`);
        return nested;
      },
    });
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => orders.$call('place', [String(i)], { attachments: { traceId: `t${i}` } }) as Promise<Placed>),
    );
    results.forEach((placed, i) => {
      expect(placed.own.server).toEqual({ traceId: `t${i}` });
      expect(placed.nested.server).toEqual({ traceId: `t${i}` });
      expect(placed.nested.deadline).toBe(placed.own.deadline);
    });
    expect(RpcContext.current()).toBeUndefined();
  });

  it('does not propagate the deadline with enable-timeout-countdown=false (interface or method level)', async () => {
    for (const stockRefer of [
      { parameters: { 'enable-timeout-countdown': false } },
      { methods: { reserve: { 'enable-timeout-countdown': 'FALSE' } } },
    ] satisfies ReferOptions[]) {
      const { orders } = await shop({ stockRefer });
      const before = Date.now();
      const placed = (await orders.$call('place', ['apple'], { attachments: { traceId: 't1' } })) as Placed;
      // Stock's own 10 s timeout applies, not Orders' 2 s deadline; attachments still pass through.
      expect(placed.nested.deadline as number).toBeGreaterThan(placed.own.deadline as number);
      expect(placed.nested.deadline as number).toBeGreaterThanOrEqual(before + 10_000);
      expect(placed.nested.server).toEqual({ traceId: 't1' });
      await started?.close();
      started = undefined;
    }
  });

  it('propagates the caller\'s signal: aborting the incoming call cancels the nested one', async () => {
    let nestedSignal: AbortSignal | undefined;
    let ownSignal: AbortSignal | undefined;
    let nestedOutcome: Promise<unknown> | undefined;
    let reached!: () => void;
    const reserveReached = new Promise<void>((resolve) => (reached = resolve));
    const { orders } = await shop({
      stockImpl: async () => {
        nestedSignal = RpcContext.current()?.signal;
        reached();
        await sleep(5000, undefined, { signal: nestedSignal });
        return seen();
      },
      place: (stock, item) => {
        ownSignal = RpcContext.current()?.signal;
        nestedOutcome = stock.reserve(item).then(
          () => 'resolved',
          (error: unknown) => error,
        );
        return nestedOutcome;
      },
    });
    const controller = new AbortController();
    const call = orders.$call('place', ['apple'], { signal: controller.signal });
    await reserveReached;
    controller.abort();
    await expect(call).rejects.toMatchObject({ code: RpcErrorCode.CANCELLED });
    expect(ownSignal).toBe(controller.signal);
    expect(nestedSignal).toBe(controller.signal);
    const nested = await nestedOutcome;
    expect(nested).toBeInstanceOf(RpcError);
    expect((nested as RpcError).code).toBe(RpcErrorCode.CANCELLED);
  });

  it('does not propagate the signal with enable-timeout-countdown=false', async () => {
    const { orders } = await shop({
      stockRefer: { parameters: { 'enable-timeout-countdown': false } },
      stockImpl: async () => ({ ...seen(), hasSignal: RpcContext.current()?.signal !== undefined }) as Seen,
    });
    const placed = (await orders.$call('place', ['apple'], { signal: new AbortController().signal })) as Placed;
    expect(placed.nested).toMatchObject({ present: true, hasSignal: false });
  });

  it('fails a nested call fast with timeout-terminate once the caller\'s deadline has passed', async () => {
    const nested = deferred<unknown>();
    let stockCalls = 0;
    const { orders } = await shop({
      ordersTimeout: 50,
      stockImpl: async () => {
        stockCalls++;
        return seen();
      },
      place: async (stock, item) => {
        await sleep(120);
        return stock.reserve(item).then(nested.resolve, (error: unknown) => {
          nested.resolve(error);
          throw error;
        });
      },
    });
    await expect(orders.place('apple')).rejects.toMatchObject({ code: RpcErrorCode.TIMEOUT });
    const outcome = await nested.promise;
    expect(outcome).toBeInstanceOf(RpcError);
    expect((outcome as RpcError).code).toBe(RpcErrorCode.TIMEOUT_TERMINATE);
    // Wrapped by the cluster (failover, retries=0), which keeps the code.
    expect((outcome as RpcError).message).toContain(
      'Last error is: No time left for making the following call: org.acme.Stock.reserve, terminate directly.',
    );
    expect(stockCalls).toBe(0);
  });

  it('with enable-timeout-countdown=false, a nested call after the caller\'s deadline still goes through', async () => {
    const nested = deferred<unknown>();
    const { orders } = await shop({
      ordersTimeout: 50,
      stockRefer: { parameters: { 'enable-timeout-countdown': false } },
      place: async (stock, item) => {
        await sleep(120);
        return stock.reserve(item).then(nested.resolve, (error: unknown) => {
          nested.resolve(error);
          throw error;
        });
      },
    });
    await expect(orders.place('apple')).rejects.toMatchObject({ code: RpcErrorCode.TIMEOUT });
    expect(await nested.promise).toMatchObject({ present: true, methodName: 'reserve' });
  });

  it('creates a consumer context (parent: the provider context) for nested calls only', async () => {
    const observed: { method: string; context: RpcContext | undefined }[] = [];
    class ProbeFilter extends Filter {
      invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
        observed.push({ method: invocation.methodName, context: RpcContext.current() });
        return invoker.invoke(invocation);
      }
    }
    started = await startApp();
    const { app } = started;
    app.model.getExtensionLoader(Filter).addExtension('probe', ProbeFilter, { activate: { group: ['consumer'], order: 0 } });
    let providerContext: RpcContext | undefined;
    await app.export(Stock, { reserve: async () => seen() });
    const stock = await app.refer(Stock, { retries: 0 });
    await app.export(Orders, {
      place: async (item: string) => {
        providerContext = RpcContext.current();
        return { own: seen(), nested: await stock.reserve(item) };
      },
      inspect: async () => seen(),
    });
    const orders = await app.refer(Orders, { retries: 0 });
    await orders.place('apple');
    expect(observed.map((o) => o.method)).toEqual(['place', 'reserve']);
    // Top level: nothing to shadow, no context created.
    expect(observed[0]?.context).toBeUndefined();
    const nested = observed[1]?.context;
    expect(nested?.side).toBe('consumer');
    expect(nested?.methodName).toBe('reserve');
    expect(nested?.parent).toBe(providerContext);
    expect(nested?.getAttachment('remote.application')).toBe('shop');
    expect(getServerAttachments(nested).size).toBe(0);
  });
});

describe('consumercontext (consumer), synchronous calls', () => {
  /** A provider context for an incoming call carrying `attachments` and `deadline`. */
  function incoming(attachments: Record<string, string>, deadline?: number): RpcContext {
    const invocation = new Invocation({ methodName: 'place', args: ['apple'], attachments, ...(deadline === undefined ? {} : { deadline }) });
    return new RpcContext('provider', invocation, STOCK_URLS.provider);
  }

  it('answers a top-level call with the inner Result itself, creating no context', async () => {
    started = await startApp();
    const value = Result.of('reserved');
    const inner = new StubInvoker(STOCK_URLS.consumer, () => value);
    const chain = chainAround(started.app, 'consumer', inner);
    const invocation = new Invocation({ methodName: 'reserve', args: ['apple'] });
    expect(chain.invoke(invocation)).toBe(value);
    expect(inner.seenContexts).toEqual([undefined]);
    expect(invocation.getAttachment('remote.application')).toBe('shop');
  });

  it('answers a nested call synchronously, run inside a consumer context, with attachments and deadline passed on', async () => {
    started = await startApp();
    const failure = Result.ofException(new Error('out of stock'));
    const inner = new StubInvoker(STOCK_URLS.consumer, () => failure);
    const chain = chainAround(started.app, 'consumer', inner);
    const deadline = Date.now() + 5000;
    const provider = incoming({ traceId: 't1', token: 'secret' }, deadline);
    const invocation = new Invocation({ methodName: 'reserve', args: ['apple'] });
    const answer = RpcContext.run(provider, () => chain.invoke(invocation));
    expect(answer).toBe(failure);
    expect(RpcContext.current()).toBeUndefined();
    const nested = inner.seenContexts[0];
    expect(nested?.side).toBe('consumer');
    expect(nested?.parent).toBe(provider);
    expect(nested?.invocation).toBe(invocation);
    expect(Object.fromEntries(invocation.getAttachments())).toEqual({ traceId: 't1', 'remote.application': 'shop' });
    expect(invocation.deadline).toBe(deadline);
  });

  it('still rejects (never throws) when the caller\'s deadline has passed, without calling on', async () => {
    started = await startApp();
    const inner = new StubInvoker(STOCK_URLS.consumer, () => Result.of('reserved'));
    const chain = chainAround(started.app, 'consumer', inner);
    const answer = RpcContext.run(incoming({}, Date.now() - 1), () => chain.invoke(new Invocation({ methodName: 'reserve', args: ['apple'] })));
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toMatchObject({ code: RpcErrorCode.TIMEOUT_TERMINATE });
    expect(inner.seenContexts).toEqual([]);
  });

  it('lets a synchronous throw of the inner chain through, and leaves the caller\'s context current', async () => {
    started = await startApp();
    const boom = new Error('inner chain threw');
    const inner = new StubInvoker(STOCK_URLS.consumer, () => {
      throw boom;
    });
    const chain = chainAround(started.app, 'consumer', inner);
    const provider = incoming({});
    const after = RpcContext.run(provider, () => {
      expect(() => chain.invoke(new Invocation({ methodName: 'reserve', args: ['apple'] }))).toThrow(boom);
      return RpcContext.current();
    });
    expect(after).toBe(provider);
    expect(inner.seenContexts[0]?.parent).toBe(provider);
  });
});

describe('withAttachments', () => {
  it('adds client attachments to the calls made in its flow, below the call\'s own', async () => {
    const { orders } = await shop();
    const placed = (await withAttachments({ traceId: 'client', tenant: 'acme' }, async () => {
      expect(getClientAttachments()).toEqual(new Map([['traceId', 'client'], ['tenant', 'acme']]));
      await sleep(1);
      return orders.$call('place', ['apple'], { attachments: { traceId: 'explicit' } });
    })) as Placed;
    expect(placed.own.server).toEqual({ traceId: 'explicit', tenant: 'acme' });
    // Passed through to the nested call: Orders' caller set them, not Orders itself.
    expect(placed.nested.server).toEqual({ traceId: 'explicit', tenant: 'acme' });
    expect(getClientAttachments().size).toBe(0);
  });

  it('merges nested scopes, the inner value winning, and never leaks to concurrent flows', async () => {
    const { orders } = await shop();
    const [a, b, plain] = (await Promise.all([
      withAttachments({ tenant: 'a', region: 'eu' }, () =>
        withAttachments(new Map([['tenant', 'a2']]), async () => {
          await jitter(10);
          return orders.inspect();
        }),
      ),
      withAttachments({ tenant: 'b' }, async () => {
        await jitter(10);
        return orders.inspect();
      }),
      orders.inspect(),
    ])) as Seen[];
    expect(a?.server).toEqual({ tenant: 'a2', region: 'eu' });
    expect(b?.server).toEqual({ tenant: 'b' });
    expect(plain?.server).toEqual({});
  });

  it('belongs to the incoming call it was set in: an in-process provider does not inherit its caller\'s scope', async () => {
    const { orders } = await shop({
      place: (stock, item) => withAttachments({ step: 'reserve' }, () => stock.reserve(item)),
    });
    // The caller's client attachments reach Orders (and pass through to Stock as server attachments) …
    const placed = (await withAttachments({ tenant: 'acme' }, () => orders.place('apple'))) as Placed;
    expect(placed.own.server).toEqual({ tenant: 'acme' });
    expect(placed.nested.server).toEqual({ tenant: 'acme', step: 'reserve' });
    // … but Orders' own withAttachments does not inherit the caller's scope, and the caller's scope does not
    // apply to calls Orders makes: without the outer passthrough, Stock would see only `step`.
    const direct = (await orders.place('pear')) as Placed;
    expect(direct.nested.server).toEqual({ step: 'reserve' });
  });
});
