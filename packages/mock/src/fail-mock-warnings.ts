import type { Logger, ScopeModel } from '@weft/core';
import { safeLog } from '@weft/core/spi';

/** One service method's warning window. */
interface Window {
  /** When the last line was logged. */
  since: number;
  /** Degradations not logged since. */
  suppressed: number;
  /** The last of them. */
  lastFailure: string;
  interval: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

const MAX_WINDOWS = 4096;

/**
 * The fail-mock warnings of one application, rate-limited: at most one line per service and method per interval,
 * so an outage does not flood the log.
 *
 * @remarks The first degradation of a method logs `fail-mock <service>.<method> after: <failure>` at once. The
 * degradations that follow within the interval are counted, and when the interval ends one line reports them:
 * `fail-mock <service>.<method> degraded <n> calls in the last <s> s; last failure: <failure>` — then counting
 * starts again, so a lasting outage logs one line per interval. After a quiet interval the next degradation is
 * logged at once again. The interval is `mock.log.interval` (ms, default 10000) of the reference's URL; `0` (or
 * less) logs every degradation. Timers are unref'd and cleared when the application shuts down (pending counts are
 * logged then). One per application scope: `FailMockWarnings.of(app.model)`.
 * @example
 * ```ts
 * FailMockWarnings.of(app.model).degraded('org.acme.Greeter', 'sayHello', 'timed out', 10_000);
 * ```
 */
export class FailMockWarnings {
  private readonly windows = new Map<string, Window>();

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** The warnings of an application scope, created on first use (flushed when the scope is destroyed). */
  static of(scope: ScopeModel): FailMockWarnings {
    if (!scope.hasService(FailMockWarnings)) {
      const warnings = new FailMockWarnings(scope.logger);
      scope.registerService(FailMockWarnings, warnings);
      scope.onDestroy(() => warnings.close());
    }
    return scope.getService(FailMockWarnings);
  }

  /** Records one degraded call of `service`.`method` after `failure`; logs now, or counts it into the next line. */
  degraded(service: string, method: string, failure: string, intervalMs: number): void {
    const key = `${service}.${method}`;
    const now = this.now();
    let window = this.windows.get(key);
    if (!(intervalMs > 0) || window === undefined || (window.timer === undefined && now - window.since >= window.interval)) {
      safeLog(this.logger, 'warn', `fail-mock ${key} after: ${failure}`);
      if (!(intervalMs > 0)) return;
      if (window === undefined) {
        if (this.windows.size >= MAX_WINDOWS) this.evictOldest();
        window = { since: now, suppressed: 0, lastFailure: '', interval: intervalMs, timer: undefined };
        this.windows.set(key, window);
      } else {
        window.since = now;
        window.interval = intervalMs;
      }
      return;
    }
    window.suppressed++;
    window.lastFailure = failure;
    if (window.timer === undefined) {
      const open = window;
      open.timer = setTimeout(() => this.flush(key, open, open.interval), Math.max(0, open.since + open.interval - now));
      open.timer.unref?.();
    }
  }

  /** Logs what is pending and stops every timer. */
  close(): void {
    for (const [key, window] of this.windows) {
      if (window.timer !== undefined) clearTimeout(window.timer);
      this.flush(key, window, this.now() - window.since);
    }
    this.windows.clear();
  }

  private flush(key: string, window: Window, elapsedMs: number): void {
    window.timer = undefined;
    if (window.suppressed === 0) return;
    const seconds = Math.round(elapsedMs / 100) / 10;
    safeLog(
      this.logger,
      'warn',
      `fail-mock ${key} degraded ${window.suppressed} calls in the last ${seconds} s; last failure: ${window.lastFailure}`,
    );
    window.since = this.now();
    window.suppressed = 0;
  }

  private evictOldest(): void {
    const [key, window] = this.windows.entries().next().value as [string, Window];
    if (window.timer !== undefined) clearTimeout(window.timer);
    this.flush(key, window, this.now() - window.since);
    this.windows.delete(key);
  }
}
