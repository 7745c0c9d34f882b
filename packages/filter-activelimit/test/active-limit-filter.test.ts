// The `active-limit` filter inside real consumer chains built by the loader (injvm export + refer): activation
// from the manifest, the limit, fair FIFO waiting bounded by the call's timeout or deadline (never indefinite,
// §8.10), and the exactly-once release of the count on every path (§8.11), checked against RpcStatusRegistry
// after thousands of chaotic calls (dubbo-semantics.md §5.5); and the synchronous path: a call admitted at once
// whose inner chain completes synchronously is answered synchronously, counted out at once.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  buildFilterChain,
  defineService,
  Filter,
  Invocation,
  Invoker,
  Result,
  RpcError,
  RpcErrorCode,
  RpcStatusRegistry,
  URL,
  WeftApplication,
  whenSettled,
  type CallableProxy,
  type ReferOptions,
} from '@weft/core';
import { ActiveLimitFilter } from '@weft/filter-activelimit';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

const Greeter = defineService('org.acme.Greeter', {
  call: { args: [String, String, Number], returns: String },
  other: { args: [String, String, Number], returns: String },
});
type GreeterMethods = (typeof Greeter)['methods'];

class BusinessError extends Error {
  override name = 'BusinessError';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Ids of the calls that reached the implementation, in order. */
const entered: string[] = [];
/** Releases of calls parked by mode `hold`, by id. */
const holds = new Map<string, () => void>();
/** Every execution, to wait for the slow ones after their consumers gave up. */
let running: Promise<unknown>[] = [];

function release(id: string): void {
  const resume = holds.get(id);
  if (resume === undefined) throw new Error(`test bug: ${id} is not held`);
  holds.delete(id);
  resume();
}

async function execute(id: string, mode: string, delay: number): Promise<string> {
  entered.push(id);
  if (mode === 'hold') await new Promise<void>((resolve) => holds.set(id, resolve));
  else if (delay > 0) await sleep(delay);
  if (mode === 'biz') throw new BusinessError(`${id} failed on purpose`);
  return `${id} done`;
}

/** A synchronous execution (modes `now`, `now-biz`): the whole call completes without a promise. */
function executeNow(id: string, mode: string): string {
  entered.push(id);
  if (mode === 'now-biz') throw new BusinessError(`${id} failed synchronously on purpose`);
  return `${id} done`;
}

const impl = {
  call: (id: string, mode: string, delay: number) => {
    if (mode === 'now' || mode === 'now-biz') return executeNow(id, mode);
    const execution = execute(id, mode, delay);
    running.push(execution.catch(() => undefined));
    return execution;
  },
  other: (id: string, mode: string, delay: number) => {
    if (mode === 'now' || mode === 'now-biz') return executeNow(id, mode);
    const execution = execute(id, mode, delay);
    running.push(execution.catch(() => undefined));
    return execution;
  },
};

/** Provider URLs as the consumer chain sees them (the protocol invoker's URL: what active-limit counts on). */
const providerUrls: URL[] = [];
/** The failures active-limit (and what is inside it) handed to the outer chain, before the cluster wraps them. */
const chainErrors: unknown[] = [];

class UrlSpyFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    if (!providerUrls.includes(invoker.getUrl())) providerUrls.push(invoker.getUrl());
    return whenSettled(invoker.invoke(invocation), (result) => result, (error: unknown) => {
      chainErrors.push(error);
      throw error;
    });
  }
}

/** Calls between admission and release, per method, as seen inside active-limit: never above actives. */
const inside = { now: new Map<string, number>(), peak: new Map<string, number>(), passes: 0 };

/**
 * An inner consumer filter (order 100, inside active-limit) that fails as the `mode` attachment says, and
 * measures how many admitted calls are in flight.
 */
class ChaosFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const method = invocation.methodName;
    inside.passes++;
    switch (invocation.getAttachment('mode')) {
      case 'sync-throw':
        throw new TypeError('inner filter bug');
      case 'reject':
        return Promise.reject(new RpcError(RpcErrorCode.NETWORK, 'inner filter rejected'));
      case 'inner-limit':
        return Promise.reject(new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'an inner limiter refused the call'));
      case 'sync-inner-limit':
        throw new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'an inner limiter refused the call, synchronously');
      case 'sync-result':
        return Result.of('answered by the inner filter, without a promise');
      case 'sync-biz':
        return Result.ofException(new BusinessError('a business error answered without a promise'));
      default: {
        const now = (inside.now.get(method) ?? 0) + 1;
        inside.now.set(method, now);
        inside.peak.set(method, Math.max(inside.peak.get(method) ?? 0, now));
        const out = () => inside.now.set(method, (inside.now.get(method) ?? 0) - 1);
        let answer: Result | Promise<Result>;
        try {
          answer = invoker.invoke(invocation);
        } catch (error) {
          out();
          throw error;
        }
        return whenSettled(
          answer,
          (result) => {
            out();
            return result;
          },
          (error: unknown) => {
            out();
            throw error;
          },
        );
      }
    }
  }
}

/** How a call ended; `call` may be an answer of `invoke`, a completed `Result` included (awaited all the same). */
async function outcome(call: Result | Promise<unknown>): Promise<'ok' | unknown> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    return error;
  }
}

function codeOf(value: unknown): string {
  if (value === 'ok') return 'ok';
  if (value instanceof RpcError) return value.code;
  return value instanceof Error ? value.name : String(value);
}

let testApp: TestApp;
let app: WeftApplication;
let statuses: RpcStatusRegistry;
let filter: ActiveLimitFilter;

beforeAll(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-activelimit'], { prefix: 'weft-activelimit' });
});
afterAll(() => testApp.cleanup());

beforeEach(async () => {
  entered.length = 0;
  holds.clear();
  running = [];
  providerUrls.length = 0;
  chainErrors.length = 0;
  inside.now.clear();
  inside.peak.clear();
  inside.passes = 0;
  app = await WeftApplication.start({ root: testApp.root, name: 'activelimit-test', logger: new RecordingLogger() });
  const filters = app.model.getExtensionLoader(Filter);
  filters.addExtension('url-spy', UrlSpyFilter, { activate: { group: 'consumer', order: -100 } });
  filters.addExtension('chaos', ChaosFilter, { activate: { group: 'consumer', value: 'chaos', order: 100 } });
  statuses = app.model.getService(RpcStatusRegistry);
  const instance = filters.getExtension('active-limit');
  if (!(instance instanceof ActiveLimitFilter)) throw new Error('active-limit is not an ActiveLimitFilter');
  filter = instance;
  await app.export(Greeter, impl);
});
afterEach(async () => {
  for (const id of [...holds.keys()]) release(id);
  await app.shutdown({ timeout: 2000 });
});

async function refer(options: ReferOptions): Promise<{ greeter: CallableProxy<GreeterMethods>; url: () => URL }> {
  const greeter = await app.refer(Greeter, { retries: 0, ...options });
  const before = providerUrls.length;
  return {
    greeter,
    url: () => {
      const url = providerUrls[before];
      if (url === undefined) throw new Error('test bug: no call went through this reference yet');
      return url;
    },
  };
}

/** Waits until `id` reached the implementation. */
async function reached(id: string): Promise<void> {
  for (let i = 0; i < 200 && !entered.includes(id); i++) await sleep(2);
  expect(entered).toContain(id);
}

function expectAllCountedOut(url: URL, ...methods: string[]): void {
  expect(statuses.getStatus(url).active).toBe(0);
  for (const method of methods) expect(statuses.getMethodStatus(url, method).active).toBe(0);
  expect(filter.waiting).toBe(0);
  expect(filter.queueCount).toBe(0);
}

describe('activation from the manifest', () => {
  it('activates in group consumer when actives (service or method level) is set; an app with only core and this package has no other filter', async () => {
    const only = createTestApp(['@weft/core', '@weft/filter-activelimit'], { prefix: 'weft-activelimit-only' });
    try {
      const solo = await WeftApplication.start({ root: only.root, name: 'solo', logger: new RecordingLogger() });
      try {
        const filters = solo.model.getExtensionLoader(Filter);
        expect(filters.getSupportedExtensions()).toEqual(['active-limit']);
        expect(filters.getExtension('active-limit')).toBeInstanceOf(ActiveLimitFilter);
        const base = URL.parse('injvm://127.0.0.1/org.acme.Greeter?side=consumer');
        expect(filters.selectActivateNames(base.addParameter('actives', 2), 'reference.filter', 'consumer')).toEqual(['active-limit']);
        expect(filters.selectActivateNames(base.addParameter('call.actives', 2), 'reference.filter', 'consumer')).toEqual(['active-limit']);
        expect(filters.selectActivateNames(base, 'reference.filter', 'consumer')).toEqual([]);
        expect(filters.selectActivateNames(base.addParameter('actives', 0), 'reference.filter', 'consumer')).toEqual([]);
        expect(filters.selectActivateNames(base.addParameter('actives', 2), 'service.filter', 'provider')).toEqual([]);
        expect(
          filters.selectActivateNames(base.addParameters({ actives: 2, 'reference.filter': '-active-limit' }), 'reference.filter', 'consumer'),
        ).toEqual([]);
      } finally {
        await solo.shutdown();
      }
    } finally {
      only.cleanup();
    }
  });

  it('is in the chain of a reference with actives, and not of one without', async () => {
    const limited = await refer({ timeout: 0, parameters: { actives: 1 } });
    const free = await refer({ timeout: 0 });
    const a = limited.greeter.call('a', 'hold', 0);
    const b = free.greeter.call('b', 'hold', 0);
    await reached('a');
    await reached('b');
    // Same provider, same counters: only the limited reference counted its call.
    expect(statuses.getMethodStatus(limited.url(), 'call').active).toBe(1);
    expect(codeOf(await outcome(limited.greeter.call('c', 'ok', 0)))).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect(await outcome(free.greeter.call('d', 'ok', 0))).toBe('ok');
    release('a');
    release('b');
    await Promise.all([a, b]);
    expectAllCountedOut(limited.url(), 'call');
  });
});

describe('the limit', () => {
  it('with timeout 0, a call that finds the method full is refused at once with limit-exceeded (no indefinite wait)', async () => {
    const { greeter, url } = await refer({ timeout: 0, group: undefined, parameters: { actives: 2 } });
    const held = [greeter.call('a', 'hold', 0), greeter.call('b', 'hold', 0)];
    await reached('b');
    const started = performance.now();
    const refused = await outcome(greeter.call('c', 'ok', 0));
    expect(performance.now() - started).toBeLessThan(100);
    expect(codeOf(refused)).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    const message = (refused as RpcError).message;
    expect(message).toContain('org.acme.Greeter.call() on provider 127.0.0.1');
    expect(message).toContain('at most 2 concurrent calls (2 in flight)');
    expect(message).toContain('timeout 0 allows no wait');
    // Refused before sending: marked unsent, so a cluster may retry it elsewhere even for an idempotent: false method.
    expect(chainErrors.map((error) => (error as RpcError).unsent)).toEqual([true]);
    expect(filter.waiting).toBe(0);
    // Per method: `other` has its own limit.
    expect(await greeter.other('d', 'ok', 0)).toBe('d done');
    release('a');
    release('b');
    await Promise.all(held);
    expect(await greeter.call('e', 'ok', 0)).toBe('e done');
    expectAllCountedOut(url(), 'call', 'other');
  });

  it('methods without actives pass uncounted while a method-level limit applies to its method only', async () => {
    const { greeter, url } = await refer({ timeout: 0, methods: { call: { actives: 1 } } });
    const held = greeter.call('a', 'hold', 0);
    await reached('a');
    expect(codeOf(await outcome(greeter.call('b', 'ok', 0)))).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect(await Promise.all([greeter.other('c', 'ok', 1), greeter.other('d', 'ok', 1), greeter.other('e', 'ok', 1)])).toHaveLength(3);
    expect(statuses.getMethodStatus(url(), 'other').total).toBe(0);
    release('a');
    await held;
    expectAllCountedOut(url(), 'call', 'other');
  });
});

describe('with a load balance that reads the counters (leastactive)', () => {
  it('each call is counted once: the cluster leaves methods with actives to this filter', async () => {
    const { greeter, url } = await refer({ timeout: 0, loadbalance: 'leastactive', methods: { call: { actives: 1 } } });
    const held = [greeter.call('a', 'hold', 0), greeter.other('b', 'hold', 0)];
    await reached('a');
    await reached('b');
    expect(statuses.getMethodStatus(url(), 'call').active).toBe(1); // counted here only (double counting would refuse it)
    expect(statuses.getMethodStatus(url(), 'other').active).toBe(1); // counted by the cluster
    expect(codeOf(await outcome(greeter.call('c', 'ok', 0)))).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    release('a');
    release('b');
    await Promise.all(held);
    expect(await greeter.call('d', 'ok', 0)).toBe('d done');
    expectAllCountedOut(url(), 'call', 'other');
  });
});

describe('waiting for a free slot', () => {
  it('waits, then proceeds as soon as a slot frees', async () => {
    const { greeter, url } = await refer({ timeout: 2000, parameters: { actives: 1 } });
    const first = greeter.call('a', 'hold', 0);
    await reached('a');
    const started = performance.now();
    const second = greeter.call('b', 'ok', 0);
    await sleep(40);
    expect(entered).toEqual(['a']);
    expect(filter.waiting).toBe(1);
    release('a');
    expect(await second).toBe('b done');
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
    expect(await first).toBe('a done');
    expectAllCountedOut(url(), 'call');
  });

  it('wakes waiters one at a time in arrival order (FIFO), and a newcomer never overtakes them', async () => {
    const { greeter, url } = await refer({ timeout: 5000, parameters: { actives: 2 } });
    const calls = [greeter.call('a', 'hold', 0), greeter.call('b', 'hold', 0)];
    await reached('b');
    for (const id of ['c', 'd', 'e', 'f', 'g']) calls.push(greeter.call(id, 'hold', 0));
    await sleep(10);
    expect(filter.waiting).toBe(5);
    expect(filter.queueCount).toBe(1);
    release('b');
    calls.push(greeter.call('late', 'hold', 0)); // arrives in the same tick as the freed slot: goes to the back
    await reached('c');
    await sleep(10);
    expect(entered).toEqual(['a', 'b', 'c']);
    for (const id of ['a', 'c', 'd', 'e', 'f', 'g']) {
      release(id);
      await sleep(5);
    }
    await reached('late');
    expect(entered).toEqual(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'late']);
    release('late');
    await Promise.all(calls);
    expectAllCountedOut(url(), 'call');
  });

  it('never waits longer than the timeout key, then rejects with timeout naming the wait', async () => {
    const { greeter, url } = await refer({ timeout: 5000, methods: { call: { timeout: 80, actives: 1 } } });
    // The holder's own deadline is longer than the waiter's, so its timeout cannot free the slot first.
    const holder = greeter.$call('call', ['a', 'hold', 0], { timeout: 5000 });
    await reached('a');
    const started = performance.now();
    const refused = await outcome(greeter.call('b', 'ok', 0));
    const waited = performance.now() - started;
    expect(codeOf(refused)).toBe(RpcErrorCode.TIMEOUT);
    expect(waited).toBeGreaterThanOrEqual(75);
    expect(waited).toBeLessThan(1000);
    const message = (refused as RpcError).message;
    expect(message).toMatch(/Last error is: Waiting for a free slot of org\.acme\.Greeter\.call\(\) on provider 127\.0\.0\.1 timed out on the consumer side after \d+ ms/);
    expect(message).toContain('(timeout 80 ms): actives limit 1, 1 call(s) in flight, 0 still waiting.');
    expect(chainErrors.map((error) => [(error as RpcError).code, (error as RpcError).unsent])).toEqual([[RpcErrorCode.TIMEOUT, true]]);
    expect(entered).toEqual(['a']); // the timed-out waiter never reached the provider
    release('a');
    await holder;
    expectAllCountedOut(url(), 'call');
  });

  it('a per-call timeout replaces the timeout key for the wait, as for the call', async () => {
    const { greeter, url } = await refer({ timeout: 5000, parameters: { actives: 1 } });
    const holder = greeter.call('a', 'hold', 0);
    await reached('a');
    const started = performance.now();
    const refused = await outcome(greeter.$call('call', ['b', 'ok', 0], { timeout: 60 }));
    const waited = performance.now() - started;
    expect(codeOf(refused)).toBe(RpcErrorCode.TIMEOUT);
    expect(waited).toBeGreaterThanOrEqual(55);
    expect(waited).toBeLessThan(1000);
    expect((refused as RpcError).message).toContain('(timeout 60 ms)');
    // A per-call timeout of 0 means no wait, whatever the key says.
    const started0 = performance.now();
    expect(codeOf(await outcome(greeter.$call('call', ['c', 'ok', 0], { timeout: 0 })))).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect(performance.now() - started0).toBeLessThan(100);
    release('a');
    await holder;
    expectAllCountedOut(url(), 'call');
  });

  it('an aborted or timed-out waiter leaves the queue and never takes a slot', async () => {
    const { greeter, url } = await refer({ timeout: 5000, parameters: { actives: 1 } });
    const holder = greeter.call('a', 'hold', 0);
    await reached('a');
    const controller = new AbortController();
    const aborted = greeter.$call('call', ['b', 'ok', 0], { signal: controller.signal });
    const timedOut = greeter.$call('call', ['c', 'ok', 0], { timeout: 30 });
    const patient = greeter.call('d', 'ok', 0);
    await sleep(5);
    expect(filter.waiting).toBe(3);
    controller.abort(new Error('user left'));
    const abortedError = await outcome(aborted);
    expect(codeOf(abortedError)).toBe(RpcErrorCode.CANCELLED);
    expect((abortedError as RpcError).message).toContain('cancelled by its caller while waiting for a free slot (actives=1)');
    expect(codeOf(await outcome(timedOut))).toBe(RpcErrorCode.TIMEOUT);
    expect(filter.waiting).toBe(1);
    expect(statuses.getMethodStatus(url(), 'call').active).toBe(1);
    release('a');
    expect(await patient).toBe('d done');
    await holder;
    expect(entered).toEqual(['a', 'd']);
    expectAllCountedOut(url(), 'call');
    expect(statuses.getMethodStatus(url(), 'call').total).toBe(2);
  });

  it('a call already aborted is refused without queueing', async () => {
    const { greeter, url } = await refer({ timeout: 5000, parameters: { actives: 1 } });
    const holder = greeter.call('a', 'hold', 0);
    await reached('a');
    const controller = new AbortController();
    controller.abort();
    expect(codeOf(await outcome(greeter.$call('call', ['b', 'ok', 0], { signal: controller.signal })))).toBe(RpcErrorCode.CANCELLED);
    expect(filter.waiting).toBe(0);
    release('a');
    await holder;
    expectAllCountedOut(url(), 'call');
  });

  it('shutting the application down rejects the waiters with no-invoker', async () => {
    const { greeter } = await refer({ timeout: 10_000, parameters: { actives: 1 } });
    const holder = greeter.call('a', 'hold', 0);
    await reached('a');
    const waiter = outcome(greeter.call('b', 'ok', 0));
    await sleep(5);
    await app.shutdown({ timeout: 20 });
    expect(codeOf(await waiter)).toBe(RpcErrorCode.NO_INVOKER);
    release('a');
    await outcome(holder);
  });
});

/** A protocol invoker stand-in: holds, fails or answers, and writes a per-attempt deadline as protocol invokers do. */
class FakeProtocolInvoker extends Invoker {
  readonly parked: (() => void)[] = [];
  constructor(private readonly url: URL) {
    super();
  }
  getUrl(): URL {
    return this.url;
  }
  invoke(invocation: Invocation): Result | Promise<Result> {
    const mode = invocation.getAttachment('mode');
    // Completed calls, as a synchronous implementation behind injvm answers them: no promise.
    if (mode === 'now') return Result.of('now');
    if (mode === 'now-biz') return Result.ofException(new BusinessError('failed synchronously'));
    if (mode === 'now-throw') throw new RpcError(RpcErrorCode.NETWORK, 'the invoker threw synchronously');
    if (mode === 'expire') {
      invocation.deadline = Date.now() - 1; // as a timed-out attempt leaves it
      return Promise.reject(new RpcError(RpcErrorCode.TIMEOUT, 'attempt timed out'));
    }
    if (mode === 'hold') return new Promise((resolve) => this.parked.push(() => resolve(Result.of('held'))));
    return Promise.resolve(Result.of('ok'));
  }
}

describe('deadlines across attempts (a chain built by hand around a protocol invoker)', () => {
  function chainFor(parameters: string) {
    const url = URL.parse(`injvm://127.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&side=consumer&${parameters}`);
    const filters = app.model.getExtensionLoader(Filter);
    const selected = filters.getActivateExtensions(url, 'reference.filter', 'consumer').filter((f) => f instanceof ActiveLimitFilter);
    expect(selected).toHaveLength(1);
    const invoker = new FakeProtocolInvoker(url);
    const chain = buildFilterChain(invoker, selected, () => 'active-limit', app.model.logger);
    return { url, invoker, chain };
  }

  it('a retry waits with its own timeout, not the deadline an earlier attempt left on the invocation', async () => {
    const { url, invoker, chain } = chainFor('actives=1&timeout=500');
    const retried = new Invocation({ methodName: 'call', attachments: { mode: 'expire' } });
    expect(codeOf(await outcome(chain.invoke(retried)))).toBe(RpcErrorCode.TIMEOUT);
    expect(retried.deadline).toBeLessThan(Date.now());
    const holder = chain.invoke(new Invocation({ methodName: 'call', attachments: { mode: 'hold' } }));
    retried.removeAttachment('mode');
    const second = chain.invoke(retried); // full: must wait (up to 500 ms), not fail for lack of time
    await sleep(20);
    expect(filter.waiting).toBe(1);
    invoker.parked.splice(0).forEach((resume) => resume());
    expect((await second).value).toBe('ok');
    await holder;
    expectAllCountedOut(url, 'call');
  });

  it('a deadline the invocation arrived with bounds the wait when it comes before the timeout', async () => {
    const { url, invoker, chain } = chainFor('actives=1&timeout=5000');
    const holder = chain.invoke(new Invocation({ methodName: 'call', attachments: { mode: 'hold' } }));
    const started = performance.now();
    const refused = await outcome(chain.invoke(new Invocation({ methodName: 'call', deadline: Date.now() + 60 })));
    const waited = performance.now() - started;
    expect(codeOf(refused)).toBe(RpcErrorCode.TIMEOUT);
    expect(waited).toBeGreaterThanOrEqual(50);
    expect(waited).toBeLessThan(1000);
    expect((refused as RpcError).message).toContain("(the call's deadline, ");
    // With timeout 0 (none) and a deadline, the deadline alone bounds the wait.
    const { chain: unbounded } = chainFor('actives=1&timeout=0');
    const refused0 = await outcome(unbounded.invoke(new Invocation({ methodName: 'call', deadline: Date.now() + 30 })));
    expect(codeOf(refused0)).toBe(RpcErrorCode.TIMEOUT);
    invoker.parked.splice(0).forEach((resume) => resume());
    await holder;
    expectAllCountedOut(url, 'call');
  });

  it('a call whose own deadline has passed is refused with timeout when the method is full', async () => {
    const { url, invoker, chain } = chainFor('actives=1&timeout=500');
    const holder = chain.invoke(new Invocation({ methodName: 'call', attachments: { mode: 'hold' } }));
    const late = new Invocation({ methodName: 'call', deadline: Date.now() - 5 });
    const refused = await outcome(chain.invoke(late));
    expect(codeOf(refused)).toBe(RpcErrorCode.TIMEOUT);
    expect((refused as RpcError).message).toContain("No time left to wait for a free slot of org.acme.Greeter.call()");
    invoker.parked.splice(0).forEach((resume) => resume());
    await holder;
    expectAllCountedOut(url, 'call');
  });

  it('a synchronous throw of the invoker is rethrown as is, and counted out', () => {
    const url = URL.parse('injvm://127.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&side=consumer&actives=1');
    const boom = new TypeError('invoker bug');
    class ThrowingInvoker extends Invoker {
      getUrl(): URL {
        return url;
      }
      invoke(): Result | Promise<Result> {
        throw boom;
      }
    }
    const chain = buildFilterChain(new ThrowingInvoker(), [filter], () => 'active-limit', app.model.logger);
    for (let i = 0; i < 3; i++) expect(() => chain.invoke(new Invocation({ methodName: 'call' }))).toThrow(boom);
    expectAllCountedOut(url, 'call');
    expect(statuses.getMethodStatus(url, 'call').failed).toBe(3);
  });
});

describe('the synchronous path (an inner chain that completes without a promise)', () => {
  function chainFor(parameters: string) {
    const url = URL.parse(`injvm://127.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&side=consumer&${parameters}`);
    const invoker = new FakeProtocolInvoker(url);
    const chain = buildFilterChain(invoker, [filter], () => 'active-limit', app.model.logger);
    return { url, invoker, chain };
  }
  const now = (mode = 'now') => new Invocation({ methodName: 'call', attachments: { mode } });

  it('a completed Result is answered synchronously, counted out (as succeeded) before the answer returns', () => {
    const { url, chain } = chainFor('actives=1&timeout=0');
    // timeout 0: a count left behind would refuse the next call at once.
    for (let i = 0; i < 50; i++) {
      const answer = chain.invoke(now());
      expect(answer).toBeInstanceOf(Result);
      expect((answer as Result).value).toBe('now');
      expectAllCountedOut(url, 'call');
    }
    const status = statuses.getMethodStatus(url, 'call');
    expect([status.total, status.failed]).toEqual([50, 0]);
  });

  it('a completed Result carrying a business error is answered synchronously, counted as succeeded', () => {
    const { url, chain } = chainFor('actives=1&timeout=0');
    for (let i = 0; i < 3; i++) {
      const answer = chain.invoke(now('now-biz'));
      expect(answer).toBeInstanceOf(Result);
      expect((answer as Result).exception).toBeInstanceOf(BusinessError);
      expectAllCountedOut(url, 'call');
    }
    const status = statuses.getMethodStatus(url, 'call');
    expect([status.total, status.failed]).toEqual([3, 0]);
  });

  it('a synchronous throw is rethrown as is and counted out (as failed) before it propagates', () => {
    const { url, chain } = chainFor('actives=1&timeout=0');
    for (let i = 0; i < 3; i++) {
      expect(() => chain.invoke(now('now-throw'))).toThrow(/the invoker threw synchronously/);
      expectAllCountedOut(url, 'call');
    }
    const status = statuses.getMethodStatus(url, 'call');
    expect([status.total, status.failed]).toEqual([3, 3]);
    expect(chain.invoke(now())).toBeInstanceOf(Result); // the slot is free
  });

  it('a call that has to wait answers with a promise, even if its inner chain then completes synchronously', async () => {
    const { url, invoker, chain } = chainFor('actives=1&timeout=2000');
    const holder = chain.invoke(new Invocation({ methodName: 'call', attachments: { mode: 'hold' } }));
    expect(holder).toBeInstanceOf(Promise);
    const waiters = [chain.invoke(now()), chain.invoke(now('now-biz')), chain.invoke(now('now-throw'))];
    for (const waiter of waiters) expect(waiter).toBeInstanceOf(Promise);
    expect(filter.waiting).toBe(3);
    // A newcomer does not overtake the line, however fast its call would be.
    const newcomer = chain.invoke(now());
    expect(newcomer).toBeInstanceOf(Promise);
    expect(filter.waiting).toBe(4);
    invoker.parked.splice(0).forEach((resume) => resume());
    expect((await holder).value).toBe('held');
    // Each waiter, admitted in turn, completes synchronously and hands its slot straight to the next one.
    const [ok, biz, thrown] = await Promise.all(waiters.map((waiter) => outcome(waiter)));
    expect(ok).toBe('ok');
    expect(biz).toBe('ok'); // a business error is a Result: it resolves
    expect(codeOf(thrown)).toBe(RpcErrorCode.NETWORK); // a synchronous throw after the wait: a rejection
    expect((await waiters[1])?.exception).toBeInstanceOf(BusinessError);
    expect(await outcome(newcomer)).toBe('ok');
    expectAllCountedOut(url, 'call');
    const status = statuses.getMethodStatus(url, 'call');
    expect([status.total, status.failed]).toEqual([5, 1]);
    expect(chain.invoke(now())).toBeInstanceOf(Result); // nobody waiting: synchronous again
  });

  it('a synchronous completion hands its freed slot to a waiter of another pass at once', async () => {
    const { url, invoker, chain } = chainFor('actives=2&timeout=2000');
    const holders = [
      chain.invoke(new Invocation({ methodName: 'call', attachments: { mode: 'hold' } })),
      chain.invoke(new Invocation({ methodName: 'call', attachments: { mode: 'hold' } })),
    ];
    const waiter = chain.invoke(new Invocation({ methodName: 'call', attachments: { mode: 'hold' } }));
    expect(filter.waiting).toBe(1);
    // Free one slot: the held call resolves; the waiter is counted in on its behalf and runs its (held) call.
    invoker.parked.shift()?.();
    await holders[0];
    await sleep(1);
    expect(filter.waiting).toBe(0);
    expect(statuses.getMethodStatus(url, 'call').active).toBe(2);
    invoker.parked.splice(0).forEach((resume) => resume());
    await Promise.all([holders[1], waiter]);
    expectAllCountedOut(url, 'call');
    // Now everything is free: synchronous calls pass synchronously again.
    expect(chain.invoke(now())).toBeInstanceOf(Result);
    expectAllCountedOut(url, 'call');
  });

  it('a synchronous implementation behind injvm: each call frees its slot at once, so actives=1 with no wait admits them all', async () => {
    const { greeter, url } = await refer({ timeout: 0, parameters: { actives: 1 } });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => outcome(greeter.call(`n${i}`, 'now', 0))));
    expect(results).toEqual(Array.from({ length: 20 }, () => 'ok'));
    expect(codeOf(await outcome(greeter.call('b', 'now-biz', 0)))).toBe('BusinessError');
    expectAllCountedOut(url(), 'call');
    const status = statuses.getMethodStatus(url(), 'call');
    expect([status.total, status.failed]).toEqual([21, 0]);
  });
});

describe('exactly-once release under chaos', () => {
  it.each([
    ['a business error', 'biz', 'BusinessError'],
    ['a rejection of an inner filter', 'reject', RpcErrorCode.NETWORK],
    ['an inner limiter refusal (§8.11: Dubbo leaks the count)', 'inner-limit', RpcErrorCode.LIMIT_EXCEEDED],
    ['a synchronous inner limiter refusal', 'sync-inner-limit', RpcErrorCode.LIMIT_EXCEEDED],
    ['a synchronous throw of an inner filter', 'sync-throw', RpcErrorCode.UNKNOWN],
  ])('after %s the slot is free again', async (_, mode, expected) => {
    const { greeter, url } = await refer({ timeout: 0, parameters: { actives: 1, chaos: true } });
    for (let i = 0; i < 3; i++) {
      expect(codeOf(await outcome(greeter.$call('call', [`x${i}`, mode, 0], { attachments: { mode } })))).toBe(expected);
    }
    expectAllCountedOut(url(), 'call');
    expect(await greeter.call('ok', 'ok', 0)).toBe('ok done'); // timeout 0: a leaked count would refuse this
  });

  it('thousands of mixed calls: the limit always holds, waiters are served, and every counter returns to zero', async () => {
    const limit = 3;
    const { greeter, url } = await refer({ timeout: 40, parameters: { actives: limit, chaos: true }, methods: { other: { actives: 1 } } });
    let seed = 0x9e3779b9;
    const random = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 0x100000000;
    };
    const modes = ['ok', 'ok', 'ok', 'ok', 'biz', 'now', 'now-biz', 'sync-result', 'sync-biz', 'reject', 'inner-limit', 'sync-inner-limit', 'sync-throw', 'slow', 'per-call-timeout', 'abort', 'abort-early'];
    const seen = new Map<string, number>();
    const calls: Promise<void>[] = [];
    const total = 3000;
    for (let i = 0; i < total; i++) {
      const mode = modes[Math.floor(random() * modes.length)] as string;
      const method = random() < 0.8 ? 'call' : 'other';
      const id = `${mode}-${i}`;
      let call: Promise<unknown>;
      if (mode === 'slow') {
        call = greeter.$call(method, [id, mode, 60]); // longer than the 40 ms timeout: the invoker times out
      } else if (mode === 'per-call-timeout') {
        call = greeter.$call(method, [id, mode, 2], { timeout: 1 + Math.floor(random() * 15) });
      } else if (mode === 'abort' || mode === 'abort-early') {
        const controller = new AbortController();
        if (mode === 'abort-early') controller.abort();
        call = greeter.$call(method, [id, mode, 6], { signal: controller.signal });
        setTimeout(() => controller.abort(), Math.floor(random() * 10));
      } else {
        call = greeter.$call(method, [id, mode, Math.floor(random() * 3)], { attachments: { mode } });
      }
      calls.push(
        outcome(call).then((result) => {
          const code = codeOf(result);
          seen.set(code, (seen.get(code) ?? 0) + 1);
        }),
      );
      if (i % 25 === 24) await sleep(2);
    }
    await Promise.all(calls);
    for (let count = -1; count !== running.length; ) {
      count = running.length;
      await Promise.all(running);
    }
    expect([...seen.values()].reduce((a, b) => a + b, 0)).toBe(total);
    for (const code of ['ok', 'BusinessError', RpcErrorCode.NETWORK, RpcErrorCode.UNKNOWN, RpcErrorCode.LIMIT_EXCEEDED, RpcErrorCode.TIMEOUT, RpcErrorCode.CANCELLED]) {
      expect(seen.get(code) ?? 0, code).toBeGreaterThan(5);
    }
    // Admitted calls in flight never exceeded the limits, and reached them.
    expect([inside.peak.get('call'), inside.peak.get('other')]).toEqual([limit, 1]);
    expectAllCountedOut(url(), 'call', 'other');
    const counted = statuses.getMethodStatus(url(), 'call').total + statuses.getMethodStatus(url(), 'other').total;
    expect(counted).toBe(statuses.getStatus(url()).total);
    expect(counted).toBe(inside.passes);
  });
});
