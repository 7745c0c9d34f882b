import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  Cluster,
  defineService,
  ExtensionError,
  ExtensionErrorCode,
  Filter,
  Invocation,
  Invoker,
  Logger,
  Protocol,
  Result,
  RpcError,
  RpcErrorCode,
  URL,
  WeftApplication,
  whenSettled,
  type Directory,
  type ReferOptions,
  type ServiceImplementation,
} from '@weft/core';

import { FirstCluster } from './support/first-cluster.js';

// ---------------------------------------------------------------------------------------------------------------
// Harness

class SilentLogger extends Logger {
  readonly messages: string[] = [];
  debug(message: string): void {
    this.messages.push(message);
  }
  info(message: string): void {
    this.messages.push(message);
  }
  warn(message: string): void {
    this.messages.push(message);
  }
  error(message: string): void {
    this.messages.push(message);
  }
}

const retriedAfter: unknown[] = [];

/** Calls the first invoker and, when that rejects, once more with the same invocation (as failover does). */
class RetryOnceCluster extends Cluster {
  join(dir: Directory): Invoker {
    return new (class extends Invoker {
      getUrl(): URL {
        return dir.getUrl();
      }
      invoke(inv: Invocation): Result | Promise<Result> {
        const first = dir.list(inv)[0] as Invoker;
        return Promise.resolve(first.invoke(inv)).catch((error: unknown) => {
          retriedAfter.push(error);
          return first.invoke(inv);
        });
      }
    })();
  }
}

/** Invocations as the provider chain received them. */
const providerSeen: Invocation[] = [];
/** Consumer-side invocations and the results they got back. */
const consumerSeen: { invocation: Invocation; result?: Result }[] = [];

class ProviderSpy extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    providerSeen.push(invocation);
    invocation.setAttachment('provider-side', 'not sent back');
    return whenSettled(invoker.invoke(invocation), (result) => {
      result.setAttachment('served-by', 'provider-spy');
      const trace = invocation.getAttachment('traceId');
      if (trace !== undefined) result.setAttachment('trace-echo', trace);
      return result;
    });
  }
}

class ConsumerSpy extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    invocation.setAttachment('from-consumer-filter', 'added');
    const record: { invocation: Invocation; result?: Result } = { invocation };
    consumerSeen.push(record);
    return whenSettled(invoker.invoke(invocation), (result) => {
      record.result = result;
      return result;
    });
  }
}

const apps: WeftApplication[] = [];
const roots: string[] = [];

async function startApp(): Promise<WeftApplication> {
  const root = mkdtempSync(join(tmpdir(), 'weft-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 't', version: '1.0.0' }));
  const app = await WeftApplication.start({ root, name: 't', logger: new SilentLogger() });
  apps.push(app);
  const clusters = app.model.getExtensionLoader(Cluster);
  clusters.addExtension('failover', FirstCluster);
  clusters.addExtension('retryonce', RetryOnceCluster);
  const filters = app.model.getExtensionLoader(Filter);
  filters.addExtension('providerspy', ProviderSpy, { activate: { group: ['provider'] } });
  filters.addExtension('consumerspy', ConsumerSpy, { activate: { group: ['consumer'] } });
  return app;
}

beforeEach(() => {
  providerSeen.length = 0;
  consumerSeen.length = 0;
  retriedAfter.length = 0;
});

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.shutdown({ timeout: 200 })));
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** Settles `promise`, returning its rejection (failing when it resolves). */
async function rejection(promise: Result | Promise<unknown>): Promise<unknown> {
  return Promise.resolve(promise).then(
    (value) => {
      throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

async function rpcError(promise: Result | Promise<unknown>, code: RpcErrorCode): Promise<RpcError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(RpcError);
  expect((error as RpcError).code).toBe(code);
  return error as RpcError;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------------------------------------------------------------------------------------------------------------
// The service

class User {
  static constructed = 0;
  name: string;
  age: number;
  constructor(name: string, age: number) {
    User.constructed++;
    this.name = name;
    this.age = age;
  }
  describe(): string {
    return `${this.name} (${this.age})`;
  }
}

class OutOfStock extends Error {
  static constructed = 0;
  override name = 'OutOfStock';
  constructor(
    message: string,
    readonly sku: string,
    readonly remaining: number,
  ) {
    super(message);
    OutOfStock.constructed++;
  }
}

/** A declared business error class that does not set `name` (the common `class X extends Error {}` idiom). */
class PaymentDeclined extends Error {}

class Undeclared extends Error {
  override name = 'Undeclared';
  readonly level = 3;
}

const Shop = defineService('org.acme.Shop', {
  echo: { args: [Object], returns: Object },
  stored: { returns: Object },
  user: { args: [User], returns: User },
  users: { returns: [User] },
  when: { args: [Date], returns: Date },
  dates: { args: [[Date]], returns: [Date] },
  index: { args: [Map], returns: Map },
  tags: { args: [Set], returns: Set },
  count: { args: [String], returns: Number },
  numeric: { returns: Number },
  buy: { args: [String], returns: String, throws: [OutOfStock, PaymentDeclined] },
  slow: { args: [Number], returns: String },
  flaky: { returns: String },
  fast: { returns: String },
  circular: { returns: Object },
  nothing: {},
});

type ShopImpl = ServiceImplementation<typeof Shop.methods>;

interface ShopState {
  readonly impl: ShopImpl;
  /** Arguments as the implementation received them. */
  readonly received: unknown[];
  /** The object `stored()` answers with. */
  readonly store: Record<string, unknown>;
  /** The last error the implementation threw. */
  lastError: unknown;
  calls: number;
}

function shop(label = 'shop'): ShopState {
  const state: ShopState = {
    received: [],
    store: { items: [1, 2], owner: { name: 'ann' } },
    lastError: undefined,
    calls: 0,
    impl: {
      echo(o) {
        state.calls++;
        state.received.push(o);
        o['mutatedByProvider'] = true;
        return o;
      },
      stored: () => state.store,
      user(u) {
        state.received.push(u);
        return u;
      },
      users: () => [new User('a', 1), new User('b', 2)],
      when(d) {
        state.received.push(d);
        return new Date(d.getTime() + 1000);
      },
      dates(ds) {
        state.received.push(ds);
        return ds.map((d) => new Date(d.getTime() + 86_400_000));
      },
      index(m) {
        state.received.push(m);
        return new Map([...m, ['added', 1]]);
      },
      tags(s) {
        state.received.push(s);
        return new Set([...s, 'z']);
      },
      count: (s) => s.length,
      numeric: () => 'not a number' as unknown as number,
      buy(sku) {
        state.calls++;
        const fail = (error: unknown) => {
          state.lastError = error;
          return error;
        };
        switch (sku) {
          case 'out':
            throw fail(new OutOfStock('sold out', 'sku-1', 0));
          case 'async':
            return Promise.reject(fail(new OutOfStock('sold out later', 'sku-2', 1)));
          case 'declined':
            throw fail(new PaymentDeclined('card declined'));
          case 'type':
            throw fail(new TypeError('bad sku'));
          case 'range':
            return Promise.reject(fail(new RangeError('too many')));
          case 'undeclared':
            throw fail(new Undeclared('nope'));
          case 'string':
            throw fail('plain string');
          default:
            return `${label} bought ${sku}`;
        }
      },
      slow: (ms) => sleep(ms).then(() => `slept ${ms}`),
      flaky: async () => {
        state.calls++;
        if (state.calls === 1) await sleep(300);
        return `flaky ${state.calls}`;
      },
      fast: () => `${label} fast`,
      circular: () => {
        const o: Record<string, unknown> = { name: 'loop' };
        o['self'] = o;
        return o;
      },
      nothing: () => undefined,
    },
  };
  return state;
}

async function setup(options: ReferOptions = {}) {
  const app = await startApp();
  const state = shop();
  const exported = await app.export(Shop, state.impl);
  const proxy = await app.refer(Shop, options);
  return { app, state, exported, proxy };
}

/** A raw (filter-chained) injvm invoker of Shop, bypassing the cluster and the proxy. */
async function rawInvoker(app: WeftApplication, query = ''): Promise<Invoker> {
  const protocol = app.model.getExtensionLoader(Protocol).getExtension('injvm');
  return protocol.refer(Shop, URL.parse(`injvm://127.0.0.1/org.acme.Shop?interface=org.acme.Shop${query}`));
}

// ---------------------------------------------------------------------------------------------------------------

describe('injvm: copy semantics (default)', () => {
  it('the provider mutating an argument does not affect the caller, and the result is a distinct object', async () => {
    const { state, proxy } = await setup();
    const order = { id: 7, lines: [{ sku: 'a', qty: 1 }] };
    const result = await proxy.echo(order);
    expect(order).toEqual({ id: 7, lines: [{ sku: 'a', qty: 1 }] });
    expect(result).toEqual({ id: 7, lines: [{ sku: 'a', qty: 1 }], mutatedByProvider: true });
    expect(result).not.toBe(order);
    expect(state.received[0]).not.toBe(order);
    expect((result['lines'] as unknown[])[0]).not.toBe(order.lines[0]);
  });

  it('a result object is not shared with the provider', async () => {
    const { state, proxy } = await setup();
    const first = await proxy.stored();
    expect(first).toEqual(state.store);
    expect(first).not.toBe(state.store);
    (first['items'] as number[]).push(3);
    (first['owner'] as Record<string, unknown>)['name'] = 'mallory';
    expect(state.store).toEqual({ items: [1, 2], owner: { name: 'ann' } });
    const second = await proxy.stored();
    expect(second).toEqual({ items: [1, 2], owner: { name: 'ann' } });
    expect(second).not.toBe(first);
  });

  it('realises a declared class argument and result without running the constructor', async () => {
    const { state, proxy } = await setup();
    const ann = new User('ann', 30);
    const constructed = User.constructed;
    const result = await proxy.user(ann);
    expect(User.constructed).toBe(constructed);
    expect(result).toBeInstanceOf(User);
    expect(result).not.toBe(ann);
    expect(result.describe()).toBe('ann (30)');
    expect({ ...result }).toEqual({ name: 'ann', age: 30 });
    const received = state.received[0];
    expect(received).toBeInstanceOf(User);
    expect(received).not.toBe(ann);
    expect(received).not.toBe(result);
  });

  it('realises arrays of a class: [User]', async () => {
    const { proxy } = await setup();
    const before = User.constructed;
    const users = await proxy.users();
    // The provider constructed two users; the consumer's copies were realised without the constructor.
    expect(User.constructed).toBe(before + 2);
    expect(users).toHaveLength(2);
    for (const u of users) expect(u).toBeInstanceOf(User);
    expect(users.map((u) => u.describe())).toEqual(['a (1)', 'b (2)']);
  });

  it('realises Date, [Date], Map and Set from the declared types, both ways', async () => {
    const { state, proxy } = await setup();
    const epoch = new Date(0);
    const later = await proxy.when(epoch);
    expect(later).toBeInstanceOf(Date);
    expect(later.getTime()).toBe(1000);
    expect(state.received[0]).toBeInstanceOf(Date);
    expect(state.received[0]).not.toBe(epoch);

    const days = await proxy.dates([new Date(0), new Date('2024-02-28T00:00:00Z')]);
    expect(days.every((d) => d instanceof Date)).toBe(true);
    expect(days.map((d) => d.toISOString())).toEqual(['1970-01-02T00:00:00.000Z', '2024-02-29T00:00:00.000Z']);
    expect((state.received[1] as unknown[]).every((d) => d instanceof Date)).toBe(true);

    const source = new Map<unknown, unknown>([['a', 1]]);
    const index = await proxy.index(source);
    expect(index).toBeInstanceOf(Map);
    expect([...index]).toEqual([
      ['a', 1],
      ['added', 1],
    ]);
    expect(state.received[2]).toBeInstanceOf(Map);
    expect(state.received[2]).not.toBe(source);
    expect(source.size).toBe(1);

    const tags = await proxy.tags(new Set(['x', 'y']));
    expect(tags).toBeInstanceOf(Set);
    expect([...tags]).toEqual(['x', 'y', 'z']);
    expect(state.received[3]).toBeInstanceOf(Set);
  });

  it('primitive and void results', async () => {
    const { proxy } = await setup();
    await expect(proxy.count('abcd')).resolves.toBe(4);
    await expect(proxy.nothing()).resolves.toBeUndefined();
  });
});

describe('injvm: copy=false (zero-copy)', () => {
  it('on the reference: arguments and results keep their identity both ways', async () => {
    const { state, proxy } = await setup({ parameters: { copy: 'false' } });
    const order: Record<string, unknown> = { id: 1 };
    const result = await proxy.echo(order);
    expect(result).toBe(order);
    expect(state.received[0]).toBe(order);
    expect(order['mutatedByProvider']).toBe(true);
    await expect(proxy.stored()).resolves.toBe(state.store);
    const ann = new User('ann', 3);
    await expect(proxy.user(ann)).resolves.toBe(ann);
  });

  it('on the reference: business errors keep their identity', async () => {
    const { state, proxy } = await setup({ parameters: { copy: false } });
    const error = await rejection(proxy.buy('undeclared'));
    expect(error).toBe(state.lastError);
    expect(error).toBeInstanceOf(Undeclared);
  });

  it('on the export: the provider opts every caller out of copying', async () => {
    const app = await startApp();
    const state = shop();
    await app.export(Shop, state.impl, { parameters: { copy: false } });
    const proxy = await app.refer(Shop);
    const order: Record<string, unknown> = { id: 2 };
    await expect(proxy.echo(order)).resolves.toBe(order);
    expect(state.received[0]).toBe(order);
  });

  it('an invalid copy value is refused at refer and at export time', async () => {
    const app = await startApp();
    const refer = await rejection(app.refer(Shop, { parameters: { copy: 'sometimes' } }));
    expect(refer).toBeInstanceOf(ExtensionError);
    expect((refer as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    expect((refer as Error).message).toContain('copy');
    const exported = await rejection(app.export(Shop, shop().impl, { parameters: { copy: 'sometimes' } }));
    expect(exported).toBeInstanceOf(ExtensionError);
    expect((exported as Error).message).toContain('copy');
  });
});

describe('injvm: business errors', () => {
  it('a declared error class arrives as an instance of it, with message and own data, constructor not run', async () => {
    const { proxy } = await setup();
    const constructed = OutOfStock.constructed;
    const error = await rejection(proxy.buy('out'));
    expect(OutOfStock.constructed).toBe(constructed + 1); // the provider's throw only
    expect(error).toBeInstanceOf(OutOfStock);
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(RpcError);
    const e = error as OutOfStock;
    expect(e.name).toBe('OutOfStock');
    expect(e.message).toBe('sold out');
    expect(e.sku).toBe('sku-1');
    expect(e.remaining).toBe(0);
    expect(typeof e.stack).toBe('string');
    expect(Object.keys(e)).not.toContain('message');
  });

  it('an async rejection is a business error like a synchronous throw', async () => {
    const { proxy } = await setup();
    const error = await rejection(proxy.buy('async'));
    expect(error).toBeInstanceOf(OutOfStock);
    expect(error).toMatchObject({ message: 'sold out later', sku: 'sku-2', remaining: 1 });
    const range = await rejection(proxy.buy('range'));
    expect(range).toBeInstanceOf(RangeError);
    expect(range).not.toBeInstanceOf(RpcError);
  });

  it('a declared error class that does not set `name` still arrives as an instance of it', async () => {
    const { proxy } = await setup();
    const error = await rejection(proxy.buy('declined'));
    expect(error).toBeInstanceOf(PaymentDeclined);
    expect((error as Error).message).toBe('card declined');
  });

  it('standard errors are rebuilt as their class', async () => {
    const { proxy } = await setup();
    const error = await rejection(proxy.buy('type'));
    expect(error).toBeInstanceOf(TypeError);
    expect(error).not.toBeInstanceOf(RpcError);
    expect((error as Error).message).toBe('bad sku');
    expect((error as Error).name).toBe('TypeError');
  });

  it('an undeclared custom error arrives as a plain Error keeping its name, message and data', async () => {
    const { state, proxy } = await setup();
    const error = await rejection(proxy.buy('undeclared'));
    expect(error).not.toBe(state.lastError);
    expect(error).not.toBeInstanceOf(Undeclared);
    expect(error).not.toBeInstanceOf(RpcError);
    expect(Object.getPrototypeOf(error)).toBe(Error.prototype);
    expect(error).toMatchObject({ name: 'Undeclared', message: 'nope', level: 3 });
  });

  it('a thrown non-Error value arrives as an Error carrying its text', async () => {
    const { proxy } = await setup();
    const error = await rejection(proxy.buy('string'));
    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(RpcError);
    expect((error as Error).message).toBe('plain string');
  });

  it('travels in the Result (filters see a resolved call), never as a rejection', async () => {
    const app = await startApp();
    await app.export(Shop, shop().impl);
    const invoker = await rawInvoker(app);
    const result = await invoker.invoke(Invocation.of('buy', ['out'], Shop));
    expect(result).toBeInstanceOf(Result);
    expect(result.hasException()).toBe(true);
    expect(result.exception).toBeInstanceOf(OutOfStock);
    expect(() => result.recreate()).toThrow(OutOfStock);
    // Result attachments set by the provider chain come back with the error too.
    expect(result.getAttachment('served-by')).toBe('provider-spy');
    const ok = await invoker.invoke(Invocation.of('buy', ['tea'], Shop));
    expect(ok.hasException()).toBe(false);
    expect(ok.value).toBe('shop bought tea');
  });
});

describe('injvm: framework failures', () => {
  it('an undeclared method through $call: the proxy rejects with a TypeError', async () => {
    const { proxy, state } = await setup();
    const call = proxy.$call as (method: string, args: unknown[]) => Promise<unknown>;
    const error = await rejection(call('refund', ['x']));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain('refund');
    expect(state.calls).toBe(0);
    expect(providerSeen).toHaveLength(0);
  });

  it('an undeclared method through a raw invoker: RpcError method-not-found', async () => {
    const app = await startApp();
    await app.export(Shop, shop().impl);
    const invoker = await rawInvoker(app);
    const error = await rpcError(invoker.invoke(new Invocation({ methodName: 'refund', args: ['x'], service: Shop })), RpcErrorCode.METHOD_NOT_FOUND);
    expect(error.message).toContain('org.acme.Shop');
    expect(error.message).toContain('"refund"');
    // Without the service on the invocation as well.
    await rpcError(invoker.invoke(new Invocation({ methodName: 'toString' })), RpcErrorCode.METHOD_NOT_FOUND);
  });

  it('no provider exported: RpcError no-invoker, and the invoker is unavailable until one is', async () => {
    const app = await startApp();
    const proxy = await app.refer(Shop);
    const invoker = await rawInvoker(app);
    expect(invoker.isAvailable()).toBe(false);
    const error = await rpcError(proxy.fast(), RpcErrorCode.NO_INVOKER);
    expect(error.message).toContain('org.acme.Shop');
    // A provider exported later is found by existing references.
    await app.export(Shop, shop('late').impl);
    expect(invoker.isAvailable()).toBe(true);
    await expect(proxy.fast()).resolves.toBe('late fast');
  });

  it('a provider unexported mid-life: the next call is no-invoker and isAvailable() turns false', async () => {
    const { app, proxy, exported } = await setup();
    const invoker = await rawInvoker(app);
    await expect(proxy.fast()).resolves.toBe('shop fast');
    expect(invoker.isAvailable()).toBe(true);
    await exported.unexport();
    expect(invoker.isAvailable()).toBe(false);
    await rpcError(proxy.fast(), RpcErrorCode.NO_INVOKER);
    await rpcError(invoker.invoke(Invocation.of('fast', [], Shop)), RpcErrorCode.NO_INVOKER);
    // Unexport is idempotent, and the key is free again.
    await exported.unexport();
    await app.export(Shop, shop('again').impl);
    await expect(proxy.fast()).resolves.toBe('again fast');
  });

  it('a destroyed invoker rejects with no-invoker and is unavailable', async () => {
    const app = await startApp();
    await app.export(Shop, shop().impl);
    const invoker = await rawInvoker(app);
    await invoker.destroy();
    expect(invoker.isAvailable()).toBe(false);
    const error = await rpcError(invoker.invoke(Invocation.of('fast', [], Shop)), RpcErrorCode.NO_INVOKER);
    expect(error.message).toContain('destroyed');
  });

  it('exporting the same service key twice is refused', async () => {
    const app = await startApp();
    await app.export(Shop, shop().impl);
    const error = await rejection(app.export(Shop, shop().impl));
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    expect((error as Error).message).toContain('org.acme.Shop');
    expect((error as Error).message).toContain('already exported');
  });

  it('the same service with another version or group coexists, each reference reaching its own', async () => {
    const app = await startApp();
    await app.export(Shop, shop('plain').impl);
    await app.export(Shop, shop('v1').impl, { version: '1.0.0' });
    await app.export(Shop, shop('v2').impl, { version: '2.0.0' });
    await app.export(Shop, shop('gold').impl, { group: 'gold', version: '1.0.0' });
    await expect((await app.refer(Shop)).fast()).resolves.toBe('plain fast');
    await expect((await app.refer(Shop, { version: '1.0.0' })).fast()).resolves.toBe('v1 fast');
    await expect((await app.refer(Shop, { version: '2.0.0' })).fast()).resolves.toBe('v2 fast');
    await expect((await app.refer(Shop, { group: 'gold', version: '1.0.0' })).fast()).resolves.toBe('gold fast');
    const missing = await rpcError((await app.refer(Shop, { version: '3.0.0' })).fast(), RpcErrorCode.NO_INVOKER);
    expect(missing.message).toContain('org.acme.Shop:3.0.0');
    await rpcError((await app.refer(Shop, { group: 'silver' })).fast(), RpcErrorCode.NO_INVOKER);
  });
});

describe('injvm: timeouts and deadlines', () => {
  it('a slow implementation times out with RpcError timeout naming service, method and timeout', async () => {
    const { proxy } = await setup({ timeout: 50 });
    const start = Date.now();
    const error = await rpcError(proxy.slow(400), RpcErrorCode.TIMEOUT);
    const elapsed = Date.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(45);
    expect(elapsed).toBeLessThan(300);
    expect(error.isTimeout).toBe(true);
    expect(error.message).toContain('org.acme.Shop');
    expect(error.message).toContain('slow');
    expect(error.message).toContain('50 ms');
    // The configured timeout expired, not a deadline from upstream.
    expect(error.message).not.toContain('deadline');
  });

  it('timeout: 0 disables the timeout (and no deadline is propagated)', async () => {
    const { proxy } = await setup({ timeout: 0 });
    await expect(proxy.slow(80)).resolves.toBe('slept 80');
    expect(providerSeen[0]?.deadline).toBeUndefined();
  });

  it('a method-level timeout applies to that method only', async () => {
    const { proxy } = await setup({ methods: { slow: { timeout: 30 } } });
    const start = Date.now();
    const error = await rpcError(proxy.slow(300), RpcErrorCode.TIMEOUT);
    expect(Date.now() - start).toBeLessThan(250);
    expect(error.message).toContain('30 ms');
    const before = Date.now();
    await expect(proxy.fast()).resolves.toBe('shop fast');
    // fast() keeps the default 1000 ms.
    expect(providerSeen[1]?.deadline).toBeGreaterThanOrEqual(before + 1000);
  });

  it('a method-level timeout of 0 disables a global timeout for that method', async () => {
    const { proxy } = await setup({ timeout: 40, methods: { slow: { timeout: 0 } } });
    await expect(proxy.slow(120)).resolves.toBe('slept 120');
    await rpcError(proxy.$call('flaky', []), RpcErrorCode.TIMEOUT);
  });

  it('the deadline is propagated to the provider invocation', async () => {
    const { proxy } = await setup({ timeout: 500 });
    const before = Date.now();
    await proxy.fast();
    const after = Date.now();
    expect(providerSeen).toHaveLength(1);
    const seen = providerSeen[0] as Invocation;
    expect(seen.deadline).toBeGreaterThanOrEqual(before + 500);
    expect(seen.deadline).toBeLessThanOrEqual(after + 500);
    // The provider gets its own Invocation, not the consumer's.
    expect(seen).not.toBe(consumerSeen[0]?.invocation);
  });

  it('a per-call timeout replaces a longer configured one, and the provider sees its deadline', async () => {
    const { proxy } = await setup({ timeout: 5000 });
    const before = Date.now();
    await proxy.$call('fast', [], { timeout: 200 });
    expect(providerSeen[0]?.deadline).toBeGreaterThanOrEqual(before + 200);
    expect(providerSeen[0]?.deadline).toBeLessThanOrEqual(Date.now() + 200);
    const error = await rpcError(proxy.$call('slow', [300], { timeout: 40 }), RpcErrorCode.TIMEOUT);
    expect(error.message).toContain('timed out after 40 ms');
  });

  it('a per-call timeout replaces a shorter configured one too (Dubbo: the per-call timeout wins)', async () => {
    const { proxy } = await setup({ timeout: 60 });
    const before = Date.now();
    await expect(proxy.$call('slow', [150], { timeout: 2000 })).resolves.toBeDefined();
    expect(providerSeen[0]?.deadline).toBeGreaterThanOrEqual(before + 2000);
    const start = Date.now();
    await rpcError(proxy.$call('slow', [400], { timeout: 0 }).then(() => Promise.reject(new Error('no timeout expected'))).catch((e: unknown) => {
      if (e instanceof Error && e.message === 'no timeout expected') return Promise.reject(new RpcError(RpcErrorCode.TIMEOUT, 'timeout 0 disabled it'));
      throw e;
    }), RpcErrorCode.TIMEOUT);
    expect(Date.now() - start).toBeGreaterThanOrEqual(380);
  });

  it('an already expired deadline rejects at once without reaching the provider', async () => {
    const app = await startApp();
    const state = shop();
    await app.export(Shop, state.impl);
    const invoker = await rawInvoker(app);
    const error = await rpcError(invoker.invoke(new Invocation({ methodName: 'fast', service: Shop, deadline: Date.now() - 1 })), RpcErrorCode.TIMEOUT);
    expect(error.message).toContain('(deadline)');
    expect(providerSeen).toHaveLength(0);
  });

  it('a retry of a timed-out call with the same invocation gets a fresh timeout, not the spent one', async () => {
    const { proxy, state } = await setup({ cluster: 'retryonce', timeout: 60 });
    const start = Date.now();
    await expect(proxy.flaky()).resolves.toBe('flaky 2');
    expect(Date.now() - start).toBeLessThan(250);
    expect(retriedAfter).toHaveLength(1);
    expect((retriedAfter[0] as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    expect(state.calls).toBe(2);
    // Each attempt told the provider its own deadline.
    expect(providerSeen).toHaveLength(2);
    expect((providerSeen[1] as Invocation).deadline).toBeGreaterThan((providerSeen[0] as Invocation).deadline as number);
  });

  it('a per-call timeout applies to each attempt, as the configured one does', async () => {
    const { proxy } = await setup({ cluster: 'retryonce', timeout: 60 });
    const start = Date.now();
    const error = await rpcError(proxy.$call('slow', [400], { timeout: 90 }), RpcErrorCode.TIMEOUT);
    const elapsed = Date.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(170);
    expect(elapsed).toBeLessThan(400);
    expect(error.message).toContain('timed out after 90 ms');
    expect(retriedAfter).toHaveLength(1);
  });
});

describe('injvm: cancellation', () => {
  it('aborting the signal rejects with RpcError cancelled, carrying the reason', async () => {
    const { proxy } = await setup();
    const controller = new AbortController();
    const start = Date.now();
    const pending = proxy.$call('slow', [400], { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user left')), 20);
    const error = await rpcError(pending, RpcErrorCode.CANCELLED);
    expect(Date.now() - start).toBeLessThan(300);
    expect(error.message).toContain('org.acme.Shop');
    expect(error.message).toContain('slow');
    expect((error.cause as Error).message).toBe('user left');
  });

  it('an already aborted signal rejects immediately without calling the provider', async () => {
    const { proxy, state } = await setup();
    const controller = new AbortController();
    controller.abort();
    const error = await rpcError(proxy.$call('buy', ['tea'], { signal: controller.signal }), RpcErrorCode.CANCELLED);
    expect(error.cause).toBe(controller.signal.reason);
    expect(state.calls).toBe(0);
    expect(providerSeen).toHaveLength(0);
  });

  it('the signal reaches the provider invocation; a call that completes is unaffected by a later abort', async () => {
    const { proxy } = await setup({ timeout: 0 });
    const controller = new AbortController();
    await expect(proxy.$call('fast', [], { signal: controller.signal })).resolves.toBe('shop fast');
    expect(providerSeen[0]?.signal).toBe(controller.signal);
    controller.abort();
    await sleep(5);
    await rpcError(proxy.$call('fast', [], { signal: controller.signal }), RpcErrorCode.CANCELLED);
  });
});

describe('injvm: attachments', () => {
  it('travel from consumer to provider, including those added by consumer filters', async () => {
    const { proxy } = await setup();
    await proxy.$call('fast', [], { attachments: { traceId: 't-1', hops: 2, sampled: true } });
    const seen = providerSeen[0] as Invocation;
    expect(seen.getAttachment('traceId')).toBe('t-1');
    expect(seen.getAttachment('hops')).toBe(2);
    expect(seen.getAttachment('sampled')).toBe(true);
    expect(seen.getAttachment('from-consumer-filter')).toBe('added');
  });

  it('result attachments travel back; provider-side invocation attachments do not leak to the consumer', async () => {
    const { proxy } = await setup();
    await proxy.$call('fast', [], { attachments: { traceId: 't-2' } });
    const record = consumerSeen[0];
    expect(record?.result?.getAttachment('served-by')).toBe('provider-spy');
    expect(record?.result?.getAttachment('trace-echo')).toBe('t-2');
    expect(record?.invocation.getAttachment('provider-side')).toBeUndefined();
    expect(providerSeen[0]?.getAttachment('provider-side')).toBe('not sent back');
  });

  it('result attachments come back with business errors too', async () => {
    const { proxy } = await setup();
    await rejection(proxy.buy('out'));
    expect(consumerSeen[0]?.result?.hasException()).toBe(true);
    expect(consumerSeen[0]?.result?.getAttachment('served-by')).toBe('provider-spy');
  });
});

describe('injvm: serialization', () => {
  it('an argument JSON cannot encode rejects with RpcError serialization before reaching the provider', async () => {
    const { proxy, state } = await setup();
    const loop: Record<string, unknown> = { name: 'loop' };
    loop['self'] = loop;
    const error = await rpcError(proxy.echo(loop), RpcErrorCode.SERIALIZATION);
    expect(error.message).toContain('JSON');
    expect(state.calls).toBe(0);
  });

  it('a result JSON cannot encode rejects with RpcError serialization', async () => {
    const { proxy } = await setup();
    await rpcError(proxy.circular(), RpcErrorCode.SERIALIZATION);
  });

  it('a value that does not fit the declared type rejects with RpcError serialization naming where', async () => {
    const { proxy, state } = await setup();
    const numeric = await rpcError(proxy.numeric(), RpcErrorCode.SERIALIZATION);
    expect(numeric.message).toBe('numeric() result: expected Number, got "not a number".');
    const when = proxy.when as (d: unknown) => Promise<Date>;
    const arg = await rpcError(when('not a date'), RpcErrorCode.SERIALIZATION);
    expect(arg.message).toBe('when() argument 0: expected Date, got "not a date".');
    expect(state.received).toHaveLength(0);
  });

  it('textual forms convert to the declared primitive types', async () => {
    const { proxy } = await setup();
    const count = proxy.count as (s: unknown) => Promise<number>;
    // 42 is sent where a String is declared: the provider receives "42".
    await expect(count(42)).resolves.toBe(2);
  });

  it('an unknown serialization is refused at refer time', async () => {
    const app = await startApp();
    const error = await rejection(app.refer(Shop, { parameters: { serialization: 'xml' } }));
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as Error).message).toContain('xml');
  });
});
