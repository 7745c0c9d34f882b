// Fail mock on framework failures however they arrive (rejected, thrown, or carried by a Result — Dubbo's
// MockClusterInvoker checks result.getException() instanceof RpcException), rate-limited fail-mock warnings,
// interface-level values parsed once, and hostile values refused with bounded time (dubbo-semantics.md §3.2–3.3).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import {
  Cluster,
  defineService,
  ExtensionError,
  ExtensionErrorCode,
  Invocation,
  Invoker,
  Result,
  RpcError,
  RpcErrorCode,
  StaticDirectory,
  URL,
  WeftApplication,
} from '@weft/core';
import { FailMockWarnings, MockExpressionCache, MockLimits, MockLiteral } from '@weft/mock';
import { createTestApp, RecordingLogger } from '@weft/test-utils';

class OutOfStock extends Error {
  override name = 'OutOfStock';
}

const Stock = defineService('org.acme.Stock', {
  reserve: { args: [String], returns: String },
  count: { returns: Number },
  audit: { returns: String, throws: [OutOfStock] },
  a1: { returns: Object },
  a2: { returns: Object },
  a3: { returns: Object },
  a4: { returns: Object },
  a5: { returns: Object },
  a6: { returns: Object },
  a7: { returns: Object },
  a8: { returns: Object },
});

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
  vi.restoreAllMocks();
  await app.shutdown();
  cleanup();
});

const ledgerTimeout = () => new RpcError(RpcErrorCode.TIMEOUT, 'Call org.acme.Ledger.book() timed out after 200 ms.');

/** A provider whose own downstream call timed out, and which passes that error on (a Result-carried RpcError). */
function passingOnProvider() {
  const calls: string[] = [];
  return {
    calls,
    impl: {
      reserve: async (item: string) => {
        calls.push('reserve');
        if (item === 'ok') return 'reserved';
        throw ledgerTimeout();
      },
      count: () => {
        calls.push('count');
        throw new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'downstream refused: tps limit 10/60000ms exceeded');
      },
      audit: () => {
        calls.push('audit');
        throw Object.assign(new OutOfStock('none left'), { code: 'timeout' });
      },
      a1: () => ({}),
      a2: () => ({}),
      a3: () => ({}),
      a4: () => ({}),
      a5: () => ({}),
      a6: () => ({}),
      a7: () => ({}),
      a8: () => ({}),
    },
  };
}

describe('fail mock: a framework RpcError carried by the Result degrades exactly like a thrown one', () => {
  it('end to end (injvm): the provider passes on its downstream timeout / limit → the mock answers; a business error passes', async () => {
    const p = passingOnProvider();
    await app.export(Stock, p.impl);
    const plain = await app.refer(Stock, { retries: 0 });
    const passedOn = await plain.reserve('x').catch((e: unknown) => e);
    expect(passedOn).toBeInstanceOf(RpcError);
    expect((passedOn as RpcError).code).toBe(RpcErrorCode.TIMEOUT);

    const stock = await app.refer(Stock, { mock: 'fail:return "from cache"', methods: { count: { mock: 'return 0' } } });
    expect(await stock.reserve('ok')).toBe('reserved');
    expect(await stock.reserve('x')).toBe('from cache');
    expect(await stock.count()).toBe(0);
    expect(logger.of('warn')).toContain('fail-mock org.acme.Stock.reserve after: Call org.acme.Ledger.book() timed out after 200 ms.');
    expect(logger.of('warn')).toContain('fail-mock org.acme.Stock.count after: downstream refused: tps limit 10/60000ms exceeded');
    // A business error, even one carrying a `code`, is never degraded.
    const business = await stock.audit().catch((e: unknown) => e);
    expect(business).toBeInstanceOf(OutOfStock);
    expect((business as Error).message).toBe('none left');
    // The Result channel is not retried by failover (Dubbo retries only thrown RpcExceptions): one call each.
    expect(p.calls.filter((c) => c === 'reserve')).toHaveLength(3);
    expect(p.calls.filter((c) => c === 'count')).toHaveLength(1);
  });

  class FakeInvoker extends Invoker {
    calls = 0;
    constructor(private readonly outcome: () => Result | Promise<Result>) {
      super();
    }
    getUrl(): URL {
      return URL.parse('fake://127.0.0.1:1/org.acme.Stock');
    }
    invoke(): Result | Promise<Result> {
      this.calls++;
      return this.outcome();
    }
  }

  function join(mock: string, invoker: Invoker): Invoker {
    const url = new URL({
      protocol: 'consumer',
      host: '127.0.0.1',
      path: Stock.name,
      parameters: { interface: Stock.name, side: 'consumer', methods: Stock.methodNames.join(','), mock },
    });
    return app.model.getExtensionLoader(Cluster).getExtension('failfast').join(new StaticDirectory(Stock, url, [invoker]));
  }

  it.each([
    ['a completed (synchronous) Result', () => Result.ofException(ledgerTimeout())],
    ['a resolved Result', async () => Result.ofException(ledgerTimeout())],
  ])('%s carrying a non-business RpcError → the mock answers', async (_, outcome) => {
    const fake = new FakeInvoker(outcome);
    const result = await join('fail:return 7', fake).invoke(Invocation.of('count', [], Stock));
    expect(result.hasException()).toBe(false);
    expect(result.value).toBe(7);
    expect(fake.calls).toBe(1);
  });

  it.each([
    ['a business error', () => new OutOfStock('none left')],
    ['an RpcError with code biz', () => new RpcError(RpcErrorCode.BIZ, 'wrapped business failure')],
    ['an Error named RpcError with a code (not an RpcError)', () => Object.assign(new Error('mine'), { name: 'RpcError', code: 'timeout' })],
  ])('a Result carrying %s passes through as is', async (_, make) => {
    const failure = make();
    for (const outcome of [() => Result.ofException(failure), async () => Result.ofException(failure)]) {
      const result = await join('fail:return 7', new FakeInvoker(outcome)).invoke(Invocation.of('count', [], Stock));
      expect(result.hasException()).toBe(true);
      expect(result.exception).toBe(failure);
    }
  });

  it('force mode never looks at providers; a mock that fails itself keeps the Result-carried failure in its message', async () => {
    const result = join('fail:return abc', new FakeInvoker(() => Result.ofException(ledgerTimeout()))).invoke(Invocation.of('count', [], Stock));
    const error = await Promise.resolve(result).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).message).toMatch(
      /^mock error: mock return invoke error\. method: count, mock: abc, url: consumer:\/\/\S+: mock value of count: expected Number, got "abc"\., invoke error is: Call org\.acme\.Ledger\.book\(\) timed out after 200 ms\.$/,
    );
  });
});

describe('fail-mock warnings are rate-limited: one line per service and method per interval, with a count', () => {
  it('an outage of 200 calls logs one line at once, then one summary line per interval counting the rest', async () => {
    const stock = await app.refer(Stock, { mock: 'fail:return "cached"', retries: 0, parameters: { 'mock.log.interval': 1000 } });
    for (let i = 0; i < 200; i++) expect(await stock.reserve('x')).toBe('cached');
    await stock.count().catch(() => undefined);
    const lines = (method: string) => logger.of('warn').filter((m) => m.startsWith(`fail-mock org.acme.Stock.${method} `));
    expect(lines('reserve')[0]).toMatch(/^fail-mock org\.acme\.Stock\.reserve after: Failed to invoke the method reserve .*No injvm provider of org\.acme\.Stock/);
    expect(lines('count')).toHaveLength(1);
    expect(lines('count')[0]).toMatch(/^fail-mock org\.acme\.Stock\.count after: /);
    // The 199 others are counted into summary lines, one per elapsed interval (one, unless this machine is slow).
    const summary = /^fail-mock org\.acme\.Stock\.reserve degraded (\d+) calls in the last 1 s; last failure: Failed to invoke the method reserve .*No injvm provider/;
    const counted = () => lines('reserve').slice(1).reduce((sum, line) => sum + Number(summary.exec(line)?.[1] ?? NaN), 0);
    for (let waited = 0; counted() < 199 && waited < 5000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(counted()).toBe(199);
    const logged = lines('reserve').length;
    expect(logged).toBeLessThanOrEqual(3);
    // The outage is over: nothing more is logged; after a quiet interval the next degradation is logged at once.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(lines('reserve')).toHaveLength(logged);
    await stock.reserve('x');
    expect(lines('reserve')).toHaveLength(logged + 1);
    expect(lines('reserve')[logged]).toMatch(/^fail-mock org\.acme\.Stock\.reserve after: /);
  });

  it('with a fake clock: 1234 degradations in 10 s are one line and one "degraded 1234 calls in the last 10 s" line', () => {
    vi.useFakeTimers();
    try {
      const recorded = new RecordingLogger();
      const warnings = new FailMockWarnings(recorded, () => Date.now());
      warnings.degraded('org.acme.Stock', 'reserve', 'timed out', 10_000);
      for (let i = 0; i < 1234; i++) warnings.degraded('org.acme.Stock', 'reserve', `timed out ${i}`, 10_000);
      warnings.degraded('org.acme.Stock', 'count', 'no provider', 10_000);
      expect(recorded.of('warn')).toEqual(['fail-mock org.acme.Stock.reserve after: timed out', 'fail-mock org.acme.Stock.count after: no provider']);
      vi.advanceTimersByTime(10_000);
      expect(recorded.of('warn')[2]).toBe('fail-mock org.acme.Stock.reserve degraded 1234 calls in the last 10 s; last failure: timed out 1233');
      expect(recorded.of('warn')).toHaveLength(3);
      // Still failing: one line per interval.
      for (let i = 0; i < 5; i++) warnings.degraded('org.acme.Stock', 'reserve', 'timed out again', 10_000);
      vi.advanceTimersByTime(10_000);
      expect(recorded.of('warn')[3]).toBe('fail-mock org.acme.Stock.reserve degraded 5 calls in the last 10 s; last failure: timed out again');
      // Shutting down reports what is pending.
      warnings.degraded('org.acme.Stock', 'reserve', 'last one', 10_000);
      vi.advanceTimersByTime(2_000);
      warnings.close();
      expect(recorded.of('warn')[4]).toBe('fail-mock org.acme.Stock.reserve degraded 1 calls in the last 2 s; last failure: last one');
    } finally {
      vi.useRealTimers();
    }
  });

  it('mock.log.interval=0 logs every degradation', async () => {
    const stock = await app.refer(Stock, { mock: 'fail:return "cached"', retries: 0, parameters: { 'mock.log.interval': 0 } });
    for (let i = 0; i < 5; i++) await stock.reserve('x');
    expect(logger.of('warn').filter((m) => m.startsWith('fail-mock org.acme.Stock.reserve after: '))).toHaveLength(5);
  });

  it('a mock.log.interval that is not a number is refused at refer, naming the key', async () => {
    const error = await app.refer(Stock, { mock: 'fail:return "cached"', parameters: { 'mock.log.interval': 'often' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    expect((error as ExtensionError).message).toMatch(
      /^refer\(org\.acme\.Stock\): Invalid value "often" of parameter "mock\.log\.interval" in URL "consumer:\/\/[^"]+": expected a finite decimal number\.$/,
    );
  });
});

describe('an interface-level value is parsed once, not once per method', () => {
  it('one MockLiteral.parse for a JSON value shared by 8 methods, at refer and across every degraded call', async () => {
    const parse = vi.spyOn(MockLiteral, 'parse');
    const stock = await app.refer(Stock, { mock: 'fail:return {status: "degraded", items: [1, 2, 3]}', retries: 0 });
    expect(parse).toHaveBeenCalledTimes(1);
    const answers = await Promise.all([stock.a1(), stock.a2(), stock.a3(), stock.a4(), stock.a5(), stock.a6(), stock.a7(), stock.a8(), stock.a1()]);
    expect(parse).toHaveBeenCalledTimes(1);
    for (const answer of answers) expect(answer).toEqual({ status: 'degraded', items: [1, 2, 3] });
    // Fresh objects per call all the same.
    expect(answers[0]).not.toBe(answers[8]);
    (answers[0] as { items: number[] }).items.push(4);
    expect(await stock.a1()).toEqual({ status: 'degraded', items: [1, 2, 3] });
    // A second reference with the same value reuses the parse (the cache is the application's).
    await app.refer(Stock, { mock: 'fail:return {status: "degraded", items: [1, 2, 3]}' });
    expect(parse).toHaveBeenCalledTimes(1);
  });
});

describe('MockExpressionCache', () => {
  it('is bounded: past its capacity the oldest value is parsed again', () => {
    const parse = vi.spyOn(MockLiteral, 'parse');
    const cache = new MockExpressionCache(2);
    for (const text of ['1', '2', '1', '3', '1', '2']) cache.literal(text);
    // 1, 2 parsed; 1 hit; 3 evicts 1; 1 evicts 2; 2 evicts 3.
    expect(parse.mock.calls.map(([text]) => text)).toEqual(['1', '2', '3', '1', '2']);
    expect(cache.action('force:true')).toEqual({ kind: 'implementation', name: 'default' });
    expect(cache.action('force:true')).toBe(cache.action('force:true'));
  });

  it('is one per application', async () => {
    expect(MockExpressionCache.of(app.model)).toBe(MockExpressionCache.of(app.model));
  });
});

describe('hostile values: a clear ExtensionError in bounded time, never "Maximum call stack size exceeded"', () => {
  async function referError(options: Parameters<WeftApplication['refer']>[1]): Promise<ExtensionError> {
    const error = await app.refer(Stock, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    return error as ExtensionError;
  }

  it(`nesting deeper than ${MockLimits.maxDepth} levels (1000 levels of [) is refused at refer, naming the key`, async () => {
    const error = await referError({ methods: { a1: { mock: `return ${'['.repeat(1000)}` } } });
    expect(error.message).toMatch(
      /^refer\(org\.acme\.Stock\): a1\.mock=return \[{100,}… \(1007 characters\) is not a valid mock expression: for a1\(\): mock JSON value nested deeper than 64 levels \(at position 64\)\. Expected/,
    );
  });

  it('100k levels of [ and a 10 MB value: refused by size before any parsing, in well under a second', async () => {
    for (const value of [`return ${'['.repeat(100_000)}`, `return "${'x'.repeat(10 * 1024 * 1024)}"`]) {
      const started = performance.now();
      const error = await referError({ mock: value });
      expect(performance.now() - started).toBeLessThan(1000);
      expect(error.message).toMatch(
        new RegExp(
          `^refer\\(org\\.acme\\.Stock\\): mock=return .{0,200}… \\(${value.length} characters\\) is not a valid mock expression: ` +
            `the mock value is ${value.length} characters long; the limit is ${MockLimits.maxLength}\\. Expected`,
        ),
      );
      expect(error.message.length).toBeLessThan(1000);
    }
  });

  it('a hostile override is refused the same way and the previous behaviour stays', async () => {
    const stock = await app.refer(Stock, { mock: 'force:return "safe"' });
    let thrown: unknown;
    try {
      app.override(stock, { mock: `force:return ${'{a:'.repeat(50_000)}` });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ExtensionError);
    expect((thrown as ExtensionError).message).toContain('the mock value is 150013 characters long; the limit is 65536');
    expect(await stock.reserve('x')).toBe('safe');
  });
});
