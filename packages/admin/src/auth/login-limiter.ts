/** Options of {@link LoginLimiter}. */
export interface LoginLimiterOptions {
  /** Failed attempts allowed per window and remote address. @defaultValue 5 */
  readonly maxFailures?: number;
  /** The window, ms. @defaultValue 60000 */
  readonly windowMs?: number;
  /** The most addresses tracked (the oldest are forgotten first). @defaultValue 10000 */
  readonly maxAddresses?: number;
  /** The clock. @defaultValue Date.now */
  readonly now?: () => number;
}

/**
 * Limits failed logins per remote address: after `maxFailures` failures within `windowMs`, logins from that
 * address are refused (429) until the oldest failure leaves the window.
 *
 * @remarks Bounded: at most `maxAddresses` addresses are tracked. One limiter per server.
 * @example
 * ```ts
 * const limiter = new LoginLimiter();
 * if (limiter.retryAfter('10.0.0.1') > 0) { /* answer 429 *\/ }
 * limiter.fail('10.0.0.1');
 * ```
 */
export class LoginLimiter {
  private readonly failures = new Map<string, number[]>();
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly maxAddresses: number;
  private readonly now: () => number;

  constructor(options: LoginLimiterOptions = {}) {
    this.maxFailures = options.maxFailures ?? 5;
    this.windowMs = options.windowMs ?? 60_000;
    this.maxAddresses = options.maxAddresses ?? 10_000;
    this.now = options.now ?? (() => Date.now());
  }

  /** Seconds until `address` may try again; 0 when it may now. */
  retryAfter(address: string): number {
    const recent = this.recent(address);
    if (recent.length < this.maxFailures) return 0;
    const oldest = recent[recent.length - this.maxFailures] as number;
    return Math.max(1, Math.ceil((oldest + this.windowMs - this.now()) / 1000));
  }

  /** Records a failed attempt from `address`. */
  fail(address: string): void {
    const recent = this.recent(address);
    recent.push(this.now());
    if (recent.length > this.maxFailures) recent.splice(0, recent.length - this.maxFailures);
    this.failures.delete(address);
    this.failures.set(address, recent);
    while (this.failures.size > this.maxAddresses) {
      const oldest = this.failures.keys().next().value;
      if (oldest === undefined) break;
      this.failures.delete(oldest);
    }
  }

  private recent(address: string): number[] {
    const now = this.now();
    const list = (this.failures.get(address) ?? []).filter((t) => now - t < this.windowMs);
    if (list.length === 0) this.failures.delete(address);
    else this.failures.set(address, list);
    return list;
  }
}
