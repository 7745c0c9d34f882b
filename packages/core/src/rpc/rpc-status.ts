import type { URL } from './url.js';

/**
 * Call counters of one provider (or one method of it): active, totals, failures, elapsed times.
 *
 * @remarks Updated by {@link RpcStatusRegistry.beginCount}/{@link RpcStatusRegistry.endCount}; read by
 * `leastactive`/`shortestresponse` load balancing and the `executes`/`actives` limits. Elapsed times in ms.
 * @example
 * ```ts
 * const status = registry.getMethodStatus(url, 'sayHello');
 * console.log(status.active, status.getAverageElapsed());
 * ```
 */
export class RpcStatus {
  /** Calls in flight. */
  active = 0;
  /** Completed calls. */
  total = 0;
  /** Completed calls that failed. */
  failed = 0;
  totalElapsed = 0;
  failedElapsed = 0;
  maxElapsed = 0;
  failedMaxElapsed = 0;
  succeededMaxElapsed = 0;
  /** Sliding window for `shortestresponse`: successes and their elapsed time since `windowStart`. */
  windowSucceeded = 0;
  windowSucceededElapsed = 0;
  windowStart = Date.now();

  /** Successful calls. */
  get succeeded(): number {
    return this.total - this.failed;
  }

  /** Mean elapsed ms over all completed calls. */
  getAverageElapsed(): number {
    return this.total === 0 ? 0 : this.totalElapsed / this.total;
  }

  /** Mean elapsed ms over successful calls. */
  getSucceededAverageElapsed(): number {
    const succeeded = this.succeeded;
    return succeeded === 0 ? 0 : (this.totalElapsed - this.failedElapsed) / succeeded;
  }

  /** Mean elapsed ms of successes in the current window of `slidePeriod` ms (the window restarts when older). */
  getWindowSucceededAverageElapsed(slidePeriod: number, now: number = Date.now()): number {
    this.slide(slidePeriod, now);
    return this.windowSucceeded === 0 ? 0 : this.windowSucceededElapsed / this.windowSucceeded;
  }

  /** @internal */
  slide(slidePeriod: number, now: number): void {
    if (now - this.windowStart >= slidePeriod) {
      this.windowStart = now;
      this.windowSucceeded = 0;
      this.windowSucceededElapsed = 0;
    }
  }

  /** @internal */
  record(elapsed: number, succeeded: boolean): void {
    this.active--;
    this.total++;
    this.totalElapsed += elapsed;
    if (elapsed > this.maxElapsed) this.maxElapsed = elapsed;
    if (succeeded) {
      if (elapsed > this.succeededMaxElapsed) this.succeededMaxElapsed = elapsed;
      this.windowSucceeded++;
      this.windowSucceededElapsed += elapsed;
    } else {
      this.failed++;
      this.failedElapsed += elapsed;
      if (elapsed > this.failedMaxElapsed) this.failedMaxElapsed = elapsed;
    }
  }
}

interface Entry {
  readonly service: RpcStatus;
  readonly methods: Map<string, RpcStatus>;
  /** The methods the URL declares (`methods`), or null when it declares none. */
  readonly declared: ReadonlySet<string> | null;
}

function declaredMethods(url: URL): ReadonlySet<string> | null {
  const methods = url.getParameter('methods');
  if (methods === undefined || methods.trim() === '' || methods.trim() === '*') return null;
  return new Set(methods.split(',').map((m) => m.trim()));
}

/**
 * Per-provider and per-method {@link RpcStatus} counters of one application.
 *
 * @remarks
 * A service of every `ApplicationModel` (`app.getService(RpcStatusRegistry)`), never module-level state.
 * Unlike Dubbo, entries are keyed by the provider's identity **and service key** (group and version
 * included), so two versions of a service never share `executes`/`actives` counters; and entries are removed
 * when the invoker is destroyed ({@link RpcStatusRegistry.remove}), so memory stays bounded with dynamic
 * providers. JavaScript runs one call's bookkeeping at a time, so updates are exact (no lost increments).
 *
 * @example
 * ```ts
 * const statuses = app.getService(RpcStatusRegistry);
 * if (!statuses.beginCount(url, 'sayHello', 10)) throw new RpcError(RpcErrorCode.LIMIT_EXCEEDED, '…');
 * try { … } finally { statuses.endCount(url, 'sayHello', elapsed, ok); }
 * ```
 */
export class RpcStatusRegistry {
  private readonly byKey = new Map<string, Entry>();
  private byUrl = new WeakMap<URL, Entry>();

  private entry(url: URL): Entry {
    let entry = this.find(url);
    if (entry === undefined) {
      this.byKey.set(RpcStatusRegistry.keyOf(url), (entry = { service: new RpcStatus(), methods: new Map(), declared: declaredMethods(url) }));
      this.byUrl.set(url, entry);
    }
    return entry;
  }

  /** The existing entry of a URL, without creating one. */
  private find(url: URL): Entry | undefined {
    let entry = this.byUrl.get(url);
    if (entry === undefined) {
      entry = this.byKey.get(RpcStatusRegistry.keyOf(url));
      if (entry !== undefined) this.byUrl.set(url, entry);
    }
    return entry;
  }

  /** The key under which a URL's counters are kept: identity string plus service key. */
  static keyOf(url: URL): string {
    return `${url.toIdentityString()}|${url.getServiceKey() ?? ''}|${url.getSide() ?? ''}`;
  }

  /**
   * The method a call is counted under: itself when the URL declares it (`methods`) or declares no list;
   * otherwise one shared `*` entry, so method names invented by callers cannot grow memory without bound.
   */
  private static methodKey(entry: Entry, method: string): string {
    return entry.declared === null || entry.declared.has(method) ? method : '*';
  }

  /** The provider-level counters. */
  getStatus(url: URL): RpcStatus {
    return this.entry(url).service;
  }

  /** The method-level counters. */
  getMethodStatus(url: URL, method: string): RpcStatus {
    const entry = this.entry(url);
    const methods = entry.methods;
    const key = RpcStatusRegistry.methodKey(entry, method);
    let status = methods.get(key);
    if (status === undefined) methods.set(key, (status = new RpcStatus()));
    return status;
  }

  /**
   * Counts a call in, unless the method already has `max` calls in flight (then returns false and counts
   * nothing). `max` ≤ 0 means unlimited.
   */
  beginCount(url: URL, method: string, max = 0): boolean {
    const entry = this.entry(url);
    const key = RpcStatusRegistry.methodKey(entry, method);
    let status = entry.methods.get(key);
    if (status === undefined) entry.methods.set(key, (status = new RpcStatus()));
    if (max > 0 && status.active >= max) return false;
    status.active++;
    entry.service.active++;
    return true;
  }

  /**
   * Counts a call out: exactly once per successful `beginCount`. A call that ends after its provider's counters
   * were removed is not counted (the entry is not recreated, so removal keeps memory bounded).
   */
  endCount(url: URL, method: string, elapsed: number, succeeded: boolean): void {
    const entry = this.find(url);
    if (entry === undefined) return;
    entry.service.record(elapsed, succeeded);
    this.getMethodStatus(url, method).record(elapsed, succeeded);
  }

  /** Forgets a provider's counters (called when its invoker is destroyed). */
  remove(url: URL): void {
    this.byKey.delete(RpcStatusRegistry.keyOf(url));
    this.byUrl = new WeakMap();
  }

  /** How many providers have counters. */
  get size(): number {
    return this.byKey.size;
  }
}
