/** A call waiting for its result or its deadline. */
interface Pending {
  settled: boolean;
  readonly deadline: number;
  readonly expire: () => void;
}

/**
 * Expires pending calls at their deadlines with one timer, instead of a timer per call.
 *
 * @remarks
 * Like Dubbo's hashed-wheel timeout checker: calls are bucketed by deadline into `tick`-ms slots; while any
 * slot is pending, one unref'd timer fires every tick and expires the calls whose deadline has passed and that
 * have not settled. A call that settles first is only flagged (no removal cost); its slot is dropped when
 * swept. Resolution is one tick (deadlines are never early, at most `tick` ms late). Owned by one invoker: no
 * shared state.
 * @example
 * ```ts
 * const wheel = new DeadlineWheel(10);
 * const entry = wheel.add(Date.now() + 500, () => reject(timeoutError));
 * pending.then(() => { entry.settled = true; });
 * ```
 */
export class DeadlineWheel {
  private readonly slots = new Map<number, Pending[]>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly tick = 10) {}

  /** Registers a call; set `settled` on the returned entry when it completes. */
  add(deadline: number, expire: () => void): { settled: boolean } {
    const entry: Pending = { settled: false, deadline, expire };
    const slot = Math.ceil(deadline / this.tick);
    const bucket = this.slots.get(slot);
    if (bucket === undefined) this.slots.set(slot, [entry]);
    else bucket.push(entry);
    if (this.timer === undefined) {
      this.timer = setInterval(() => this.sweep(), this.tick);
      this.timer.unref?.();
    }
    return entry;
  }

  /** Calls registered and not yet swept (settled or not). */
  get size(): number {
    let n = 0;
    for (const bucket of this.slots.values()) n += bucket.length;
    return n;
  }

  private sweep(): void {
    const now = Date.now();
    const due = Math.floor(now / this.tick);
    for (const [slot, bucket] of this.slots) {
      if (slot > due) continue;
      let keep: Pending[] | undefined;
      for (const entry of bucket) {
        if (entry.settled) continue;
        if (entry.deadline <= now) {
          entry.settled = true;
          entry.expire();
        } else {
          (keep ??= []).push(entry);
        }
      }
      if (keep === undefined) this.slots.delete(slot);
      else this.slots.set(slot, keep);
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
