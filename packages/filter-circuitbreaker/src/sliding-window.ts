/**
 * Call statistics over a sliding window of equal buckets, epoch-aligned: O(1) per call, no allocation after
 * construction.
 *
 * @remarks
 * The window of `length` ms is cut into `buckets` buckets of `length / buckets` ms each, aligned on multiples of
 * that size (as Sentinel's `LeapArray`). A call is counted in the bucket of the time it is recorded; the totals
 * cover the current bucket and the `buckets - 1` before it, so they always span between `length - length/buckets`
 * and `length` ms. Moving on clears the buckets left behind — at most `buckets` of them, however long the pause —
 * and keeps running sums, so reading the totals costs nothing. With one bucket this is Sentinel's tumbling
 * window: the counts restart at every boundary. A clock that goes back counts into the current bucket.
 *
 * @example
 * ```ts
 * const window = new SlidingWindow(1000, 10);
 * window.record(0, true, false);   // an error at t=0
 * window.record(950, false, false); // a success at t=950
 * window.total(1050);               // 1: the error's bucket [0, 100) has slid out
 * ```
 */
export class SlidingWindow {
  private readonly totals: Int32Array;
  private readonly errors: Int32Array;
  private readonly slows: Int32Array;
  private readonly size: number;
  /** The index (time / size) of the newest bucket, -Infinity before the first call. */
  private current = Number.NEGATIVE_INFINITY;
  /** The newest bucket's time span `[start, end)` and slot: a call inside it needs no division. */
  private bucketStart = 0;
  private bucketEnd = 0;
  private slot = 0;
  private sumTotal = 0;
  private sumErrors = 0;
  private sumSlow = 0;

  constructor(
    readonly length: number,
    readonly buckets: number,
  ) {
    this.size = length / buckets;
    this.totals = new Int32Array(buckets);
    this.errors = new Int32Array(buckets);
    this.slows = new Int32Array(buckets);
  }

  /** Counts one success at time `now` (ms); returns the calls in the window. */
  recordSuccess(now: number): number {
    const slot = now >= this.bucketStart && now < this.bucketEnd ? this.slot : this.advance(now);
    this.totals[slot] = (this.totals[slot] as number) + 1;
    return ++this.sumTotal;
  }

  /** Counts one completed call at time `now` (ms). */
  record(now: number, error: boolean, slow: boolean): void {
    const slot = now >= this.bucketStart && now < this.bucketEnd ? this.slot : this.advance(now);
    this.totals[slot] = (this.totals[slot] as number) + 1;
    this.sumTotal++;
    if (error) {
      this.errors[slot] = (this.errors[slot] as number) + 1;
      this.sumErrors++;
    }
    if (slow) {
      this.slows[slot] = (this.slows[slot] as number) + 1;
      this.sumSlow++;
    }
  }

  /** Calls in the window as of the last `record` or read (no clock: right after `record(now, …)`, the totals at `now`). */
  get lastTotal(): number {
    return this.sumTotal;
  }

  /** Errors in the window as of the last `record` or read. */
  get lastErrors(): number {
    return this.sumErrors;
  }

  /** Slow calls in the window as of the last `record` or read. */
  get lastSlow(): number {
    return this.sumSlow;
  }

  /** Calls in the window at `now`. */
  total(now: number): number {
    this.advance(now);
    return this.sumTotal;
  }

  /** Errors in the window at `now`. */
  errorCount(now: number): number {
    this.advance(now);
    return this.sumErrors;
  }

  /** Slow calls in the window at `now`. */
  slowCount(now: number): number {
    this.advance(now);
    return this.sumSlow;
  }

  /** Forgets every call. */
  reset(): void {
    this.totals.fill(0);
    this.errors.fill(0);
    this.slows.fill(0);
    this.sumTotal = this.sumErrors = this.sumSlow = 0;
    this.current = Number.NEGATIVE_INFINITY;
    this.bucketStart = this.bucketEnd = 0;
  }

  /** Moves the window to `now`, clearing the buckets it leaves behind; returns the slot of `now`'s bucket. */
  private advance(now: number): number {
    const index = Math.floor(now / this.size);
    const buckets = this.buckets;
    if (index > this.current) {
      if (index - this.current >= buckets) {
        if (this.sumTotal !== 0) this.reset();
      } else {
        for (let i = this.current + 1; i <= index; i++) this.clear(((i % buckets) + buckets) % buckets);
      }
      this.current = index;
      this.bucketStart = index * this.size;
      this.bucketEnd = this.bucketStart + this.size;
    }
    // A clock that went back: count into the newest bucket.
    const slot = this.current % buckets;
    return (this.slot = slot < 0 ? slot + buckets : slot);
  }

  private clear(slot: number): void {
    this.sumTotal -= this.totals[slot] as number;
    this.sumErrors -= this.errors[slot] as number;
    this.sumSlow -= this.slows[slot] as number;
    this.totals[slot] = 0;
    this.errors[slot] = 0;
    this.slows[slot] = 0;
  }
}
