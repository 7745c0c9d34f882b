import { performance } from 'node:perf_hooks';

/**
 * Cuts long synchronous work (applying thousands of rules) into slices of a few milliseconds, yielding to the event
 * loop between them so calls, timers and I/O keep flowing.
 *
 * @remarks Call {@link TimeSlicer.due} often (it reads the clock every 64 calls), or {@link TimeSlicer.spent} between
 * coarser steps; when it says so, `await` {@link TimeSlicer.pause} (one `setImmediate` turn).
 * {@link TimeSlicer.count} counts work done inside a step that cannot pause, so the next `due()` sees it.
 * {@link TimeSlicer.pauses} counts the pauses taken.
 * @example
 * ```ts
 * const slicer = new TimeSlicer(4);
 * for (const rule of rules) {
 *   apply(rule);
 *   if (slicer.due()) await slicer.pause();
 * }
 * ```
 */
export class TimeSlicer {
  private start = performance.now();
  private ops = 0;
  private nextCheck = 64;
  /** Pauses taken so far. */
  pauses = 0;

  /** @param budgetMs - the longest slice, in ms. @defaultValue 4 */
  constructor(private readonly budgetMs = 4) {}

  /** Counts one unit of work. */
  count(): void {
    this.ops++;
  }

  /** Whether the current slice has used its budget (counts one unit of work). */
  due(): boolean {
    if (++this.ops < this.nextCheck) return false;
    this.nextCheck = this.ops + 64;
    return this.spent();
  }

  /** Whether the current slice has used its budget, reading the clock now (for steps of tens of microseconds or more). */
  spent(): boolean {
    return performance.now() - this.start >= this.budgetMs;
  }

  /** Yields one event-loop turn and starts a new slice. */
  async pause(): Promise<void> {
    this.pauses++;
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.start = performance.now();
  }
}
