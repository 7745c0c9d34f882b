import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  buildFilterChain,
  defineService,
  Filter,
  Invocation,
  Invoker,
  Result,
  RpcContext,
  RpcError,
  RpcErrorCode,
  URL,
  WeftApplication,
} from '@weft/core';
import { DEFAULT_PROVIDER_TIMEOUT, TimeoutFilter } from '@weft/filter-timeout';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

// ---------------------------------------------------------------------------------------------------------------
// Harness: a real application (core + cluster + this package), the filter in the chain the loader builds.

const Reports = defineService('org.acme.Reports', {
  slow: { args: [Number], returns: String },
  fast: { args: [String], returns: String },
});

/** What the implementation saw during the last call. */
interface Seen {
  calls: number;
  signal: AbortSignal | undefined;
  deadline: number | undefined;
  abortedAfter: number | undefined;
  aborted: Promise<void>;
}

function newSeen(): Seen & { markAborted(): void } {
  let markAborted!: () => void;
  const aborted = new Promise<void>((resolve) => (markAborted = resolve));
  return { calls: 0, signal: undefined, deadline: undefined, abortedAfter: undefined, aborted, markAborted };
}

let seen = newSeen();

/** The implementation reads the signal the way users do: from the RpcContext set by a context filter. */
const implementation = {
  slow(ms: number): Promise<string> {
    seen.calls++;
    const context = RpcContext.current();
    const signal = context?.signal;
    seen.signal = signal;
    seen.deadline = context?.deadline;
    const started = Date.now();
    return new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve('finished'), ms);
      signal?.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          seen.abortedAfter = Date.now() - started;
          seen.markAborted();
          resolve('gave up');
        },
        { once: true },
      );
    });
  },
  fast(name: string): string {
    seen.calls++;
    seen.signal = RpcContext.current()?.signal;
    seen.deadline = RpcContext.current()?.deadline;
    return `report for ${name}`;
  },
};

/** A minimal provider context filter (what @weft/filter-context does): makes RpcContext.current() work. */
class TestContextFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    return RpcContext.run(new RpcContext('provider', invocation, invoker.getUrl()), () => invoker.invoke(invocation));
  }
}

/** Outcome of the inner chain as seen by the lagging filter. */
let lagged: Promise<unknown> | undefined;

/** A provider filter outside `timeout` that holds every call for 80 ms, so its consumer deadline passes. */
class LagFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
    const pending = new Promise<void>((resolve) => setTimeout(resolve, 80)).then(() => invoker.invoke(invocation));
    lagged = pending.then(
      () => 'resolved',
      (error: unknown) => error,
    );
    return pending;
  }
}

const apps: { app: WeftApplication; testApp: TestApp }[] = [];

async function start(packages: readonly string[] = ['@weft/core', '@weft/cluster', '@weft/filter-timeout']) {
  const testApp = createTestApp(packages);
  const logger = new RecordingLogger();
  const app = await WeftApplication.start({ root: testApp.root, name: 'reports', logger });
  apps.push({ app, testApp });
  const filters = app.model.getExtensionLoader(Filter);
  filters.addExtension('test-context', TestContextFilter, { activate: { group: ['provider'], order: 1000 } });
  return { app, logger, filters };
}

afterEach(async () => {
  for (const { app, testApp } of apps.splice(0)) {
    await app.shutdown();
    testApp.cleanup();
  }
  seen = newSeen();
  lagged = undefined;
  vi.restoreAllMocks();
});

async function rejection(call: Promise<unknown>): Promise<RpcError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

// ---------------------------------------------------------------------------------------------------------------

describe('manifest', () => {
  it('activates timeout in every provider chain (group only) and never in consumer chains', async () => {
    const { app, filters } = await start();
    const { url } = await app.export(Reports, implementation);
    expect(filters.selectActivateNames(url, 'service.filter', 'provider')).toEqual(['timeout', 'test-context']);
    expect(filters.selectActivateNames(url, 'reference.filter', 'consumer')).not.toContain('timeout');
    const removed = url.addParameter('service.filter', '-timeout');
    expect(filters.selectActivateNames(removed, 'service.filter', 'provider')).toEqual(['test-context']);
    expect(filters.getExtension('timeout')).toBeInstanceOf(TimeoutFilter);
  });

  it('is the only filter an application with core and this package gets', async () => {
    const testApp = createTestApp(['@weft/core', '@weft/filter-timeout']);
    const app = await WeftApplication.start({ root: testApp.root, name: 'bare', logger: new RecordingLogger() });
    apps.push({ app, testApp });
    expect(app.model.getExtensionLoader(Filter).getSupportedExtensions()).toEqual(['timeout']);
  });
});

describe('provider timeout', () => {
  it('aborts the implementation, rejects the caller with timeout and logs service, method and elapsed ms', async () => {
    const { app, logger } = await start();
    await app.export(Reports, implementation, { methods: { slow: { timeout: 60 } } });
    const reports = await app.refer(Reports, { retries: 0, timeout: 5000 });

    const started = Date.now();
    const error = await rejection(reports.slow(3000));
    const took = Date.now() - started;

    expect(error.code).toBe(RpcErrorCode.TIMEOUT);
    // The cluster may word its own message around the provider's; the provider's is kept.
    expect(error.message).toMatch(/Provider gave up on org\.acme\.Reports\.slow\(\) after \d+ ms: it exceeded its provider timeout of 60 ms\.$/);
    expect(took).toBeGreaterThanOrEqual(55);
    expect(took).toBeLessThan(2500); // well before the implementation would have finished (3000 ms)
    expect(seen.signal?.aborted).toBe(true);
    expect(seen.signal?.reason).toBeInstanceOf(DOMException);
    expect((seen.signal?.reason as DOMException).name).toBe('TimeoutError');
    expect(seen.abortedAfter).toBeGreaterThanOrEqual(55);

    const warnings = logger.of('warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^invoke timed out: service org\.acme\.Reports, method slow, elapsed (\d+) ms \(budget 60 ms, provider timeout\)/);
    const elapsed = Number(/elapsed (\d+) ms/.exec(warnings[0] as string)?.[1]);
    expect(elapsed).toBeGreaterThanOrEqual(60);
    expect(elapsed).toBeLessThan(2500);
  });

  it('sets the effective deadline on the invocation and uses the method-level timeout over the service one', async () => {
    const { app } = await start();
    await app.export(Reports, implementation, { timeout: 40, methods: { fast: { timeout: 4000 } } });
    const reports = await app.refer(Reports, { retries: 0, timeout: 0 });

    const before = Date.now();
    expect(await reports.fast('q1')).toBe('report for q1');
    expect(seen.deadline).toBeGreaterThanOrEqual(before + 4000);
    expect(seen.deadline).toBeLessThanOrEqual(Date.now() + 4000);
    expect(await rejection(reports.slow(2000))).toMatchObject({ code: RpcErrorCode.TIMEOUT });
  });

  it('counts the budget from invocation.startedAt when the protocol recorded the arrival', async () => {
    const { app, filters } = await start();
    const filter = filters.getExtension('timeout') as TimeoutFilter;
    const url = URL.parse('injvm://127.0.0.1/org.acme.Reports?interface=org.acme.Reports&side=provider&timeout=100');
    let inner: Invocation | undefined;
    const invoker = new (class extends Invoker {
      getUrl(): URL {
        return url;
      }
      invoke(invocation: Invocation): Promise<Result> {
        inner = invocation;
        return new Promise(() => {}); // never answers: only the budget can end the call
      }
    })();
    const chain = buildFilterChain(invoker, [filter], () => 'timeout', app.model.logger);
    const invocation = Invocation.of('slow', [1], Reports);
    invocation.startedAt = Date.now() - 70; // arrived 70 ms ago: 30 ms of the 100 ms budget are left
    const started = Date.now();
    const error = await rejection(Promise.resolve(chain.invoke(invocation)));
    expect(error.code).toBe(RpcErrorCode.TIMEOUT);
    expect(inner?.deadline).toBe((invocation.startedAt as number) + 100);
    expect(Date.now() - started).toBeLessThan(90); // not a fresh 100 ms counted from the filter
  });

  it('over injvm, counts from the consumer’s own clock reading while the call is dispatched synchronously', async () => {
    const { app, filters } = await start();
    let provided: Invocation | undefined;
    let startedAt: number | undefined;
    filters.addExtension(
      'test-record',
      class extends Filter {
        invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
          provided = invocation;
          startedAt = invocation.startedAt;
          return invoker.invoke(invocation);
        }
      },
      { activate: { group: ['provider'], order: -200000 } },
    );
    await app.export(Reports, implementation, { timeout: 4000 });
    const reports = await app.refer(Reports, { retries: 0, timeout: 300 });
    const before = Date.now();
    expect(await reports.slow(1)).toBe('finished');
    expect(startedAt).toBeGreaterThanOrEqual(before);
    expect(startedAt).toBeLessThanOrEqual(Date.now());
    // The consumer's deadline, from the same reading, binds (300 ms < the provider's 4000).
    expect(seen.deadline).toBe((startedAt as number) + 300);
    // Valid for the synchronous dispatch only: cleared once the chain returned.
    expect(provided?.startedAt).toBeUndefined();

    // Without a consumer deadline no reading is passed on: the filter reads the clock itself.
    const unbounded = await app.refer(Reports, { retries: 0, timeout: 0 });
    expect(await unbounded.fast('r')).toBe('report for r');
    expect(startedAt).toBeUndefined();
    expect(seen.deadline).toBeGreaterThanOrEqual(before + 4000);
  });

  it('uses 1000 ms when the provider URL sets no timeout', async () => {
    expect(DEFAULT_PROVIDER_TIMEOUT).toBe(1000);
    const { app } = await start();
    await app.export(Reports, implementation);
    const reports = await app.refer(Reports, { retries: 0, timeout: 0 });
    const before = Date.now();
    await reports.fast('q');
    expect(seen.deadline).toBeGreaterThanOrEqual(before + 1000);
    expect(seen.deadline).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it('leaves fast calls alone: same results, a live signal, no warning', async () => {
    const { app, logger } = await start();
    await app.export(Reports, implementation, { timeout: 500 });
    const reports = await app.refer(Reports, { retries: 0 });
    for (let i = 0; i < 20; i++) {
      expect(await reports.fast(`q${i}`)).toBe(`report for q${i}`);
      expect(seen.signal).toBeInstanceOf(AbortSignal);
      expect(seen.signal?.aborted).toBe(false);
    }
    expect(await reports.slow(5)).toBe('finished');
    expect(seen.calls).toBe(21);
    expect(logger.of('warn')).toEqual([]);
  });

  it('passes straight through, without a signal, when there is neither a provider timeout nor a consumer deadline', async () => {
    const { app, filters } = await start();
    await app.export(Reports, implementation, { timeout: 0 });
    const reports = await app.refer(Reports, { retries: 0, timeout: 0 });
    expect(await reports.fast('q')).toBe('report for q');
    expect(seen.signal).toBeUndefined();
    expect((filters.getExtension('timeout') as TimeoutFilter).watched).toBe(0);
  });
});

describe('consumer deadline', () => {
  it('wins when it is shorter than the provider timeout: the provider aborts at the consumer deadline', async () => {
    const { app, logger } = await start();
    await app.export(Reports, implementation, { timeout: 5000 });
    const reports = await app.refer(Reports, { retries: 0, timeout: 5000 });

    const started = Date.now();
    const error = await rejection(reports.$call('slow', [3000], { timeout: 40 }));
    // The consumer's own timeout fires too; either way the caller sees a timeout.
    expect(error.isTimeout).toBe(true);
    await seen.aborted;
    const abortedAt = Date.now() - started;

    expect(seen.signal?.aborted).toBe(true);
    expect(abortedAt).toBeGreaterThanOrEqual(35);
    expect(abortedAt).toBeLessThan(2500); // the provider's own timeout is 5000 ms
    await vi.waitFor(() => expect(logger.of('warn')).toHaveLength(1));
    expect(logger.of('warn')[0]).toMatch(/service org\.acme\.Reports, method slow, elapsed \d+ ms \(budget \d+ ms, consumer deadline\)/);
  });

  it('keeps the consumer cancellation: aborting the caller aborts the provider signal', async () => {
    const { app } = await start();
    await app.export(Reports, implementation, { timeout: 5000 });
    const reports = await app.refer(Reports, { retries: 0, timeout: 5000 });
    const controller = new AbortController();
    const call = reports.$call('slow', [3000], { signal: controller.signal });
    await vi.waitFor(() => expect(seen.signal).toBeDefined());
    expect(seen.signal).not.toBe(controller.signal);
    controller.abort(new Error('user went away'));
    expect((await rejection(call)).code).toBe(RpcErrorCode.CANCELLED);
    await seen.aborted;
    expect(seen.signal?.aborted).toBe(true);
    expect((seen.signal?.reason as Error).message).toBe('user went away');
  });

  it('rejects a call whose deadline passed before it arrived with timeout-terminate, without reaching the implementation', async () => {
    const { app, filters, logger } = await start();
    filters.addExtension('test-lag', LagFilter, { activate: { group: ['provider'], order: -50000 } });
    await app.export(Reports, implementation, { timeout: 5000 });
    const reports = await app.refer(Reports, { retries: 0, timeout: 5000 });

    const error = await rejection(reports.$call('fast', ['late'], { timeout: 30 }));
    expect(error.code).toBe(RpcErrorCode.TIMEOUT); // the consumer stopped waiting at 30 ms
    await vi.waitFor(() => expect(lagged).toBeDefined());
    const inner = await lagged;

    expect(inner).toBeInstanceOf(RpcError);
    expect((inner as RpcError).code).toBe(RpcErrorCode.TIMEOUT_TERMINATE);
    expect((inner as RpcError).dubboCode).toBe(8);
    expect((inner as RpcError).message).toMatch(/^No time left for org\.acme\.Reports\.fast\(\): the consumer's deadline passed \d+ ms before/);
    expect(seen.calls).toBe(0);
    expect(logger.of('warn')).toEqual([expect.stringMatching(/^invoke not started: service org\.acme\.Reports, method fast: the consumer deadline passed/)]);
  });
});

describe('timers', () => {
  /** Intervals created by this package's deadline wheel (recognised by the stack), and every cleared handle. */
  function spyOnIntervals() {
    const realSetInterval = globalThis.setInterval;
    const ours: ReturnType<typeof setInterval>[] = [];
    const cleared = new Set<unknown>();
    vi.spyOn(globalThis, 'setInterval').mockImplementation(((callback: () => void, ms?: number) => {
      const handle = realSetInterval(callback, ms);
      const limit = Error.stackTraceLimit;
      Error.stackTraceLimit = 50;
      const stack = new Error().stack ?? '';
      Error.stackTraceLimit = limit;
      if (stack.includes('filter-timeout/dist/timeout-filter.js')) ours.push(handle);
      return handle;
    }) as unknown as typeof setInterval);
    const realClearInterval = globalThis.clearInterval;
    vi.spyOn(globalThis, 'clearInterval').mockImplementation(((handle: ReturnType<typeof setInterval> | undefined) => {
      cleared.add(handle);
      realClearInterval(handle);
    }) as unknown as typeof clearInterval);
    return { ours, cleared };
  }

  it('uses one unref’d timer for many concurrent calls, and stops it by itself once none is in flight', async () => {
    const { ours, cleared } = spyOnIntervals();
    const { app, filters } = await start();
    await app.export(Reports, implementation, { timeout: 5000 });
    const reports = await app.refer(Reports, { retries: 0, timeout: 0 });
    const filter = filters.getExtension('timeout') as TimeoutFilter;

    const calls = Array.from({ length: 50 }, () => reports.slow(300));
    await vi.waitFor(() => expect(seen.calls).toBe(50));
    expect(filter.watched).toBe(50);
    expect(ours).toHaveLength(1);
    expect(ours[0]?.hasRef()).toBe(false);

    expect(await Promise.all(calls)).toEqual(Array.from({ length: 50 }, () => 'finished'));
    expect(filter.watched).toBe(0);
    await vi.waitFor(() => expect(cleared.has(ours[0])).toBe(true), { timeout: 1000 });
    expect(ours).toHaveLength(1);
  });

  it('releases the timer on shutdown, even with a call still in flight', async () => {
    const { ours, cleared } = spyOnIntervals();
    const { app, filters } = await start();
    await app.export(Reports, implementation, { timeout: 60_000 });
    const reports = await app.refer(Reports, { retries: 0, timeout: 0 });
    const filter = filters.getExtension('timeout') as TimeoutFilter;
    const call = reports.slow(300);
    await vi.waitFor(() => expect(seen.calls).toBe(1));
    expect(filter.watched).toBe(1);
    expect(ours).toHaveLength(1);
    expect(cleared.has(ours[0])).toBe(false);

    await app.shutdown({ timeout: 20 }); // gives up waiting for the call: the scope and its filters are destroyed
    expect(cleared.has(ours[0])).toBe(true);
    expect(filter.watched).toBe(0);
    expect(await call).toBe('finished'); // the call itself still completes
  });
});

describe('synchronous answers (an inner chain that completes without a promise)', () => {
  /** Blocks the thread for `ms`, as a synchronous implementation doing heavy work does: no timer can fire. */
  function busy(ms: number): void {
    const until = Date.now() + ms;
    while (Date.now() < until) {
      // spin
    }
  }

  /** An invoker answering as its `answer` says, synchronously; it records the invocation it got. */
  class SyncInvoker extends Invoker {
    seen: Invocation | undefined;
    constructor(
      private readonly url: URL,
      private readonly answer: () => Result,
    ) {
      super();
    }
    getUrl(): URL {
      return this.url;
    }
    invoke(invocation: Invocation): Result | Promise<Result> {
      this.seen = invocation;
      return this.answer();
    }
  }

  async function chainAround(answer: () => Result, timeout = 50) {
    const { app, logger, filters } = await start();
    const filter = filters.getExtension('timeout') as TimeoutFilter;
    const url = URL.parse(`injvm://127.0.0.1/org.acme.Reports?interface=org.acme.Reports&side=provider&timeout=${timeout}`);
    const invoker = new SyncInvoker(url, answer);
    const chain = buildFilterChain(invoker, [filter], () => 'timeout', app.model.logger);
    return { chain, invoker, filter, logger };
  }

  it('a completed Result in time is answered synchronously: no promise, no wheel entry, no warning', async () => {
    const { chain, invoker, filter, logger } = await chainAround(() => Result.of('done'));
    for (let i = 0; i < 3; i++) {
      const before = Date.now();
      const answer = chain.invoke(new Invocation({ methodName: 'fast' }));
      expect(answer).toBeInstanceOf(Result);
      expect((answer as Result).value).toBe('done');
      expect(filter.watched).toBe(0);
      // The inner chain still saw the budget: the effective deadline and an abortable, live signal.
      expect(invoker.seen?.deadline).toBeGreaterThanOrEqual(before + 50);
      expect(invoker.seen?.signal?.aborted).toBe(false);
    }
    expect(logger.of('warn')).toEqual([]);
  });

  it('a completed Result carrying a business error in time is answered synchronously, as is', async () => {
    const error = new TypeError('business failure');
    const { chain, filter, logger } = await chainAround(() => Result.ofException(error));
    const answer = chain.invoke(new Invocation({ methodName: 'fast' }));
    expect(answer).toBeInstanceOf(Result);
    expect((answer as Result).exception).toBe(error);
    expect(filter.watched).toBe(0);
    expect(logger.of('warn')).toEqual([]);
  });

  it('a synchronous throw is rethrown synchronously, as is, with nothing left on the wheel', async () => {
    const boom = new RpcError(RpcErrorCode.NETWORK, 'inner threw synchronously');
    const { chain, filter, logger } = await chainAround(() => {
      throw boom;
    });
    expect(() => chain.invoke(new Invocation({ methodName: 'fast' }))).toThrow(boom);
    expect(filter.watched).toBe(0);
    expect(logger.of('warn')).toEqual([]);
  });

  it('a Result completed after the provider timeout is dropped: rejected with timeout, signal aborted, one warning', async () => {
    const { chain, invoker, filter, logger } = await chainAround(() => {
      busy(40);
      return Result.of('too late');
    }, 20);
    const answer = chain.invoke(new Invocation({ methodName: 'fast' }));
    expect(answer).toBeInstanceOf(Promise);
    const error = await Promise.resolve(answer).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    expect((error as RpcError).message).toMatch(/^Provider gave up on org\.acme\.Reports\.fast\(\) after \d+ ms: it exceeded its provider timeout of 20 ms\.$/);
    expect(invoker.seen?.signal?.aborted).toBe(true);
    expect((invoker.seen?.signal?.reason as DOMException).name).toBe('TimeoutError');
    expect(filter.watched).toBe(0);
    const warnings = logger.of('warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^invoke timed out: service org\.acme\.Reports, method fast, elapsed (\d+) ms \(budget 20 ms, provider timeout\)/);
    expect(Number(/elapsed (\d+) ms/.exec(warnings[0] as string)?.[1])).toBeGreaterThanOrEqual(40);
  });

  it('a late Result carrying a business error, past the consumer deadline, is dropped the same way', async () => {
    const { chain, logger } = await chainAround(() => {
      busy(30);
      return Result.ofException(new TypeError('late business failure'));
    }, 5000);
    const answer = chain.invoke(new Invocation({ methodName: 'fast', deadline: Date.now() + 15 }));
    await expect(Promise.resolve(answer)).rejects.toMatchObject({ code: RpcErrorCode.TIMEOUT });
    expect(logger.of('warn')).toEqual([expect.stringMatching(/^invoke timed out: service org\.acme\.Reports, method fast, elapsed \d+ ms \(budget \d+ ms, consumer deadline\)/)]);
  });

  it('a synchronous implementation behind injvm: answered in time without touching the wheel, or failed with timeout when it overran', async () => {
    const Busy = defineService('org.acme.Busy', { work: { args: [Number], returns: String } });
    const { app, logger, filters } = await start();
    const filter = filters.getExtension('timeout') as TimeoutFilter;
    /** Calls the wheel watched while the implementation ran: a synchronous call is never put on it. */
    const watchedInside: number[] = [];
    const work = (ms: number) => {
      watchedInside.push(filter.watched);
      busy(ms);
      return `worked ${ms} ms`;
    };
    await app.export(Busy, { work }, { timeout: 100 });
    const busyRef = await app.refer(Busy, { retries: 0, timeout: 5000 });
    for (let i = 0; i < 5; i++) expect(await busyRef.work(0)).toBe('worked 0 ms');
    expect(watchedInside).toEqual([0, 0, 0, 0, 0]);
    expect(logger.of('warn')).toEqual([]);
    const error = await rejection(busyRef.work(150));
    expect(error.code).toBe(RpcErrorCode.TIMEOUT);
    expect(error.message).toMatch(/Provider gave up on org\.acme\.Busy\.work\(\) after \d+ ms: it exceeded its provider timeout of 100 ms\.$/);
    expect(logger.of('warn')).toEqual([expect.stringMatching(/^invoke timed out: service org\.acme\.Busy, method work, elapsed \d+ ms \(budget 100 ms, provider timeout\)/)]);
    expect(filter.watched).toBe(0);
  });
});
