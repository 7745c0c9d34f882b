// Sinks that block or fill up: a FIFO nobody reads never stops calls nor shutdown, and the counters always agree
// with what reached the file.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { AccessLogStats } from '@weft/filter-accesslog';

import { closeAll, startApp, until } from './support/harness.js';

afterEach(closeAll);

function fifo(path: string): string {
  execFileSync('mkfifo', [path]);
  return path;
}

describe('a FIFO nobody reads', () => {
  it('spool (default): calls proceed, the failure is counted and logged once, shutdown({ timeout: 2000 }) returns in time with the exact unwritten count', async () => {
    const t = await startApp();
    const file = fifo(join(t.dir, 'nobody-reads.log'));
    const greeter = await t.greeter({ accesslog: file, 'accesslog.buffer.size': 50, 'accesslog.flush.interval': 20 }, { asyncSeq: true });
    const stats = t.app.model.getService(AccessLogStats);
    const started = Date.now();
    for (let wave = 0; wave < 4; wave++) await Promise.all(Array.from({ length: 75 }, (_, n) => greeter.seq(wave, n)));
    expect(Date.now() - started).toBeLessThan(2000);
    await until(() => (stats.file(file)?.failedWrites ?? 0) >= 2, 2000, 'failed writes');
    const errors = t.logger.of('error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/nobody-reads\.log: cannot write \(ENXIO\); \d+ line\(s\) stay queued .* Calls proceed; up to 200000 lines are kept \(accesslog\.spool\.max\)/);

    const shutdownStarted = Date.now();
    await t.app.shutdown({ timeout: 2000 });
    expect(Date.now() - shutdownStarted).toBeLessThanOrEqual(2500);
    expect(stats.file(file)).toMatchObject({ written: 0, pending: 0, unwritable: 300, dropped: 0 });
    expect(t.logger.of('error').at(-1)).toMatch(/nobody-reads\.log: 300 line\(s\) could not be written before shutdown/);
  });

  it('spool keeps at most accesslog.spool.max lines, then drops and counts the rest (reported once)', async () => {
    const t = await startApp();
    const file = fifo(join(t.dir, 'full-spool.log'));
    const greeter = await t.greeter({ accesslog: file, 'accesslog.spool.max': 40, 'accesslog.buffer.size': 10, 'accesslog.flush.interval': 20 });
    const stats = t.app.model.getService(AccessLogStats);
    for (let n = 0; n < 100; n++) await greeter.seq(0, n);
    expect(stats.file(file)).toMatchObject({ written: 0, pending: 40, dropped: 60 });
    expect(t.logger.of('error').filter((line) => line.includes('new lines are dropped'))).toHaveLength(1);
    await t.app.shutdown({ timeout: 500 });
    expect(stats.file(file)).toMatchObject({ written: 0, pending: 0, unwritable: 40, dropped: 60 });
  });

  it('hold: calls wait at max.pending, and shutdown({ timeout: 2000 }) still returns within 2.5 s, every line accounted for', async () => {
    const t = await startApp();
    const file = fifo(join(t.dir, 'held.log'));
    const greeter = await t.greeter(
      { accesslog: file, 'accesslog.overflow': 'hold', 'accesslog.max.pending': 20, 'accesslog.buffer.size': 5, 'accesslog.flush.interval': 20 },
      { asyncSeq: true },
    );
    const stats = t.app.model.getService(AccessLogStats);
    await Promise.all(Array.from({ length: 20 }, (_, n) => greeter.seq(0, n)));
    let finished = 0;
    const held = Array.from({ length: 10 }, (_, n) => greeter.seq(1, n).then(() => finished++, () => finished++));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(finished).toBe(0);

    const shutdownStarted = Date.now();
    await t.app.shutdown({ timeout: 2000 });
    expect(Date.now() - shutdownStarted).toBeLessThanOrEqual(2500);
    await Promise.all(held);
    expect(finished).toBe(10);
    // The held calls, released by the filter's destroy, run and record their lines after the shutdown (written
    // one by one, which a FIFO nobody reads refuses): in the end every one of the 30 lines is counted.
    await until(() => stats.file(file)?.unwritable === 30, 2000, 'all 30 lines counted as unwritable');
    expect(stats.file(file)).toMatchObject({ written: 0, pending: 0, dropped: 0 });
  });
});

describe('a write timeout', () => {
  it('is a documented, validated key', async () => {
    const t = await startApp();
    await expect(t.greeter({ accesslog: join(t.dir, 'x.log'), 'accesslog.write.timeout': 'soon' })).rejects.toThrow(
      'accesslog.write.timeout=soon is not a positive integer. Expected a whole number of milliseconds greater than 0.',
    );
    await expect(t.greeter({ accesslog: join(t.dir, 'x.log'), 'accesslog.overflow': 'drop' })).rejects.toThrow(
      'accesslog.overflow=drop is not known. Expected "spool" (calls proceed while lines wait) or "hold"',
    );
  });
});
