import { appendFile, mkdir, open } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';

import type { Logger } from '@weft/core';
import { safeLog } from '@weft/core/spi';

import type { AccessLogFileCounters } from './access-log-stats.js';

/** Settings of one file's writer (from the first URL that logs to it). @internal */
export interface AccessLogWriterOptions {
  /** Background flush period, ms. */
  readonly flushInterval: number;
  /** Queue length that triggers a write; also the most lines one write carries. */
  readonly bufferSize: number;
  /** Pending lines at which callers are made to wait. */
  readonly maxPending: number;
}

/** Write attempts made at shutdown before the remaining lines are counted as unwritable. */
const CLOSE_ATTEMPTS = 3;
/** Pause between two write attempts at shutdown, ms. */
const CLOSE_RETRY_MS = 100;

/** One write in progress: the bytes of whole lines, and how far they got. */
interface Batch {
  readonly data: Buffer;
  offset: number;
  readonly lines: number;
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown error';
}

function countNewlines(data: Buffer, from: number): number {
  let count = 0;
  for (let at = data.indexOf(10, from); at >= 0; at = data.indexOf(10, at + 1)) count++;
  return count;
}

/**
 * The buffered, asynchronous writer of one access-log file, owned by one filter instance (one application).
 *
 * @remarks
 * Lines are appended to an array queue in call-completion order — never a set, so identical lines are all kept
 * and order is preserved. A write takes up to `bufferSize` lines from the head of the queue, opens the file in
 * append mode (creating missing parent directories), writes them as one buffer (resuming after a partial write,
 * so no line is ever duplicated or cut), and closes the file — so an external rotation that moves the file is
 * picked up at the next write. Only one write runs at a time. Writes start when the queue reaches `bufferSize`
 * (or `maxPending`, if smaller), on the `flushInterval` timer (unref'd), and at {@link close}.
 *
 * A failed write keeps its lines (at the head, in order), counts a failed write and logs one error per failure
 * streak; during a streak the timer alone retries, so a failing disk is not hammered. Once `pending` reaches
 * `maxPending`, {@link waitBelowLimit} makes new calls wait until a write brings it below the limit.
 * @internal
 */
export class AccessLogFileWriter {
  private queue: string[] = [];
  private current: Batch | undefined;
  private pumping: Promise<boolean> | undefined;
  private failing = false;
  private failuresInStreak = 0;
  private waiters: (() => void)[] = [];
  private readonly timer: NodeJS.Timeout;
  private state: 'open' | 'closing' | 'closed' = 'open';
  private closing: Promise<void> | undefined;
  private late: Promise<void> = Promise.resolve();
  /** Queue length that starts a write. */
  private readonly threshold: number;

  constructor(
    /** Absolute path of the file. */
    readonly path: string,
    readonly options: AccessLogWriterOptions,
    private readonly counters: AccessLogFileCounters,
    private readonly logger: Logger,
  ) {
    this.threshold = Math.max(1, Math.min(options.bufferSize, options.maxPending));
    this.timer = setInterval(() => this.onTick(), options.flushInterval);
    this.timer.unref();
  }

  /** Whether calls must wait before going on (`pending` reached `maxPending`). */
  get overLimit(): boolean {
    return this.state === 'open' && this.counters.pending >= this.options.maxPending;
  }

  /** Queues one line (without its line terminator). Never throws, never drops. */
  append(line: string): void {
    if (this.state === 'closed') {
      this.appendLate(line);
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

  /**
   * Stops the timer and writes everything still queued, trying {@link CLOSE_ATTEMPTS} times; lines that still
   * cannot be written are counted as `unwritable` and reported. Lines appended afterwards are written one by one.
   */
  close(): Promise<void> {
    return (this.closing ??= this.doClose());
  }

  private async doClose(): Promise<void> {
    this.state = 'closing';
    clearInterval(this.timer);
    if (this.pumping !== undefined) await this.pumping;
    for (let attempt = 1; !(await this.pump(true)) && attempt < CLOSE_ATTEMPTS; attempt++) await delay(CLOSE_RETRY_MS);
    const current = this.current;
    const left = this.queue.length + (current === undefined ? 0 : countNewlines(current.data, current.offset));
    if (left > 0) {
      this.counters.unwritable += left;
      safeLog(
        this.logger,
        'error',
        `access log ${this.path}: ${left} line(s) could not be written before shutdown (${CLOSE_ATTEMPTS} attempts failed); ` +
          'they are counted as unwritable in AccessLogStats.',
      );
    }
    this.counters.pending = 0;
    this.queue = [];
    this.current = undefined;
    this.state = 'closed';
    this.releaseWaiters();
  }

  private onTick(): void {
    if (this.state === 'open' && this.pumping === undefined && (this.current !== undefined || this.queue.length > 0)) {
      this.startPump(true);
    }
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
   * for that reason, `false` after a failed write (the lines stay queued). Never rejects.
   */
  private async pump(drain: boolean): Promise<boolean> {
    for (;;) {
      let batch = this.current;
      if (batch === undefined) {
        const queued = this.queue.length;
        if (queued === 0 || (!drain && queued < this.threshold)) return true;
        const take = Math.min(queued, Math.max(1, this.options.bufferSize));
        const lines = take === queued ? this.queue : this.queue.slice(0, take);
        this.queue = take === queued ? [] : this.queue.slice(take);
        batch = { data: Buffer.from(`${lines.join('\n')}\n`, 'utf8'), offset: 0, lines: lines.length };
        this.current = batch;
      }
      try {
        await this.write(batch);
      } catch (error) {
        this.onFailure(error);
        return false;
      }
      this.current = undefined;
      this.counters.written += batch.lines;
      this.counters.pending -= batch.lines;
      this.onSuccess();
    }
  }

  /** Appends the rest of `batch` to the file, advancing `batch.offset` as bytes land. */
  private async write(batch: Batch): Promise<void> {
    let handle;
    try {
      handle = await open(this.path, 'a');
    } catch (error) {
      if (errorCode(error) !== 'ENOENT') throw error;
      await mkdir(dirname(this.path), { recursive: true });
      handle = await open(this.path, 'a');
    }
    try {
      while (batch.offset < batch.data.length) {
        const { bytesWritten } = await handle.write(batch.data, batch.offset, batch.data.length - batch.offset);
        if (bytesWritten <= 0) throw new Error(`write() wrote nothing to ${this.path}`);
        batch.offset += bytesWritten;
      }
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  private onFailure(error: unknown): void {
    this.counters.failedWrites++;
    this.failuresInStreak++;
    if (this.failing) return;
    this.failing = true;
    safeLog(
      this.logger,
      'error',
      `access log ${this.path}: cannot write (${errorCode(error)}); ${this.counters.pending} line(s) stay queued and are ` +
        `retried every ${this.options.flushInterval} ms. New calls wait once ${this.options.maxPending} lines are pending ` +
        '(accesslog.max.pending). This is reported once per failure streak.',
      error,
    );
  }

  private onSuccess(): void {
    if (this.failing) {
      this.failing = false;
      safeLog(
        this.logger,
        'warn',
        `access log ${this.path}: writable again after ${this.failuresInStreak} failed write(s); no line was lost.`,
      );
      this.failuresInStreak = 0;
    }
    if (this.waiters.length > 0 && this.counters.pending < this.options.maxPending) this.releaseWaiters();
  }

  private releaseWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  /** After close: calls that outlived the shutdown still get their line, written one by one, in order. */
  private appendLate(line: string): void {
    this.counters.pending++;
    this.late = this.late.then(async () => {
      try {
        await appendFile(this.path, `${line}\n`);
        this.counters.written++;
      } catch (error) {
        this.counters.unwritable++;
        safeLog(this.logger, 'error', `access log ${this.path}: a line recorded after shutdown could not be written (${errorCode(error)}).`, error);
      } finally {
        this.counters.pending--;
      }
    });
  }
}
