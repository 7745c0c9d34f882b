/** A call registered in a {@link DeadlineWheel}: cancel it when the call completes. */
export interface DeadlineEntry {
  /** Removes the entry (the call completed); `expire` will not be called. Idempotent. */
  cancel(): void;
  /** Whether the entry was cancelled or expired; setting it to `true` cancels it. */
  settled: boolean;
}

/**
 * An object the wheel can hold directly (its own slot: no wrapper, no closure): the call itself, in Weft's
 * protocol invokers. The `wheel*` fields belong to the wheel; initialise them to `undefined`.
 */
export interface WheelEntry {
  /** Epoch ms at which `expire` is due. */
  readonly deadline: number;
  /** Called once, at (or at most one tick after) the deadline, unless the entry was removed first. */
  expire(): void;
  /** @internal */
  wheelBucket: object | undefined;
  /** @internal */
  wheelPrev: WheelEntry | undefined;
  /** @internal */
  wheelNext: WheelEntry | undefined;
}

/** The entries of one tick, as an intrusive doubly-linked list: O(1) insertion and removal, no allocation. */
class Bucket {
  head: WheelEntry | undefined = undefined;
  size = 0;
  constructor(readonly slot: number) {}
}

/** A `DeadlineEntry` around a callback (`add()`): the entry type for callers holding a closure anyway. */
class CallbackEntry implements WheelEntry, DeadlineEntry {
  wheelBucket: object | undefined = undefined;
  wheelPrev: WheelEntry | undefined = undefined;
  wheelNext: WheelEntry | undefined = undefined;
  private done = false;

  constructor(
    readonly deadline: number,
    private readonly callback: () => void,
    private readonly wheel: DeadlineWheel,
  ) {}

  get settled(): boolean {
    return this.done;
  }

  set settled(value: boolean) {
    if (value) this.cancel();
  }

  expire(): void {
    this.done = true;
    this.callback();
  }

  cancel(): void {
    this.done = true;
    this.wheel.remove(this);
  }
}

/**
 * Expires pending calls at their deadlines with one timer, instead of a timer per call.
 *
 * @remarks
 * Like Dubbo's hashed-wheel timeout checker: calls are bucketed by deadline into `tick`-ms slots; while any
 * slot is pending, one unref'd timer fires every tick and expires the calls whose deadline has passed. A call
 * that completes first is removed in O(1), so memory holds only calls in flight. Resolution is one tick
 * (deadlines are never early, at most `tick` ms late). Owned by one invoker: no shared state. `arm()` takes an
 * object that is its own slot ({@link WheelEntry}: an armed deadline then allocates nothing); `add()` wraps a
 * callback.
 * @example
 * ```ts
 * const wheel = new DeadlineWheel(10);
 * const entry = wheel.add(Date.now() + 500, () => reject(timeoutError));
 * pending.finally(() => entry.cancel());
 * ```
 */
export class DeadlineWheel {
  private readonly slots = new Map<number, Bucket>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private count = 0;
  // The bucket of the last arm: consecutive calls usually fall into the same tick (one map lookup saved).
  private last: Bucket | undefined = undefined;

  constructor(private readonly tick = 10) {}

  /** Registers a call expiring at `deadline` (epoch ms). */
  add(deadline: number, expire: () => void): DeadlineEntry {
    const entry = new CallbackEntry(deadline, expire, this);
    this.arm(entry);
    return entry;
  }

  /** Registers `entry` (not registered yet) to expire at its `deadline`. */
  arm(entry: WheelEntry): void {
    const slot = Math.ceil(entry.deadline / this.tick);
    let bucket = this.last;
    if (bucket === undefined || bucket.slot !== slot) {
      bucket = this.slots.get(slot);
      if (bucket === undefined) this.slots.set(slot, (bucket = new Bucket(slot)));
      this.last = bucket;
    }
    const head = bucket.head;
    entry.wheelBucket = bucket;
    entry.wheelPrev = undefined;
    entry.wheelNext = head;
    if (head !== undefined) head.wheelPrev = entry;
    bucket.head = entry;
    bucket.size++;
    this.count++;
    if (this.timer === undefined) this.start();
  }

  /** Removes `entry` if it is registered (idempotent): it will not expire. */
  remove(entry: WheelEntry): void {
    const bucket = entry.wheelBucket as Bucket | undefined;
    if (bucket === undefined) return;
    const prev = entry.wheelPrev;
    const next = entry.wheelNext;
    if (prev === undefined) bucket.head = next;
    else prev.wheelNext = next;
    if (next !== undefined) next.wheelPrev = prev;
    entry.wheelBucket = entry.wheelPrev = entry.wheelNext = undefined;
    bucket.size--;
    this.count--;
  }

  /** Calls registered and neither cancelled nor expired. */
  get size(): number {
    return this.count;
  }

  private start(): void {
    this.timer = setInterval(() => this.sweep(), this.tick);
    this.timer.unref?.();
  }

  private sweep(): void {
    const now = Date.now();
    const due = Math.floor(now / this.tick);
    for (const [slot, bucket] of this.slots) {
      if (slot <= due) {
        let entry = bucket.head;
        while (entry !== undefined) {
          const next = entry.wheelNext;
          if (entry.deadline <= now) {
            this.remove(entry);
            entry.expire();
          }
          entry = next;
        }
      }
      if (bucket.size === 0) {
        this.slots.delete(slot);
        if (this.last === bucket) this.last = undefined;
      }
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
    for (const bucket of this.slots.values()) {
      let entry = bucket.head;
      while (entry !== undefined) {
        const next = entry.wheelNext;
        entry.wheelBucket = entry.wheelPrev = entry.wheelNext = undefined;
        entry = next;
      }
    }
    this.slots.clear();
    this.count = 0;
    this.last = undefined;
  }
}
