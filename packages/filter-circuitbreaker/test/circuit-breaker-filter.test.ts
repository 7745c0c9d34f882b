// The `circuitbreaker` filter inside real consumer chains built by the loader (injvm export + refer through a real
// WeftApplication), driven by a fake clock: activation from the manifest, each strategy tripping, fail-fast
// refusals that never reach the provider, the fail mock answering while the breaker is open (no change to the
// mock package), half-open probes, per-method / per-service / per-address resources, runtime overrides, forced
// states, events and their log lines, and the config validator's messages.
// (governance-resilience-observability.md §5, dubbo-semantics.md §3.2)
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import {
  buildFilterChain,
  defineService,
  ExtensionError,
  Filter,
  Invocation,
  Result,
  RpcError,
  RpcErrorCode,
  URL,
  WeftApplication,
  type CallableProxy,
  type ReferOptions,
} from '@weft/core';
import { CircuitBreakerFilter, circuitBreakersOf, type CircuitBreakerStateChange } from '@weft/filter-circuitbreaker';
import { createTestApp, RecordingLogger, StubInvoker, type TestApp } from '@weft/test-utils';

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  other: { args: [String], returns: String },
});
type GreeterMethods = (typeof Greeter)['methods'];

class BusinessError extends Error {
  override name = 'BusinessError';
}

/** The fake clock of the breakers (ms). */
let now = 0;
/** What the implementation does next: answer, fail (a business error), or take `slowBy` fake ms. */
const behaviour = { fail: false, slowBy: 0 };
const reached: string[] = [];

const impl = {
  sayHello: (name: string) => {
    reached.push(`sayHello(${name})`);
    now += behaviour.slowBy;
    if (behaviour.fail) throw new BusinessError(`no hello for ${name}`);
    return `hello ${name}`;
  },
  other: (name: string) => {
    reached.push(`other(${name})`);
    now += behaviour.slowBy;
    if (behaviour.fail) throw new BusinessError(`no other for ${name}`);
    return `other ${name}`;
  },
};

let testApp: TestApp;
let app: WeftApplication;
let logger: RecordingLogger;
let events: CircuitBreakerStateChange[];

beforeAll(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/filter-circuitbreaker'], { prefix: 'weft-circuitbreaker' });
});
afterAll(() => testApp.cleanup());

beforeEach(async () => {
  now = 1_000_000;
  behaviour.fail = false;
  behaviour.slowBy = 0;
  reached.length = 0;
  logger = new RecordingLogger();
  app = await WeftApplication.start({ root: testApp.root, name: 'circuitbreaker-test', logger });
  const breakers = circuitBreakersOf(app);
  breakers.useClock(() => now);
  events = [];
  breakers.onStateChange((event) => events.push(event));
  await app.export(Greeter, impl);
});
afterEach(async () => {
  await app.shutdown({ timeout: 2000 });
});

async function refer(parameters: Record<string, string | number | boolean>, options: ReferOptions = {}): Promise<CallableProxy<GreeterMethods>> {
  return app.refer(Greeter, { retries: 0, ...options, parameters: { copy: false, ...parameters } });
}

/** The outcome of one call: its answer, or the code and message of its error. */
async function attempt(call: () => Promise<unknown>): Promise<string> {
  try {
    return `ok: ${String(await call())}`;
  } catch (error) {
    if (error instanceof RpcError) return `${error.code}: ${error.message}`;
    return `${(error as Error).name}: ${(error as Error).message}`;
  }
}

async function failTimes(greeter: CallableProxy<GreeterMethods>, n: number, method: 'sayHello' | 'other' = 'sayHello'): Promise<void> {
  behaviour.fail = true;
  for (let i = 0; i < n; i++) await attempt(() => greeter[method](`f${i}`));
  behaviour.fail = false;
}

const transitions = (): string[] => events.map((e) => `${e.resource}: ${e.from} → ${e.to} (${e.reason})`);

describe('activation (manifest)', () => {
  it('is not in the chain of a reference without circuitbreaker keys; is with them', async () => {
    const plain = await refer({});
    behaviour.fail = true;
    for (let i = 0; i < 20; i++) await attempt(() => plain.sayHello('x'));
    expect(circuitBreakersOf(app).size).toBe(0);
    const url = URL.parse('injvm://127.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&side=consumer&circuitbreaker=error-ratio');
    const active = app.model.getExtensionLoader(Filter).getActivateExtensions(url, 'reference.filter', 'consumer');
    expect(active.some((f) => f instanceof CircuitBreakerFilter)).toBe(true);
    const forced = url.removeParameter('circuitbreaker').addParameter('sayHello.circuitbreaker.force', 'open');
    expect(app.model.getExtensionLoader(Filter).getActivateExtensions(forced, 'reference.filter', 'consumer').some((f) => f instanceof CircuitBreakerFilter)).toBe(true);
    const provider = app.model.getExtensionLoader(Filter).getActivateExtensions(url.addParameter('side', 'provider'), 'service.filter', 'provider');
    expect(provider.some((f) => f instanceof CircuitBreakerFilter)).toBe(false);
  });
});

describe('error-ratio through a real reference', () => {
  it('trips on the 5th failure, then refuses without reaching the provider, with a message naming the rule and the retry', async () => {
    const greeter = await refer({ circuitbreaker: 'error-ratio', 'circuitbreaker.open-duration': 3000 });
    await failTimes(greeter, 4);
    expect(await attempt(() => greeter.sayHello('ok'))).toBe('ok: hello ok');
    // 4 errors of 5 calls = 0.8 > 0.5 … but the 5th call was the success that reached the minimum: it tripped.
    expect(transitions()).toEqual(['org.acme.Greeter#sayHello: closed → open (tripped)']);
    expect(events[0]).toMatchObject({ value: 0.8, total: 5, method: 'sayHello', address: undefined, service: 'org.acme.Greeter' });
    reached.length = 0;
    now += 1000;
    expect(await attempt(() => greeter.sayHello('ann'))).toBe(
      'circuit-open: Call org.acme.Greeter.sayHello() refused without reaching provider 127.0.0.1: circuit breaker ' +
        'org.acme.Greeter#sayHello is open: error-ratio reached 0.8 over 5 calls (rule: error-ratio > 0.5 over 1000 ms ' +
        '(min 5 calls), open 3000 ms); a probe is admitted in 2000 ms.',
    );
    expect(reached).toEqual([]);
    // The other method has a breaker of its own (per method by default), still closed.
    expect(await attempt(() => greeter.other('bob'))).toBe('ok: other bob');
    expect(logger.of('warn')).toContain(
      'circuit breaker org.acme.Greeter#sayHello: closed → open (tripped: error-ratio 0.8 over 5 calls; rule: error-ratio > 0.5 over 1000 ms (min 5 calls), open 3000 ms).',
    );
  });

  it('the refusal is not a business error and is final for the cluster (shared breaker): failover does not retry it', async () => {
    const greeter = await refer({ circuitbreaker: 'error-count', 'circuitbreaker.threshold': 0, 'circuitbreaker.min-requests': 1 }, { retries: 3 });
    await failTimes(greeter, 1);
    reached.length = 0;
    let caught: unknown;
    try {
      await greeter.sayHello('ann');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(RpcError);
    expect((caught as RpcError).code).toBe(RpcErrorCode.CIRCUIT_OPEN);
    expect((caught as RpcError).isBiz).toBe(false);
    expect((caught as RpcError).retryable).toBe(false);
    expect((caught as RpcError).message).not.toContain('Tried');
    expect(reached).toEqual([]);
  });

  it('half-open: after open-duration one probe reaches the provider; success closes, failure re-opens', async () => {
    const greeter = await refer({ circuitbreaker: 'error-ratio', 'circuitbreaker.open-duration': 3000 });
    await failTimes(greeter, 5);
    now += 3000;
    await failTimes(greeter, 1); // the probe fails
    expect(await attempt(() => greeter.sayHello('x'))).toMatch(/^circuit-open: .* a probe is admitted in 3000 ms\.$/);
    now += 3000;
    reached.length = 0;
    expect(await attempt(() => greeter.sayHello('probe'))).toBe('ok: hello probe');
    expect(reached).toEqual(['sayHello(probe)']);
    expect(await attempt(() => greeter.sayHello('after'))).toBe('ok: hello after');
    expect(transitions()).toEqual([
      'org.acme.Greeter#sayHello: closed → open (tripped)',
      'org.acme.Greeter#sayHello: open → half-open (probing)',
      'org.acme.Greeter#sayHello: half-open → open (probe-failed)',
      'org.acme.Greeter#sayHello: open → half-open (probing)',
      'org.acme.Greeter#sayHello: half-open → closed (recovered)',
    ]);
    expect(logger.of('warn')).toEqual(
      expect.arrayContaining([
        'circuit breaker org.acme.Greeter#sayHello: open → half-open (open for 3000 ms: admitting 1 probe; rule: error-ratio > 0.5 over 1000 ms (min 5 calls), open 3000 ms).',
        'circuit breaker org.acme.Greeter#sayHello: half-open → closed (1 probe succeeded; rule: error-ratio > 0.5 over 1000 ms (min 5 calls), open 3000 ms).',
      ]),
    );
  });

  it('business errors do not count with circuitbreaker.biz-errors=false; framework failures (a timeout) do', async () => {
    const greeter = await refer({ circuitbreaker: 'error-count', 'circuitbreaker.threshold': 2, 'circuitbreaker.min-requests': 1, 'circuitbreaker.biz-errors': false });
    await failTimes(greeter, 10);
    expect(events).toEqual([]);
    const slowImpl = {
      sayHello: async (name: string) => {
        await new Promise((resolve) => setTimeout(resolve, 200));
        return name;
      },
      other: (name: string) => name,
    };
    await app.export(Greeter, slowImpl, { version: 'slow' });
    const slow = await refer(
      { circuitbreaker: 'error-count', 'circuitbreaker.threshold': 2, 'circuitbreaker.min-requests': 1, 'circuitbreaker.biz-errors': false },
      { version: 'slow', timeout: 20 },
    );
    const outcomes = [];
    for (let i = 0; i < 4; i++) outcomes.push((await attempt(() => slow.sayHello('t'))).split(':')[0]);
    expect(outcomes).toEqual(['timeout', 'timeout', 'timeout', 'circuit-open']);
    expect(transitions()).toEqual(['org.acme.Greeter:slow#sayHello: closed → open (tripped)']);
  });
});

describe('slow-ratio', () => {
  it('trips when every call of the window is slower than slow-rt (strictly), counting fake response times', async () => {
    const greeter = await refer({ circuitbreaker: 'slow-ratio', 'circuitbreaker.slow-rt': 100, 'circuitbreaker.min-requests': 3 });
    behaviour.slowBy = 100; // exactly at the limit: not slow
    for (let i = 0; i < 5; i++) await greeter.sayHello('a');
    expect(events).toEqual([]);
    now += 1000;
    behaviour.slowBy = 101;
    for (let i = 0; i < 3; i++) await greeter.sayHello('b');
    expect(transitions()).toEqual(['org.acme.Greeter#sayHello: closed → open (tripped)']);
    expect(events[0]?.value).toBe(1);
    behaviour.slowBy = 0;
    expect(await attempt(() => greeter.sayHello('c'))).toMatch(/^circuit-open: .*slow-ratio reached 1 over 3 calls \(rule: slow-ratio \(calls over 100 ms\) > 1 over 1000 ms/);
  });
});

describe('fail mock answers while the breaker is open (no change to @weft/mock)', () => {
  it('open breaker → degradation: the mock answers at once, the provider is not reached; closed again → real answers', async () => {
    const greeter = await refer({ circuitbreaker: 'error-ratio', 'circuitbreaker.open-duration': 3000 }, { mock: 'fail:return "degraded"' });
    behaviour.fail = true;
    // Business errors are not degraded by fail mock: the caller sees them, and the breaker counts them.
    for (let i = 0; i < 5; i++) expect(await attempt(() => greeter.sayHello(`f${i}`))).toBe(`BusinessError: no hello for f${i}`);
    behaviour.fail = false;
    reached.length = 0;
    for (let i = 0; i < 10; i++) expect(await greeter.sayHello('ann')).toBe('degraded');
    expect(reached).toEqual([]);
    expect(logger.of('warn').some((m) => m.includes('circuit breaker org.acme.Greeter#sayHello') && m.includes('is open'))).toBe(true);
    now += 3000;
    expect(await greeter.sayHello('ann')).toBe('hello ann');
    expect(circuitBreakersOf(app).get('org.acme.Greeter#sayHello')?.state).toBe('closed');
  });
});

describe('resources', () => {
  it('circuitbreaker.resource=service: one breaker for the methods without method-level keys', async () => {
    const greeter = await refer({ circuitbreaker: 'error-ratio', 'circuitbreaker.resource': 'service' });
    await failTimes(greeter, 3, 'sayHello');
    await failTimes(greeter, 2, 'other');
    expect(transitions()).toEqual(['org.acme.Greeter: closed → open (tripped)']);
    expect(await attempt(() => greeter.other('x'))).toMatch(/^circuit-open: Call org\.acme\.Greeter\.other\(\) refused .* circuit breaker org\.acme\.Greeter is open/);
    expect(await attempt(() => greeter.sayHello('x'))).toMatch(/^circuit-open: /);
  });

  it('circuitbreaker.per-address=true: one breaker per provider, and the refusal is retryable', async () => {
    const url = (host: string) =>
      URL.parse(`tri://${host}:50051/org.acme.Greeter?interface=org.acme.Greeter&side=consumer&circuitbreaker=error-count&circuitbreaker.threshold=0&circuitbreaker.min-requests=1&circuitbreaker.per-address=true`);
    const filters = app.model.getExtensionLoader(Filter);
    const selected = filters.getActivateExtensions(url('10.0.0.1'), 'reference.filter', 'consumer').filter((f) => f instanceof CircuitBreakerFilter);
    expect(selected).toHaveLength(1);
    const failing = new StubInvoker(url('10.0.0.1'), () => Promise.reject(new RpcError(RpcErrorCode.NETWORK, 'connection refused')));
    const healthy = new StubInvoker(url('10.0.0.2'), () => Result.of('fine'));
    const a = buildFilterChain(failing, selected, () => 'circuitbreaker', app.model.logger);
    const b = buildFilterChain(healthy, selected, () => 'circuitbreaker', app.model.logger);
    const call = () => new Invocation({ methodName: 'sayHello', args: ['x'] });
    await expect(a.invoke(call())).rejects.toThrow('connection refused');
    // The rejection is counted on a branch of the promise: let it run.
    await Promise.resolve();
    const refused = await Promise.resolve(a.invoke(call())).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).code).toBe('circuit-open');
    expect((refused as RpcError).retryable).toBe(true);
    expect((refused as RpcError).message).toContain('circuit breaker org.acme.Greeter#sayHello@10.0.0.1:50051 is open');
    expect(failing.calls).toBe(1);
    const answer = await b.invoke(call());
    expect(answer.value).toBe('fine');
    expect(transitions()).toEqual(['org.acme.Greeter#sayHello@10.0.0.1:50051: closed → open (tripped)']);
  });
});

describe('forced states (refer-time keys)', () => {
  it('sayHello.circuitbreaker.force=open refuses every call of the method and the fail mock answers; other methods pass', async () => {
    const greeter = await refer({ 'sayHello.circuitbreaker.force': 'open' }, { mock: 'fail:return "fallback"' });
    reached.length = 0;
    expect(await greeter.sayHello('a')).toBe('fallback');
    expect(await greeter.other('b')).toBe('other b');
    expect(reached).toEqual(['other(b)']);
    expect(transitions()).toEqual(['org.acme.Greeter#sayHello: closed → forced-open (rule-changed)']);
  });

  it('without a mock the caller sees the refusal, naming the key', async () => {
    const greeter = await refer({ 'circuitbreaker.force': 'open' });
    expect(await attempt(() => greeter.sayHello('a'))).toBe(
      'circuit-open: Call org.acme.Greeter.sayHello() refused without reaching provider 127.0.0.1: circuit breaker org.acme.Greeter#sayHello is forced open (circuitbreaker.force=open).',
    );
  });

  it('circuitbreaker.force=closed admits every call whatever the statistics', async () => {
    const greeter = await refer({ circuitbreaker: 'error-count', 'circuitbreaker.threshold': 0, 'circuitbreaker.min-requests': 1, 'circuitbreaker.force': 'closed' });
    await failTimes(greeter, 10);
    expect(await attempt(() => greeter.sayHello('c'))).toBe('ok: hello c');
    expect(circuitBreakersOf(app).get('org.acme.Greeter#sayHello')?.state).toBe('forced-closed');
  });
});

describe('events', () => {
  it('a listener that throws is logged and changes nothing; unsubscribing stops delivery', async () => {
    const breakers = circuitBreakersOf(app);
    const stop = breakers.onStateChange(() => {
      throw new Error('listener bug');
    });
    const greeter = await refer({ circuitbreaker: 'error-count', 'circuitbreaker.threshold': 0, 'circuitbreaker.min-requests': 1 });
    await failTimes(greeter, 1);
    expect(logger.of('error')).toContain('circuit breaker org.acme.Greeter#sayHello: a state change listener threw; the call is unaffected.');
    expect(events).toHaveLength(1);
    stop();
    expect(breakers.get('org.acme.Greeter#sayHello')?.state).toBe('open');
  });

  it('breakers belong to the application: another application has its own', async () => {
    const other = await WeftApplication.start({ root: testApp.root, name: 'other-app', logger: new RecordingLogger() });
    try {
      const greeter = await refer({ circuitbreaker: 'error-count', 'circuitbreaker.threshold': 0, 'circuitbreaker.min-requests': 1 });
      await failTimes(greeter, 1);
      expect(circuitBreakersOf(app).size).toBe(1);
      expect(circuitBreakersOf(other).size).toBe(0);
    } finally {
      await other.shutdown();
    }
  });
});

describe('config validator (refer and override)', () => {
  const cases: readonly [Record<string, string | number>, string][] = [
    [{ circuitbreaker: 'sometimes' }, 'refer(org.acme.Greeter): circuitbreaker=sometimes is not valid: expected one of slow-ratio, error-ratio, error-count.'],
    [
      { circuitbreaker: 'error-ratio', 'sayHello.circuitbreaker.threshold': 1.5 },
      'refer(org.acme.Greeter): sayHello.circuitbreaker.threshold=1.5 is not valid: expected a ratio between 0 and 1 for error-ratio (the breaker trips above it; 1: when every call failed).',
    ],
    [{ circuitbreaker: 'error-count', 'circuitbreaker.threshold': -1 }, 'refer(org.acme.Greeter): circuitbreaker.threshold=-1 is not valid: expected a number >= 0 (errors in the window; the breaker trips above it).'],
    [{ circuitbreaker: 'error-ratio', 'circuitbreaker.window': 0 }, 'refer(org.acme.Greeter): circuitbreaker.window=0 is not valid: expected an integer > 0 (the statistics window in milliseconds).'],
    [
      { circuitbreaker: 'error-ratio', 'circuitbreaker.buckets': 500 },
      'refer(org.acme.Greeter): circuitbreaker.buckets=500 is not valid: expected an integer between 1 and 100, at most the window in milliseconds (1: a tumbling window, as Sentinel).',
    ],
    [{ circuitbreaker: 'error-ratio', 'circuitbreaker.open-duration': '5s' }, 'refer(org.acme.Greeter): circuitbreaker.open-duration=5s is not valid: expected an integer > 0 (milliseconds the breaker stays open).'],
    [{ circuitbreaker: 'error-ratio', 'circuitbreaker.probes': 0 }, 'refer(org.acme.Greeter): circuitbreaker.probes=0 is not valid: expected an integer > 0 (probes admitted while half-open).'],
    [{ circuitbreaker: 'error-ratio', 'circuitbreaker.min-requests': 2.5 }, 'refer(org.acme.Greeter): circuitbreaker.min-requests=2.5 is not valid: expected an integer > 0 (calls in the window before the breaker may trip).'],
    [{ 'circuitbreaker.force': 'half' }, 'refer(org.acme.Greeter): circuitbreaker.force=half is not valid: expected open or closed (remove the key to let the statistics decide).'],
    [{ circuitbreaker: 'error-ratio', 'circuitbreaker.resource': 'address' }, 'refer(org.acme.Greeter): circuitbreaker.resource=address is not valid: expected method or service (one breaker per method, or one shared by the service).'],
    [{ circuitbreaker: 'error-ratio', 'circuitbreaker.biz-errors': 'yes' }, 'refer(org.acme.Greeter): circuitbreaker.biz-errors=yes is not valid: expected true or false (whether business errors count as errors).'],
    [{ circuitbreaker: 'slow-ratio', 'circuitbreaker.slow-rt': 'fast' }, 'refer(org.acme.Greeter): circuitbreaker.slow-rt=fast is not valid: expected a number of milliseconds >= 0 (a call slower than this is slow).'],
  ];
  for (const [parameters, message] of cases) {
    it(`refuses ${JSON.stringify(parameters)} at refer`, async () => {
      const error = await refer(parameters).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ExtensionError);
      expect((error as ExtensionError).message).toBe(message);
    });
  }

  it('refuses a bad override and keeps the previous configuration', async () => {
    const greeter = await refer({ circuitbreaker: 'error-count', 'circuitbreaker.threshold': 0, 'circuitbreaker.min-requests': 1 });
    expect(() => app.override(greeter, { circuitbreaker: 'error-count', 'sayHello.circuitbreaker.probes': -2 })).toThrow(
      'override(org.acme.Greeter): sayHello.circuitbreaker.probes=-2 is not valid: expected an integer > 0 (probes admitted while half-open).',
    );
    await failTimes(greeter, 1);
    expect(await attempt(() => greeter.sayHello('x'))).toMatch(/^circuit-open: /);
  });
});
