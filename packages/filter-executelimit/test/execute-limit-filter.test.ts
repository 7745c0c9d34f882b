// The `executelimit` filter inside real provider chains built by the loader (injvm export + refer): activation
// from the manifest, the limit and its error, and the exactly-once release of the count on every path —
// result, business error, rejection, synchronous throw, inner limiter refusal (§8.11), consumer timeout and
// abort — checked against RpcStatusRegistry after thousands of chaotic calls (dubbo-semantics.md §5.4); and the
// synchronous path: an inner chain that completes synchronously is answered synchronously, counted out at once.
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
  type ExportOptions,
} from '@weft/core';
import { ExecuteLimitFilter } from '@weft/filter-executelimit';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

const Worker = defineService('org.acme.Worker', {
  work: { args: [String, Number], returns: String },
  other: { args: [String, Number], returns: String },
});

class BusinessError extends Error {
  override name = 'BusinessError';
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Executions inside the implementation: in flight now and the most seen at once (per method), and their promises. */
const executions = { inFlight: new Map<string, number>(), peak: new Map<string, number>(), settled: [] as Promise<unknown>[] };
/** Releases for calls parked by mode `hold`. */
const held: (() => void)[] = [];

async function execute(method: string, mode: string, delay: number): Promise<string> {
  const now = (executions.inFlight.get(method) ?? 0) + 1;
  executions.inFlight.set(method, now);
  executions.peak.set(method, Math.max(executions.peak.get(method) ?? 0, now));
  try {
    if (mode === 'hold') await new Promise<void>((resolve) => held.push(resolve));
    else if (delay > 0) await sleep(delay);
    if (mode === 'biz') throw new BusinessError(`failed on purpose after ${delay} ms`);
    return `${mode} done`;
  } finally {
    executions.inFlight.set(method, (executions.inFlight.get(method) ?? 0) - 1);
  }
}

/** A synchronous execution (modes `now`, `now-biz`): the call completes without a promise on the provider. */
function executeNow(method: string, mode: string): string {
  const now = (executions.inFlight.get(method) ?? 0) + 1;
  executions.inFlight.set(method, now);
  executions.peak.set(method, Math.max(executions.peak.get(method) ?? 0, now));
  try {
    if (mode === 'now-biz') throw new BusinessError('failed synchronously on purpose');
    return `${mode} done`;
  } finally {
    executions.inFlight.set(method, (executions.inFlight.get(method) ?? 0) - 1);
  }
}

const impl = {
  work: (mode: string, delay: number) => {
    if (mode === 'now' || mode === 'now-biz') return executeNow('work', mode);
    const running = execute('work', mode, delay);
    executions.settled.push(running.catch(() => undefined));
    return running;
  },
  other: (mode: string, delay: number) => {
    if (mode === 'now' || mode === 'now-biz') return executeNow('other', mode);
    const running = execute('other', mode, delay);
    executions.settled.push(running.catch(() => undefined));
    return running;
  },
};

/** Passes seen by the inner filter, i.e. calls `executelimit` admitted. */
let admittedPasses = 0;

/**
 * An inner provider filter (order 100, after executelimit) that fails as the `mode` attachment says: throwing
 * synchronously, rejecting, or refusing like another limiter would (limit-exceeded, sync or async).
 */
class ChaosFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    admittedPasses++;
    switch (invocation.getAttachment('mode')) {
      case 'sync-throw':
        throw new RpcError(RpcErrorCode.UNKNOWN, 'inner filter threw synchronously');
      case 'sync-throw-plain':
        throw new TypeError('inner filter bug');
      case 'reject':
        return Promise.reject(new RpcError(RpcErrorCode.NETWORK, 'inner filter rejected'));
      case 'inner-limit':
        return Promise.reject(new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'an inner limiter refused the call'));
      case 'sync-inner-limit':
        throw new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'an inner limiter refused the call, synchronously');
      case 'bare-result':
        return Result.of('answered without a promise');
      default:
        return invoker.invoke(invocation);
    }
  }
}

async function outcome(call: Promise<unknown>): Promise<'ok' | unknown> {
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

beforeAll(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-executelimit'], { prefix: 'weft-executelimit' });
});
afterAll(() => testApp.cleanup());

beforeEach(async () => {
  executions.inFlight.clear();
  executions.peak.clear();
  executions.settled = [];
  held.length = 0;
  admittedPasses = 0;
  app = await WeftApplication.start({ root: testApp.root, name: 'executelimit-test', logger: new RecordingLogger() });
  app.model.getExtensionLoader(Filter).addExtension('chaos', ChaosFilter, { activate: { group: 'provider', value: 'chaos', order: 100 } });
  statuses = app.model.getService(RpcStatusRegistry);
});
afterEach(async () => {
  for (const release of held.splice(0)) release();
  await app.shutdown({ timeout: 2000 });
});

async function serve(options: ExportOptions) {
  const exported = await app.export(Worker, impl, options);
  const worker = await app.refer(Worker, { retries: 0, group: options.group, version: options.version, timeout: 5000 });
  return { url: exported.url, worker };
}

/** Waits until every execution started in the implementation has finished, and the chain saw it end. */
async function drain(): Promise<void> {
  for (let seen = -1; seen !== executions.settled.length; ) {
    seen = executions.settled.length;
    await Promise.all(executions.settled);
  }
  await sleep(5);
}

function expectAllCountedOut(url: URL, ...methods: string[]): void {
  expect(statuses.getStatus(url).active).toBe(0);
  for (const method of methods) expect(statuses.getMethodStatus(url, method).active).toBe(0);
}

describe('activation from the manifest', () => {
  const base = URL.parse('injvm://127.0.0.1/org.acme.Worker?side=provider');

  it('activates in group provider when executes (service or method level) is set, and only then', () => {
    const filters = app.model.getExtensionLoader(Filter);
    expect(filters.selectActivateNames(base.addParameter('executes', 3), 'service.filter', 'provider')).toEqual(['executelimit']);
    expect(filters.selectActivateNames(base.addParameter('work.executes', 3), 'service.filter', 'provider')).toEqual(['executelimit']);
    expect(filters.selectActivateNames(base, 'service.filter', 'provider')).toEqual([]);
    expect(filters.selectActivateNames(base.addParameter('executes', 0), 'service.filter', 'provider')).toEqual([]);
    expect(filters.selectActivateNames(base.addParameter('executes', 3), 'reference.filter', 'consumer')).toEqual([]);
    expect(
      filters.selectActivateNames(base.addParameters({ executes: 3, chaos: 'true' }), 'service.filter', 'provider'),
    ).toEqual(['executelimit', 'chaos']);
  });

  it('an application with only core and this package has the executelimit filter and no other', async () => {
    const only = createTestApp(['@weft/core', '@weft/filter-executelimit'], { prefix: 'weft-executelimit-only' });
    try {
      const solo = await WeftApplication.start({ root: only.root, name: 'solo', logger: new RecordingLogger() });
      try {
        const filters = solo.model.getExtensionLoader(Filter);
        expect(filters.getSupportedExtensions()).toEqual(['executelimit']);
        expect(filters.getExtension('executelimit')).toBeInstanceOf(ExecuteLimitFilter);
      } finally {
        await solo.shutdown();
      }
    } finally {
      only.cleanup();
    }
  });
});

describe('the limit', () => {
  it('admits at most executes concurrent executions of a method and refuses the rest with limit-exceeded', async () => {
    const { url, worker } = await serve({ parameters: { executes: 2 } });
    const first = worker.work('hold', 0);
    const second = worker.work('hold', 0);
    await sleep(10);
    expect(statuses.getMethodStatus(url, 'work').active).toBe(2);
    const refused = await outcome(worker.work('ok', 0));
    expect(codeOf(refused)).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    const message = (refused as RpcError).message;
    expect(message).toContain('method work of service org.acme.Worker');
    expect(message).toContain('at most 2 concurrent executions of work (2 in flight)');
    // Per method: `other` has its own 2.
    const third = worker.other('hold', 0);
    await sleep(10);
    expect(statuses.getMethodStatus(url, 'other').active).toBe(1);
    expect(statuses.getStatus(url).active).toBe(3);
    for (const release of held.splice(0)) release();
    expect(await Promise.all([first, second, third])).toEqual(['hold done', 'hold done', 'hold done']);
    expect(await worker.work('ok', 0)).toBe('ok done');
    expectAllCountedOut(url, 'work', 'other');
    expect(statuses.getMethodStatus(url, 'work').total).toBe(3); // the refused call was never counted
  });

  it('reads the method-level limit first, and names it in the message', async () => {
    const { url, worker } = await serve({ group: 'g1', version: '2.0.0', parameters: { executes: 5 }, methods: { work: { executes: 1 } } });
    const first = worker.work('hold', 0);
    await sleep(10);
    const refused = await outcome(worker.work('ok', 0));
    expect((refused as RpcError).message).toContain('method work of service g1/org.acme.Worker:2.0.0');
    expect((refused as RpcError).message).toContain('at most 1 concurrent execution of work (1 in flight)');
    expect((refused as RpcError).dubboCode).toBe(7);
    expect(await Promise.all([worker.other('ok', 1), worker.other('ok', 1), worker.other('ok', 1)])).toHaveLength(3);
    for (const release of held.splice(0)) release();
    await first;
    expectAllCountedOut(url, 'work', 'other');
  });

  it('keeps group and version variants apart', async () => {
    const a = await serve({ version: '1.0.0', parameters: { executes: 1 } });
    const b = await serve({ version: '2.0.0', parameters: { executes: 1 } });
    const holding = [a.worker.work('hold', 0), b.worker.work('hold', 0)];
    await sleep(10);
    expect(statuses.getMethodStatus(a.url, 'work').active).toBe(1);
    expect(statuses.getMethodStatus(b.url, 'work').active).toBe(1);
    for (const release of held.splice(0)) release();
    await Promise.all(holding);
  });
});

describe('exactly-once release', () => {
  it.each([
    ['a business error (counted as succeeded, as Dubbo)', 'biz', 'BusinessError', 0],
    ['a rejection of an inner filter', 'reject', RpcErrorCode.NETWORK, 1],
    ['a limit-exceeded rejection of an inner limiter (§8.11: Dubbo leaks the count)', 'inner-limit', RpcErrorCode.LIMIT_EXCEEDED, 1],
    ['a synchronous limit-exceeded throw of an inner limiter', 'sync-inner-limit', RpcErrorCode.LIMIT_EXCEEDED, 1],
    ['a synchronous RpcError throw of an inner filter', 'sync-throw', RpcErrorCode.UNKNOWN, 1],
    ['a synchronous TypeError of an inner filter', 'sync-throw-plain', RpcErrorCode.UNKNOWN, 1],
  ])('after %s', async (_, mode, expected, failed) => {
    const { url, worker } = await serve({ parameters: { executes: 1, chaos: true } });
    for (let i = 0; i < 3; i++) {
      const result = await outcome(worker.$call('work', [mode, 0], { attachments: { mode } }));
      expect(codeOf(result)).toBe(expected);
    }
    expectAllCountedOut(url, 'work');
    const status = statuses.getMethodStatus(url, 'work');
    expect([status.total, status.failed]).toEqual([3, 3 * failed]);
    // The slot is free again: a normal call passes the limit of 1.
    expect(await worker.work('ok', 0)).toBe('ok done');
  });

  it('after a consumer timeout or abort: the execution keeps its slot until the implementation returns', async () => {
    const { url, worker } = await serve({ parameters: { executes: 1 } });
    const timedOut = await outcome(worker.$call('work', ['slow', 60], { timeout: 15 }));
    expect(codeOf(timedOut)).toBe(RpcErrorCode.TIMEOUT);
    expect(statuses.getMethodStatus(url, 'work').active).toBe(1); // still executing on the provider
    expect(codeOf(await outcome(worker.work('ok', 0)))).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    await drain();
    expectAllCountedOut(url, 'work');
    const controller = new AbortController();
    const aborted = worker.$call('work', ['slow', 40], { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    expect(codeOf(await outcome(aborted))).toBe(RpcErrorCode.CANCELLED);
    await drain();
    expectAllCountedOut(url, 'work');
    expect(statuses.getMethodStatus(url, 'work').total).toBe(2);
  });

  it('after a synchronous throw of the invoker itself, rethrown as is; and after a bare Result', async () => {
    const url = URL.parse('injvm://127.0.0.1/org.acme.Worker?interface=org.acme.Worker&side=provider&executes=1');
    const filters = app.model.getExtensionLoader(Filter);
    const boom = new TypeError('invoker bug');
    class ThrowingInvoker extends Invoker {
      getUrl(): URL {
        return url;
      }
      invoke(invocation: Invocation): Result | Promise<Result> {
        if (invocation.methodName === 'bare') return Result.of('bare');
        throw boom;
      }
    }
    const selected = filters.getActivateExtensions(url, 'service.filter', 'provider');
    expect(selected.map((f) => filters.getExtensionName(f))).toEqual(['executelimit']);
    const chain = buildFilterChain(new ThrowingInvoker(), selected, (f) => filters.getExtensionName(f) ?? '?', app.model.logger);
    for (let i = 0; i < 3; i++) {
      expect(() => chain.invoke(new Invocation({ methodName: 'work' }))).toThrow(boom);
      expectAllCountedOut(url, 'work');
    }
    expect((await chain.invoke(new Invocation({ methodName: 'bare' }))).value).toBe('bare');
    expectAllCountedOut(url, 'bare');
    expect(statuses.getMethodStatus(url, 'work').failed).toBe(3);
  });

  it('thousands of chaotic calls: the limit always holds, and every counter returns to zero', async () => {
    const limit = 4;
    const { url, worker } = await serve({ parameters: { executes: limit, chaos: true }, methods: { other: { executes: 2 } } });
    // A deterministic pseudo-random sequence, so a failure can be replayed.
    let seed = 0x2545f491;
    const random = () => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) / 0x100000000;
    };
    const modes = ['ok', 'ok', 'ok', 'biz', 'now', 'now-biz', 'bare-result', 'reject', 'inner-limit', 'sync-inner-limit', 'sync-throw', 'sync-throw-plain', 'slow', 'abort', 'abort-early'];
    const seen = new Map<string, number>();
    const calls: Promise<void>[] = [];
    const total = 3000;
    for (let i = 0; i < total; i++) {
      const mode = modes[Math.floor(random() * modes.length)] as string;
      const method = random() < 0.75 ? 'work' : 'other';
      const delay = Math.floor(random() * 4);
      let call: Promise<unknown>;
      if (mode === 'slow') {
        call = worker.$call(method, [mode, 25], { timeout: 10 });
      } else if (mode === 'abort' || mode === 'abort-early') {
        const controller = new AbortController();
        if (mode === 'abort-early') controller.abort();
        call = worker.$call(method, [mode, 8], { signal: controller.signal });
        setTimeout(() => controller.abort(), Math.floor(random() * 6));
      } else {
        call = worker.$call(method, [mode, delay], { attachments: { mode } });
      }
      calls.push(
        outcome(call).then((result) => {
          const key = codeOf(result);
          seen.set(key, (seen.get(key) ?? 0) + 1);
        }),
      );
      if (i % 12 === 11) await sleep(2); // waves of concurrent calls
    }
    await Promise.all(calls);
    await drain();
    expect([...seen.values()].reduce((a, b) => a + b, 0)).toBe(total);
    // Every kind of ending happened, many times.
    for (const code of ['ok', 'BusinessError', RpcErrorCode.NETWORK, RpcErrorCode.UNKNOWN, RpcErrorCode.LIMIT_EXCEEDED, RpcErrorCode.TIMEOUT, RpcErrorCode.CANCELLED]) {
      expect(seen.get(code) ?? 0, code).toBeGreaterThan(5);
    }
    // The limits held (4 for work, 2 for other), and were reached.
    expect([executions.peak.get('work'), executions.peak.get('other')]).toEqual([limit, 2]);
    expectAllCountedOut(url, 'work', 'other');
    // Exactly one endCount per admitted pass (admitted passes reached the inner filter; aborted-early calls did not).
    const work = statuses.getMethodStatus(url, 'work');
    const other = statuses.getMethodStatus(url, 'other');
    expect(work.total + other.total).toBe(admittedPasses);
    expect(statuses.getStatus(url).total).toBe(admittedPasses);
    expect(admittedPasses).toBeGreaterThan(400);
  });
});

describe('the synchronous path (an inner chain that completes without a promise)', () => {
  const url = URL.parse('injvm://127.0.0.1/org.acme.Worker?interface=org.acme.Worker&side=provider&executes=1');

  /** An invoker answering as its `answer` says: a completed Result, a throw, or a promise parked until released. */
  class ScriptedInvoker extends Invoker {
    answer: () => Result | Promise<Result> = () => Result.of('now');
    getUrl(): URL {
      return url;
    }
    invoke(): Result | Promise<Result> {
      return this.answer();
    }
  }

  function chainAround(invoker: Invoker): Invoker {
    const filters = app.model.getExtensionLoader(Filter);
    const selected = filters.getActivateExtensions(url, 'service.filter', 'provider');
    expect(selected.map((f) => filters.getExtensionName(f))).toEqual(['executelimit']);
    return buildFilterChain(invoker, selected, (f) => filters.getExtensionName(f) ?? '?', app.model.logger);
  }

  it('a completed Result is answered synchronously and counted out (as succeeded) before the answer returns', () => {
    const inner = new ScriptedInvoker();
    const chain = chainAround(inner);
    for (let i = 0; i < 3; i++) {
      let activeInside = -1;
      inner.answer = () => {
        activeInside = statuses.getMethodStatus(url, 'work').active;
        return Result.of(`value ${i}`);
      };
      const answer = chain.invoke(new Invocation({ methodName: 'work' }));
      expect(answer).toBeInstanceOf(Result);
      expect((answer as Result).value).toBe(`value ${i}`);
      expect(activeInside).toBe(1); // counted in while the inner chain ran
      expectAllCountedOut(url, 'work'); // and out already, with no promise to wait for
    }
    const status = statuses.getMethodStatus(url, 'work');
    expect([status.total, status.failed]).toEqual([3, 0]);
  });

  it('a completed Result carrying a business error is answered synchronously, counted as succeeded (as Dubbo)', () => {
    const inner = new ScriptedInvoker();
    const chain = chainAround(inner);
    const error = new BusinessError('sync business error');
    inner.answer = () => Result.ofException(error);
    for (let i = 0; i < 3; i++) {
      const answer = chain.invoke(new Invocation({ methodName: 'work' }));
      expect(answer).toBeInstanceOf(Result);
      expect((answer as Result).exception).toBe(error);
      expectAllCountedOut(url, 'work');
    }
    const status = statuses.getMethodStatus(url, 'work');
    expect([status.total, status.failed]).toEqual([3, 0]);
  });

  it('a synchronous throw is rethrown as is and counted out (as failed) before it propagates', () => {
    const inner = new ScriptedInvoker();
    const chain = chainAround(inner);
    const boom = new RpcError(RpcErrorCode.NETWORK, 'inner threw synchronously');
    inner.answer = () => {
      throw boom;
    };
    for (let i = 0; i < 3; i++) {
      expect(() => chain.invoke(new Invocation({ methodName: 'work' }))).toThrow(boom);
      expectAllCountedOut(url, 'work');
    }
    const status = statuses.getMethodStatus(url, 'work');
    expect([status.total, status.failed]).toEqual([3, 3]);
  });

  it('the limit still holds: a pending call keeps the slot, a synchronous one is refused, then admitted once it is free', async () => {
    const inner = new ScriptedInvoker();
    const chain = chainAround(inner);
    let release: (result: Result) => void = () => undefined;
    inner.answer = () => new Promise<Result>((resolve) => (release = resolve));
    const pending = chain.invoke(new Invocation({ methodName: 'work' }));
    expect(pending).toBeInstanceOf(Promise);
    expect(statuses.getMethodStatus(url, 'work').active).toBe(1);
    inner.answer = () => Result.of('now');
    const refused = chain.invoke(new Invocation({ methodName: 'work' }));
    expect(refused).toBeInstanceOf(Promise); // a refusal is a framework failure: a rejection
    await expect(Promise.resolve(refused)).rejects.toMatchObject({ code: RpcErrorCode.LIMIT_EXCEEDED });
    expect(statuses.getMethodStatus(url, 'work').active).toBe(1);
    release(Result.of('later'));
    expect((await pending).value).toBe('later');
    expectAllCountedOut(url, 'work');
    const admitted = chain.invoke(new Invocation({ methodName: 'work' }));
    expect(admitted).toBeInstanceOf(Result);
    expectAllCountedOut(url, 'work');
    const status = statuses.getMethodStatus(url, 'work');
    expect([status.total, status.failed]).toEqual([2, 0]); // the refused call was never counted
  });

  it('a synchronous implementation behind injvm: each call frees its slot at once, so executes=1 admits them all', async () => {
    const { url: provider, worker } = await serve({ parameters: { executes: 1 } });
    const results = await Promise.all(Array.from({ length: 20 }, () => outcome(worker.work('now', 0))));
    expect(results.map(codeOf)).toEqual(Array.from({ length: 20 }, () => 'ok'));
    expect(codeOf(await outcome(worker.work('now-biz', 0)))).toBe('BusinessError');
    expectAllCountedOut(provider, 'work');
    const status = statuses.getMethodStatus(provider, 'work');
    expect([status.total, status.failed]).toEqual([21, 0]);
    expect(executions.peak.get('work')).toBe(1);
  });
});
