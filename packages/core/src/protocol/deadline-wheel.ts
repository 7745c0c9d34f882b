/** A call registered in a {@link DeadlineWheel}: cancel it when the call completes. */
export interface DeadlineEntry {
  /** Removes the entry (the call completed); `expire` will not be called. Idempotent. */
  cancel(): void;
  /** Whether the entry was cancelled or expired; setting it to `true` cancels it. */
  settled: boolean;
}

class Pending implements DeadlineEntry {
  private done = false;

  constructor(
    readonly deadline: number,
    readonly expire: () => void,
    private readonly bucket: Set<Pending>,
  ) {}

  get settled(): boolean {
    return this.done;
  }

  set settled(value: boolean) {
    if (value) this.cancel();
  }

  cancel(): void {
    this.done = true;
    this.bucket.delete(this);
  }
}

/**
 * Expires pending calls at their deadlines with one timer, instead of a timer per call.
 *
 * @remarks
 * Like Dubbo's hashed-wheel timeout checker: calls are bucketed by deadline into `tick`-ms slots; while any
 * slot is pending, one unref'd timer fires every tick and expires the calls whose deadline has passed. A call
 * that completes first cancels its entry (an O(1) removal), so memory holds only calls in flight. Resolution is
 * one tick (deadlines are never early, at most `tick` ms late). Owned by one invoker: no shared state.
 * @example
 * ```ts
 * const wheel = new DeadlineWheel(10);
 * const entry = wheel.add(Date.now() + 500, () => reject(timeoutError));
 * pending.finally(() => entry.cancel());
 * ```
 */
export class DeadlineWheel {
  private readonly slots = new Map<number, Set<Pending>>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly tick = 10) {}

  /** Registers a call expiring at `deadline` (epoch ms). */
  add(deadline: number, expire: () => void): DeadlineEntry {
    const slot = Math.ceil(deadline / this.tick);
    let bucket = this.slots.get(slot);
    if (bucket === undefined) this.slots.set(slot, (bucket = new Set()));
    const entry = new Pending(deadline, expire, bucket);
    bucket.add(entry);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.tick);
      this.timer.unref?.();
    }
    return entry;
  }

  /** Calls registered and neither cancelled nor expired. */
  get size(): number {
    let n = 0;
    for (const bucket of this.slots.values()) n += bucket.size;
    return n;
  }

  private sweep(): void {
    const now = Date.now();
    const due = Math.floor(now / this.tick);
    for (const [slot, bucket] of this.slots) {
      if (slot > due) {
        if (bucket.size === 0) this.slots.delete(slot);
        continue;
      }
      for (const entry of bucket) {
        if (entry.deadline > now) continue;
        entry.cancel();
        entry.expire();
      }
      if (bucket.size === 0) this.slots.delete(slot);
    }
    if (this.slots.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Stops the timer; pending entries are dropped without expiring. */
  close(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.slots.clear();
  }
}
