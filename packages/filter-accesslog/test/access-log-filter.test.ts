import { existsSync, mkdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { buildFilterChain, Filter, Invocation, Invoker, Logger, Result, RpcError, RpcErrorCode, URL } from '@weft/core';
import { AccessLogFilter, AccessLogStats, type AccessLogJsonRecord } from '@weft/filter-accesslog';

import { closeAll, Greeter, greeterImpl, OutOfStock, readLines, RecordingLogger, startApp, type TestApp } from './support/harness.js';

afterEach(closeAll);

/** Dubbo 3.x's time format: local time, five fraction digits (milliseconds then `00`). */
const TIME = String.raw`(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\.(\d{3})00`;

function parseLocal(match: RegExpExecArray, from: number): number {
  const [y, mo, d, h, mi, s, ms] = match.slice(from, from + 7).map(Number) as [number, number, number, number, number, number, number];
  return new Date(y, mo - 1, d, h, mi, s, ms).getTime();
}

describe('logger mode (accesslog=true)', () => {
  it('logs one info message per call, in the text format, when the call completes', async () => {
    const t = await startApp();
    const greeter = await t.greeter({ accesslog: 'true' }, { export: { version: '1.0.0', group: 'eu' } });
    await greeter.sayHello('ann', 2);
    await greeter.now();
    const lines = t.logger.of('info').filter((m) => m.includes('org.acme.Greeter') && !m.startsWith('exported '));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      new RegExp(String.raw`^\[${TIME}\] -> \[${TIME}\] 127\.0\.0\.1:0 -> 127\.0\.0\.1:0 - eu/org\.acme\.Greeter:1\.0\.0 sayHello\(String,Number\) \["ann",2\]$`),
    );
    // No arguments: nothing after "() ", as Dubbo.
    expect(lines[1]).toMatch(/ - eu\/org\.acme\.Greeter:1\.0\.0 now\(\) $/);
    for (const line of lines) expect(line).not.toContain('\n');
    // Logger mode has no file counters.
    expect(t.app.model.getService(AccessLogStats).files()).toEqual([]);
  });

  it('accesslog=default is the logger too, and a method-level key logs only that method', async () => {
    const t = await startApp();
    const greeter = await t.greeter({ 'sayHello.accesslog': 'default' });
    await greeter.sayHello('bo', 1);
    await greeter.ping('x');
    const lines = t.logger.of('info').filter((m) => m.includes('org.acme.Greeter') && !m.startsWith('exported '));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(' sayHello(String,Number) ["bo",1]');
  });

  it('a logger that throws never breaks the call', async () => {
    class ThrowingLogger extends Logger {
      debug(): void {}
      info(): void {
        throw new Error('logger is broken');
      }
      warn(): void {}
      error(): void {}
    }
    const t = await startApp({ logger: new ThrowingLogger() });
    const greeter = await t.greeter({ accesslog: 'true' });
    await expect(greeter.sayHello('ann', 1)).resolves.toBe('hello ann x1');
    await expect(greeter.buy('tea')).rejects.toBeInstanceOf(OutOfStock);
  });
});

describe('file mode, text format', () => {
  it("writes Dubbo 3.x's line: in-time, out-time at completion, addresses, group/service:version, types, arguments", async () => {
    const t = await startApp();
    const file = join(t.dir, 'nested', 'dir', 'access.log');
    const greeter = await t.greeter({ accesslog: file }, { slow: 60, export: { version: '2.1.0', group: 'g1' } });
    const before = Date.now();
    await greeter.ping('slow one');
    const after = Date.now();
    await greeter.$call('sayHello', ['ann', 3], { attachments: { 'remote.address': '10.0.0.7:51234', 'local.address': '10.0.0.1:20880' } });
    await t.app.shutdown();

    const lines = readLines(file);
    expect(lines).toHaveLength(2);
    const re = new RegExp(
      String.raw`^\[${TIME}\] -> \[${TIME}\] 127\.0\.0\.1:0 -> 127\.0\.0\.1:0 - g1/org\.acme\.Greeter:2\.1\.0 ping\(String\) \["slow one"\]$`,
    );
    const match = re.exec(lines[0] ?? '');
    expect(match).not.toBeNull();
    const inTime = parseLocal(match as RegExpExecArray, 1);
    const outTime = parseLocal(match as RegExpExecArray, 8);
    expect(inTime).toBeGreaterThanOrEqual(before);
    expect(outTime).toBeLessThanOrEqual(after);
    // The out-time is the completion of the (async, 60 ms) call, not the moment invoke returned (§8.6).
    expect(outTime - inTime).toBeGreaterThanOrEqual(50);
    expect(lines[1]).toMatch(
      new RegExp(String.raw`^\[${TIME}\] -> \[${TIME}\] 10\.0\.0\.7:51234 -> 10\.0\.0\.1:20880 - g1/org\.acme\.Greeter:2\.1\.0 sayHello\(String,Number\) \["ann",3\]$`),
    );
  });

  it('omits group and version when unset, and keeps every value on one line', async () => {
    const t = await startApp();
    const file = join(t.dir, 'access.log');
    const greeter = await t.greeter({ accesslog: file });
    await greeter.ping('two\nlines\r\nhere');
    await greeter.$call('ping', ['x'], { attachments: { 'remote.address': 'evil\nhost:1' } });
    await t.app.shutdown();
    const lines = readLines(file);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/ 127\.0\.0\.1:0 -> 127\.0\.0\.1:0 - org\.acme\.Greeter ping\(String\) \["two\\nlines\\r\\nhere"\]$/);
    expect(lines[1]).toContain('] evil\\nhost:1 -> 127.0.0.1:0 - org.acme.Greeter ping(String) ["x"]');
  });

  it('resolves a relative path against process.cwd()', async () => {
    const t = await startApp();
    const cwd = process.cwd();
    process.chdir(t.dir);
    try {
      const greeter = await t.greeter({ accesslog: 'logs/relative.log' });
      await greeter.ping('rel');
      await t.app.shutdown();
    } finally {
      process.chdir(cwd);
    }
    expect(readLines(join(t.dir, 'logs', 'relative.log'))).toHaveLength(1);
    expect(t.app.model.getService(AccessLogStats).file(join(t.dir, 'logs', 'relative.log'))?.written).toBe(1);
  });

  it('records business errors and framework errors (the text format, like Dubbo, has no outcome)', async () => {
    const t = await startApp();
    const file = join(t.dir, 'errors.log');
    const greeter = await t.greeter({ accesslog: file });
    await expect(greeter.buy('tea')).rejects.toBeInstanceOf(OutOfStock);
    // `$echo` without the echo filter reaches the provider, which has no such method: a framework error.
    await expect(greeter.$echo('hi')).rejects.toMatchObject({ code: RpcErrorCode.METHOD_NOT_FOUND });
    await t.app.shutdown();
    const lines = readLines(file);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/ org\.acme\.Greeter buy\(String\) \["tea"\]$/);
    // An undeclared method: the runtime argument types.
    expect(lines[1]).toMatch(/ org\.acme\.Greeter \$echo\(String\) \["hi"\]$/);
  });
});

describe('file mode, JSON lines', () => {
  it('writes one JSON object per call for a .jsonl path, with outcome, elapsed time and error', async () => {
    const t = await startApp();
    const file = join(t.dir, 'access.jsonl');
    const greeter = await t.greeter({ accesslog: file }, { slow: 30, export: { version: '1.0.0' } });
    const before = Date.now();
    await greeter.ping('a');
    await expect(greeter.buy('tea')).rejects.toBeInstanceOf(OutOfStock);
    await expect(greeter.$echo('hi')).rejects.toBeInstanceOf(RpcError);
    await greeter.$call('seq', [7, 8], { attachments: { 'remote.address': '10.1.1.1:4000' } });
    await t.app.shutdown();

    const records = readLines(file).map((l) => JSON.parse(l) as AccessLogJsonRecord);
    expect(records.map((r) => Object.keys(r))).toEqual(
      Array(4).fill([
        'timestamp',
        'remote',
        'local',
        'service',
        'version',
        'group',
        'method',
        'argumentTypes',
        'arguments',
        'elapsedMs',
        'outcome',
        'error',
      ]),
    );
    const [ping, buy, echo, seq] = records as [AccessLogJsonRecord, AccessLogJsonRecord, AccessLogJsonRecord, AccessLogJsonRecord];
    expect(ping).toMatchObject({
      remote: '127.0.0.1:0',
      local: '127.0.0.1:0',
      service: 'org.acme.Greeter',
      version: '1.0.0',
      group: null,
      method: 'ping',
      argumentTypes: ['String'],
      arguments: ['a'],
      outcome: 'ok',
      error: null,
    });
    expect(Date.parse(ping.timestamp)).toBeGreaterThanOrEqual(before);
    expect(ping.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(ping.elapsedMs).toBeGreaterThanOrEqual(25);
    expect(buy).toMatchObject({ method: 'buy', arguments: ['tea'], outcome: 'biz-error', error: 'OutOfStock: no more tea' });
    expect(echo).toMatchObject({ method: '$echo', outcome: 'error' });
    expect(echo.error).toMatch(/^RpcError\(method-not-found\): Service org\.acme\.Greeter has no method "\$echo"/);
    expect(seq).toMatchObject({ method: 'seq', argumentTypes: ['Number', 'Number'], arguments: [7, 8], remote: '10.1.1.1:4000', outcome: 'ok' });
  });

  it('accesslog.format=json switches any path to JSON lines; accesslog.format=text keeps a .jsonl path in text', async () => {
    const t = await startApp();
    const json = join(t.dir, 'access.log');
    const text = join(t.dir, 'access.jsonl');
    const a = await t.greeter({ accesslog: json, 'accesslog.format': 'json' }, { export: { group: 'a' }, refer: { group: 'a' } });
    const b = await t.greeter({ accesslog: text, 'accesslog.format': 'text' }, { export: { group: 'b' }, refer: { group: 'b' } });
    await a.ping('1');
    await b.ping('2');
    await t.app.shutdown();
    expect(JSON.parse(readLines(json)[0] ?? '')).toMatchObject({ group: 'a', arguments: ['1'], outcome: 'ok' });
    expect(readLines(text)[0]).toMatch(/ - b\/org\.acme\.Greeter ping\(String\) \["2"\]$/);
  });

  it('logs to the application logger as JSON with accesslog=true and accesslog.format=json', async () => {
    const t = await startApp();
    const greeter = await t.greeter({ accesslog: 'true', 'accesslog.format': 'json' });
    await greeter.ping('j');
    const line = t.logger.of('info').find((m) => m.includes('org.acme.Greeter') && !m.startsWith('exported '));
    expect(JSON.parse(line ?? '')).toMatchObject({ service: 'org.acme.Greeter', method: 'ping', arguments: ['j'], outcome: 'ok' });
  });

  it('renders arguments JSON cannot represent without failing the call (BigInt as text, cycles as Arrays.toString)', async () => {
    const t = await startApp();
    const file = join(t.dir, 'odd.jsonl');
    const greeter = await t.greeter({ accesslog: file });
    // copy=false passes the arguments by reference, so odd values reach the provider as they are.
    await t.app.export(Greeter, greeterImpl(), { group: 'raw', parameters: { accesslog: file, copy: 'false' } });
    const raw = await t.app.refer(Greeter, { group: 'raw', cluster: 'failfast' });
    const cyclic: Record<string, unknown> = { name: 'loop' };
    cyclic['self'] = cyclic;
    await raw.$call('seq', [10n as unknown as number, 1]);
    await raw.$call('seq', [cyclic as unknown as number, 2]);
    await greeter.ping('fine');
    await t.app.shutdown();
    const records = readLines(file).map((l) => JSON.parse(l) as AccessLogJsonRecord);
    expect(records).toHaveLength(3);
    expect(records[0]).toMatchObject({ arguments: ['10', 1], outcome: 'ok' });
    expect(records[1]).toMatchObject({ arguments: '[[object Object], 2]', outcome: 'ok' });
    expect(records[2]).toMatchObject({ arguments: ['fine'] });
  });
});

describe('activation at run time', () => {
  it('services without accesslog are not logged and get no file', async () => {
    const t = await startApp();
    const file = join(t.dir, 'never.log');
    const greeter = await t.greeter({ 'accesslog.format': 'json' });
    await greeter.ping('x');
    await t.app.shutdown();
    expect(existsSync(file)).toBe(false);
    expect(t.logger.of('info').filter((m) => m.includes('org.acme.Greeter') && !m.startsWith('exported '))).toEqual([]);
  });

  it('a file mode app logs nothing to the logger and nothing at warn/error level', async () => {
    const logger = new RecordingLogger();
    const t = await startApp({ logger });
    const greeter = await t.greeter({ accesslog: join(t.dir, 'quiet.log') });
    await greeter.ping('x');
    await t.app.shutdown();
    expect(logger.of('info').filter((m) => m.includes('org.acme.Greeter') && !m.startsWith('exported '))).toEqual([]);
    expect([...logger.of('warn'), ...logger.of('error')]).toEqual([]);
  });
});

describe('synchronous answers (an inner chain that completes without a promise)', () => {
  /** An invoker answering as `answer` says, synchronously (a Result, or a throw); counts its calls. */
  class SyncInvoker extends Invoker {
    calls = 0;
    constructor(
      private readonly url: URL,
      public answer: (invocation: Invocation) => Result,
    ) {
      super();
    }
    getUrl(): URL {
      return this.url;
    }
    invoke(invocation: Invocation): Result | Promise<Result> {
      this.calls++;
      return this.answer(invocation);
    }
  }

  /** The application's accesslog filter in a chain the way core builds it (with its onResponse/onError hooks). */
  function chainAround(t: TestApp, query: string, answer: (invocation: Invocation) => Result) {
    const url = URL.parse(`injvm://127.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&side=provider&${query}`);
    const filters = t.app.model.getExtensionLoader(Filter);
    const selected = filters.getActivateExtensions(url, 'service.filter', 'provider');
    expect(selected.map((f) => f.constructor)).toEqual([AccessLogFilter]);
    const invoker = new SyncInvoker(url, answer);
    return { invoker, chain: buildFilterChain(invoker, selected, () => 'accesslog', t.app.model.logger) };
  }

  const records = (t: TestApp) =>
    t.logger
      .of('info')
      .filter((m) => m.includes('org.acme.Greeter') && !m.startsWith('exported '))
      .map((m) => JSON.parse(m) as AccessLogJsonRecord);

  it('a completed Result is answered synchronously, its one line recorded before the answer returns', async () => {
    const t = await startApp();
    const { chain } = chainAround(t, 'accesslog=true&accesslog.format=json', (invocation) => Result.of(`pong ${String(invocation.args[0])}`));
    for (let i = 0; i < 3; i++) {
      const answer = chain.invoke(new Invocation({ methodName: 'ping', args: [`s${i}`] }));
      expect(answer).toBeInstanceOf(Result);
      expect((answer as Result).value).toBe(`pong s${i}`);
      expect(records(t)).toHaveLength(i + 1); // already logged: nothing left to wait for
    }
    expect(records(t).map((r) => [r.arguments, r.outcome, r.error])).toEqual([
      [['s0'], 'ok', null],
      [['s1'], 'ok', null],
      [['s2'], 'ok', null],
    ]);
  });

  it('a completed Result carrying a business error is answered synchronously, recorded as biz-error', async () => {
    const t = await startApp();
    const { chain } = chainAround(t, 'accesslog=true&accesslog.format=json', () => Result.ofException(new OutOfStock('no more tea')));
    const answer = chain.invoke(new Invocation({ methodName: 'buy', args: ['tea'] }));
    expect(answer).toBeInstanceOf(Result);
    expect((answer as Result).exception).toBeInstanceOf(OutOfStock);
    expect(records(t)).toEqual([expect.objectContaining({ method: 'buy', arguments: ['tea'], outcome: 'biz-error', error: 'OutOfStock: no more tea' })]);
  });

  it('a synchronous throw is rethrown synchronously, as is, its one line (error) recorded before it propagates', async () => {
    const t = await startApp();
    const boom = new RpcError(RpcErrorCode.NETWORK, 'inner threw synchronously');
    const { chain } = chainAround(t, 'accesslog=true&accesslog.format=json', () => {
      throw boom;
    });
    expect(() => chain.invoke(new Invocation({ methodName: 'ping', args: ['x'] }))).toThrow(boom);
    expect(records(t)).toEqual([expect.objectContaining({ method: 'ping', outcome: 'error', error: 'RpcError(network): inner threw synchronously' })]);
  });

  it('file mode: synchronous calls queue their line at once; only back-pressure makes the answer a promise, and nothing is lost', async () => {
    const t = await startApp();
    const file = join(t.dir, 'sync-blocked.log');
    mkdirSync(file); // every write fails (EISDIR) until the directory is removed
    const query = `accesslog=${encodeURIComponent(file)}&accesslog.overflow=hold&accesslog.max.pending=2&accesslog.buffer.size=1&accesslog.flush.interval=20`;
    // Calls of caller 3 throw synchronously; the others complete synchronously.
    const { invoker, chain } = chainAround(t, query, (invocation) => {
      if (invocation.args[0] === 3) throw new RpcError(RpcErrorCode.NETWORK, 'thrown after the wait');
      return Result.of(invocation.args[1]);
    });
    const stats = t.app.model.getService(AccessLogStats);
    for (let n = 0; n < 2; n++) {
      expect(chain.invoke(new Invocation({ methodName: 'seq', args: [1, n] }))).toBeInstanceOf(Result);
      expect(stats.file(file)?.pending).toBe(n + 1);
    }
    // Two lines pending = accesslog.max.pending: the next calls wait in the filter, before reaching the invoker.
    const held = chain.invoke(new Invocation({ methodName: 'seq', args: [2, 0] }));
    const failing = chain.invoke(new Invocation({ methodName: 'seq', args: [3, 1] }));
    expect(held).toBeInstanceOf(Promise);
    expect(failing).toBeInstanceOf(Promise);
    expect(invoker.calls).toBe(2);
    rmdirSync(file);
    // Released by the write: the waiting calls run; a synchronous throw after the wait becomes a rejection.
    const [released, thrown] = await Promise.allSettled([held, failing]);
    expect(released).toMatchObject({ status: 'fulfilled', value: expect.objectContaining({ value: 0 }) });
    expect(thrown).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ code: RpcErrorCode.NETWORK }) });
    expect(invoker.calls).toBe(4);
    await t.app.shutdown();
    expect(readLines(file).map((l) => / seq\(Number,Number\) \[(\d+),(\d+)\]$/.exec(l)?.slice(1, 3).join(','))).toEqual(['1,0', '1,1', '2,0', '3,1']);
    expect(stats.file(file)).toMatchObject({ written: 4, pending: 0, unwritable: 0 });
  });

  it('a synchronous implementation behind injvm: one line per call, ok and biz-error alike', async () => {
    const t = await startApp();
    const file = join(t.dir, 'sync.jsonl');
    const greeter = await t.greeter({ accesslog: file });
    // sayHello, seq and buy are synchronous implementations: the whole provider chain completes without a promise.
    for (let n = 0; n < 50; n++) expect(await greeter.seq(0, n)).toBe(n);
    await expect(greeter.buy('tea')).rejects.toBeInstanceOf(OutOfStock);
    expect(await greeter.sayHello('ann', 1)).toBe('hello ann x1');
    await t.app.shutdown();
    const lines = readLines(file).map((l) => JSON.parse(l) as AccessLogJsonRecord);
    expect(lines).toHaveLength(52);
    expect(lines.slice(0, 50).map((r) => (r.arguments as number[])[1])).toEqual(Array.from({ length: 50 }, (_, n) => n));
    expect(lines.map((r) => r.outcome)).toEqual([...Array<string>(50).fill('ok'), 'biz-error', 'ok']);
  });
});
