// The `tps` filter inside real chains built by the loader (injvm export + refer), its activation from the
// manifest, exact admissions per fixed window, per-method windows (dubbo-semantics.md §5.3, §8.8), runtime URL
// changes, messages, pluggable limiters and the export-time validator.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  buildFilterChain,
  defineService,
  ExtensionError,
  ExtensionErrorCode,
  Filter,
  Invocation,
  Invoker,
  Result,
  RpcError,
  RpcErrorCode,
  ServiceInvoker,
  URL,
  WeftApplication,
  type CallableProxy,
  type ExportOptions,
} from '@weft/core';
import { ConfigValidator } from '@weft/core/spi';
import { MemoryTpsLimiter, TpsLimiter, TpsLimitFilter, tpsRuleOf } from '@weft/filter-tpslimit';
import { createTestApp, RecordingLogger, StubInvoker, type TestApp } from '@weft/test-utils';

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  sayBye: { args: [String], returns: String },
  count: { returns: Number },
});
type GreeterMethods = (typeof Greeter)['methods'];

/** The time every `memory` limiter of the application reads (ms); tests move it by hand. */
const clock = { now: 0 };

/** The default limiter on a hand-moved clock (replaces `memory` in each test application). */
class ManualClockTpsLimiter extends MemoryTpsLimiter {
  constructor() {
    super(() => clock.now);
  }
}

/** Counts what reached the implementation. */
const reached: string[] = [];
const impl = {
  sayHello: (name: string) => {
    reached.push(`sayHello ${name}`);
    return `hello ${name}`;
  },
  sayBye: (name: string) => {
    reached.push(`sayBye ${name}`);
    return `bye ${name}`;
  },
  count: () => {
    reached.push('count');
    return reached.length;
  },
};

/** `'ok'`, or the error a call rejected with (a call's answer may be a completed `Result`: awaited all the same). */
async function outcome(call: Result | Promise<unknown>): Promise<'ok' | unknown> {
  try {
    await call;
    return 'ok';
  } catch (error) {
    return error;
  }
}

function isLimitExceeded(value: unknown): value is RpcError {
  return value instanceof RpcError && value.code === RpcErrorCode.LIMIT_EXCEEDED;
}

/** Makes `n` sequential calls of `call`; returns how many were admitted, checking every refusal's code. */
async function admitted(n: number, call: () => Result | Promise<unknown>): Promise<number> {
  let ok = 0;
  for (let i = 0; i < n; i++) {
    const result = await outcome(call());
    if (result === 'ok') ok++;
    else if (!isLimitExceeded(result)) throw result;
  }
  return ok;
}

let testApp: TestApp;
let app: WeftApplication;

beforeAll(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-tpslimit'], { prefix: 'weft-tps' });
});
afterAll(() => testApp.cleanup());

beforeEach(async () => {
  clock.now = 0;
  reached.length = 0;
  app = await WeftApplication.start({ root: testApp.root, name: 'tps-test', logger: new RecordingLogger() });
  app.model.getExtensionLoader(TpsLimiter).replaceExtension('memory', ManualClockTpsLimiter);
});
afterEach(async () => {
  await app.shutdown();
});

async function serve(options: ExportOptions): Promise<CallableProxy<GreeterMethods>> {
  await app.export(Greeter, impl, options);
  return app.refer(Greeter, { retries: 0, group: options.group, version: options.version });
}

describe('activation from the manifest', () => {
  const base = URL.parse('injvm://127.0.0.1/org.acme.Greeter?side=provider');

  it('activates in group provider when tps (service or method level) is set, and only then', () => {
    const filters = app.model.getExtensionLoader(Filter);
    expect(filters.selectActivateNames(base.addParameter('tps', 5), 'service.filter', 'provider')).toEqual(['tps']);
    expect(filters.selectActivateNames(base.addParameter('sayHello.tps', 5), 'service.filter', 'provider')).toEqual(['tps']);
    expect(filters.selectActivateNames(base.addParameter('tps', -1), 'service.filter', 'provider')).toEqual(['tps']);
    expect(filters.selectActivateNames(base, 'service.filter', 'provider')).toEqual([]);
    // Dubbo's value rule: tps=0 (and false) do not activate.
    expect(filters.selectActivateNames(base.addParameter('tps', 0), 'service.filter', 'provider')).toEqual([]);
    expect(filters.selectActivateNames(base.addParameter('tps', 'false'), 'service.filter', 'provider')).toEqual([]);
    // Never on the consumer side, and `-tps` removes it.
    expect(filters.selectActivateNames(base.addParameter('tps', 5), 'reference.filter', 'consumer')).toEqual([]);
    expect(
      filters.selectActivateNames(base.addParameters({ tps: 5, 'service.filter': '-tps' }), 'service.filter', 'provider'),
    ).toEqual([]);
  });

  it('an application with only core and this package has the tps filter and no other, and the memory limiter', async () => {
    const only = createTestApp(['@weft/core', '@weft/filter-tpslimit'], { prefix: 'weft-tps-only' });
    try {
      const solo = await WeftApplication.start({ root: only.root, name: 'solo', logger: new RecordingLogger() });
      try {
        const filters = solo.model.getExtensionLoader(Filter);
        expect(filters.getSupportedExtensions()).toEqual(['tps']);
        expect(filters.getExtension('tps')).toBeInstanceOf(TpsLimitFilter);
        const limiters = solo.model.getExtensionLoader(TpsLimiter);
        expect(limiters.getSupportedExtensions()).toEqual(['memory']);
        expect(limiters.getDefaultExtensionName()).toBe('memory');
        expect(limiters.getDefaultExtension()).toBeInstanceOf(MemoryTpsLimiter);
        expect(solo.model.getExtensionLoader(ConfigValidator).getSupportedExtensions()).toEqual(['tps']);
      } finally {
        await solo.shutdown();
      }
    } finally {
      only.cleanup();
    }
  });

  it('a service exported without tps has no tps filter: nothing is limited', async () => {
    const greeter = await serve({});
    expect(await admitted(50, () => greeter.sayHello('a'))).toBe(50);
  });
});

describe('exact admissions per fixed window', () => {
  it('admits exactly tps calls per tps.interval, window after window, and never reaches the implementation when refusing', async () => {
    const greeter = await serve({ parameters: { tps: 3, 'tps.interval': 1000 } });
    for (let window = 0; window < 5; window++) {
      clock.now = window * 1000;
      reached.length = 0;
      expect(await admitted(10, () => greeter.sayHello(`w${window}`))).toBe(3);
      expect(reached).toEqual([`sayHello w${window}`, `sayHello w${window}`, `sayHello w${window}`]);
      clock.now = window * 1000 + 999; // still the same window
      expect(await admitted(5, () => greeter.sayHello('late'))).toBe(0);
    }
  });

  it('a window opens at its first call and lasts tps.interval from there (Dubbo StatItem semantics)', async () => {
    const greeter = await serve({ parameters: { tps: 2, 'tps.interval': 1000 } });
    clock.now = 250;
    expect(await admitted(3, () => greeter.sayHello('a'))).toBe(2);
    clock.now = 1249;
    expect(await admitted(1, () => greeter.sayHello('a'))).toBe(0);
    clock.now = 1250;
    expect(await admitted(3, () => greeter.sayHello('a'))).toBe(2);
  });

  it('uses the 60000 ms default interval', async () => {
    const greeter = await serve({ parameters: { tps: 1 } });
    expect(await admitted(2, () => greeter.sayHello('a'))).toBe(1);
    clock.now = 59_999;
    expect(await admitted(1, () => greeter.sayHello('a'))).toBe(0);
    clock.now = 60_000;
    expect(await admitted(2, () => greeter.sayHello('a'))).toBe(1);
  });

  it('is exact under concurrency: 200 calls in flight at once get exactly tps admissions', async () => {
    const greeter = await serve({ parameters: { tps: 37, 'tps.interval': 1000 } });
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => outcome(greeter.sayHello(`c${i}`))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(37);
    expect(results.filter(isLimitExceeded)).toHaveLength(163);
    expect(reached).toHaveLength(37);
  });

  it('keeps group and version variants apart (the service key is the window key)', async () => {
    const v1 = await serve({ version: '1.0.0', parameters: { tps: 2, 'tps.interval': 1000 } });
    const v2 = await serve({ version: '2.0.0', parameters: { tps: 2, 'tps.interval': 1000 } });
    const g = await serve({ group: 'blue', version: '1.0.0', parameters: { tps: 2, 'tps.interval': 1000 } });
    expect(await admitted(3, () => v1.sayHello('a'))).toBe(2);
    expect(await admitted(3, () => v2.sayHello('a'))).toBe(2);
    expect(await admitted(3, () => g.sayHello('a'))).toBe(2);
  });
});

describe('per-method and service windows (fixing §8.8)', () => {
  it('methods without method-level settings share the service window; a method-level tps gets its own', async () => {
    const greeter = await serve({ parameters: { tps: 4, 'tps.interval': 1000 }, methods: { sayHello: { tps: 2 } } });
    // sayBye and count share the service's 4.
    expect(await admitted(3, () => greeter.sayBye('a'))).toBe(3);
    expect(await admitted(3, () => greeter.count())).toBe(1);
    // sayHello has its own 2, untouched by the exhausted service window — and it does not eat into it.
    expect(await admitted(5, () => greeter.sayHello('a'))).toBe(2);
    clock.now = 1000;
    expect(await admitted(3, () => greeter.sayHello('a'))).toBe(2);
    expect(await admitted(5, () => greeter.count())).toBe(4);
  });

  it('different per-method rates do not rebuild one shared window (Dubbo: unlimited in effect)', async () => {
    const greeter = await serve({ methods: { sayHello: { tps: 2 }, sayBye: { tps: 3 } }, parameters: { 'tps.interval': 1000 } });
    let hello = 0;
    let bye = 0;
    for (let i = 0; i < 10; i++) {
      if ((await outcome(greeter.sayHello('a'))) === 'ok') hello++;
      if ((await outcome(greeter.sayBye('a'))) === 'ok') bye++;
    }
    expect([hello, bye]).toEqual([2, 3]);
  });

  it('a call to a method without tps never resets another method window (Dubbo deletes it)', async () => {
    const greeter = await serve({ methods: { sayHello: { tps: 2, 'tps.interval': 1000 } } });
    const outcomes: string[] = [];
    for (let i = 0; i < 4; i++) {
      outcomes.push((await outcome(greeter.sayHello('a'))) === 'ok' ? 'ok' : 'refused');
      expect(await outcome(greeter.sayBye('a'))).toBe('ok'); // unlimited: tps is set for sayHello only
    }
    expect(outcomes).toEqual(['ok', 'ok', 'refused', 'refused']);
  });

  it('a method-level interval alone also gives the method a window of its own', async () => {
    const greeter = await serve({ parameters: { tps: 2, 'tps.interval': 10_000 }, methods: { sayHello: { 'tps.interval': 100 } } });
    expect(await admitted(3, () => greeter.sayHello('a'))).toBe(2);
    expect(await admitted(3, () => greeter.sayBye('a'))).toBe(2);
    clock.now = 100;
    expect(await admitted(3, () => greeter.sayHello('a'))).toBe(2);
    expect(await admitted(3, () => greeter.sayBye('a'))).toBe(0);
  });

  it('a method-level tps <= 0 exempts that method from the service limit', async () => {
    const greeter = await serve({ parameters: { tps: 1, 'tps.interval': 1000 }, methods: { sayBye: { tps: -1 } } });
    expect(await admitted(20, () => greeter.sayBye('a'))).toBe(20);
    expect(await admitted(2, () => greeter.sayHello('a'))).toBe(1);
  });
});

/** A provider invoker whose URL a test replaces, as runtime overrides replace provider URLs. */
class ReconfigurableInvoker extends Invoker {
  constructor(
    private readonly target: Invoker,
    public url: URL,
  ) {
    super();
  }
  getUrl(): URL {
    return this.url;
  }
  invoke(invocation: Invocation): Result | Promise<Result> {
    return this.target.invoke(invocation);
  }
}

/**
 * The provider chain the loader activates for `parameters` around a reconfigurable invoker of `target` (by default
 * the synchronous implementation `impl`), and a way to call it.
 */
function providerChain(parameters: Record<string, string | number>, target?: (url: URL) => Invoker) {
  const url = new URL({
    protocol: 'injvm',
    host: '127.0.0.1',
    path: Greeter.name,
    parameters: Object.fromEntries(
      Object.entries({ interface: Greeter.name, side: 'provider', methods: Greeter.methodNames.join(','), ...parameters }).map(
        ([k, v]) => [k, String(v)],
      ),
    ),
  });
  const filters = app.model.getExtensionLoader(Filter);
  const invoker = new ReconfigurableInvoker(target?.(url) ?? new ServiceInvoker(Greeter, impl, url), url);
  const chain = buildFilterChain(invoker, filters.getActivateExtensions(url, 'service.filter', 'provider'), (f) => filters.getExtensionName(f) ?? '?', app.model.logger);
  const call = (method: 'sayHello' | 'sayBye' = 'sayHello') => chain.invoke(new Invocation({ methodName: method, args: ['x'], service: Greeter }));
  return { invoker, call };
}

describe('synchronous calls', () => {
  it('answers an admitted call to a synchronous implementation with its Result at once, and still rejects a refused one', async () => {
    const { call } = providerChain({ tps: 2, 'tps.interval': 1000 });
    for (const name of ['first', 'second']) {
      const answer = call();
      expect(answer, name).toBeInstanceOf(Result);
      expect((answer as Result).value).toBe('hello x');
    }
    const refused = call();
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toSatisfy(isLimitExceeded);
    expect(reached).toEqual(['sayHello x', 'sayHello x']);
  });

  it('passes a synchronous business error on as the very Result, counted against the window like any admitted call', async () => {
    const failure = Result.ofException(new Error('no greeting today'));
    let stub: StubInvoker | undefined;
    const { call } = providerChain({ tps: 1, 'tps.interval': 1000 }, (url) => (stub = new StubInvoker(url, () => failure)));
    expect(call()).toBe(failure);
    expect(await outcome(call())).toSatisfy(isLimitExceeded);
    expect(stub?.calls).toBe(1);
  });

  it('lets a synchronous throw of the implementation side through, the call counted against the window', async () => {
    const boom = new Error('inner chain threw');
    const { call } = providerChain({ tps: 1, 'tps.interval': 1000 }, (url) =>
      new StubInvoker(url, () => {
        throw boom;
      }),
    );
    expect(() => call()).toThrow(boom);
    expect(await outcome(call())).toSatisfy(isLimitExceeded);
  });
});

describe('runtime changes take effect on the next call', () => {
  it('a lowered rate applies to the current window (admissions so far count), a raised one too', async () => {
    const { invoker, call } = providerChain({ tps: 5, 'tps.interval': 1000 });
    expect(await admitted(2, call)).toBe(2);
    invoker.url = invoker.url.addParameter('tps', 2);
    expect(await admitted(3, call)).toBe(0); // 2 already admitted in this window: a config change is no budget reset
    invoker.url = invoker.url.addParameter('tps', 4);
    expect(await admitted(3, call)).toBe(2);
    clock.now = 1000;
    expect(await admitted(5, call)).toBe(4);
  });

  it('a changed interval decides when the current window ends', async () => {
    const { invoker, call } = providerChain({ tps: 1, 'tps.interval': 60_000 });
    expect(await admitted(2, call)).toBe(1);
    clock.now = 1500;
    expect(await admitted(1, call)).toBe(0);
    invoker.url = invoker.url.addParameter('tps.interval', 1000); // the window opened at 0 ended at 1000
    expect(await admitted(2, call)).toBe(1);
    clock.now = 2499;
    expect(await admitted(1, call)).toBe(0);
    clock.now = 2500;
    expect(await admitted(1, call)).toBe(1);
  });

  it('adding a method-level rate moves that method to a window of its own at once; removing tps lifts the limit', async () => {
    const { invoker, call } = providerChain({ tps: 2, 'tps.interval': 1000 });
    expect(await admitted(3, () => call('sayHello'))).toBe(2);
    invoker.url = invoker.url.addParameter('sayHello.tps', 3);
    expect(await admitted(4, () => call('sayHello'))).toBe(3);
    expect(await admitted(1, () => call('sayBye'))).toBe(0); // the service window is still exhausted
    invoker.url = invoker.url.removeParameters('tps', 'sayHello.tps');
    expect(await admitted(10, () => call('sayBye'))).toBe(10);
  });

  it('a limiter named at runtime that does not exist rejects with unknown, naming the key', async () => {
    const { invoker, call } = providerChain({ tps: 2 });
    invoker.url = invoker.url.addParameter('tps.limiter', 'redis');
    const error = await outcome(call());
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.UNKNOWN);
    expect((error as RpcError).message).toContain('tps.limiter=redis');
    expect((error as RpcError).cause).toBeInstanceOf(ExtensionError);
  });
});

describe('the refusal', () => {
  it('rejects (never resolves with a result) with limit-exceeded naming service, method, rate and interval', async () => {
    const greeter = await serve({ group: 'g1', version: '1.0.0', parameters: { tps: 1, 'tps.interval': 2000 } });
    await greeter.sayHello('a');
    const error = await outcome(greeter.sayHello('b'));
    expect(isLimitExceeded(error)).toBe(true);
    const message = (error as RpcError).message;
    expect(message).toContain('g1/org.acme.Greeter:1.0.0.sayHello()');
    expect(message).toContain('tps limit exceeded: at most 1 call per 2000 ms');
    expect(message).toContain('the window shared by the methods of g1/org.acme.Greeter:1.0.0');
    expect(message).toContain('tps.limiter=memory');
    expect((error as RpcError).dubboCode).toBe(7);
  });

  it('names the method window when the method has its own', async () => {
    const greeter = await serve({ methods: { sayBye: { tps: 1, 'tps.interval': 500 } } });
    await greeter.sayBye('a');
    const error = await outcome(greeter.sayBye('b'));
    expect(isLimitExceeded(error)).toBe(true);
    expect((error as RpcError).message).toMatch(/org\.acme\.Greeter\.sayBye\(\).*at most 1 call per 500 ms \(the window of method sayBye\)/);
  });

  it('works with the real monotonic clock too', async () => {
    app.model.getExtensionLoader(TpsLimiter).replaceExtension('memory', MemoryTpsLimiter);
    const greeter = await serve({ parameters: { tps: 2 } });
    expect(await admitted(5, () => greeter.sayHello('a'))).toBe(2);
  });
});

describe('pluggable limiters (tps.limiter)', () => {
  it('asks the limiter the URL names, with the current URL and the invocation', async () => {
    const asked: string[] = [];
    class EveryOtherTpsLimiter extends TpsLimiter {
      private n = 0;
      isAllowable(url: URL, invocation: Invocation): boolean {
        asked.push(`${url.getParameter('tps')} ${invocation.methodName}`);
        return this.n++ % 2 === 0;
      }
    }
    app.model.getExtensionLoader(TpsLimiter).addExtension('every-other', EveryOtherTpsLimiter);
    const greeter = await serve({ parameters: { tps: 1000, 'tps.limiter': 'every-other' } });
    expect(await admitted(6, () => greeter.sayHello('a'))).toBe(3);
    expect(asked).toEqual(Array.from({ length: 6 }, () => '1000 sayHello'));
    expect(await outcome(greeter.sayHello('a'))).toBe('ok');
    const error = await outcome(greeter.sayHello('a'));
    expect((error as RpcError).message).toContain('tps.limiter=every-other');
  });

  it('a throwing limiter fails the call closed', async () => {
    class BrokenTpsLimiter extends TpsLimiter {
      isAllowable(): boolean {
        throw new Error('store unreachable');
      }
    }
    app.model.getExtensionLoader(TpsLimiter).addExtension('broken', BrokenTpsLimiter);
    const greeter = await serve({ parameters: { tps: 10, 'tps.limiter': 'broken' } });
    const error = await outcome(greeter.sayHello('a'));
    expect((error as RpcError).code).toBe(RpcErrorCode.UNKNOWN);
    expect((error as RpcError).message).toContain('store unreachable');
    expect(reached).toEqual([]);
  });

  it('a limiter answering with a promise (a shared store) makes the call wait for its answer', async () => {
    class RemoteTpsLimiter extends TpsLimiter {
      private n = 0;
      isAllowable(): Promise<boolean> {
        const ok = this.n++ < 2;
        return new Promise((resolve) => setTimeout(() => resolve(ok), 5));
      }
    }
    app.model.getExtensionLoader(TpsLimiter).addExtension('remote', RemoteTpsLimiter);
    const greeter = await serve({ parameters: { tps: 10, 'tps.limiter': 'remote' } });
    expect(await admitted(5, () => greeter.sayHello('a'))).toBe(2);
    expect(reached).toEqual(['sayHello a', 'sayHello a']);
    const error = await outcome(greeter.sayHello('a'));
    expect((error as RpcError).message).toContain('tps limit exceeded: at most 10 calls per 60000 ms');
  });

  it('a limiter rejecting with its own RpcError has it passed on as is; another rejection becomes unknown', async () => {
    const own = new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'refused: the shared store cannot answer and its policy is closed');
    class ClosedTpsLimiter extends TpsLimiter {
      isAllowable(url: URL): Promise<boolean> {
        return Promise.reject(url.getParameter('x-own') === 'true' ? own : new Error('socket closed'));
      }
    }
    app.model.getExtensionLoader(TpsLimiter).addExtension('closed', ClosedTpsLimiter);
    const mine = await serve({ parameters: { tps: 10, 'tps.limiter': 'closed', 'x-own': 'true' } });
    const passed = await outcome(mine.sayHello('a'));
    expect((passed as RpcError).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect((passed as RpcError).message).toContain('Last error is: refused: the shared store cannot answer and its policy is closed');
    const other = await serve({ group: 'other', parameters: { tps: 10, 'tps.limiter': 'closed' } });
    const error = await outcome(other.sayHello('a'));
    expect((error as RpcError).code).toBe(RpcErrorCode.UNKNOWN);
    expect((error as RpcError).message).toContain('with tps.limiter=closed: socket closed');
    expect(reached).toEqual([]);
  });
});

describe('export-time validation (tps config validator)', () => {
  it.each([
    [
      { parameters: { tps: 10, 'tps.limiter': 'redis' } },
      'tps.limiter=redis names no weft.filter.TpsLimiter extension (available: memory). "redis" comes with @weft/tps-limiter-redis: install it (npm install @weft/tps-limiter-redis), or remove the key.',
    ],
    [{ parameters: { tps: 10, 'tps.limiter': 'etcd' } }, 'tps.limiter=etcd names no weft.filter.TpsLimiter extension (available: memory). Install the package that provides it, or remove the key.'],
    [{ parameters: { tps: 10, 'tps.interval': 0 } }, 'tps.interval=0 is not valid: expected an integer > 0'],
    [{ parameters: { tps: 2.5 } }, 'tps=2.5 is not valid: expected an integer'],
    [{ parameters: { tps: 10 }, methods: { sayHello: { 'tps.interval': -5 } } }, 'sayHello.tps.interval=-5 is not valid'],
  ])('refuses %j', async (options, message) => {
    const error = await outcome(app.export(Greeter, impl, options));
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    expect((error as ExtensionError).message).toContain(message);
    expect((error as ExtensionError).message).toContain('export(org.acme.Greeter)');
  });

  it('accepts tps.limiter=default', async () => {
    const greeter = await serve({ parameters: { tps: 1, 'tps.limiter': 'default' } });
    expect(await admitted(2, () => greeter.sayHello('a'))).toBe(1);
  });
});

describe('MemoryTpsLimiter on its own', () => {
  const call = (method: string) => new Invocation({ methodName: method });
  const url = (key: string, params: string) => URL.parse(`injvm://127.0.0.1/${key}?${params}`);

  it('drops windows not consulted for two intervals, without changing any decision', () => {
    let now = 0;
    const limiter = new MemoryTpsLimiter(() => now);
    const a = url('org.acme.A', 'tps=1&tps.interval=100');
    const b = url('org.acme.B', 'tps=1&tps.interval=1000&hello.tps=5');
    expect(limiter.isAllowable(a, call('x'))).toBe(true);
    expect(limiter.isAllowable(b, call('x'))).toBe(true);
    expect(limiter.isAllowable(b, call('hello'))).toBe(true);
    expect(limiter.size).toBe(3);
    now = 199;
    expect(limiter.isAllowable(b, call('x'))).toBe(false);
    expect(limiter.size).toBe(3); // A was consulted 199 ms ago: less than 2 × 100
    now = 200;
    expect(limiter.isAllowable(b, call('x'))).toBe(false);
    expect(limiter.size).toBe(2); // A dropped
    expect(limiter.isAllowable(a, call('x'))).toBe(true); // a fresh window, as a restarted one would be
    expect(limiter.size).toBe(3);
    now = 10_000;
    expect(limiter.isAllowable(a, call('x'))).toBe(true);
    expect(limiter.size).toBe(1); // both of B's windows dropped
    limiter.destroy();
    expect(limiter.size).toBe(0);
  });

  it('stays bounded with many services called once', () => {
    let now = 0;
    const limiter = new MemoryTpsLimiter(() => now);
    for (let i = 0; i < 10_000; i++) {
      now = i;
      limiter.isAllowable(url(`org.acme.S${i}`, 'tps=1&tps.interval=10'), call('x'));
    }
    expect(limiter.size).toBeLessThanOrEqual(21);
  });

  it('unlimited calls (no tps, tps <= 0) keep no window', () => {
    const limiter = new MemoryTpsLimiter(() => 0);
    for (const params of ['', 'tps=0', 'tps=-1', 'other.tps=3']) {
      expect(limiter.isAllowable(url('org.acme.A', params), call('x'))).toBe(true);
    }
    expect(limiter.size).toBe(0);
  });

  it('a clock that goes back starts a new window instead of refusing for the whole gap', () => {
    let now = 5000;
    const limiter = new MemoryTpsLimiter(() => now);
    const a = url('org.acme.A', 'tps=1&tps.interval=1000');
    expect(limiter.isAllowable(a, call('x'))).toBe(true);
    expect(limiter.isAllowable(a, call('x'))).toBe(false);
    now = 10;
    expect(limiter.isAllowable(a, call('x'))).toBe(true);
  });

  it('tpsRuleOf reads rate, interval and scope', () => {
    const u = URL.parse('tri://h/org.acme.Greeter?tps=100&sayHello.tps=5&sayBye.tps.interval=10&tps.interval=0&count.tps=2.9');
    expect(tpsRuleOf(u, 'sayHello')).toEqual({ rate: 5, interval: 60_000, scope: 'method' });
    expect(tpsRuleOf(u, 'sayBye')).toEqual({ rate: 100, interval: 10, scope: 'method' });
    expect(tpsRuleOf(u, 'other')).toEqual({ rate: 100, interval: 60_000, scope: 'service' });
    expect(tpsRuleOf(u, 'count')).toEqual({ rate: 2, interval: 60_000, scope: 'method' });
    expect(tpsRuleOf(URL.parse('tri://h/a.B?tps=-3'), 'x').rate).toBe(0);
  });
});
