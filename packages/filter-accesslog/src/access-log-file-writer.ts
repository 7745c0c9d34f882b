import { closeSync, constants, openSync, writeSync } from 'node:fs';
import { mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

import type { Logger } from '@weft/core';
import { safeLog } from '@weft/core/spi';

import type { AccessLogFileCounters } from './access-log-stats.js';

/** What happens to calls when a file's writer cannot keep up: see `accesslog.overflow`. */
export type AccessLogOverflow = 'spool' | 'hold';

/** Settings of one file's writer (from the first URL that logs to it). @internal */
export interface AccessLogWriterOptions {
  /** Background flush period, ms. */
  readonly flushInterval: number;
  /** Queue length that triggers a write; also the most lines one write carries. */
  readonly bufferSize: number;
  /** Pending lines at which callers are made to wait (`hold`). */
  readonly maxPending: number;
  /** How long one write may take before the sink counts as blocked, ms. */
  readonly writeTimeout: number;
  /** `spool`: calls proceed and lines are kept (up to `spoolMax`); `hold`: calls wait at `maxPending`. */
  readonly overflow: AccessLogOverflow;
  /** Lines kept for a file in `spool` mode; beyond, lines are dropped and counted. */
  readonly spoolMax: number;
}

/** Write attempts made at shutdown before the remaining lines are counted as unwritable. */
const CLOSE_ATTEMPTS = 3;
/** Pause between two write attempts at shutdown, ms. */
const CLOSE_RETRY_MS = 100;
/**
 * Append-only, created when missing, and non-blocking: opening a FIFO nobody reads fails at once (`ENXIO`) and a
 * full pipe answers `EAGAIN`, instead of parking a libuv thread forever. Regular files are unaffected.
 */
const OPEN_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NONBLOCK;

/** One write in progress: the bytes of whole lines, and how far they got. */
interface Batch {
  readonly data: Buffer;
  offset: number;
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown error';
}

function countNewlines(data: Buffer, from: number, to = data.length): number {
  let count = 0;
  for (let at = data.indexOf(10, from); at >= 0 && at < to; at = data.indexOf(10, at + 1)) count++;
  return count;
}

class WriteTimeout extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`a write did not complete within ${ms} ms`);
  }
}

/**
 * The buffered, asynchronous writer of one access-log file, owned by one filter instance (one application).
 *
 * @remarks
 * Lines are appended to an array queue in call-completion order — never a set, so identical lines are all kept
 * and order is preserved. A write takes up to `bufferSize` lines from the head of the queue, opens the file in
 * append mode without blocking (creating missing parent directories), writes them as one buffer (resuming after
 * a partial write, so no line is ever duplicated or cut; lines are counted as written as their bytes land), and
 * closes the file — so an external rotation that moves the file is picked up at the next write. Only one write
 * runs at a time, and a write that exceeds `writeTimeout` is given up waiting for (the sink is blocked: counted,
 * logged once) but never started twice. Writes start when the queue reaches `bufferSize` (or `maxPending` in
 * `hold` mode, if smaller), on the `flushInterval` timer (unref'd), and at {@link close}.
 *
 * A failed write keeps its lines (at the head, in order), counts a failed write and logs one error per failure
 * streak; during a streak the timer alone retries, so a failing disk is not hammered. In `hold` mode, once
 * `pending` reaches `maxPending`, {@link waitBelowLimit} makes new calls wait; in `spool` mode calls proceed and
 * up to `spoolMax` lines are kept, beyond which lines are dropped, counted and reported once per streak.
 * @internal
 */
export class AccessLogFileWriter {
  private queue: string[] = [];
  private current: Batch | undefined;
  private pumping: Promise<boolean> | undefined;
  /** A write that outlived its timeout and has not settled yet: no other write starts meanwhile. */
  private stuck: Promise<void> | undefined;
  private failing = false;
  private failuresInStreak = 0;
  private dropping = false;
  private waiters: (() => void)[] = [];
  private readonly timer: NodeJS.Timeout;
  private state: 'open' | 'closing' | 'closed' = 'open';
  private closing: Promise<void> | undefined;
  /** Queue length that starts a write. */
  private readonly threshold: number;

  constructor(
    /** Absolute path of the file. */
    readonly path: string,
    readonly options: AccessLogWriterOptions,
    private readonly counters: AccessLogFileCounters,
    private readonly logger: Logger,
  ) {
    this.threshold = Math.max(1, options.overflow === 'hold' ? Math.min(options.bufferSize, options.maxPending) : options.bufferSize);
    this.timer = setInterval(() => this.onTick(), options.flushInterval);
    this.timer.unref();
  }

  /** Whether calls must wait before going on (`hold` mode, `pending` reached `maxPending`). */
  get overLimit(): boolean {
    return this.options.overflow === 'hold' && this.state === 'open' && this.counters.pending >= this.options.maxPending;
  }

  /** Whether lines are waiting to be written. */
  get hasPending(): boolean {
    return this.queue.length > 0 || this.current !== undefined;
  }

  /** Queues one line (without its line terminator). Never throws; drops only past `spoolMax` in `spool` mode. */
  append(line: string): void {
    if (this.state === 'closed') {
      this.appendLate(line);
      return;
    }
    if (this.options.overflow === 'spool' && this.counters.pending >= this.options.spoolMax) {
      this.drop();
      return;
    }
    this.queue.push(line);
    this.counters.pending++;
    if (this.state === 'open' && this.pumping === undefined && !this.failing && this.queue.length >= this.threshold) {
      this.startPump(false);
    }
  }

  /** Resolves once `pending` is below `maxPending` (or the writer is closed). */
  waitBelowLimit(): Promise<void> {
    if (!this.overLimit) return Promise.resolve();
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      if (this.pumping === undefined && !this.failing) this.startPump(true);
    });
  }

  /** Writes everything queued now (not closing); resolves by `deadline` (epoch ms) whatever the sink does. */
  async flush(deadline: number): Promise<void> {
    if (this.state !== 'open') return;
    if (this.pumping !== undefined) await this.within(this.pumping, deadline);
    if (this.pumping === undefined && this.hasPending && Date.now() < deadline) {
      this.startPump(true);
      await this.within(this.pumping ?? Promise.resolve(), deadline);
    }
  }

  /**
   * Stops the timer and writes everything still queued, trying {@link CLOSE_ATTEMPTS} times and never past
   * `deadline` (epoch ms); lines that still cannot be written are counted as `unwritable` and reported with
   * their exact number. Lines appended afterwards are written one by one.
   */
  close(deadline: number): Promise<void> {
    return (this.closing ??= this.doClose(deadline));
  }

  /**
   * Writes what is still queued synchronously (`process.exit()` leaves no time for anything else), with a
   * non-blocking open, so a blocked sink costs nothing. @internal Called by the filter's exit hook.
   */
  writeSyncAtExit(): void {
    if (!this.hasPending || this.state === 'closed') return;
    let fd: number | undefined;
    try {
      fd = openSync(this.path, OPEN_FLAGS, 0o644);
      for (;;) {
        let batch = this.current;
        if (batch === undefined) {
          if (this.queue.length === 0) break;
          batch = this.current = { data: Buffer.from(`${this.queue.join('\n')}\n`, 'utf8'), offset: 0 };
          this.queue = [];
        }
        while (batch.offset < batch.data.length) {
          const before = batch.offset;
          batch.offset += writeSync(fd, batch.data, batch.offset, batch.data.length - batch.offset);
          this.landed(batch, before);
        }
        this.current = undefined;
      }
    } catch (error) {
      safeLog(this.logger, 'error', `access log ${this.path}: cannot write at exit (${errorCode(error)}).`, error);
    } finally {
      if (fd !== undefined) closeSync(fd);
      const left = this.leftLines();
      this.counters.unwritable += left;
      this.counters.pending -= left;
      this.queue = [];
      this.current = undefined;
      this.state = 'closed';
    }
  }

  private async doClose(deadline: number): Promise<void> {
    this.state = 'closing';
    clearInterval(this.timer);
    if (this.pumping !== undefined) await this.within(this.pumping, deadline);
    let attempts = 0;
    while (this.hasPending && attempts < CLOSE_ATTEMPTS && Date.now() < deadline) {
      attempts++;
      if (await this.within(this.pump(true, deadline), deadline)) break;
      if (attempts < CLOSE_ATTEMPTS) await delay(Math.max(0, Math.min(CLOSE_RETRY_MS, deadline - Date.now())));
    }
    const left = this.leftLines();
    if (left > 0) {
      this.counters.unwritable += left;
      this.counters.pending -= left;
      const why = Date.now() >= deadline ? 'the shutdown deadline passed' : `${attempts} attempts failed`;
      safeLog(
        this.logger,
        'error',
        `access log ${this.path}: ${left} line(s) could not be written before shutdown (${why}); ` +
          'they are counted as unwritable in AccessLogStats.',
      );
    }
    this.queue = [];
    this.current = undefined;
    this.state = 'closed';
    this.releaseWaiters();
  }

  /** Lines not on disk yet: the queue plus what is left of the batch in progress. */
  private leftLines(): number {
    const current = this.current;
    return this.queue.length + (current === undefined ? 0 : countNewlines(current.data, current.offset));
  }

  /** `promise`, or `false` once `deadline` passes. */
  private async within<T>(promise: Promise<T>, deadline: number): Promise<T | false> {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    let timer: NodeJS.Timeout | undefined;
    try {
      return await Promise.race([promise, new Promise<false>((resolve) => (timer = setTimeout(resolve, left, false)))]);
    } finally {
      clearTimeout(timer);
    }
  }

  private onTick(): void {
    if (this.state === 'open' && this.pumping === undefined && this.hasPending) this.startPump(true);
  }

  private startPump(drain: boolean): void {
    const pumping = this.pump(drain).then((ok) => {
      this.pumping = undefined;
      if (this.waiters.length > 0 && this.counters.pending < this.options.maxPending) this.releaseWaiters();
      // Lines appended between the pump's last check and now must not wait for the timer.
      if (ok && this.state === 'open' && this.queue.length >= this.threshold) this.startPump(false);
      return ok;
    });
    this.pumping = pumping;
  }

  /**
   * Writes batches until the queue is empty (`drain`) or below the threshold. Resolves `true` when it stopped
   * for that reason, `false` after a failed or timed-out write (the lines stay queued). Never rejects.
   */
  private async pump(drain: boolean, deadline?: number): Promise<boolean> {
    for (;;) {
      if (this.stuck !== undefined) return false;
      let batch = this.current;
      if (batch === undefined) {
        const queued = this.queue.length;
        if (queued === 0 || (!drain && queued < this.threshold)) return true;
        const take = Math.min(queued, Math.max(1, this.options.bufferSize));
        const lines = take === queued ? this.queue : this.queue.slice(0, take);
        this.queue = take === queued ? [] : this.queue.slice(take);
        batch = { data: Buffer.from(`${lines.join('\n')}\n`, 'utf8'), offset: 0 };
        this.current = batch;
      }
      const timeout = Math.max(1, Math.min(this.options.writeTimeout, deadline === undefined ? Infinity : deadline - Date.now()));
      try {
        await this.writeWithin(batch, timeout);
      } catch (error) {
        this.onFailure(error);
        return false;
      }
      if (this.current === batch) this.current = undefined;
      this.onSuccess();
    }
  }

  /** {@link write}, waited for at most `timeout` ms; a write that outlives it becomes {@link stuck}. */
  private async writeWithin(batch: Batch, timeout: number): Promise<void> {
    const writing = this.write(batch);
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([writing, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new WriteTimeout(timeout)), timeout)))]);
    } catch (error) {
      if (error instanceof WriteTimeout) {
        const settled = writing.then(
          () => {
            if (this.current === batch) this.current = undefined;
          },
          () => undefined,
        );
        this.stuck = settled.finally(() => (this.stuck = undefined));
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Appends the rest of `batch` to the file, advancing `batch.offset` (and the counters) as bytes land. */
  private async write(batch: Batch): Promise<void> {
    let handle;
    try {
      handle = await open(this.path, OPEN_FLAGS, 0o644);
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      await mkdir(dirname(this.path), { recursive: true });
      handle = await open(this.path, OPEN_FLAGS, 0o644);
    }
    try {
      while (batch.offset < batch.data.length) {
        const before = batch.offset;
        const { bytesWritten } = await handle.write(batch.data, batch.offset, batch.data.length - batch.offset);
        if (bytesWritten <= 0) throw new Error(`write() wrote nothing to ${this.path}`);
        batch.offset += bytesWritten;
        this.landed(batch, before);
      }
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  /** Counts the lines whose last byte landed between `before` and the batch's offset. */
  private landed(batch: Batch, before: number): void {
    const lines = countNewlines(batch.data, before, batch.offset);
    if (lines === 0) return;
    this.counters.written += lines;
    // After close, lines not yet on disk were counted as unwritable: a late landing corrects that count.
    if (this.state === 'closed') this.counters.unwritable = Math.max(0, this.counters.unwritable - lines);
    else this.counters.pending -= lines;
  }

  private drop(): void {
    this.counters.dropped++;
    if (this.dropping) return;
    this.dropping = true;
    safeLog(
      this.logger,
      'error',
      `access log ${this.path}: ${this.counters.pending} line(s) are already kept waiting for the file (accesslog.spool.max); ` +
        'new lines are dropped and counted in AccessLogStats.dropped until the file is writable again. ' +
        'Set accesslog.overflow=hold to make calls wait instead. This is reported once per streak.',
    );
  }

  private onFailure(error: unknown): void {
    this.counters.failedWrites++;
    this.failuresInStreak++;
    if (this.failing) return;
    this.failing = true;
    const blocked = error instanceof WriteTimeout;
    safeLog(
      this.logger,
      'error',
      `access log ${this.path}: ${blocked ? `blocked (a write took longer than ${this.options.writeTimeout} ms, accesslog.write.timeout)` : `cannot write (${errorCode(error)})`}; ` +
        `${this.counters.pending} line(s) stay queued and are retried every ${this.options.flushInterval} ms. ` +
        (this.options.overflow === 'hold'
          ? `New calls wait once ${this.options.maxPending} lines are pending (accesslog.max.pending).`
          : `Calls proceed; up to ${this.options.spoolMax} lines are kept (accesslog.spool.max).`) +
        ' This is reported once per failure streak.',
      error,
    );
  }

  private onSuccess(): void {
    if (this.failing) {
      this.failing = false;
      safeLog(
        this.logger,
        'warn',
        `access log ${this.path}: writable again after ${this.failuresInStreak} failed write(s); ` +
          (this.counters.dropped > 0 ? `${this.counters.dropped} line(s) were dropped in all (accesslog.spool.max).` : 'no line was lost.'),
      );
      this.failuresInStreak = 0;
    }
    this.dropping = false;
    if (this.waiters.length > 0 && this.counters.pending < this.options.maxPending) this.releaseWaiters();
  }

  private releaseWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private late: Promise<void> = Promise.resolve();

  /** After close: calls that outlived the shutdown still get their line, written one by one, in order. */
  private appendLate(line: string): void {
    this.counters.pending++;
    const batch: Batch = { data: Buffer.from(`${line}\n`, 'utf8'), offset: 0 };
    this.late = this.late.then(async () => {
      try {
        await this.writeLate(batch);
      } catch (error) {
        this.counters.pending--;
        this.counters.unwritable++;
        safeLog(this.logger, 'error', `access log ${this.path}: a line recorded after shutdown could not be written (${errorCode(error)}).`, error);
      }
    });
  }

  private async writeLate(batch: Batch): Promise<void> {
    const handle = await open(this.path, OPEN_FLAGS, 0o644);
    try {
      while (batch.offset < batch.data.length) {
        const { bytesWritten } = await handle.write(batch.data, batch.offset, batch.data.length - batch.offset);
        if (bytesWritten <= 0) throw new Error(`write() wrote nothing to ${this.path}`);
        batch.offset += bytesWritten;
      }
      this.counters.written++;
      this.counters.pending--;
    } finally {
      await handle.close().catch(() => undefined);
    }
  }
}
