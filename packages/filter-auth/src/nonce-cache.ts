/**
 * The nonces of verified requests, remembered until their timestamp leaves the replay window, in bounded memory.
 *
 * @remarks
 * A nonce of a request stamped `t` is kept until `t + window` (after that the timestamp check refuses the request
 * anyway). At most `capacity` nonces are kept: each insertion first drops expired entries from the oldest end;
 * when the cache is full it sweeps every entry once, and when still full — every nonce unexpired — it refuses
 * (`'full'`): forgetting an unexpired nonce would let its request be replayed. A full cache is not swept again
 * before its earliest expiry, so a flood costs O(1) per refused call.
 *
 * @example
 * ```ts
 * const nonces = new NonceCache(300_000, 100_000);
 * nonces.remember('shop\u0000q3ZL0c1m9fGxY2aPq8h6Ww', Date.now(), Date.now()); // 'new'
 * nonces.remember('shop\u0000q3ZL0c1m9fGxY2aPq8h6Ww', Date.now(), Date.now()); // 'replayed'
 * ```
 */
export class NonceCache {
  /** nonce → expiry (ms since the epoch), in insertion order. */
  private readonly entries = new Map<string, number>();
  /** While full: the earliest expiry seen by the last sweep (no sweep before it). */
  private nextSweep = 0;

  constructor(
    readonly window: number,
    readonly capacity: number,
  ) {}

  /** How many nonces are kept. */
  get size(): number {
    return this.entries.size;
  }

  /**
   * Records a nonce: `'new'` (recorded), `'replayed'` (seen within the window) or `'full'` (not recorded: the
   * cache holds `capacity` unexpired nonces).
   */
  remember(nonce: string, timestamp: number, now: number): 'new' | 'replayed' | 'full' {
    const seen = this.entries.get(nonce);
    if (seen !== undefined && seen >= now) return 'replayed';
    if (seen !== undefined) this.entries.delete(nonce);
    this.dropOldestExpired(now, 8);
    if (this.entries.size >= this.capacity) {
      if (now < this.nextSweep) return 'full';
      this.sweep(now);
      if (this.entries.size >= this.capacity) return 'full';
    }
    this.entries.set(nonce, timestamp + this.window);
    return 'new';
  }

  /** Drops up to `max` expired entries from the oldest end (insertion order roughly follows expiry). */
  private dropOldestExpired(now: number, max: number): void {
    let dropped = 0;
    for (const [nonce, expiry] of this.entries) {
      if (expiry >= now || dropped >= max) return;
      this.entries.delete(nonce);
      dropped++;
    }
  }

  private sweep(now: number): void {
    let earliest = Number.POSITIVE_INFINITY;
    for (const [nonce, expiry] of this.entries) {
      if (expiry < now) this.entries.delete(nonce);
      else if (expiry < earliest) earliest = expiry;
    }
    this.nextSweep = this.entries.size >= this.capacity ? earliest + 1 : 0;
  }
}
