import { resolve } from 'node:path';

/**
 * Counters of one access-log file.
 *
 * @remarks Live values, kept by the file's writer in the application's `accesslog` filter: `written + pending +
 * unwritable + dropped` is every line recorded so far, and `written` always matches the lines that reached the
 * file, also after a failure part-way through a write.
 *
 * @example
 * ```ts
 * const file = app.model.getService(AccessLogStats).file('logs/access.log');
 * if (file !== undefined && file.failedWrites > 0) alert(`access log ${file.path} is failing`);
 * ```
 */
export interface AccessLogFileStats {
  /** The absolute path of the file. */
  readonly path: string;
  /** Lines written to the file. */
  readonly written: number;
  /** Lines recorded but not written yet (queued, or in a write that has not completed). */
  readonly pending: number;
  /** Write attempts that failed (`ENOSPC`, `EACCES`, `EISDIR`…); their lines stayed queued and were retried. */
  readonly failedWrites: number;
  /** Lines given up on: still unwritable when the application shut down (the disk kept failing or blocked). */
  readonly unwritable: number;
  /** Lines dropped because `accesslog.spool.max` lines were already waiting for a failing or blocked file. */
  readonly dropped: number;
}

/** The live counters of one file (mutated by its writer). @internal */
export class AccessLogFileCounters implements AccessLogFileStats {
  written = 0;
  pending = 0;
  failedWrites = 0;
  unwritable = 0;
  dropped = 0;

  constructor(readonly path: string) {}
}

/**
 * The access-log counters of one application, per file: an application service.
 *
 * @remarks
 * Registered under its own class in the application scope by the `accesslog` filter when the filter is created
 * (the first export that activates it), unless the application registered one itself beforehand:
 * `app.model.getService(AccessLogStats)`. Counters are live (read them any time) and never reset; they survive
 * the application's shutdown, so `unwritable` can be read after `app.shutdown()`. Files logged to through the
 * application logger (`accesslog=true`) have no counters.
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl, { parameters: { accesslog: 'logs/access.log' } });
 * const stats = app.model.getService(AccessLogStats);
 * await app.shutdown();
 * console.log(stats.written, stats.unwritable, stats.file('logs/access.log')?.failedWrites);
 * ```
 */
export class AccessLogStats {
  private readonly byPath = new Map<string, AccessLogFileCounters>();

  /** Lines written, over every file. */
  get written(): number {
    return this.sum('written');
  }

  /** Lines not written yet, over every file. */
  get pending(): number {
    return this.sum('pending');
  }

  /** Failed write attempts, over every file. */
  get failedWrites(): number {
    return this.sum('failedWrites');
  }

  /** Lines that could not be written by shutdown, over every file. */
  get unwritable(): number {
    return this.sum('unwritable');
  }

  /** Lines dropped (spool full), over every file. */
  get dropped(): number {
    return this.sum('dropped');
  }

  /** The counters of one file; a relative `path` is resolved against `process.cwd()` (as the filter does). */
  file(path: string): AccessLogFileStats | undefined {
    return this.byPath.get(resolve(path));
  }

  /** The counters of every file logged to so far, in the order they were first used. */
  files(): readonly AccessLogFileStats[] {
    return [...this.byPath.values()];
  }

  /** The counters of `path` (absolute), created on first use. @internal */
  countersFor(path: string): AccessLogFileCounters {
    let counters = this.byPath.get(path);
    if (counters === undefined) this.byPath.set(path, (counters = new AccessLogFileCounters(path)));
    return counters;
  }

  private sum(key: 'written' | 'pending' | 'failedWrites' | 'unwritable' | 'dropped'): number {
    let total = 0;
    for (const counters of this.byPath.values()) total += counters[key];
    return total;
  }
}
