import { existsSync, mkdirSync, readFileSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { AccessLogStats } from '@weft/filter-accesslog';

import { closeAll, readLines, sleep, startApp, until } from './support/harness.js';

afterEach(closeAll);

/** A complete text line of one `seq(caller, n)` call: nothing merged, nothing cut. */
const SEQ_LINE = /^\[[^\]]+\] -> \[[^\]]+\] 127\.0\.0\.1:0 -> 127\.0\.0\.1:0 - org\.acme\.Greeter seq\(Number,Number\) \[(\d+),(\d+)\]$/;
const PING_LINE = /^\[[^\]]+\] -> \[[^\]]+\] 127\.0\.0\.1:0 -> 127\.0\.0\.1:0 - org\.acme\.Greeter ping\(String\) \["same"\]$/;

describe('buffered file writing', () => {
  it('a burst of 20 000 calls with buffer 1000 gives exactly 20 000 whole lines, in order per caller, identical ones all kept', async () => {
    const t = await startApp();
    const file = join(t.dir, 'burst.log');
    const greeter = await t.greeter({ accesslog: file, 'accesslog.buffer.size': 1000, 'accesslog.flush.interval': 60_000 });
    const stats = t.app.model.getService(AccessLogStats);

    const CALLERS = 10;
    const PER_CALLER = 1000;
    const IDENTICAL = 10_000;
    const callers = Array.from({ length: CALLERS }, async (_, caller) => {
      for (let n = 0; n < PER_CALLER; n++) await greeter.seq(caller, n);
    });
    const identical = Array.from({ length: IDENTICAL }, () => greeter.ping('same'));
    await Promise.all([...callers, ...identical]);

    // The buffer, not the (60 s) timer, wrote everything but the last partial buffer.
    await until(() => stats.pending < 1000, 5000, 'the writer to catch up');
    const beforeShutdown = stats.file(file);
    expect(beforeShutdown?.written).toBeGreaterThan(19_000);
    expect((beforeShutdown?.written ?? 0) + (beforeShutdown?.pending ?? 0)).toBe(20_000);
    expect(readLines(file).length).toBe(beforeShutdown?.written);

    await t.app.shutdown();
    const lines = readLines(file);
    expect(lines).toHaveLength(20_000);
    expect(lines.filter((l) => PING_LINE.test(l))).toHaveLength(IDENTICAL);
    const seen = Array.from({ length: CALLERS }, () => [] as number[]);
    for (const line of lines) {
      if (PING_LINE.test(line)) continue;
      const match = SEQ_LINE.exec(line);
      expect(match, line).not.toBeNull();
      seen[Number(match?.[1])]?.push(Number(match?.[2]));
    }
    // Each caller's calls are sequential, so its lines are in call order, all present.
    const inOrder = Array.from({ length: PER_CALLER }, (_, n) => n);
    for (const numbers of seen) expect(numbers).toEqual(inOrder);
    expect(stats.file(file)).toMatchObject({ written: 20_000, pending: 0, failedWrites: 0, unwritable: 0 });
  });

  it('shutdown flushes every pending line (nothing is written before, with a long interval and a big buffer)', async () => {
    const t = await startApp();
    const file = join(t.dir, 'shutdown.log');
    const greeter = await t.greeter({ accesslog: file, 'accesslog.flush.interval': 60_000 });
    const stats = t.app.model.getService(AccessLogStats);
    for (let n = 0; n < 3; n++) await greeter.seq(0, n);
    await sleep(20);
    expect(existsSync(file)).toBe(false);
    expect(stats.file(file)).toMatchObject({ written: 0, pending: 3 });
    await t.app.shutdown();
    expect(readLines(file).map((l) => SEQ_LINE.exec(l)?.[2])).toEqual(['0', '1', '2']);
    expect(stats.file(file)).toMatchObject({ written: 3, pending: 0, unwritable: 0 });
  });

  it('the flush interval writes a partial buffer in the background', async () => {
    const t = await startApp();
    const file = join(t.dir, 'interval.log');
    const greeter = await t.greeter({ accesslog: file, 'accesslog.flush.interval': 30 });
    const stats = t.app.model.getService(AccessLogStats);
    await greeter.seq(0, 0);
    await greeter.seq(0, 1);
    await until(() => stats.written === 2, 2000, 'the interval flush');
    expect(readLines(file)).toHaveLength(2);
  });

  it('a call that outlives the shutdown timeout still gets its line, after the queued ones', async () => {
    const t = await startApp();
    const file = join(t.dir, 'late.log');
    const greeter = await t.greeter({ accesslog: file, 'accesslog.flush.interval': 60_000 }, { slow: 150 });
    const stats = t.app.model.getService(AccessLogStats);
    await greeter.seq(0, 0);
    const slow = greeter.ping('late');
    await t.app.shutdown({ timeout: 10 });
    expect(stats.file(file)).toMatchObject({ written: 1, pending: 0 });
    await expect(slow).resolves.toBe('late');
    await until(() => stats.written === 2, 2000, 'the late line');
    const lines = readLines(file);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(SEQ_LINE);
    expect(lines[1]).toMatch(/ ping\(String\) \["late"\]$/);
    expect(stats.file(file)).toMatchObject({ written: 2, pending: 0, unwritable: 0 });
  });

  it('appends to an existing file', async () => {
    const first = await startApp();
    const file = join(first.dir, 'append.log');
    await (await first.greeter({ accesslog: file })).seq(1, 1);
    await first.app.shutdown();
    const second = await startApp({ name: 'second' });
    await (await second.greeter({ accesslog: file })).seq(2, 2);
    await second.app.shutdown();
    expect(readLines(file).map((l) => SEQ_LINE.exec(l)?.slice(1, 3).join(','))).toEqual(['1,1', '2,2']);
  });
});

describe('failing writes and back-pressure', () => {
  it('keeps lines while the file cannot be written (EISDIR), makes new calls wait at max.pending, and loses nothing', async () => {
    const t = await startApp();
    const file = join(t.dir, 'blocked.log');
    mkdirSync(file); // a directory where the file should be: every open fails with EISDIR
    const greeter = await t.greeter(
      {
        accesslog: file,
        'accesslog.overflow': 'hold',
        'accesslog.max.pending': 5,
        'accesslog.buffer.size': 2,
        'accesslog.flush.interval': 20,
      },
      // seq answers asynchronously, so the 8 calls of wave 1 are all in flight at once (a synchronous seq would
      // complete each call, queueing its line, before the next one arrived: the 6th would already wait).
      { asyncSeq: true },
    );
    const stats = t.app.model.getService(AccessLogStats);

    // Wave 1: 8 calls arrive while nothing is pending, so all of them run; their lines cannot be written.
    await Promise.all(Array.from({ length: 8 }, (_, n) => greeter.seq(1, n)));
    expect(stats.file(file)?.pending).toBe(8);
    await until(() => (stats.file(file)?.failedWrites ?? 0) >= 3, 2000, 'retries');

    // Wave 2: 8 ≥ max.pending (5), so these calls wait in the filter instead of running.
    let finished = 0;
    const wave2 = Array.from({ length: 3 }, (_, n) => greeter.seq(2, n).then(() => finished++));
    await sleep(150);
    expect(finished).toBe(0);
    expect(stats.file(file)).toMatchObject({ written: 0, pending: 8, unwritable: 0 });
    expect(stats.failedWrites).toBeGreaterThanOrEqual(3);
    // One error per failure streak, however many retries failed.
    const errors = t.logger.of('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^access log .*blocked\.log: cannot write \(EISDIR\); 8 line\(s\) stay queued and are retried every 20 ms/);

    // The operator fixes it: the next retry writes the backlog, which releases the waiting calls.
    rmdirSync(file);
    await Promise.all(wave2);
    expect(finished).toBe(3);
    await t.app.shutdown();

    const lines = readLines(file);
    expect(lines.map((l) => SEQ_LINE.exec(l)?.slice(1, 3).join(','))).toEqual([
      ...Array.from({ length: 8 }, (_, n) => `1,${n}`),
      ...Array.from({ length: 3 }, (_, n) => `2,${n}`),
    ]);
    expect(stats.file(file)).toMatchObject({ written: 11, pending: 0, unwritable: 0 });
    expect(stats.file(file)?.failedWrites).toBeGreaterThanOrEqual(3);
    expect(t.logger.of('warn').filter((m) => m.includes('writable again'))).toHaveLength(1);
    expect(t.logger.of('error')).toHaveLength(1);
  });

  it('counts lines still unwritable at shutdown when the disk keeps failing, and reports them', async () => {
    const t = await startApp();
    const file = join(t.dir, 'dead.log');
    mkdirSync(file);
    const greeter = await t.greeter({ accesslog: file, 'accesslog.flush.interval': 60_000 });
    const stats = t.app.model.getService(AccessLogStats);
    await greeter.seq(0, 0);
    await greeter.seq(0, 1);
    await t.app.shutdown();
    expect(stats.file(file)).toMatchObject({ written: 0, pending: 0, unwritable: 2, failedWrites: 3 });
    expect(stats.unwritable).toBe(2);
    const errors = t.logger.of('error');
    expect(errors).toHaveLength(2);
    expect(errors[1]).toMatch(/dead\.log: 2 line\(s\) could not be written before shutdown \(3 attempts failed\)/);
  });
});

describe('AccessLogStats', () => {
  it('is an application service with counters per file and totals', async () => {
    const t = await startApp();
    const a = join(t.dir, 'a.log');
    const b = join(t.dir, 'b.jsonl');
    const ga = await t.greeter({ accesslog: a }, { export: { group: 'a' } });
    const gb = await t.greeter({ accesslog: b }, { export: { group: 'b' } });
    await ga.seq(0, 0);
    await gb.seq(0, 0);
    await gb.seq(0, 1);
    const stats = t.app.model.getService(AccessLogStats);
    expect(stats.files().map((f) => f.path)).toEqual([a, b]);
    expect(stats).toMatchObject({ written: 0, pending: 3, failedWrites: 0, unwritable: 0 });
    await t.app.shutdown();
    expect(stats.file(a)).toEqual({ path: a, written: 1, pending: 0, failedWrites: 0, unwritable: 0, dropped: 0 });
    expect(stats.file(b)).toMatchObject({ written: 2, pending: 0 });
    expect(stats.written).toBe(3);
    expect(stats.file(join(t.dir, 'unknown.log'))).toBeUndefined();
    expect(readFileSync(b, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('belongs to one application: two applications logging to their own files share no queue or counter', async () => {
    const one = await startApp({ name: 'one' });
    const two = await startApp({ name: 'two' });
    const fileOne = join(one.dir, 'one.log');
    const fileTwo = join(two.dir, 'two.log');
    await (await one.greeter({ accesslog: fileOne })).seq(1, 1);
    const g2 = await two.greeter({ accesslog: fileTwo });
    await g2.seq(2, 1);
    await g2.seq(2, 2);
    const s1 = one.app.model.getService(AccessLogStats);
    const s2 = two.app.model.getService(AccessLogStats);
    expect(s1).not.toBe(s2);
    expect(s1.files().map((f) => f.path)).toEqual([fileOne]);
    expect(s2.files().map((f) => f.path)).toEqual([fileTwo]);
    await one.app.shutdown();
    // Shutting one application down flushes its file only.
    expect(readLines(fileOne)).toHaveLength(1);
    expect(existsSync(fileTwo)).toBe(false);
    await two.app.shutdown();
    expect(readLines(fileTwo)).toHaveLength(2);
  });

  it('uses an AccessLogStats the application registered before the filter was created', async () => {
    const t = await startApp();
    const mine = new AccessLogStats();
    t.app.model.registerService(AccessLogStats, mine);
    const file = join(t.dir, 'mine.log');
    await (await t.greeter({ accesslog: file })).seq(0, 0);
    await t.app.shutdown();
    expect(mine.file(file)?.written).toBe(1);
  });
});
