import type { AccessLogFileWriter } from './access-log-file-writer.js';

/** The signals after which queued lines are written before the process goes. */
const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** Marks the signal listeners of these hooks (of every application in the process) apart from the application's own. */
const HOOK = Symbol.for('weft.accesslog.exit-hook');

function isHook(listener: unknown): boolean {
  return typeof listener === 'function' && HOOK in listener;
}

/**
 * The process hooks of one application's access log: queued lines reach their files when the process is told to
 * stop or is about to exit, even if the application is never shut down.
 *
 * @remarks
 * Installed by the filter with its first file (unless `accesslog.exit-flush=false`), removed by its `destroy()`.
 * - `SIGTERM`/`SIGINT`: writes what is queued (bounded by `accesslog.write.timeout`), then — unless the application
 *   listens to that signal itself (its handler decides what happens next) — re-raises the signal with its default
 *   action, so the process ends exactly as it would have without these hooks. Several applications in one process
 *   each flush; the last one to finish re-raises.
 * - `beforeExit` (the event loop ran dry): writes what is queued, asynchronously.
 * - `exit` (also after `process.exit()`): writes what is still queued synchronously, with a non-blocking open.
 * @internal
 */
export class AccessLogExitHooks {
  private readonly onSignal = Object.assign(
    (signal: NodeJS.Signals): void => {
      // Prepended, so this runs first: every other listener (also a `once` one) is still registered here.
      const theirs = process.rawListeners(signal).some((listener) => !isHook(listener));
      void this.flushAll().finally(() => {
        this.remove();
        if (!theirs && process.listenerCount(signal) === 0) process.kill(process.pid, signal);
      });
    },
    { [HOOK]: true },
  );
  private readonly onBeforeExit = (): void => {
    // Only when something is left: scheduling work makes Node emit beforeExit again once it is done.
    if (this.writers().some((writer) => writer.hasPending)) void this.flushAll();
  };
  private readonly onExit = (): void => {
    for (const writer of this.writers()) writer.writeSyncAtExit();
  };
  private installed = false;

  constructor(
    private readonly writers: () => readonly AccessLogFileWriter[],
    private readonly timeout: () => number,
  ) {}

  /** Adds the process listeners (once). */
  install(): void {
    if (this.installed) return;
    this.installed = true;
    for (const signal of SIGNALS) process.prependListener(signal, this.onSignal);
    process.on('beforeExit', this.onBeforeExit);
    process.on('exit', this.onExit);
  }

  /** Removes the process listeners. */
  remove(): void {
    if (!this.installed) return;
    this.installed = false;
    for (const signal of SIGNALS) process.off(signal, this.onSignal);
    process.off('beforeExit', this.onBeforeExit);
    process.off('exit', this.onExit);
  }

  private async flushAll(): Promise<void> {
    const deadline = Date.now() + this.timeout();
    await Promise.all(this.writers().map((writer) => writer.flush(deadline)));
  }
}
