// End to end through injvm: force and fail mock, expression forms, runtime overrides, mock:// providers, validation
// (dubbo-semantics.md §3.2–3.4; wire-and-registry.md §B.5.4 step 7, §B.6, Part C).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  Cluster,
  defineService,
  ExtensionError,
  ExtensionErrorCode,
  Invocation,
  Invoker,
  Protocol,
  Result,
  RpcError,
  RpcErrorCode,
  StaticDirectory,
  URL,
  WeftApplication,
  type ServiceImplementation,
} from '@weft/core';
import { MockClusterInvoker, MockClusterWrapper, MockInvoker, MockRegistry } from '@weft/mock';
import { createTestApp, RecordingLogger } from '@weft/test-utils';

class User {
  name = '';
}

class InsufficientFunds extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InsufficientFunds';
  }
}

class Unavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Unavailable';
  }
}

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  count: { returns: Number },
  ok: { returns: Boolean },
  user: { returns: User },
  users: { returns: [User] },
  tags: { returns: Set },
  meta: { returns: Map },
  info: { returns: Object },
  when: { returns: Date },
  nothing: {},
  risky: { returns: String, throws: [InsufficientFunds] },
});

/** A service with no String method: an interface-level `return` value must fit one of these. */
const Counter = defineService('org.acme.Counter', {
  count: { returns: Number },
  ok: { returns: Boolean },
});

const MOCKED = 'mocked exception for service degradation.';
const NO_PROVIDER = 'No injvm provider of org.acme.Greeter in this application';
const MOCK_URL = 'mock://0.0.0.0/org.acme.Greeter';

let app: WeftApplication;
let logger: RecordingLogger;
let cleanup: () => void;

beforeEach(async () => {
  const created = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock']);
  cleanup = created.cleanup;
  logger = new RecordingLogger();
  app = await WeftApplication.start({ root: created.root, name: 'shop', logger });
});

afterEach(async () => {
  await app.shutdown();
  cleanup();
});

interface Provider {
  /** Calls that reached the implementation, by method. */
  readonly calls: string[];
  readonly impl: ServiceImplementation<typeof Greeter.methods>;
}

/** A real implementation that records its calls; `risky` fails with a business error, sync or async. */
function provider(options: { readonly slowMs?: number; readonly risky?: 'sync' | 'async' } = {}): Provider {
  const calls: string[] = [];
  const record = <T>(method: string, value: T): T => {
    calls.push(method);
    return value;
  };
  const impl: ServiceImplementation<typeof Greeter.methods> = {
    sayHello: async (name) => {
      calls.push('sayHello');
      if (options.slowMs !== undefined) await new Promise((resolve) => setTimeout(resolve, options.slowMs));
      return `hi ${name}`;
    },
    count: () => record('count', 42),
    ok: () => record('ok', true),
    user: () => record('user', Object.assign(new User(), { name: 'real' })),
    users: () => record('users', []),
    tags: () => record('tags', new Set(['real'])),
    meta: () => record('meta', new Map()),
    info: () => record('info', { real: true }),
    when: () => record('when', new Date(0)),
    nothing: () => {
      calls.push('nothing');
    },
    risky: () => {
      calls.push('risky');
      if (options.risky === 'async') return Promise.reject(new InsufficientFunds('no money (async)'));
      throw new InsufficientFunds('no money');
    },
  };
  return { calls, impl };
}

/** What a call settled with. */
async function settle<T>(call: T | Promise<T>): Promise<{ value: T } | { error: unknown }> {
  try {
    return { value: await call };
  } catch (error) {
    return { error };
  }
}

async function rejection(call: unknown): Promise<unknown> {
  const outcome = await settle(call);
  if ('value' in outcome) throw new Error(`expected a rejection, got ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

async function rpcRejection(call: unknown): Promise<RpcError> {
  const error = await rejection(call);
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

async function referRejection(call: Promise<unknown>): Promise<ExtensionError> {
  const error = await rejection(call);
  expect(error).toBeInstanceOf(ExtensionError);
  expect((error as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
  return error as ExtensionError;
}

function overrideError(run: () => unknown): ExtensionError {
  let thrown: unknown;
  try {
    run();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ExtensionError);
  expect((thrown as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
  return thrown as ExtensionError;
}

describe('fail mock: degrades framework failures only', () => {
  it('provider gone (unexported): the consumer gets the mock value, and the failure is logged', async () => {
    const p = provider();
    const exported = await app.export(Greeter, p.impl);
    const greeter = await app.refer(Greeter, { mock: 'fail:return "degraded"', retries: 0 });
    expect(await greeter.sayHello('ann')).toBe('hi ann');
    await exported.unexport();
    expect(await greeter.sayHello('ann')).toBe('degraded');
    expect(p.calls).toEqual(['sayHello']);
    expect(logger.of('warn').some((m) => m.startsWith('fail-mock org.acme.Greeter.sayHello after: ') && m.includes(NO_PROVIDER))).toBe(true);
  });

  it('timeout: the consumer gets the mock value instead of the timeout', async () => {
    const p = provider({ slowMs: 150 });
    await app.export(Greeter, p.impl);
    const plain = await app.refer(Greeter, { timeout: 30, retries: 0 });
    expect((await rpcRejection(plain.sayHello('ann'))).code).toBe(RpcErrorCode.TIMEOUT);
    const greeter = await app.refer(Greeter, { timeout: 30, retries: 0, mock: 'return "too slow"' });
    expect(await greeter.sayHello('ann')).toBe('too slow');
    expect(p.calls).toEqual(['sayHello', 'sayHello']);
    expect(logger.of('warn').some((m) => m.startsWith('fail-mock org.acme.Greeter.sayHello after: ') && m.includes('timed out after 30 ms'))).toBe(true);
  });

  it('no provider ever exported (no-invoker): the consumer gets the mock value', async () => {
    const plain = await app.refer(Greeter, { retries: 0 });
    expect((await rpcRejection(plain.count())).code).toBe(RpcErrorCode.NO_INVOKER);
    const greeter = await app.refer(Greeter, { retries: 0, mock: 'fail:return 5' });
    expect(await greeter.count()).toBe(5);
  });

  it('a directory that lists no provider at all (only mock:// entries): the cluster’s no-invoker is degraded', async () => {
    const greeter = await app.refer(Greeter, { retries: 0, mock: 'fail:return 5', url: `${MOCK_URL}?sayHello.mock=return+aa` });
    expect(await greeter.count()).toBe(5);
    expect(await greeter.sayHello('ann')).toBe('aa');
  });

  it('with default retries, failover exhausts its attempts before the mock answers', async () => {
    const greeter = await app.refer(Greeter, { mock: 'return 9' });
    expect(await greeter.count()).toBe(9);
    expect(logger.of('warn').some((m) => m.includes('fail-mock org.acme.Greeter.count after: Failed to invoke the method count') && m.includes('Tried 3 times'))).toBe(true);
  });

  it.each(['sync', 'async'] as const)('a business error the implementation throws (%s) is NOT mocked: it reaches the caller as thrown', async (mode) => {
    const p = provider({ risky: mode });
    await app.export(Greeter, p.impl);
    const greeter = await app.refer(Greeter, { mock: 'fail:return "mocked"', retries: 0 });
    const error = await rejection(greeter.risky());
    expect(error).toBeInstanceOf(InsufficientFunds);
    expect(error).not.toBeInstanceOf(RpcError);
    expect((error as Error).message).toBe(mode === 'sync' ? 'no money' : 'no money (async)');
    expect(p.calls).toEqual(['risky']);
  });

  it('an undeclared business error is not mocked either', async () => {
    const p = provider();
    await app.export(Greeter, { ...p.impl, sayHello: () => Promise.reject(new Error('bad name')) });
    const greeter = await app.refer(Greeter, { mock: 'return "mocked"', retries: 0 });
    const error = await rejection(greeter.sayHello('x'));
    expect(error).not.toBeInstanceOf(RpcError);
    expect((error as Error).message).toBe('bad name');
  });
});

class FakeInvoker extends Invoker {
  calls = 0;
  constructor(
    private readonly url: URL,
    private readonly outcome: () => Result | Promise<Result>,
  ) {
    super();
  }
  getUrl(): URL {
    return this.url;
  }
  invoke(): Result | Promise<Result> {
    this.calls++;
    return this.outcome();
  }
}

function consumerUrl(parameters: Record<string, string>): URL {
  return new URL({
    protocol: 'consumer',
    host: '127.0.0.1',
    path: Greeter.name,
    parameters: { interface: Greeter.name, side: 'consumer', methods: Greeter.methodNames.join(','), ...parameters },
  });
}

function joinFailfast(url: URL, invokers: Invoker[]): Invoker {
  return app.model.getExtensionLoader(Cluster).getExtension('failfast').join(new StaticDirectory(Greeter, url, invokers));
}

describe('fail mock: which rejections are degraded (hand-built directory, failfast cluster)', () => {
  const providerUrl = URL.parse('fake://127.0.0.1:1/org.acme.Greeter');

  it('a non-business RpcError is degraded', async () => {
    const fake = new FakeInvoker(providerUrl, () => Promise.reject(new RpcError(RpcErrorCode.NETWORK, 'connection reset')));
    const invoker = joinFailfast(consumerUrl({ mock: 'fail:return 3' }), [fake]);
    const result = await invoker.invoke(Invocation.of('count', [], Greeter));
    expect(result.recreate()).toBe(3);
    expect(fake.calls).toBe(1);
  });

  it('a business RpcError (code biz) is rethrown, not degraded', async () => {
    const biz = new RpcError(RpcErrorCode.BIZ, 'wrapped business failure', { cause: new InsufficientFunds('no money') });
    const invoker = joinFailfast(consumerUrl({ mock: 'fail:return 3' }), [new FakeInvoker(providerUrl, () => Promise.reject(biz))]);
    const error = await rpcRejection(invoker.invoke(Invocation.of('count', [], Greeter)));
    expect(error.isBiz).toBe(true);
    expect(error.cause).toBeInstanceOf(InsufficientFunds);
  });

  it('a result carrying an exception passes through as is', async () => {
    const failure = new InsufficientFunds('no money');
    const invoker = joinFailfast(consumerUrl({ mock: 'fail:return 3' }), [new FakeInvoker(providerUrl, async () => Result.ofException(failure))]);
    const result = await invoker.invoke(Invocation.of('count', [], Greeter));
    expect(result.hasException()).toBe(true);
    expect(result.exception).toBe(failure);
  });
});

describe('MockClusterInvoker on its own (inner invoker without a cluster)', () => {
  const providerUrl = URL.parse('fake://127.0.0.1:1/org.acme.Greeter');

  function direct(url: URL, inner: Invoker, directory = new StaticDirectory(Greeter, url, [])): MockClusterInvoker {
    return new MockClusterInvoker(directory, inner, MockRegistry.of(app.model), logger);
  }

  it('a non-RpcError rejection propagates unchanged in fail mode (Dubbo: non-RpcException throwables)', async () => {
    const failure = new TypeError('not an RpcError');
    const invoker = direct(consumerUrl({ mock: 'fail:return 3' }), new FakeInvoker(providerUrl, () => Promise.reject(failure)));
    expect(await rejection(invoker.invoke(Invocation.of('count', [], Greeter)))).toBe(failure);
  });

  it('a synchronous throw of the inner invoker is handled like a rejection', async () => {
    class Throwing extends FakeInvoker {
      override invoke(): Promise<Result> {
        throw new RpcError(RpcErrorCode.NETWORK, 'thrown before any promise');
      }
    }
    const invoker = direct(consumerUrl({ mock: 'fail:return 3' }), new Throwing(providerUrl, () => Promise.resolve(Result.of(0))));
    expect((await invoker.invoke(Invocation.of('count', [], Greeter))).value).toBe(3);
  });

  it('listing mock:// providers fails: logged at info, the consumer’s own mock answers', async () => {
    class BrokenDirectory extends StaticDirectory {
      override listMockInvokers(): readonly Invoker[] {
        throw new RpcError(RpcErrorCode.REGISTRY, 'registry unreachable');
      }
    }
    const url = consumerUrl({ mock: 'force:return 4' });
    const invoker = direct(url, new FakeInvoker(providerUrl, () => Promise.resolve(Result.of(0))), new BrokenDirectory(Greeter, url, []));
    expect((await invoker.invoke(Invocation.of('count', [], Greeter))).value).toBe(4);
    expect(logger.of('info')).toContain("listing mock:// providers failed, using the consumer's mock setting: registry unreachable");
  });

  it('delegates getUrl and isAvailable to the directory, and destroy to the inner invoker', async () => {
    const url = consumerUrl({});
    let destroyed = 0;
    class Destroyable extends FakeInvoker {
      override destroy(): void {
        destroyed++;
      }
    }
    const directory = new StaticDirectory(Greeter, url, [new FakeInvoker(providerUrl, () => Promise.resolve(Result.of(0)))]);
    const invoker = direct(url, new Destroyable(providerUrl, () => Promise.resolve(Result.of(1))), directory);
    expect(invoker.getUrl()).toBe(url);
    expect(invoker.isAvailable()).toBe(true);
    directory.configure(consumerUrl({ mock: 'force:return 5' }));
    expect(invoker.getUrl()).toBe(directory.getUrl());
    expect((await invoker.invoke(Invocation.of('count', [], Greeter))).value).toBe(5);
    await invoker.destroy();
    expect(destroyed).toBe(1);
  });
});

describe('force mock', () => {
  it('never calls the provider', async () => {
    const p = provider();
    await app.export(Greeter, p.impl);
    const greeter = await app.refer(Greeter, { mock: 'force:return "forced"', retries: 0 });
    expect(await greeter.sayHello('a')).toBe('forced');
    expect(await greeter.sayHello('b')).toBe('forced');
    expect(await greeter.$call('sayHello', ['c'])).toBe('forced');
    expect(p.calls).toEqual([]);
    expect(logger.of('debug')).toContain('force-mock org.acme.Greeter.sayHello: no provider is called');
  });

  it('answers with no provider at all', async () => {
    const greeter = await app.refer(Greeter, { mock: 'force:return 11' });
    expect(await greeter.count()).toBe(11);
  });

  it('each return type gets its realised value, fresh per call', async () => {
    const greeter = await app.refer(Greeter, {
      mock: 'force:return null',
      methods: {
        count: { mock: 'force:return -1' },
        ok: { mock: 'force:return "true"' },
        user: { mock: 'force:return {name: `ann`}' },
        users: { mock: 'force:return [{name: "a"}]' },
        tags: { mock: 'force:return ["x", "x", "y"]' },
        meta: { mock: 'force:return {k: 1}' },
        info: { mock: 'force:return empty' },
        when: { mock: 'force:return 1700000000000' },
        nothing: { mock: 'force:return 5' },
      },
    });
    expect(await greeter.sayHello('a')).toBeNull();
    expect(await greeter.count()).toBe(-1);
    expect(await greeter.ok()).toBe(true);
    const user = await greeter.user();
    expect(user).toBeInstanceOf(User);
    expect(user).toMatchObject({ name: 'ann' });
    expect(await greeter.user()).not.toBe(user);
    const users = await greeter.users();
    expect(users).toHaveLength(1);
    expect(users[0]).toBeInstanceOf(User);
    expect(await greeter.tags()).toEqual(new Set(['x', 'y']));
    expect(await greeter.meta()).toEqual(new Map([['k', 1]]));
    expect(await greeter.info()).toStrictEqual({});
    expect(await greeter.when()).toEqual(new Date(1700000000000));
    expect(await greeter.nothing()).toBeUndefined();
  });
});

describe('method level beats interface level', () => {
  it('a method-level value replaces the interface-level one for that method only', async () => {
    const p = provider();
    await app.export(Greeter, p.impl);
    const greeter = await app.refer(Greeter, { mock: 'force:return null', methods: { count: { mock: 'force:return 7' } } });
    expect(await greeter.count()).toBe(7);
    expect(await greeter.sayHello('a')).toBeNull();
    expect(p.calls).toEqual([]);
  });

  it('a method-level force beats an interface-level fail (the provider is not called for that method)', async () => {
    const p = provider();
    await app.export(Greeter, p.impl);
    const greeter = await app.refer(Greeter, { mock: 'fail:return null', methods: { count: { mock: 'force:return 3' } } });
    expect(await greeter.sayHello('a')).toBe('hi a');
    expect(await greeter.count()).toBe(3);
    expect(p.calls).toEqual(['sayHello']);
  });

  it('a method-level fail beats an interface-level force (the provider is called for that method)', async () => {
    const p = provider();
    await app.export(Greeter, p.impl);
    const greeter = await app.refer(Greeter, { mock: 'force:return null', methods: { sayHello: { mock: 'fail:return "f"' } } });
    expect(await greeter.sayHello('a')).toBe('hi a');
    expect(await greeter.count()).toBeNull();
    expect(p.calls).toEqual(['sayHello']);
  });

  it.each(['false', '0', 'null', 'N/A'])('a method-level %j disables an interface-level force for that method', async (off) => {
    const p = provider();
    await app.export(Greeter, p.impl);
    const greeter = await app.refer(Greeter, { mock: 'force:return null', methods: { count: { mock: off } } });
    expect(await greeter.count()).toBe(42);
    expect(await greeter.sayHello('a')).toBeNull();
    expect(p.calls).toEqual(['count']);
  });
});

describe('ConfigUtils-empty values disable mock', () => {
  it.each(['false', 'FALSE', '0', 'null', 'NULL', 'N/A', 'n/a', '', ' false ', '   '])('mock=%j: failures are not degraded and the provider answers', async (off) => {
    const plain = await app.refer(Greeter, { mock: off, retries: 0 });
    expect((await rpcRejection(plain.count())).code).toBe(RpcErrorCode.NO_INVOKER);
    const p = provider();
    await app.export(Greeter, p.impl);
    expect(await plain.count()).toBe(42);
  });
});

describe('runtime URL changes (no re-refer)', () => {
  it('fail → force → false between two calls', async () => {
    const p = provider();
    const exported = await app.export(Greeter, p.impl);
    const greeter = await app.refer(Greeter, { mock: 'fail:return 1', retries: 0 });
    expect(await greeter.count()).toBe(42);
    expect(p.calls).toEqual(['count']);

    app.override(greeter, { mock: 'force:return 2' });
    expect(app.getReferenceUrl(greeter)?.getParameter('mock')).toBe('force:return 2');
    expect(await greeter.count()).toBe(2);
    expect(p.calls).toEqual(['count']);

    app.override(greeter, { mock: 'false' });
    expect(await greeter.count()).toBe(42);
    expect(p.calls).toEqual(['count', 'count']);

    await exported.unexport();
    expect((await rpcRejection(greeter.count())).code).toBe(RpcErrorCode.NO_INVOKER);

    app.override(greeter, { mock: 'fail:return 3' });
    expect(await greeter.count()).toBe(3);

    app.override(greeter, {});
    expect(app.getReferenceUrl(greeter)?.getParameter('mock')).toBe('fail:return 1');
    expect(await greeter.count()).toBe(1);
  });

  it('a reference referred without mock can be degraded by an override, per method', async () => {
    const p = provider();
    await app.export(Greeter, p.impl);
    const greeter = await app.refer(Greeter);
    app.override(greeter, { 'count.mock': 'force:return 9' });
    expect(await greeter.count()).toBe(9);
    expect(await greeter.sayHello('a')).toBe('hi a');
    app.override(greeter, { 'count.mock': null });
    expect(await greeter.count()).toBe(42);
  });

  it('an override changes the value too, not only the trigger', async () => {
    const greeter = await app.refer(Greeter, { mock: 'force:return 1' });
    expect(await greeter.count()).toBe(1);
    app.override(greeter, { mock: 'force:return 2' });
    expect(await greeter.count()).toBe(2);
    app.override(greeter, { mock: 'force:throw' });
    expect((await rpcRejection(greeter.count())).mocked).toBe(true);
    app.override(greeter, {});
    expect(await greeter.count()).toBe(1);
  });

  it('a rejected override leaves the previous behaviour in place', async () => {
    const greeter = await app.refer(Greeter, { mock: 'force:return 1' });
    const referred = app.getReferenceUrl(greeter);
    const error = overrideError(() => app.override(greeter, { 'count.mock': 'force:return abc' }));
    expect(error.message).toMatch(
      /^override\(org\.acme\.Greeter\): count\.mock=force:return abc is not a valid mock expression: for count\(\): mock value of count: expected Number, got "abc"\. Expected \[force:\|fail:\]/,
    );
    expect(app.getReferenceUrl(greeter)).toBe(referred);
    expect(await greeter.count()).toBe(1);

    app.override(greeter, { mock: 'force:return 2' });
    const accepted = app.getReferenceUrl(greeter);
    overrideError(() => app.override(greeter, { mock: 'force:throw Nope' }));
    overrideError(() => app.override(greeter, { mock: 'force:RETURN 3' }));
    expect(app.getReferenceUrl(greeter)).toBe(accepted);
    expect(await greeter.count()).toBe(2);
  });
});

describe('throw', () => {
  it('bare "throw": a non-business RpcError, mocked: true, exactly "mocked exception for service degradation." (Dubbo prefixes "mock error : ")', async () => {
    const greeter = await app.refer(Greeter, { mock: 'force:throw' });
    const error = await rpcRejection(greeter.count());
    expect(error.mocked).toBe(true);
    expect(error.isBiz).toBe(false);
    expect(error.code).toBe(RpcErrorCode.UNKNOWN);
    expect(error.message).toBe(MOCKED);
    expect(error.cause).toBeUndefined();
  });

  it('bare "throw" in fail mode: the same error, with the original failure as its cause', async () => {
    const greeter = await app.refer(Greeter, { mock: 'fail:throw', retries: 0 });
    const error = await rpcRejection(greeter.count());
    expect(error.mocked).toBe(true);
    expect(error.isBiz).toBe(false);
    expect(error.message).toBe(MOCKED);
    expect(error.cause).toBeInstanceOf(RpcError);
    expect((error.cause as RpcError).code).toBe(RpcErrorCode.NO_INVOKER);
    expect((error.cause as RpcError).message).toContain(NO_PROVIDER);
  });

  it('errors that are not mocked carry mocked: false', async () => {
    const plain = await app.refer(Greeter, { retries: 0 });
    expect((await rpcRejection(plain.count())).mocked).toBe(false);
  });

  it('"throw <Declared>": the error declared in the method’s throws, as a business error, a NEW instance per call (Dubbo shares one)', async () => {
    const greeter = await app.refer(Greeter, { methods: { risky: { mock: 'force:throw InsufficientFunds' } } });
    const first = await rejection(greeter.risky());
    const second = await rejection(greeter.risky());
    expect(first).toBeInstanceOf(InsufficientFunds);
    expect(first).not.toBeInstanceOf(RpcError);
    expect((first as Error).message).toBe(MOCKED);
    expect(second).toBeInstanceOf(InsufficientFunds);
    expect(second).not.toBe(first);
  });

  it('"throw <Declared>" in fail mode (provider gone) is a business error too, not wrapped', async () => {
    const greeter = await app.refer(Greeter, { retries: 0, methods: { risky: { mock: 'throw InsufficientFunds' } } });
    const error = await rejection(greeter.risky());
    expect(error).toBeInstanceOf(InsufficientFunds);
    expect((error as Error).message).toBe(MOCKED);
  });

  it('"throw <Registered>": an error registered with MockRegistry, for every method, fresh per call', async () => {
    MockRegistry.of(app.model).registerError('Unavailable', Unavailable);
    const greeter = await app.refer(Greeter, { mock: 'force:throw Unavailable' });
    const first = await rejection(greeter.count());
    const second = await rejection(greeter.sayHello('a'));
    expect(first).toBeInstanceOf(Unavailable);
    expect(second).toBeInstanceOf(Unavailable);
    expect(first).not.toBe(second);
    expect((first as Error).message).toBe(MOCKED);
  });

  it('a name declared by the method beats the same name in the registry', async () => {
    class OtherFunds extends Error {}
    MockRegistry.of(app.model).registerError('InsufficientFunds', OtherFunds);
    const greeter = await app.refer(Greeter, { mock: 'force:throw InsufficientFunds' });
    expect(await rejection(greeter.risky())).toBeInstanceOf(InsufficientFunds);
    const other = await rejection(greeter.count());
    expect(other).toBeInstanceOf(OtherFunds);
    expect(other).not.toBeInstanceOf(InsufficientFunds);
  });

  it('differs from Dubbo: names are never loaded from strings — a global class such as TypeError is rejected at refer', async () => {
    for (const name of ['TypeError', 'Error', 'globalThis.Error', 'org.acme.Unavailable']) {
      const error = await referRejection(app.refer(Greeter, { mock: `force:throw ${name}` }));
      expect(error.message).toContain(
        `refer(org.acme.Greeter): mock=force:throw ${name} is not a valid mock expression: no error class "${name}" is declared by the method or registered with MockRegistry.registerError (registered: none).`,
      );
    }
  });

  it('an interface-level "throw <Declared>" needs every method to declare it (or a registration)', async () => {
    const error = await referRejection(app.refer(Greeter, { mock: 'force:throw InsufficientFunds' }));
    expect(error.message).toContain('no error class "InsufficientFunds" is declared by the method or registered');
    const risky = await app.refer(Greeter, { methods: { risky: { mock: 'force:throw InsufficientFunds' } } });
    expect(await rejection(risky.risky())).toBeInstanceOf(InsufficientFunds);
  });

  it('a registered error whose constructor throws: "mock throw error: <name> argument error."', async () => {
    class Broken extends Error {
      constructor(message: string) {
        super(message);
        throw new Error('cannot build');
      }
    }
    MockRegistry.of(app.model).registerError('Broken', Broken);
    const greeter = await app.refer(Greeter, { mock: 'force:throw Broken' });
    const error = await rpcRejection(greeter.count());
    expect(error.message).toBe('mock error: mock throw error: Broken argument error.');
    expect(error.isBiz).toBe(false);
  });
});

describe('implementation mocks (registered, never loaded by name)', () => {
  const mockImpl = {
    sayHello: (name: string) => `mock hello ${name}`,
    count: async () => 5,
    risky: () => {
      throw new InsufficientFunds('mock says no');
    },
    ok: () => Promise.reject(new Unavailable('mock rejects')),
  };

  it.each(['force', 'force:default', ' force ', 'FORCE'])('%j → the default implementation answers, without calling the provider', async (mock) => {
    MockRegistry.of(app.model).registerImplementation(Greeter, mockImpl);
    const p = provider();
    await app.export(Greeter, p.impl);
    const greeter = await app.refer(Greeter, { mock, retries: 0 });
    if (mock === 'FORCE') {
      // "FORCE" is the default implementation (keyword, any case) but fail mock (prefix, case-sensitive).
      expect(await greeter.count()).toBe(42);
      return;
    }
    expect(await greeter.sayHello('ann')).toBe('mock hello ann');
    expect(await greeter.count()).toBe(5);
    expect(p.calls).toEqual([]);
  });

  it.each(['force:true', 'force:TRUE', 'force:default', 'force:fail', 'force:force'])(
    '%j → the default implementation answers, without calling the provider (Dubbo: isDefault after normalizeMock)',
    async (mock) => {
      // Accepted at refer before anything is registered (a mock:// provider may supply the values) …
      const early = await app.refer(Greeter, { mock });
      expect((await rpcRejection(early.count())).message).toBe(
        'mock error: Failed to create mock implementation of org.acme.Greeter: none is registered (registered for org.acme.Greeter: none).',
      );
      // … and answered by the default implementation once it is.
      MockRegistry.of(app.model).registerImplementation(Greeter, mockImpl);
      const p = provider();
      await app.export(Greeter, p.impl);
      const greeter = await app.refer(Greeter, { mock });
      expect(await greeter.count()).toBe(5);
      expect(await greeter.sayHello('ann')).toBe('mock hello ann');
      expect(p.calls).toEqual([]);
    },
  );

  it.each(['true', 'fail', 'force', 'TRUE', 'return', 'throwaway', 'false', 'null'])(
    'a mock named %j could never be reached by an expression: registering it is refused, saying what it means',
    (name) => {
      let thrown: unknown;
      try {
        MockRegistry.of(app.model).registerImplementation(Greeter, mockImpl, name);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ExtensionError);
      const meaning: Record<string, string> = {
        true: 'the default mock implementation: register it without a name',
        fail: 'the default mock implementation: register it without a name',
        force: 'the default mock implementation: register it without a name',
        TRUE: 'the default mock implementation: register it without a name',
        return: '"return null"',
        throwaway: '"throw away"',
        false: 'no mock at all',
        null: 'no mock at all',
      };
      expect((thrown as ExtensionError).message).toBe(
        `MockRegistry.registerImplementation(): the mock name "${name}" cannot be used: mock=${name} means ${meaning[name]}.`,
      );
    },
  );

  it('a named implementation (force:<name>, fail:<name>)', async () => {
    MockRegistry.of(app.model).registerImplementation(Greeter, { sayHello: (n: string) => `cached ${n}` }, 'cached');
    const forced = await app.refer(Greeter, { mock: 'force:cached' });
    expect(await forced.sayHello('bo')).toBe('cached bo');
    const failing = await app.refer(Greeter, { mock: 'cached', retries: 0 });
    expect(await failing.sayHello('cy')).toBe('cached cy');
  });

  it('what the implementation throws or rejects with is a business error, passed as thrown', async () => {
    MockRegistry.of(app.model).registerImplementation(Greeter, mockImpl);
    const greeter = await app.refer(Greeter, { mock: 'force' });
    const thrown = await rejection(greeter.risky());
    expect(thrown).toBeInstanceOf(InsufficientFunds);
    expect((thrown as Error).message).toBe('mock says no');
    const rejected = await rejection(greeter.ok());
    expect(rejected).toBeInstanceOf(Unavailable);
    expect(rejected).not.toBeInstanceOf(RpcError);
  });

  it('an unregistered implementation is rejected at refer', async () => {
    const named = await referRejection(app.refer(Greeter, { mock: 'force:nope' }));
    expect(named.message).toContain(
      'refer(org.acme.Greeter): mock=force:nope is not a valid mock expression: no mock implementation "nope" is registered for org.acme.Greeter (MockRegistry.registerImplementation; registered: none).',
    );
    MockRegistry.of(app.model).registerImplementation(Greeter, mockImpl, 'cached');
    const listed = await referRejection(app.refer(Greeter, { methods: { count: { mock: 'force:nope' } } }));
    expect(listed.message).toContain('count.mock=force:nope is not a valid mock expression: no mock implementation "nope" is registered for org.acme.Greeter (MockRegistry.registerImplementation; registered: cached)');
  });

  it('the default implementation (true/default/force/fail) is not required at refer: a mock:// provider may supply it', async () => {
    const greeter = await app.refer(Greeter, { mock: 'force' });
    const error = await rpcRejection(greeter.sayHello('a'));
    expect(error.message).toContain('Failed to create mock implementation of org.acme.Greeter: none is registered (registered for org.acme.Greeter: none).');
    const viaProvider = await app.refer(Greeter, { mock: 'force', url: 'mock://0.0.0.0/org.acme.Greeter?sayHello.mock=return+aa' });
    expect(await viaProvider.sayHello('a')).toBe('aa');
  });

  it('an implementation lacking the method fails when degraded, keeping the original failure in the message', async () => {
    MockRegistry.of(app.model).registerImplementation(Greeter, { sayHello: () => 'only this' });
    const greeter = await app.refer(Greeter, { mock: 'fail', retries: 0 });
    expect(await greeter.sayHello('a')).toBe('only this');
    const error = await rpcRejection(greeter.count());
    expect(error.message).toMatch(/^mock error: Failed to create mock implementation of org\.acme\.Greeter: it has no method count\., invoke error is: /);
    expect(error.message).toContain(NO_PROVIDER);
    expect(error.mocked).toBe(false);
  });
});

describe('errors of the mock itself', () => {
  it('a value that fits no declared type fails at call time with "mock return invoke error", keeping the original failure', async () => {
    // interface level: "abc" fits sayHello (String), so the reference is accepted; count cannot convert it.
    const greeter = await app.refer(Greeter, { mock: 'return abc', retries: 0 });
    expect(await greeter.sayHello('x')).toBe('abc');
    const error = await rpcRejection(greeter.count());
    expect(error.message).toMatch(/^mock error: mock return invoke error\. method: count, mock: abc, url: consumer:\/\/.*: mock value of count: expected Number, got "abc"\., invoke error is: Failed to invoke/);
    expect(error.message).toContain(NO_PROVIDER);
    expect(error.code).toBe(RpcErrorCode.UNKNOWN);
  });

  it('in force mode there is no original failure to report', async () => {
    const greeter = await app.refer(Greeter, { mock: 'force:return abc' });
    const error = await rpcRejection(greeter.count());
    expect(error.message).toMatch(/^mock error: mock return invoke error\. method: count, mock: abc, url: consumer:\/\/\S*: mock value of count: expected Number, got "abc"\.$/);
  });

  it('a MockInvoker with no mock value for the method: "mock can not be null"', async () => {
    const invoker = new MockInvoker(URL.parse(`${MOCK_URL}?sayHello.mock=return+aa`), Greeter, MockRegistry.of(app.model));
    expect((await invoker.invoke(Invocation.of('sayHello', ['x'], Greeter))).value).toBe('aa');
    const error = await rpcRejection(invoker.invoke(Invocation.of('count', [], Greeter)));
    expect(error.message).toBe(`mock can not be null. method: count, url: ${MOCK_URL}?sayHello.mock=return%2Baa`);
  });
});

describe('mock:// providers (Part C)', () => {
  it('a mock:// value is used over the consumer’s own return value; other methods keep the consumer’s (Dubbo’s unit test)', async () => {
    const greeter = await app.refer(Greeter, { mock: 'force:return null', url: `${MOCK_URL}?sayHello.mock=return+aa` });
    expect(await greeter.sayHello('x')).toBe('aa');
    expect(await greeter.count()).toBeNull();
  });

  it('precedence: consumer <method>.mock > mock:// <method>.mock > consumer mock', async () => {
    const greeter = await app.refer(Greeter, {
      mock: 'force:return null',
      methods: { count: { mock: 'force:return 1' } },
      url: `${MOCK_URL}?sayHello.mock=return+aa&count.mock=return+2`,
    });
    expect(await greeter.count()).toBe(1);
    expect(await greeter.sayHello('x')).toBe('aa');
    expect(await greeter.ok()).toBeNull();
  });

  it('the trigger comes from the consumer: force vs fail', async () => {
    const p = provider();
    const exported = await app.export(Greeter, p.impl);
    const url = `injvm://127.0.0.1/org.acme.Greeter;${MOCK_URL}?sayHello.mock=return+aa`;
    const forced = await app.refer(Greeter, { mock: 'force:return null', url });
    expect(await forced.sayHello('x')).toBe('aa');
    const failing = await app.refer(Greeter, { mock: 'fail:return null', url, retries: 0 });
    expect(await failing.sayHello('x')).toBe('hi x');
    expect(p.calls).toEqual(['sayHello']);
    await exported.unexport();
    expect(await failing.sayHello('x')).toBe('aa');
  });

  it('differs from Dubbo: mock:// is never routed to by normal calls — the injvm provider answers all normal traffic', async () => {
    const p = provider();
    await app.export(Greeter, p.impl);
    const url = `injvm://127.0.0.1/org.acme.Greeter;${MOCK_URL}?sayHello.mock=return+aa`;
    for (const options of [{ url }, { url, mock: 'fail:return null' }, { url, cluster: 'failfast', loadbalance: 'roundrobin' }]) {
      const greeter = await app.refer(Greeter, options);
      for (let i = 0; i < 10; i++) expect(await greeter.sayHello(`n${i}`)).toBe(`hi n${i}`);
    }
    expect(p.calls).toHaveLength(30);
  });

  it('without any consumer mock setting a mock:// provider has no effect', async () => {
    const only = await app.refer(Greeter, { url: `${MOCK_URL}?sayHello.mock=return+aa`, retries: 0 });
    expect((await rpcRejection(only.sayHello('x'))).code).toBe(RpcErrorCode.NO_INVOKER);
    const mixed = await app.refer(Greeter, { url: `injvm://127.0.0.1/org.acme.Greeter;${MOCK_URL}?sayHello.mock=return+aa`, retries: 0 });
    expect((await rpcRejection(mixed.sayHello('x'))).code).toBe(RpcErrorCode.NO_INVOKER);
  });

  it('the first mock:// provider answers when there are several', async () => {
    const greeter = await app.refer(Greeter, {
      mock: 'force:return null',
      url: `${MOCK_URL}?sayHello.mock=return+first;mock://0.0.0.1/org.acme.Greeter?sayHello.mock=return+second`,
    });
    expect(await greeter.sayHello('x')).toBe('first');
  });

  it('no attachment is left on the invocation (Dubbo leaves invocation.need.mock=true)', async () => {
    const mock = await app.model.getExtensionLoader(Protocol).getExtension('mock').refer(Greeter, URL.parse(`${MOCK_URL}?sayHello.mock=return+aa`));
    const fake = new FakeInvoker(URL.parse('fake://127.0.0.1:1/org.acme.Greeter'), () => Promise.reject(new RpcError(RpcErrorCode.NETWORK, 'down')));
    for (const mode of ['force:return null', 'fail:return null']) {
      const invoker = joinFailfast(consumerUrl({ mock: mode }), [fake, mock]);
      const invocation = Invocation.of('sayHello', ['x'], Greeter);
      expect((await invoker.invoke(invocation)).value).toBe('aa');
      expect([...invocation.getAttachments().keys()]).toEqual([]);
    }
    expect(fake.calls).toBe(1);
  });

  it('runtime overrides reach mock:// values with the same precedence', async () => {
    const p = provider();
    await app.export(Greeter, p.impl);
    const greeter = await app.refer(Greeter, {
      mock: 'force:return null',
      url: `injvm://127.0.0.1/org.acme.Greeter;${MOCK_URL}?sayHello.mock=return+aa`,
    });
    expect(await greeter.sayHello('x')).toBe('aa');
    expect(await greeter.count()).toBeNull();

    app.override(greeter, { mock: 'force:return 7' });
    expect(await greeter.count()).toBe(7);
    expect(await greeter.sayHello('x')).toBe('aa');

    app.override(greeter, { mock: 'force:return 7', 'sayHello.mock': 'force:return `bb`' });
    expect(await greeter.sayHello('x')).toBe('bb');
    expect(await greeter.count()).toBe(7);

    app.override(greeter, { mock: 'false' });
    expect(await greeter.sayHello('x')).toBe('hi x');

    app.override(greeter, {});
    expect(await greeter.sayHello('x')).toBe('aa');
    expect(await greeter.count()).toBeNull();
    expect(p.calls).toEqual(['sayHello']);
  });

  it('a bad mock:// value is not validated at refer; it fails when used, keeping the original failure', async () => {
    const greeter = await app.refer(Greeter, { mock: 'fail:return null', retries: 0, url: `${MOCK_URL}?count.mock=return+abc&sayHello.mock=throw+TypeError` });
    const conversion = await rpcRejection(greeter.count());
    expect(conversion.message).toMatch(/^mock error: mock return invoke error\. method: count, mock: abc, url: mock:\/\/0\.0\.0\.0\/org\.acme\.Greeter\?.*: mock value of count: expected Number, got "abc"\., invoke error is: Failed to invoke the method count in the service org\.acme\.Greeter\. No provider available/);
    const throwing = await rpcRejection(greeter.sayHello('x'));
    expect(throwing.message).toMatch(
      /^mock error: mock throw error: TypeError argument error: no error class "TypeError" is declared by the method or registered \(registered: none\)\., invoke error is: /,
    );
  });

  it('a malformed percent-escape in a mock:// value is reported with the expression', async () => {
    const greeter = await app.refer(Greeter, { mock: 'force:return null', url: `${MOCK_URL}?sayHello.mock=return+100%25` });
    const error = await rpcRejection(greeter.sayHello('x'));
    expect(error.message).toMatch(/^mock error: Invalid mock "return\+100%" for sayHello: malformed percent-escape \(/);
  });

  it('the mock protocol cannot export', async () => {
    const error = await rejection(app.export(Greeter, provider().impl, { protocol: 'mock' }));
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as Error).message).toMatch(/^The mock protocol cannot export services \(mock:\/\/127\.0\.0\.1\/org\.acme\.Greeter\?.*\); it only hosts mock:\/\/ providers for consumers\.$/);
  });
});

describe('double decode and backticks (wire-and-registry §B.5.4 step 7)', () => {
  it('the operator’s override value: force:return+%60scj+mock+hhh%60 → "scj mock hhh"', async () => {
    const greeter = await app.refer(Greeter);
    app.override(greeter, { 'sayHello.mock': 'force:return+%60scj+mock+hhh%60' });
    expect(await greeter.sayHello('x')).toBe('scj mock hhh');
  });

  it('a mock:// URL: decoded once by URL parsing (%60 → backtick), once more by the mock (+ → space)', async () => {
    const greeter = await app.refer(Greeter, { mock: 'force:return null', url: `${MOCK_URL}?sayHello.mock=return+%60scj+mock+hhh%60` });
    expect(await greeter.sayHello('x')).toBe('scj mock hhh');
  });

  it('the documented force:return+null works: the mock value is form-decoded once more, like Dubbo', async () => {
    const greeter = await app.refer(Greeter, { mock: 'force:return+null' });
    expect(await greeter.count()).toBeNull();
    expect(await greeter.sayHello('x')).toBeNull();
  });

  it('like Dubbo, "+" in a value becomes a space and %XX is decoded', async () => {
    const greeter = await app.refer(Greeter, { mock: 'force:return a+b%2Bc%2bd' });
    expect(await greeter.sayHello('x')).toBe('a b+c+d');
  });

  it('a malformed escape is rejected at refer', async () => {
    const error = await referRejection(app.refer(Greeter, { mock: 'force:return 100%' }));
    expect(error.message).toContain('mock=force:return 100% is not a valid mock expression: malformed percent-escape (');
  });
});

describe('validation at refer time (Dubbo 3.3 removed it)', () => {
  const GRAMMAR =
    'Expected [force:|fail:] followed by "return <value>" (empty, null, true, false, "text", 123, {json}, [json]), "throw", "throw <ErrorName>", ' +
    'true/default/fail (the default mock implementation) or a registered mock name.';

  it.each([
    [{ methods: { count: { mock: 'return abc' } } }, 'count.mock=return abc is not a valid mock expression: for count(): mock value of count: expected Number, got "abc". '],
    [{ methods: { count: { mock: 'return 12345678901234567890' } } }, 'count.mock=return 12345678901234567890 is not a valid mock expression: for count(): Mock value 12345678901234567890 does not fit a JavaScript number. '],
    [{ methods: { user: { mock: 'return [1]' } } }, 'user.mock=return [1] is not a valid mock expression: for user(): mock value of user: expected User, got [1]. '],
    [{ methods: { info: { mock: 'force:return {oops' } } }, 'info.mock=force:return {oops is not a valid mock expression: for info(): Expected ":" at position 5 of "{oops". '],
    [{ methods: { ok: { mock: 'return 1' } } }, 'ok.mock=return 1 is not a valid mock expression: for ok(): mock value of ok: expected Boolean, got 1. '],
    [{ mock: 'throw Nope' }, 'mock=throw Nope is not a valid mock expression: no error class "Nope" is declared by the method or registered with MockRegistry.registerError (registered: none). '],
    [{ mock: 'throw `X`' }, 'mock=throw `X` is not a valid mock expression: "throw "X"": expected an error class name. '],
    [{ mock: 'RETURN 1' }, 'mock=RETURN 1 is not a valid mock expression: "RETURN 1" is neither "return <value>", "throw [ErrorName]" nor the name of a registered mock implementation. '],
    [{ mock: 'Force:return 1' }, 'mock=Force:return 1 is not a valid mock expression: "Force:return 1" is neither'],
    [{ mock: 'fail:' }, 'mock=fail: is not a valid mock expression: empty mock expression. '],
    [{ mock: 'force:return %zz' }, 'mock=force:return %zz is not a valid mock expression: malformed percent-escape ('],
    [{ mock: 'force:my mock' }, 'mock=force:my mock is not a valid mock expression: "my mock" is neither'],
  ] as const)('rejects %j', async (options, message) => {
    const error = await referRejection(app.refer(Greeter, options));
    expect(error.message.startsWith('refer(org.acme.Greeter): ')).toBe(true);
    expect(error.message).toContain(message);
    expect(error.message.endsWith(GRAMMAR)).toBe(true);
  });

  it('an interface-level return value must fit at least one method', async () => {
    const error = await referRejection(app.refer(Counter, { mock: 'return abc' }));
    expect(error.message).toBe(
      'refer(org.acme.Counter): mock=return abc is not a valid mock expression: for count(): mock value of count: expected Number, got "abc"; ' +
        `for ok(): mock value of ok: expected Boolean, got "abc". ${GRAMMAR}`,
    );
    const fitsOk = await app.refer(Counter, { mock: 'force:return true' });
    expect(await fitsOk.ok()).toBe(true);
    expect((await rpcRejection(fitsOk.count())).message).toContain('mock value of count: expected Number, got true.');
  });

  it.each([
    ['return'],
    ['force:return'],
    ['return empty'],
    ['return null'],
    ['force:return+null'],
    ['throw'],
    ['fail:throw'],
    ['return {oops'],
    ['return `quoted`'],
    ['false'],
    ['N/A'],
  ])('accepts %j', async (mock) => {
    const greeter = await app.refer(Greeter, { mock });
    expect(app.getReferenceUrl(greeter)?.getParameter('mock')).toBe(mock);
  });
});

describe('scoping (Dubbo’s caches are static: the first URL wins)', () => {
  it('each reference answers from its own URL', async () => {
    const one = await app.refer(Greeter, { mock: 'force:return 1' });
    const two = await app.refer(Greeter, { mock: 'force:return 2' });
    expect(await one.count()).toBe(1);
    expect(await two.count()).toBe(2);
    expect(await one.count()).toBe(1);
  });

  it('each application has its own MockRegistry', async () => {
    const other = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock']);
    const second = await WeftApplication.start({ root: other.root, name: 'other', logger: new RecordingLogger() });
    try {
      expect(MockRegistry.of(app.model)).toBe(MockRegistry.of(app.model));
      expect(MockRegistry.of(second.model)).not.toBe(MockRegistry.of(app.model));
      MockRegistry.of(app.model).registerImplementation(Greeter, { count: () => 1 });
      MockRegistry.of(second.model).registerImplementation(Greeter, { count: () => 2 });
      expect(await (await app.refer(Greeter, { mock: 'force' })).count()).toBe(1);
      expect(await (await second.refer(Greeter, { mock: 'force' })).count()).toBe(2);
    } finally {
      await second.shutdown();
      other.cleanup();
    }
  });
});

describe('MockRegistry', () => {
  it('registers only Error classes under class-like names', () => {
    const registry = MockRegistry.of(app.model);
    class LooksLikeAnError {
      name = 'LooksLikeAnError';
      message = '';
    }
    expect(() => registry.registerError('Fake', LooksLikeAnError)).toThrow('MockRegistry.registerError("Fake"): the class must extend Error.');
    expect(() => registry.registerError('not a name', Unavailable)).toThrow('MockRegistry.registerError(): "not a name" is not a class-like name.');
    expect(() => registry.registerImplementation(Greeter, {}, 'bad name')).toThrow(
      'MockRegistry.registerImplementation(): "bad name" is not a valid mock name.',
    );
    registry.registerError('Unavailable', Unavailable).registerError('Plain', Error);
    expect(registry.errorNames()).toEqual(['Unavailable', 'Plain']);
    expect(registry.getError('Unavailable')).toBe(Unavailable);
    registry.registerImplementation('org.acme.Greeter', { count: () => 1 }, 'byName');
    expect(registry.implementationNames(Greeter.name)).toEqual(['byName']);
  });
});

describe('the wrapper wraps every cluster', () => {
  it.each(['failover', 'failfast', 'failsafe', 'failback', 'forking', 'broadcast', 'available'])('%s: join gives a MockClusterInvoker that degrades', async (name) => {
    const loader = app.model.getExtensionLoader(Cluster);
    const cluster = loader.getExtension(name);
    expect(cluster).toBeInstanceOf(MockClusterWrapper);
    expect(loader.getExtension(name, false)).not.toBeInstanceOf(MockClusterWrapper);
    const directory = new StaticDirectory(Greeter, consumerUrl({ mock: 'force:return "wrapped"' }), []);
    const invoker = cluster.join(directory);
    expect(invoker).toBeInstanceOf(MockClusterInvoker);
    expect(invoker.getUrl()).toBe(directory.getUrl());
    expect(invoker.isAvailable()).toBe(false);
    expect((await invoker.invoke(Invocation.of('sayHello', ['x'], Greeter))).value).toBe('wrapped');
  });

  it('a reference with cluster=failfast degrades through the same wrapper', async () => {
    const greeter = await app.refer(Greeter, { cluster: 'failfast', mock: 'return "ff"' });
    expect(await greeter.sayHello('x')).toBe('ff');
  });
});
