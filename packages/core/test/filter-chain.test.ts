// The filter chain built by buildFilterChain (spec §4.1 listener timing, §4.2 node behaviour, §9 two failure
// channels). Weft's deliberate differences from Dubbo, tested as Weft behaves and named in the titles:
// - a throwing listener hook is logged and changes neither the call's outcome nor what other hooks see
//   (Dubbo's CallbackRegistrationInvoker switches to error mode);
// - a filter may answer with a bare Result (wrapped in a promise); any other non-promise answer rejects with
//   RpcError `unknown` naming the contract (Dubbo throws an RpcException);
// - every filter gets at most one hook call per call (Dubbo may call onError on the sync path and then again
//   onError/onResponse from the callback when an outer filter turned the throw into a result).
import { describe, expect, it } from 'vitest';
import { Filter, Invocation, Invoker, Logger, Result, RpcError, RpcErrorCode, URL, buildFilterChain, whenSettled } from '@weft/core';

const SERVICE_URL = new URL({ protocol: 'test', host: '127.0.0.1', port: 20880, path: 'org.acme.Echo' });

/** Lets every pending promise callback (and one macrotask turn) run. */
const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function invocation(arg = 'hi'): Invocation {
  return new Invocation({ methodName: 'echo', args: [arg] });
}

interface LogEntry {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
  readonly error: unknown;
}

class RecordingLogger extends Logger {
  readonly entries: LogEntry[] = [];
  debug(message: string): void {
    this.entries.push({ level: 'debug', message, error: undefined });
  }
  info(message: string): void {
    this.entries.push({ level: 'info', message, error: undefined });
  }
  warn(message: string, error?: unknown): void {
    this.entries.push({ level: 'warn', message, error });
  }
  error(message: string, error?: unknown): void {
    this.entries.push({ level: 'error', message, error });
  }
}

/** The invoker at the end of the chain. */
class Origin extends Invoker {
  readonly calls: Invocation[] = [];
  available = true;
  destroyed = 0;
  destroyAnswer: void | Promise<void> = undefined;

  constructor(private readonly answer: (invocation: Invocation) => Promise<Result> = (inv) => Promise.resolve(Result.of(`echo:${String(inv.args[0])}`))) {
    super();
  }

  getUrl(): URL {
    return SERVICE_URL;
  }

  invoke(inv: Invocation): Result | Promise<Result> {
    this.calls.push(inv);
    return this.answer(inv);
  }

  override isAvailable(): boolean {
    return this.available;
  }

  override destroy(): void | Promise<void> {
    this.destroyed++;
    return this.destroyAnswer;
  }
}

interface HookEvent {
  readonly filter: string;
  readonly hook: 'onResponse' | 'onError';
  readonly value: unknown;
  readonly invoker: Invoker;
  readonly invocation: Invocation;
}

interface FilterSpec {
  /**
   * How the filter continues: `sync` returns `invoker.invoke(inv)` directly; `async` is an async function that
   * calls it right away and awaits it; `late` awaits something else first, then calls it.
   */
  readonly style?: 'sync' | 'async' | 'late';
  readonly onResponse?: boolean;
  readonly onError?: boolean;
  /** Thrown synchronously by `invoke`, instead of continuing. */
  readonly throws?: unknown;
  /** Thrown by this filter's hooks (after recording them). */
  readonly hookThrows?: unknown;
}

class TestFilter extends Filter {
  constructor(
    readonly label: string,
    private readonly trace: string[],
    private readonly spec: FilterSpec,
  ) {
    super();
  }

  invoke(invoker: Invoker, inv: Invocation): Result | Promise<Result> {
    this.trace.push(this.label);
    if ('throws' in this.spec) throw this.spec.throws;
    if (this.spec.style === 'async') return this.continueAsync(invoker, inv);
    if (this.spec.style === 'late') return this.continueLate(invoker, inv);
    return invoker.invoke(inv);
  }

  private async continueAsync(invoker: Invoker, inv: Invocation): Promise<Result> {
    const result = await invoker.invoke(inv);
    return result;
  }

  private async continueLate(invoker: Invoker, inv: Invocation): Promise<Result> {
    await Promise.resolve();
    return await invoker.invoke(inv);
  }
}

const nameOf = (f: Filter): string => (f as Filter & { label?: string }).label ?? f.constructor.name;

/** A chain of TestFilters (first outermost) around `origin`, recording hook calls and entered filters. */
function testChain(origin: Invoker, specs: Readonly<Record<string, FilterSpec>>) {
  const events: HookEvent[] = [];
  const trace: string[] = [];
  const logger = new RecordingLogger();
  const filters = Object.entries(specs).map(([label, spec]) => {
    const filter = new TestFilter(label, trace, spec);
    if (spec.onResponse === true) {
      filter.onResponse = (value, invoker, inv) => {
        events.push({ filter: label, hook: 'onResponse', value, invoker, invocation: inv });
        if (spec.hookThrows !== undefined) throw spec.hookThrows;
      };
    }
    if (spec.onError === true) {
      filter.onError = (value, invoker, inv) => {
        events.push({ filter: label, hook: 'onError', value, invoker, invocation: inv });
        if (spec.hookThrows !== undefined) throw spec.hookThrows;
      };
    }
    return filter;
  });
  const chain = buildFilterChain(origin, filters, nameOf, logger);
  return { chain, events, trace, logger, filters };
}

/** `filter.hook` of each event, in order. */
const hooks = (events: readonly HookEvent[]) => events.map((e) => `${e.filter}.${e.hook}`);

/** Calls `fn`, returning what it threw synchronously (fails when it did not throw). */
function syncThrowOf(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a synchronous throw');
}

const BOTH = { onResponse: true, onError: true } as const;

describe('buildFilterChain: structure', () => {
  it('returns the invoker itself when there are no filters', () => {
    const origin = new Origin();
    expect(buildFilterChain(origin, [], nameOf, new RecordingLogger())).toBe(origin);
  });

  class Tracing extends Filter {
    constructor(
      readonly label: string,
      private readonly trace: string[],
      private readonly style: 'async' | 'sync',
    ) {
      super();
    }
    invoke(invoker: Invoker, inv: Invocation): Result | Promise<Result> {
      this.trace.push(`enter ${this.label}`);
      if (this.style === 'sync') {
        return whenSettled(invoker.invoke(inv), (result) => {
          this.trace.push(`exit ${this.label}`);
          return result;
        });
      }
      return (async () => {
        try {
          return await invoker.invoke(inv);
        } finally {
          this.trace.push(`exit ${this.label}`);
        }
      })();
    }
  }

  it.each(['async', 'sync'] as const)('the first filter is outermost (%s filters): enter a, b, c, invoker, exit c, b, a', async (style) => {
    const trace: string[] = [];
    const origin = new Origin(async (inv) => {
      trace.push('invoker');
      return Result.of(`echo:${String(inv.args[0])}`);
    });
    const chain = buildFilterChain(origin, ['a', 'b', 'c'].map((l) => new Tracing(l, trace, style)), nameOf, new RecordingLogger());
    const result = await chain.invoke(invocation('x'));
    expect(result.value).toBe('echo:x');
    expect(trace).toEqual(['enter a', 'enter b', 'enter c', 'invoker', 'exit c', 'exit b', 'exit a']);
  });

  it('a short-circuiting filter answers without the inner filters or the invoker; outer listeners see its answer', async () => {
    const origin = new Origin();
    const cached = Result.of('cached');
    class Cache extends Filter {
      readonly label = 'cache';
      invoke(): Result | Promise<Result> {
        return Promise.resolve(cached);
      }
    }
    const trace: string[] = [];
    const events: unknown[] = [];
    const outer = new TestFilter('outer', trace, {});
    outer.onResponse = (result) => events.push(result);
    const inner = new TestFilter('inner', trace, BOTH);
    const chain = buildFilterChain(origin, [outer, new Cache(), inner], nameOf, new RecordingLogger());
    await expect(chain.invoke(invocation())).resolves.toBe(cached);
    expect(trace).toEqual(['outer']);
    expect(origin.calls).toHaveLength(0);
    expect(events).toEqual([cached]);
  });

  describe.each([
    ['without hook filters', {}],
    ['with hook filters', BOTH],
  ] as const)('%s', (_, hookSpec) => {
    it('getUrl, isAvailable and destroy delegate to the origin invoker', async () => {
      const origin = new Origin();
      const { chain } = testChain(origin, { a: hookSpec, b: {} });
      expect(chain).not.toBe(origin);
      expect(chain.getUrl()).toBe(SERVICE_URL);
      expect(chain.isAvailable()).toBe(true);
      origin.available = false;
      expect(chain.isAvailable()).toBe(false);
      const done = Promise.resolve();
      origin.destroyAnswer = done;
      expect(chain.destroy()).toBe(done);
      expect(origin.destroyed).toBe(1);
      await done;
    });
  });

  it('adds no listener head without hook filters: the call answers with the outermost filter’s own promise', async () => {
    const origin = new Origin();
    let returned: Promise<Result> | undefined;
    class Outer extends Filter {
      invoke(invoker: Invoker, inv: Invocation): Result | Promise<Result> {
        returned = Promise.resolve(invoker.invoke(inv)).then((r) => r);
        return returned;
      }
    }
    const filters = [new Outer(), new TestFilter('b', [], { style: 'async' }), new TestFilter('c', [], {})];
    const chain = buildFilterChain(origin, filters, nameOf, new RecordingLogger());
    const answer = chain.invoke(invocation('p'));
    expect(answer).toBe(returned);
    expect((await answer).value).toBe('echo:p');
  });

  it('with a hook filter, the call answers with a promise that settles only after the hooks ran', async () => {
    const origin = new Origin();
    let returned: Result | Promise<Result> | undefined;
    const seenWhenSettled: string[][] = [];
    class Outer extends Filter {
      invoke(invoker: Invoker, inv: Invocation): Result | Promise<Result> {
        returned = invoker.invoke(inv);
        return returned;
      }
    }
    const trace: string[] = [];
    const listening = new TestFilter('l', trace, {});
    const calls: string[] = [];
    listening.onResponse = () => calls.push('l.onResponse');
    const chain = buildFilterChain(origin, [new Outer(), listening], nameOf, new RecordingLogger());
    const answer = chain.invoke(invocation());
    expect(answer).not.toBe(returned);
    expect(answer).toBeInstanceOf(Promise);
    await Promise.resolve(answer).then(() => seenWhenSettled.push([...calls]));
    expect(seenWhenSettled).toEqual([['l.onResponse']]);
  });
});

describe('listener timing (§4.1)', () => {
  it('onResponse fires once, after the call resolved, with the result, the origin invoker and the invocation', async () => {
    const pending = deferred<Result>();
    const origin = new Origin(() => pending.promise);
    const { chain, events } = testChain(origin, { a: BOTH });
    const inv = invocation();
    const answer = chain.invoke(inv);
    await flush();
    expect(events).toEqual([]);
    const result = Result.of('late');
    pending.resolve(result);
    await expect(answer).resolves.toBe(result);
    await flush();
    expect(events).toHaveLength(1);
    expect(events[0]).toEqual({ filter: 'a', hook: 'onResponse', value: result, invoker: origin, invocation: inv });
    expect(events[0]?.value).toBe(result);
    expect(events[0]?.invoker).toBe(origin);
    expect(events[0]?.invocation).toBe(inv);
  });

  it('onResponse, not onError, fires when the result carries a business exception (Result.ofException)', async () => {
    const businessError = new Error('insufficient funds');
    const result = Result.ofException(businessError);
    const { chain, events } = testChain(new Origin(() => Promise.resolve(result)), { a: BOTH });
    const answer = await chain.invoke(invocation());
    expect(answer).toBe(result);
    expect(answer.hasException()).toBe(true);
    await flush();
    expect(hooks(events)).toEqual(['a.onResponse']);
    expect(events[0]?.value).toBe(result);
  });

  it('onError fires once when the invoker rejects, with the error; the caller gets the same rejection', async () => {
    const failure = new RpcError(RpcErrorCode.TIMEOUT, 'timed out');
    const origin = new Origin(() => Promise.reject(failure));
    const { chain, events } = testChain(origin, { a: BOTH });
    const inv = invocation();
    await expect(chain.invoke(inv)).rejects.toBe(failure);
    await flush();
    expect(hooks(events)).toEqual(['a.onError']);
    expect(events[0]?.value).toBe(failure);
    expect(events[0]?.invoker).toBe(origin);
    expect(events[0]?.invocation).toBe(inv);
  });

  it('hooks fire innermost first, only on the filters that have them', async () => {
    const specs = { a: BOTH, b: {}, c: { onResponse: true }, d: { onError: true }, e: BOTH };
    const ok = testChain(new Origin(), specs);
    await ok.chain.invoke(invocation());
    expect(hooks(ok.events)).toEqual(['e.onResponse', 'c.onResponse', 'a.onResponse']);

    const failing = testChain(new Origin(() => Promise.reject(new RpcError(RpcErrorCode.NETWORK, 'down'))), specs);
    await expect(failing.chain.invoke(invocation())).rejects.toBeInstanceOf(RpcError);
    expect(hooks(failing.events)).toEqual(['e.onError', 'd.onError', 'a.onError']);
  });

  it('hooks fire once per call, for every call', async () => {
    const { chain, events } = testChain(new Origin(), { a: BOTH, b: BOTH });
    for (let i = 0; i < 3; i++) await chain.invoke(invocation(`${i}`));
    expect(hooks(events)).toEqual(['b.onResponse', 'a.onResponse', 'b.onResponse', 'a.onResponse', 'b.onResponse', 'a.onResponse']);
    expect(events.map((e) => (e.value as Result).value)).toEqual(['echo:0', 'echo:0', 'echo:1', 'echo:1', 'echo:2', 'echo:2']);
  });
});

describe('async and sync filters behave the same for listeners', () => {
  const failure = new RpcError(RpcErrorCode.NETWORK, 'connection reset');
  const businessError = new Error('business');
  const outcomes = {
    value: () => Promise.resolve(Result.of('v')),
    'business exception': () => Promise.resolve(Result.ofException(businessError)),
    rejection: () => Promise.reject(failure),
  } as const;
  const styles = [
    ['sync', 'sync', 'sync'],
    ['async', 'async', 'async'],
    ['late', 'late', 'late'],
    ['async', 'sync', 'late'],
  ] as const;

  for (const [outcome, answer] of Object.entries(outcomes)) {
    it.each(styles)(`${outcome}: filters styled %s, %s, %s`, async (s1, s2, s3) => {
      const { chain, events, trace } = testChain(new Origin(answer), {
        a: { style: s1, ...BOTH },
        b: { style: s2, ...BOTH },
        c: { style: s3, ...BOTH },
      });
      const settled = await Promise.resolve(chain.invoke(invocation())).then(
        (r) => ({ ok: true, r }),
        (e: unknown) => ({ ok: false, e }),
      );
      await flush();
      expect(trace).toEqual(['a', 'b', 'c']);
      if (outcome === 'rejection') {
        expect(settled).toEqual({ ok: false, e: failure });
        expect(hooks(events)).toEqual(['c.onError', 'b.onError', 'a.onError']);
        expect(events.every((e) => e.value === failure)).toBe(true);
      } else {
        expect(settled.ok).toBe(true);
        expect(hooks(events)).toEqual(['c.onResponse', 'b.onResponse', 'a.onResponse']);
        const result = events[0]?.value as Result;
        expect(events.every((e) => e.value === result)).toBe(true);
        expect(result.hasException()).toBe(outcome === 'business exception');
      }
    });
  }
});

describe('synchronous throws (§4.2)', () => {
  it('a sync throw in filter k reaches onError of k and of every outer filter with onError, innermost first, not inner ones, and propagates synchronously', async () => {
    const boom = new Error('boom');
    const origin = new Origin();
    const { chain, events, trace, logger } = testChain(origin, {
      a: { onError: true },
      b: {},
      c: BOTH,
      k: { onError: true, throws: boom },
      d: BOTH,
    });
    const inv = invocation();
    expect(syncThrowOf(() => chain.invoke(inv))).toBe(boom);
    expect(trace).toEqual(['a', 'b', 'c', 'k']);
    expect(origin.calls).toHaveLength(0);
    expect(hooks(events)).toEqual(['k.onError', 'c.onError', 'a.onError']);
    for (const e of events) {
      expect(e.value).toBe(boom);
      expect(e.invoker).toBe(origin);
      expect(e.invocation).toBe(inv);
    }
    // Once per call: nothing more fires later.
    await flush();
    expect(hooks(events)).toEqual(['k.onError', 'c.onError', 'a.onError']);
    expect(logger.entries).toEqual([]);
  });

  it('a sync throw of the invoker itself reaches every filter with onError, innermost first, and propagates synchronously', async () => {
    const boom = new Error('invoker threw');
    const origin = new Origin(() => {
      throw boom;
    });
    const { chain, events } = testChain(origin, { a: BOTH, b: {}, c: { onError: true } });
    expect(syncThrowOf(() => chain.invoke(invocation()))).toBe(boom);
    await flush();
    expect(hooks(events)).toEqual(['c.onError', 'a.onError']);
  });

  it('a sync throw also propagates synchronously out of a chain without hook filters', () => {
    const boom = new Error('boom');
    const { chain } = testChain(new Origin(), { a: {}, k: { throws: boom } });
    expect(syncThrowOf(() => chain.invoke(invocation()))).toBe(boom);
  });

  it('an outer filter that rethrows another error: each filter’s onError gets the error that passed through it', async () => {
    const boom = new Error('boom');
    const wrapped = new RpcError(RpcErrorCode.UNKNOWN, 'wrapped', { cause: boom });
    class Wrapping extends Filter {
      readonly label = 'w';
      invoke(invoker: Invoker, inv: Invocation): Result | Promise<Result> {
        try {
          return invoker.invoke(inv);
        } catch {
          throw wrapped;
        }
      }
    }
    const seen: [string, unknown][] = [];
    const w = new Wrapping();
    w.onError = (e) => seen.push(['w', e]);
    const k = new TestFilter('k', [], { throws: boom });
    k.onError = (e) => seen.push(['k', e]);
    const chain = buildFilterChain(new Origin(), [w, k], nameOf, new RecordingLogger());
    expect(syncThrowOf(() => chain.invoke(invocation()))).toBe(wrapped);
    await flush();
    expect(seen).toEqual([
      ['k', boom],
      ['w', wrapped],
    ]);
  });

  it('an async outer filter turns an inner sync throw into a rejection: every onError fires exactly once, innermost first (fixed: k.onError fired twice)', async () => {
    const boom = new Error('boom');
    const { chain, events, trace } = testChain(new Origin(), {
      a: { style: 'async', onError: true },
      k: { onError: true, throws: boom },
      d: { onError: true },
    });
    const answer = chain.invoke(invocation());
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toBe(boom);
    await flush();
    expect(trace).toEqual(['a', 'k']);
    // As for any rejected call, the inner filter d is told too (a rejected call reaches every onError).
    expect(hooks(events)).toEqual(['d.onError', 'k.onError', 'a.onError']);
    expect(events.every((e) => e.value === boom)).toBe(true);

    // ...exactly what an async k that rejects produces.
    class AsyncThrow extends Filter {
      readonly label = 'k';
      async invoke(): Promise<Result> {
        throw boom;
      }
    }
    const order: string[] = [];
    const mk = (label: string) => {
      const f = new TestFilter(label, [], { style: 'async' });
      f.onError = () => order.push(`${label}.onError`);
      return f;
    };
    const k = new AsyncThrow();
    k.onError = () => order.push('k.onError');
    const asyncChain = buildFilterChain(new Origin(), [mk('a'), k, mk('d')], nameOf, new RecordingLogger());
    await expect(asyncChain.invoke(invocation())).rejects.toBe(boom);
    expect(order).toEqual(hooks(events));
  });

  it('a sync throw after an outer filter awaited (outside the synchronous call) is reported once, as the rejection', async () => {
    const boom = new Error('late boom');
    const { chain, events } = testChain(new Origin(), {
      a: { style: 'late', onError: true },
      k: { onError: true, throws: boom },
    });
    await expect(chain.invoke(invocation())).rejects.toBe(boom);
    await flush();
    expect(hooks(events)).toEqual(['k.onError', 'a.onError']);
  });

  it('an outer filter recovering from an inner sync throw: every filter gets onResponse once and none onError (Weft: one hook per call; Dubbo also calls k.onError)', async () => {
    const boom = new Error('boom');
    const fallback = Result.of('fallback');
    class Recovering extends Filter {
      readonly label = 'r';
      invoke(invoker: Invoker, inv: Invocation): Result | Promise<Result> {
        try {
          return invoker.invoke(inv);
        } catch {
          return Promise.resolve(fallback);
        }
      }
    }
    const calls: string[] = [];
    const r = new Recovering();
    r.onResponse = () => calls.push('r.onResponse');
    r.onError = () => calls.push('r.onError');
    const k = new TestFilter('k', [], { throws: boom });
    k.onResponse = () => calls.push('k.onResponse');
    k.onError = () => calls.push('k.onError');
    const chain = buildFilterChain(new Origin(), [r, k], nameOf, new RecordingLogger());
    await expect(chain.invoke(invocation())).resolves.toBe(fallback);
    await flush();
    expect(calls).toEqual(['k.onResponse', 'r.onResponse']);
  });

  it('a filter that throws several times within one call (an outer filter retrying) gets onError once, with the last error', async () => {
    const errors = [new Error('first'), new Error('second')];
    let n = 0;
    class Flaky extends Filter {
      readonly label = 'flaky';
      invoke(): Result | Promise<Result> {
        throw errors[n++] as Error;
      }
    }
    class Retry extends Filter {
      readonly label = 'retry';
      invoke(invoker: Invoker, inv: Invocation): Result | Promise<Result> {
        try {
          return invoker.invoke(inv);
        } catch {
          return invoker.invoke(inv);
        }
      }
    }
    const seen: [string, unknown][] = [];
    const retry = new Retry();
    retry.onError = (e) => seen.push(['retry', e]);
    const flaky = new Flaky();
    flaky.onError = (e) => seen.push(['flaky', e]);
    const chain = buildFilterChain(new Origin(), [retry, flaky], nameOf, new RecordingLogger());
    expect(syncThrowOf(() => chain.invoke(invocation()))).toBe(errors[1]);
    await flush();
    expect(seen).toEqual([
      ['flaky', errors[1]],
      ['retry', errors[1]],
    ]);
  });
});

describe('throwing hooks (Weft: logged to the scope logger, outcome unchanged; Dubbo switches to error mode)', () => {
  it('a throwing onResponse is logged with the filter name; the caller still gets the result and the other filters still get onResponse with it', async () => {
    const hookError = new Error('onResponse exploded');
    const { chain, events, logger } = testChain(new Origin(), { a: BOTH, b: { ...BOTH, hookThrows: hookError }, c: BOTH });
    const result = await chain.invoke(invocation('r'));
    expect(result.value).toBe('echo:r');
    await flush();
    expect(hooks(events)).toEqual(['c.onResponse', 'b.onResponse', 'a.onResponse']);
    expect(events.every((e) => e.value === result)).toBe(true);
    expect(logger.entries).toHaveLength(1);
    expect(logger.entries[0]?.level).toBe('error');
    expect(logger.entries[0]?.message).toContain('"b"');
    expect(logger.entries[0]?.message).toContain('onResponse');
    expect(logger.entries[0]?.error).toBe(hookError);
  });

  it('a throwing onError is logged with the filter name; the caller still gets the original rejection and the other filters still get onError with it', async () => {
    const failure = new RpcError(RpcErrorCode.TIMEOUT, 'timed out');
    const hookError = new Error('onError exploded');
    const { chain, events, logger } = testChain(new Origin(() => Promise.reject(failure)), {
      a: BOTH,
      b: { ...BOTH, hookThrows: hookError },
      c: BOTH,
    });
    await expect(chain.invoke(invocation())).rejects.toBe(failure);
    await flush();
    expect(hooks(events)).toEqual(['c.onError', 'b.onError', 'a.onError']);
    expect(events.every((e) => e.value === failure)).toBe(true);
    expect(logger.entries).toHaveLength(1);
    expect(logger.entries[0]?.level).toBe('error');
    expect(logger.entries[0]?.message).toContain('"b"');
    expect(logger.entries[0]?.message).toContain('onError');
    expect(logger.entries[0]?.error).toBe(hookError);
  });

  it('a throwing onError on the synchronous path is logged; the original throw still propagates and outer filters still get it', async () => {
    const boom = new Error('boom');
    const hookError = new Error('hook exploded');
    const { chain, events, logger } = testChain(new Origin(), {
      a: { onError: true },
      k: { onError: true, throws: boom, hookThrows: hookError },
    });
    expect(syncThrowOf(() => chain.invoke(invocation()))).toBe(boom);
    await flush();
    expect(hooks(events)).toEqual(['k.onError', 'a.onError']);
    expect(events.map((e) => e.value)).toEqual([boom, boom]);
    expect(logger.entries.map((e) => [e.level, e.error])).toEqual([['error', hookError]]);
    expect(logger.entries[0]?.message).toContain('"k"');
  });

  it('a logger that throws too does not change the outcome', async () => {
    class ThrowingLogger extends Logger {
      debug(): void {
        throw new Error('logger down');
      }
      info(): void {
        throw new Error('logger down');
      }
      warn(): void {
        throw new Error('logger down');
      }
      error(): void {
        throw new Error('logger down');
      }
    }
    const f = new TestFilter('f', [], {});
    f.onResponse = () => {
      throw new Error('hook exploded');
    };
    const chain = buildFilterChain(new Origin(), [f], nameOf, new ThrowingLogger());
    await expect(chain.invoke(invocation('z'))).resolves.toMatchObject({ value: 'echo:z' });
  });
});

describe('answers that are not promises', () => {
  class Answering extends Filter {
    constructor(
      readonly label: string,
      private readonly answer: unknown,
    ) {
      super();
    }
    invoke(): Result | Promise<Result> {
      return this.answer as Promise<Result>;
    }
  }

  it.each([
    ['without hook filters', false],
    ['with a hook filter', true],
  ])('a bare Result from the outermost filter is the chain’s completed answer, with no promise (%s)', (_, withHook) => {
    const bare = Result.of('bare');
    const events: unknown[] = [];
    const filter = new Answering('bare', bare);
    if (withHook) filter.onResponse = (r) => events.push(r);
    const chain = buildFilterChain(new Origin(), [filter], nameOf, new RecordingLogger());
    const answer = chain.invoke(invocation());
    expect(answer).toBe(bare);
    // The hook already ran: a completed call is observed synchronously.
    expect(events).toEqual(withHook ? [bare] : []);
  });

  it('a bare Result from an inner filter reaches the outer filter as is, and whenSettled continues it synchronously', () => {
    const bare = Result.of('bare');
    const seen: unknown[] = [];
    class Then extends Filter {
      readonly label = 'then';
      invoke(invoker: Invoker, inv: Invocation): Result | Promise<Result> {
        const answer = invoker.invoke(inv);
        seen.push(answer);
        return whenSettled(answer, (r) => r.setAttachment('seen-by', 'then'));
      }
    }
    const chain = buildFilterChain(new Origin(), [new Then(), new Answering('bare', bare)], nameOf, new RecordingLogger());
    const answer = chain.invoke(invocation());
    expect(seen).toEqual([bare]);
    expect(answer).toBe(bare);
    expect(bare.getAttachment('seen-by')).toBe('then');
  });

  const bad: [string, unknown, string][] = [
    ['undefined', undefined, 'undefined'],
    ['a number', 42, 'number'],
    ['null', null, 'null'],
    ['a string', 'text', 'string'],
    ['a plain object', { value: 1 }, 'object'],
  ];

  it.each(bad)('%s from a filter rejects with RpcError `unknown` naming the filter and the Promise<Result> contract', async (_, value, kind) => {
    const chain = buildFilterChain(new Origin(), [new Answering('broken', value)], nameOf, new RecordingLogger());
    const answer = chain.invoke(invocation());
    expect(answer).toBeInstanceOf(Promise);
    const error = await Promise.resolve(answer).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.UNKNOWN);
    expect((error as RpcError).message).toContain('instead of a Result or a Promise<Result>');
    expect((error as RpcError).message).toContain(`returned ${kind}`);
    expect((error as RpcError).message).toContain('"broken"');
  });

  it('the rejection for a non-promise answer reaches onError of the listeners', async () => {
    const seen: unknown[] = [];
    const outer = new TestFilter('outer', [], {});
    outer.onError = (e) => seen.push(e);
    const chain = buildFilterChain(new Origin(), [outer, new Answering('broken', 7)], nameOf, new RecordingLogger());
    const error = await Promise.resolve(chain.invoke(invocation())).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RpcError);
    expect(seen).toEqual([error]);
  });

  it('undefined from an inner filter under an async outer filter rejects too (fixed: the call resolved with undefined)', async () => {
    const chain = buildFilterChain(
      new Origin(),
      [new TestFilter('outer', [], { style: 'async' }), new Answering('broken', undefined)],
      nameOf,
      new RecordingLogger(),
    );
    const error = await Promise.resolve(chain.invoke(invocation())).then(
      (r) => r,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.UNKNOWN);
    expect((error as RpcError).message).toContain('Filter "broken" returned undefined instead of a Result or a Promise<Result>');
  });
});
