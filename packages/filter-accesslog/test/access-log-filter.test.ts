import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { Logger, RpcError, RpcErrorCode } from '@weft/core';
import { AccessLogStats, type AccessLogJsonRecord } from '@weft/filter-accesslog';

import { closeAll, Greeter, greeterImpl, OutOfStock, readLines, RecordingLogger, startApp } from './support/harness.js';

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
    const lines = t.logger.of('info').filter((m) => m.includes('org.acme.Greeter'));
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
    const lines = t.logger.of('info').filter((m) => m.includes('org.acme.Greeter'));
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
    const line = t.logger.of('info').find((m) => m.includes('org.acme.Greeter'));
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
    expect(t.logger.of('info').filter((m) => m.includes('org.acme.Greeter'))).toEqual([]);
  });

  it('a file mode app logs nothing to the logger and nothing at warn/error level', async () => {
    const logger = new RecordingLogger();
    const t = await startApp({ logger });
    const greeter = await t.greeter({ accesslog: join(t.dir, 'quiet.log') });
    await greeter.ping('x');
    await t.app.shutdown();
    expect(logger.of('info').filter((m) => m.includes('org.acme.Greeter'))).toEqual([]);
    expect([...logger.of('warn'), ...logger.of('error')]).toEqual([]);
  });
});
