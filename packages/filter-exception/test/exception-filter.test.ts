import { afterEach, describe, expect, it } from 'vitest';

import {
  buildFilterChain,
  defineService,
  Filter,
  Invocation,
  Invoker,
  Protocol,
  Result,
  RpcError,
  RpcErrorCode,
  URL,
  WeftApplication,
} from '@weft/core';
import { ExceptionFilter, UndeclaredError } from '@weft/filter-exception';
import { createTestApp, RecordingLogger, StubInvoker, type TestApp } from '@weft/test-utils';

// ---------------------------------------------------------------------------------------------------------------
// Harness: a real application (core + cluster + this package), the filter in the chain the loader builds.

/** A declared business error (sets its name, as most error classes do). */
class InsufficientFunds extends Error {
  balance = 0;
  constructor(message: string) {
    super(message);
    this.name = 'InsufficientFunds';
  }
}

/** A subclass of the declared error that inherits its name. */
class Overdrawn extends InsufficientFunds {}

/** A subclass of the declared error with a name of its own. */
class CardBlocked extends InsufficientFunds {
  constructor(message: string) {
    super(message);
    this.name = 'CardBlocked';
  }
}

/** An undeclared error that does not set its name (it is `'Error'`, inherited). */
class StockDbError extends Error {}

/** An undeclared error carrying data the consumer must not see. */
class StorageError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'StorageError';
  }
}

/** A declared class whose `instanceof` check itself throws. */
class Hostile extends Error {
  static override [Symbol.hasInstance](): boolean {
    throw new Error('instanceof refused');
  }
}

const Payments = defineService('org.acme.Payments', {
  charge: { args: [String], returns: String, throws: [InsufficientFunds] },
  hostile: { throws: [Hostile] },
});

/** The errors the implementation throws, by the argument of `charge`. */
const failures: Record<string, () => unknown> = {
  declared: () => Object.assign(new InsufficientFunds('balance too low'), { balance: 12 }),
  'subclass-inherited-name': () => new Overdrawn('over the limit'),
  'subclass-own-name': () => new CardBlocked('card 42 blocked'),
  undeclared: () => new StockDbError('pool exhausted'),
  'undeclared-data': () => new StorageError('disk full', '/var/secret/db'),
  'renamed-error': () => Object.assign(new Error('quota reached'), { name: 'QuotaError', limit: 10 }),
  'type-error': () => new TypeError('amount must be a number'),
  error: () => new Error('plain failure'),
  'rpc-error': () => new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'downstream limit reached'),
  dom: () => new DOMException('stop', 'AbortError'),
  string: () => 'boom',
};

/** The last error the implementation threw. */
let thrown: unknown;

const implementation = {
  charge(kind: string): string {
    const make = failures[kind];
    if (make === undefined) return `charged (${kind})`;
    thrown = make();
    throw thrown;
  },
  hostile(): void {
    thrown = new Hostile('hostile');
    throw thrown;
  },
};

/** The result the exception filter answered with, as seen by a provider filter outside it. */
let observed: Result | undefined;

class ProbeFilter extends Filter {
  async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
    observed = await invoker.invoke(invocation);
    return observed;
  }
}

/** A provider filter inside `exception` that tags results with an attachment. */
class TagFilter extends Filter {
  async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
    return (await invoker.invoke(invocation)).setAttachment('served-by', 'node-7');
  }
}

/** A provider filter inside `exception` that refuses calls with attachment `refuse` (a framework failure). */
class RefuseFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    if (invocation.hasAttachment('refuse')) return Promise.reject(new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'refused by test-refuse'));
    return invoker.invoke(invocation);
  }
}

const apps: { app: WeftApplication; testApp: TestApp }[] = [];

async function start(packages: readonly string[] = ['@weft/core', '@weft/cluster', '@weft/filter-exception']) {
  const testApp = createTestApp(packages);
  const logger = new RecordingLogger();
  const app = await WeftApplication.start({ root: testApp.root, name: 'payments', logger });
  apps.push({ app, testApp });
  const filters = app.model.getExtensionLoader(Filter);
  filters.addExtension('test-probe', ProbeFilter, { activate: { group: ['provider'], order: -100 } });
  filters.addExtension('test-tag', TagFilter, { activate: { group: ['provider'], order: 100 } });
  filters.addExtension('test-refuse', RefuseFilter, { activate: { group: ['provider'], order: 200 } });
  return { app, logger, filters };
}

/** An app exporting Payments, with a copying reference and a zero-copy one. */
async function payments() {
  const started = await start();
  const exported = await started.app.export(Payments, implementation);
  const copying = await started.app.refer(Payments, { retries: 0 });
  const zeroCopy = await started.app.refer(Payments, { retries: 0, parameters: { copy: false } });
  return { ...started, exported, copying, zeroCopy };
}

afterEach(async () => {
  for (const { app, testApp } of apps.splice(0)) {
    await app.shutdown();
    testApp.cleanup();
  }
  thrown = undefined;
  observed = undefined;
});

async function failure(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    (value: unknown) => {
      throw new Error(`expected the call to fail, it returned ${String(value)}`);
    },
    (error: unknown) => error,
  );
}

// ---------------------------------------------------------------------------------------------------------------

describe('manifest', () => {
  it('activates exception in every provider chain (group only) and never in consumer chains', async () => {
    const { app, filters } = await start();
    const { url } = await app.export(Payments, implementation);
    expect(filters.selectActivateNames(url, 'service.filter', 'provider')).toEqual(['test-probe', 'exception', 'test-tag', 'test-refuse']);
    expect(filters.selectActivateNames(url, 'reference.filter', 'consumer')).not.toContain('exception');
    expect(filters.getExtension('exception')).toBeInstanceOf(ExceptionFilter);
  });

  it('is the only filter an application with core and this package gets', async () => {
    const testApp = createTestApp(['@weft/core', '@weft/filter-exception']);
    const app = await WeftApplication.start({ root: testApp.root, name: 'bare', logger: new RecordingLogger() });
    apps.push({ app, testApp });
    expect(app.model.getExtensionLoader(Filter).getSupportedExtensions()).toEqual(['exception']);
  });
});

describe('declared errors', () => {
  it('pass untouched and reach the consumer as the declared class, with their data', async () => {
    const { copying, logger } = await payments();
    const error = await failure(copying.charge('declared'));
    expect(observed?.exception).toBe(thrown);
    expect(error).toBeInstanceOf(InsufficientFunds);
    expect(error).toMatchObject({ name: 'InsufficientFunds', message: 'balance too low', balance: 12 });
    expect(logger.of('warn')).toEqual([]);
  });

  it('let subclasses through too (instanceof, not exact class equality as in Dubbo)', async () => {
    const { copying, zeroCopy, logger } = await payments();

    // In process without copy, the consumer gets the very instance: both classes hold.
    const direct = await failure(zeroCopy.charge('subclass-own-name'));
    expect(observed?.exception).toBe(thrown);
    expect(direct).toBe(thrown);
    expect(direct).toBeInstanceOf(CardBlocked);
    expect(direct).toBeInstanceOf(InsufficientFunds);

    // Copied, a subclass that keeps the declared name is rebuilt as the declared class…
    const inherited = await failure(copying.charge('subclass-inherited-name'));
    expect(observed?.exception).toBe(thrown);
    expect(inherited).toBeInstanceOf(InsufficientFunds);
    expect(inherited).toMatchObject({ name: 'InsufficientFunds', message: 'over the limit' });

    // …and one with a name of its own arrives with its name and message, not wrapped (core rebuilds by exact name).
    const named = await failure(copying.charge('subclass-own-name'));
    expect(observed?.exception).toBe(thrown);
    expect(named).toBeInstanceOf(Error);
    expect(named).toMatchObject({ name: 'CardBlocked', message: 'card 42 blocked' });
    expect(logger.of('warn')).toEqual([]);
  });
});

describe('errors every consumer can rebuild', () => {
  it('let standard errors and RpcErrors through untouched', async () => {
    const { copying, zeroCopy, logger } = await payments();

    const typeError = await failure(copying.charge('type-error'));
    expect(observed?.exception).toBe(thrown);
    expect(typeError).toBeInstanceOf(TypeError);
    expect(typeError).toMatchObject({ message: 'amount must be a number' });

    const plain = await failure(copying.charge('error'));
    expect(observed?.exception).toBe(thrown);
    expect(plain).toMatchObject({ name: 'Error', message: 'plain failure' });

    const rpc = await failure(zeroCopy.charge('rpc-error'));
    expect(observed?.exception).toBe(thrown);
    expect(rpc).toBe(thrown);
    expect(rpc).toMatchObject({ code: RpcErrorCode.LIMIT_EXCEEDED, message: 'downstream limit reached' });

    // The class decides, not the name: a plain Error renamed by the code that threw it is still a plain Error.
    const renamed = await failure(copying.charge('renamed-error'));
    expect(observed?.exception).toBe(thrown);
    expect(renamed).toMatchObject({ name: 'QuotaError', message: 'quota reached', limit: 10 });

    const copiedRpc = await failure(copying.charge('rpc-error'));
    expect(observed?.exception).toBe(thrown);
    expect(copiedRpc).toMatchObject({ name: 'RpcError', code: RpcErrorCode.LIMIT_EXCEEDED, message: 'downstream limit reached' });
    expect(logger.of('warn')).toEqual([]);
  });

  it('leave framework failures (rejections) alone', async () => {
    const { copying, logger } = await payments();
    const error = await failure(copying.$call('charge', ['ok'], { attachments: { refuse: true } }));
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect((error as RpcError).message).toContain('refused by test-refuse');
    expect(observed).toBeUndefined();
    expect(logger.of('warn')).toEqual([]);
  });
});

describe('undeclared errors', () => {
  it('become an UndeclaredError "<Name>: <message>" without stack, logged with their stack on the provider', async () => {
    const { copying, logger } = await payments();
    const error = await failure(copying.$call('charge', ['undeclared'], { attachments: { 'remote.application': 'shop' } }));

    expect(error).toBeInstanceOf(Error);
    expect(error).not.toBeInstanceOf(StockDbError);
    expect(error).toMatchObject({ name: 'UndeclaredError', message: 'StockDbError: pool exhausted', originalName: 'StockDbError' });
    expect((error as Error).message).not.toMatch(/\bat /);

    expect(observed?.exception).toBeInstanceOf(UndeclaredError);
    expect((observed?.exception as UndeclaredError).cause).toBe(thrown);
    expect(observed?.getAttachment('served-by')).toBe('node-7');

    const warnings = logger.messages.filter((m) => m.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toBe(
      'Undeclared error from org.acme.Payments.charge() called by shop: StockDbError: pool exhausted (the consumer receives an ' +
        'UndeclaredError; declare StockDbError in the method\'s "throws" to pass it through)',
    );
    expect(warnings[0]?.error).toBe(thrown);
    expect((warnings[0]?.error as Error).stack).toMatch(/^Error: pool exhausted\n\s+at .*exception-filter\.test\.ts/);
  });

  it('keep only name and message: other data (a file path…) does not reach the consumer', async () => {
    const { copying } = await payments();
    const error = await failure(copying.charge('undeclared-data'));
    expect(error).toMatchObject({ name: 'UndeclaredError', message: 'StorageError: disk full', originalName: 'StorageError' });
    expect(JSON.stringify(Object.entries(error as object))).not.toContain('/var/secret');
  });

  it('reach an in-process zero-copy consumer as UndeclaredError instances', async () => {
    const { zeroCopy } = await payments();
    const error = await failure(zeroCopy.charge('undeclared'));
    expect(error).toBeInstanceOf(UndeclaredError);
    expect((error as UndeclaredError).cause).toBe(thrown);
  });

  it('wrap non-standard built-ins and thrown non-errors too', async () => {
    const { copying, logger } = await payments();
    expect(await failure(copying.charge('dom'))).toMatchObject({ name: 'UndeclaredError', message: 'AbortError: stop' });
    expect(await failure(copying.charge('string'))).toMatchObject({ name: 'UndeclaredError', message: 'non-error value thrown: boom' });
    expect(logger.of('warn')[1]).toContain('(the consumer receives an UndeclaredError; throw an Error instead)');
  });

  it('pass the error as is, and log why, when classifying it fails', async () => {
    const { copying, logger } = await payments();
    const error = await failure(copying.hostile());
    expect(observed?.exception).toBe(thrown);
    expect(error).toMatchObject({ message: 'hostile' });
    expect(logger.messages.filter((m) => m.level === 'warn')).toEqual([
      {
        level: 'warn',
        message: 'exception filter: could not classify the error of org.acme.Payments.hostile(); passing it as is.',
        error: expect.objectContaining({ message: 'instanceof refused' }),
      },
    ]);
  });

  it('leave successful results alone', async () => {
    const { copying, logger } = await payments();
    expect(await copying.charge('fine')).toBe('charged (fine)');
    expect(observed?.hasException()).toBe(false);
    expect(logger.of('warn')).toEqual([]);
  });
});

/** The test filters left out: the provider chain is then `exception` alone, synchronous all the way. */
const ONLY_EXCEPTION = '-test-probe,-test-tag,-test-refuse';

describe('synchronous calls', () => {
  const providerUrl = URL.parse(`injvm://127.0.0.1/org.acme.Payments?interface=org.acme.Payments&side=provider&service.filter=${ONLY_EXCEPTION}`);
  const charge = () => new Invocation({ methodName: 'charge', args: ['x'], service: Payments, attachments: { 'remote.application': 'shop' } });

  /** The provider chain the loader activates (only `exception`) around a stub of the rest. */
  function chain(app: WeftApplication, answer: () => Result | Promise<Result>): Invoker {
    const filters = app.model.getExtensionLoader(Filter);
    const active = filters.getActivateExtensions(providerUrl, 'service.filter', 'provider');
    expect(active.map((f) => filters.getExtensionName(f))).toEqual(['exception']);
    return buildFilterChain(new StubInvoker(providerUrl, answer), active, (f) => filters.getExtensionName(f) ?? '?', app.model.logger);
  }

  it('wrap an undeclared error of a synchronous implementation at once: the whole injvm call answers synchronously', async () => {
    const { app, logger } = await start();
    await app.export(Payments, implementation, { filter: ONLY_EXCEPTION });
    const url = new URL({ protocol: 'injvm', host: '127.0.0.1', path: Payments.name, parameters: { interface: Payments.name, copy: 'false' } });
    const raw = await app.model.getExtensionLoader(Protocol).getExtension('injvm').refer(Payments, url);
    try {
      const undeclared = raw.invoke(new Invocation({ methodName: 'charge', args: ['undeclared'], service: Payments }));
      expect(undeclared).toBeInstanceOf(Result);
      expect((undeclared as Result).exception).toBeInstanceOf(UndeclaredError);
      expect(((undeclared as Result).exception as UndeclaredError).cause).toBe(thrown);
      expect((undeclared as Result).exception).toMatchObject({ message: 'StockDbError: pool exhausted' });
      expect(logger.of('warn')).toHaveLength(1);

      const declared = raw.invoke(new Invocation({ methodName: 'charge', args: ['declared'], service: Payments }));
      expect(declared).toBeInstanceOf(Result);
      expect((declared as Result).exception).toBe(thrown);

      const value = raw.invoke(new Invocation({ methodName: 'charge', args: ['fine'], service: Payments }));
      expect(value).toBeInstanceOf(Result);
      expect((value as Result).value).toBe('charged (fine)');
      expect(logger.of('warn')).toHaveLength(1);
    } finally {
      await raw.destroy();
    }
  });

  it('answer a synchronous value or declared error with the very Result, and a synchronous undeclared one with a wrapped Result', async () => {
    const { app, logger } = await start();
    const value = Result.of('charged');
    expect(chain(app, () => value).invoke(charge())).toBe(value);
    const declared = Result.ofException(new InsufficientFunds('balance too low'));
    expect(chain(app, () => declared).invoke(charge())).toBe(declared);
    expect(logger.of('warn')).toEqual([]);

    const original = new StorageError('disk full', '/var/secret/db');
    const undeclared = Result.ofException(original).setAttachment('served-by', 'node-7');
    const answer = chain(app, () => undeclared).invoke(charge());
    expect(answer).toBeInstanceOf(Result);
    const replaced = answer as Result;
    expect(replaced).not.toBe(undeclared);
    expect(replaced.exception).toBeInstanceOf(UndeclaredError);
    expect(replaced.exception).toMatchObject({ message: 'StorageError: disk full', originalName: 'StorageError', cause: original });
    expect(replaced.getAttachment('served-by')).toBe('node-7');
    expect(logger.messages.filter((m) => m.level === 'warn')).toEqual([
      expect.objectContaining({
        message: expect.stringContaining('Undeclared error from org.acme.Payments.charge() called by shop: StorageError: disk full'),
        error: original,
      }),
    ]);
  });

  it('leave a synchronous throw of the inner chain alone: a framework failure, never wrapped', async () => {
    const { app, logger } = await start();
    const boom = new StockDbError('inner chain threw');
    expect(() =>
      chain(app, () => {
        throw boom;
      }).invoke(charge()),
    ).toThrow(boom);
    expect(logger.of('warn')).toEqual([]);
  });

  it('keep checking a pending call when it resolves, and leave its rejection alone', async () => {
    const { app } = await start();
    const pending = chain(app, () => Promise.resolve(Result.ofException(new StockDbError('later')))).invoke(charge());
    expect(pending).toBeInstanceOf(Promise);
    expect((await pending).exception).toBeInstanceOf(UndeclaredError);
    const refused = new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'refused');
    await expect(Promise.resolve(chain(app, () => Promise.reject(refused)).invoke(charge()))).rejects.toBe(refused);
  });
});
