// Completed calls answer synchronously: `Invoker.invoke` / `Filter.invoke` return the `Result` itself when the
// call completed without waiting (Dubbo's completed AsyncRpcResult), a promise only when something waits.
// These tests pin where the answer is synchronous, that nothing is lost on that path (hooks, attachments,
// deadlines, copies, the shutdown gate), and that waiting calls still get promises, timeouts and aborts.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  AbstractInvoker,
  buildFilterChain,
  Cluster,
  defineService,
  Filter,
  Invocation,
  Invoker,
  Logger,
  PendingResult,
  Protocol,
  Result,
  RpcError,
  RpcErrorCode,
  ServiceInvoker,
  URL,
  WeftApplication,
  whenSettled,
} from '@weft/core';

import { FirstCluster } from './support/first-cluster.js';

class QuietLogger extends Logger {
  readonly errors: string[] = [];
  debug(): void {}
  info(): void {}
  warn(): void {}
  error(message: string): void {
    this.errors.push(message);
  }
}

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  later: { args: [String], returns: String },
  fail: { args: [], returns: String },
});

const impl = {
  sayHello: (name: string) => `hello ${name}`,
  later: async (name: string) => `later ${name}`,
  fail: (): string => {
    throw new TypeError('no greeting');
  },
};

const URL_ = URL.parse('injvm://127.0.0.1/org.acme.Greeter?interface=org.acme.Greeter');

// ---------------------------------------------------------------------------------------------------------------

describe('whenSettled', () => {
  it('continues a completed Result synchronously, returning what onResult returns', () => {
    const result = Result.of(1);
    expect(whenSettled(result, (r) => (r.value as number) + 1)).toBe(2);
  });

  it('turns a throw of onResult on the synchronous path into a rejected promise (it never throws)', async () => {
    const boom = new Error('boom');
    const answer = whenSettled(Result.of(1), () => {
      throw boom;
    });
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toBe(boom);
  });

  it('a business error in a completed Result goes to onResult, never to onError', () => {
    const seen: string[] = [];
    const answer = whenSettled(
      Result.ofException(new Error('biz')),
      (r) => (seen.push(`result ${r.hasException()}`), r),
      (e) => (seen.push(`error ${String(e)}`), Result.of(undefined)),
    );
    expect(answer).toBeInstanceOf(Result);
    expect(seen).toEqual(['result true']);
  });

  it('chains a promise with then(onResult, onError)', async () => {
    await expect(whenSettled(Promise.resolve(Result.of('a')), (r) => `${String(r.value)}!`)).resolves.toBe('a!');
    const failure = new RpcError(RpcErrorCode.NETWORK, 'down');
    await expect(whenSettled(Promise.reject(failure), (r) => r, (e) => Result.of(`recovered ${(e as RpcError).code}`))).resolves.toMatchObject({
      value: 'recovered network',
    });
    await expect(whenSettled(Promise.reject(failure), (r) => r)).rejects.toBe(failure);
  });
});

describe('ServiceInvoker', () => {
  const invoker = new ServiceInvoker(Greeter, impl, URL_);

  it('answers a synchronous implementation with a completed Result', () => {
    const answer = invoker.invoke(Invocation.of('sayHello', ['ann'], Greeter));
    expect(answer).toBeInstanceOf(Result);
    expect((answer as Result).value).toBe('hello ann');
  });

  it('answers a synchronous throw with a completed Result carrying the business error', () => {
    const answer = invoker.invoke(Invocation.of('fail', [], Greeter));
    expect(answer).toBeInstanceOf(Result);
    expect((answer as Result).exception).toBeInstanceOf(TypeError);
  });

  it('answers an async implementation with one pending result (not a promise per layer)', async () => {
    const answer = invoker.invoke(Invocation.of('later', ['bob'], Greeter));
    expect(answer).toBeInstanceOf(PendingResult);
    expect((await answer).value).toBe('later bob');
  });

  it('still rejects an undeclared method (a framework failure stays a rejection)', async () => {
    const answer = invoker.invoke(Invocation.of('nope', [], Greeter));
    expect(answer).toBeInstanceOf(Promise);
    await expect(answer).rejects.toMatchObject({ code: RpcErrorCode.METHOD_NOT_FOUND });
  });
});

describe('filter chains', () => {
  class Tagging extends Filter {
    constructor(private readonly tag: string, private readonly log: string[]) {
      super();
    }
    invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
      this.log.push(`enter ${this.tag}`);
      return whenSettled(invoker.invoke(invocation), (result) => {
        this.log.push(`exit ${this.tag}`);
        return result;
      });
    }
    override onResponse(): void {
      this.log.push(`onResponse ${this.tag}`);
    }
  }

  it('a chain over a synchronous invoker answers synchronously, hooks already run, innermost first', () => {
    const log: string[] = [];
    const chain = buildFilterChain(
      new ServiceInvoker(Greeter, impl, URL_),
      [new Tagging('a', log), new Tagging('b', log)],
      (f) => (f as unknown as { tag: string }).tag,
      new QuietLogger(),
    );
    const answer = chain.invoke(Invocation.of('sayHello', ['x'], Greeter));
    expect(answer).toBeInstanceOf(Result);
    expect(log).toEqual(['enter a', 'enter b', 'exit b', 'exit a', 'onResponse b', 'onResponse a']);
  });

  it('a throwing onResponse on the synchronous path is logged; the caller still gets the Result', () => {
    const logger = new QuietLogger();
    class Throwing extends Filter {
      invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
        return invoker.invoke(invocation);
      }
      override onResponse(): void {
        throw new Error('hook broke');
      }
    }
    const chain = buildFilterChain(new ServiceInvoker(Greeter, impl, URL_), [new Throwing()], () => 'throwing', logger);
    const answer = chain.invoke(Invocation.of('sayHello', ['x'], Greeter));
    expect((answer as Result).value).toBe('hello x');
    expect(logger.errors).toEqual(['Filter "throwing" onResponse() threw; the call\'s outcome is unchanged.']);
  });

  it('a synchronous throw inside a filter reaches onError of it and every outer filter, and rejects', async () => {
    const seen: string[] = [];
    const failure = new RpcError(RpcErrorCode.FORBIDDEN, 'no');
    class Listening extends Filter {
      constructor(private readonly tag: string, private readonly fail: boolean) {
        super();
      }
      invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
        if (this.fail) throw failure;
        return invoker.invoke(invocation);
      }
      override onError(error: unknown): void {
        seen.push(`${this.tag} ${(error as RpcError).code}`);
      }
    }
    const chain = buildFilterChain(new ServiceInvoker(Greeter, impl, URL_), [new Listening('outer', false), new Listening('inner', true)], () => 'l', new QuietLogger());
    let answer: Result | Promise<Result> | undefined;
    let thrown: unknown;
    try {
      answer = chain.invoke(Invocation.of('sayHello', ['x'], Greeter));
    } catch (error) {
      thrown = error;
    }
    // The synchronous throw travels on (every caller in Weft tolerates it), after the hooks ran.
    expect(answer).toBeUndefined();
    expect(thrown).toBe(failure);
    expect(seen).toEqual(['inner forbidden', 'outer forbidden']);
  });
});

describe('AbstractInvoker', () => {
  class Completing extends AbstractInvoker {
    readonly seen: Invocation[] = [];
    constructor(url: URL, private readonly answer: () => Result | Promise<Result>) {
      super(url);
    }
    protected doInvoke(invocation: Invocation): Result | Promise<Result> {
      this.seen.push(invocation);
      return this.answer();
    }
  }

  it('with a timeout, a synchronous completion answers with the Result — and the deadline was still set for the call', () => {
    const invoker = new Completing(URL_.addParameter('timeout', 500), () => Result.of('done'));
    const before = Date.now();
    const invocation = Invocation.of('sayHello', ['x'], Greeter);
    const answer = invoker.invoke(invocation);
    expect(answer).toBeInstanceOf(Result);
    expect(invoker.seen[0]?.deadline).toBeGreaterThanOrEqual(before + 500);
    expect(invoker.seen[0]?.deadline).toBeLessThanOrEqual(Date.now() + 500);
  });

  it('with a signal, a synchronous completion answers with the Result; a later abort changes nothing', () => {
    const controller = new AbortController();
    const invoker = new Completing(URL_, () => Result.of('done'));
    const answer = invoker.invoke(new Invocation({ methodName: 'sayHello', args: ['x'], signal: controller.signal }));
    controller.abort();
    expect((answer as Result).value).toBe('done');
  });

  it('a pending call is still raced against its timeout', async () => {
    const invoker = new Completing(URL_.addParameter('timeout', 20), () => new Promise<Result>(() => {}));
    const answer = invoker.invoke(Invocation.of('sayHello', ['x'], Greeter));
    expect(answer).toBeInstanceOf(PendingResult);
    await expect(answer).rejects.toMatchObject({ code: RpcErrorCode.TIMEOUT });
  });

  it('a pending call is still cancelled by its signal', async () => {
    const controller = new AbortController();
    const invoker = new Completing(URL_.addParameter('timeout', 0), () => new Promise<Result>(() => {}));
    const answer = invoker.invoke(new Invocation({ methodName: 'sayHello', args: ['x'], signal: controller.signal }));
    controller.abort(new Error('user left'));
    await expect(answer).rejects.toMatchObject({ code: RpcErrorCode.CANCELLED });
  });

  it('an already-aborted signal rejects before calling, even when the call would complete synchronously', async () => {
    const invoker = new Completing(URL_, () => Result.of('done'));
    const answer = invoker.invoke(new Invocation({ methodName: 'sayHello', args: ['x'], signal: AbortSignal.abort() }));
    await expect(answer).rejects.toMatchObject({ code: RpcErrorCode.CANCELLED });
    expect(invoker.seen).toHaveLength(0);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// End to end through injvm: proxy → cluster → consumer chain → injvm → provider chain → implementation.

const hooks: string[] = [];
class ProviderHook extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    return whenSettled(invoker.invoke(invocation), (result) => result.setAttachment('served', 'yes'));
  }
  override onResponse(result: Result): void {
    hooks.push(`provider onResponse ${String(result.value)}`);
  }
}
class ConsumerHook extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    invocation.setAttachment('trace', 't-1');
    return invoker.invoke(invocation);
  }
  override onResponse(result: Result): void {
    hooks.push(`consumer onResponse ${String(result.getAttachment('served'))}`);
  }
}

const apps: WeftApplication[] = [];
const roots: string[] = [];
afterEach(async () => {
  hooks.length = 0;
  await Promise.all(apps.splice(0).map((app) => app.shutdown({ timeout: 200 })));
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

async function startApp(): Promise<WeftApplication> {
  const root = mkdtempSync(join(tmpdir(), 'weft-sync-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 't', version: '1.0.0' }));
  const app = await WeftApplication.start({ root, name: 't', logger: new QuietLogger() });
  apps.push(app);
  app.model.getExtensionLoader(Cluster).addExtension('failover', FirstCluster);
  const filters = app.model.getExtensionLoader(Filter);
  filters.addExtension('providerhook', ProviderHook, { activate: { group: ['provider'] } });
  filters.addExtension('consumerhook', ConsumerHook, { activate: { group: ['consumer'] } });
  await app.export(Greeter, impl);
  return app;
}

describe('injvm end to end with a synchronous implementation', () => {
  it.each([
    ['zero-copy', 'false'],
    ['copying', 'true'],
  ])('%s: the protocol invoker answers synchronously, through both chains, with attachments both ways', async (_, copy) => {
    const app = await startApp();
    const protocol = app.model.getExtensionLoader(Protocol).getExtension('injvm');
    const invoker = await protocol.refer(Greeter, URL_.addParameter('copy', copy));
    const answer = invoker.invoke(Invocation.of('sayHello', ['ann'], Greeter));
    expect(answer).toBeInstanceOf(Result);
    expect((answer as Result).value).toBe('hello ann');
    expect((answer as Result).getAttachment('served')).toBe('yes');
    // The loader's injvm protocol is wrapped by ProtocolFilterWrapper: both chains ran before invoke returned.
    expect(hooks).toEqual(['provider onResponse hello ann', 'consumer onResponse yes']);
  });

  it('the proxy returns an already-settled promise: value, hooks on both sides', async () => {
    const app = await startApp();
    const greeter = await app.refer(Greeter, { parameters: { copy: 'false' } });
    const pending = greeter.sayHello('ann');
    // Both chains ran before the proxy returned.
    expect(hooks).toEqual(['provider onResponse hello ann', 'consumer onResponse yes']);
    await expect(pending).resolves.toBe('hello ann');
  });

  it('a synchronous business error reaches the caller as thrown, as a rejection', async () => {
    const app = await startApp();
    const greeter = await app.refer(Greeter, { parameters: { copy: 'false' } });
    await expect(greeter.fail()).rejects.toBeInstanceOf(TypeError);
  });

  it('a timeout costs no timer for a synchronous call, yet the provider sees the deadline; a waiting call arms one', async () => {
    const app = await startApp();
    const deadlines: (number | undefined)[] = [];
    class DeadlineSpy extends Filter {
      invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
        deadlines.push(invocation.deadline);
        return invoker.invoke(invocation);
      }
    }
    app.model.getExtensionLoader(Filter).addExtension('deadlinespy', DeadlineSpy, { activate: { group: ['provider'] } });
    const Other = defineService('org.acme.Other', { ping: { args: [], returns: String }, slow: { args: [], returns: String } });
    await app.export(Other, { ping: () => 'pong', slow: async () => 'slow pong' });
    const other = await app.refer(Other, { timeout: 300 });
    // The deadline wheel arms its interval timer on its first pending entry (an unref'd timer, invisible to
    // getActiveResourcesInfo): watch setInterval itself.
    const armed = vi.spyOn(globalThis, 'setInterval');
    try {
      const before = Date.now();
      const pending = other.ping();
      expect(armed).not.toHaveBeenCalled();
      await expect(pending).resolves.toBe('pong');
      expect(deadlines[0]).toBeGreaterThanOrEqual(before + 300);
      const waiting = other.slow();
      expect(armed).toHaveBeenCalledTimes(1);
      await expect(waiting).resolves.toBe('slow pong');
    } finally {
      armed.mockRestore();
    }
  });

  it('an async implementation still answers through promises, and the shutdown gate counts both kinds out', async () => {
    const app = await startApp();
    const greeter = await app.refer(Greeter, { parameters: { copy: 'false' } });
    const results = await Promise.all([greeter.sayHello('a'), greeter.later('b'), greeter.fail().catch((e: unknown) => e)]);
    expect(results[0]).toBe('hello a');
    expect(results[1]).toBe('later b');
    expect(results[2]).toBeInstanceOf(TypeError);
    // Nothing is left in flight: shutdown drains at once.
    const started = Date.now();
    await app.shutdown({ timeout: 1000 });
    expect(Date.now() - started).toBeLessThan(500);
  });
});
