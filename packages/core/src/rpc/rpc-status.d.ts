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
export declare class RpcStatus {
    /** Calls in flight. */
    active: number;
    /** Completed calls. */
    total: number;
    /** Completed calls that failed. */
    failed: number;
    totalElapsed: number;
    failedElapsed: number;
    maxElapsed: number;
    failedMaxElapsed: number;
    succeededMaxElapsed: number;
    /** Sliding window for `shortestresponse`: successes and their elapsed time since `windowStart`. */
    windowSucceeded: number;
    windowSucceededElapsed: number;
    windowStart: number;
    /** Successful calls. */
    get succeeded(): number;
    /** Mean elapsed ms over all completed calls. */
    getAverageElapsed(): number;
    /** Mean elapsed ms over successful calls. */
    getSucceededAverageElapsed(): number;
    /** Mean elapsed ms of successes in the current window of `slidePeriod` ms (the window restarts when older). */
    getWindowSucceededAverageElapsed(slidePeriod: number, now?: number): number;
    /** @internal */
    slide(slidePeriod: number, now: number): void;
    /** @internal */
    record(elapsed: number, succeeded: boolean): void;
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
export declare class RpcStatusRegistry {
    private readonly byKey;
    private byUrl;
    private entry;
    /** The existing entry of a URL, without creating one. */
    private find;
    /** The key under which a URL's counters are kept: identity string plus service key. */
    static keyOf(url: URL): string;
    /** The provider-level counters. */
    getStatus(url: URL): RpcStatus;
    /** The method-level counters. */
    getMethodStatus(url: URL, method: string): RpcStatus;
    /**
     * Counts a call in, unless the method already has `max` calls in flight (then returns false and counts
     * nothing). `max` ≤ 0 means unlimited.
     */
    beginCount(url: URL, method: string, max?: number): boolean;
    /**
     * Counts a call out: exactly once per successful `beginCount`. A call that ends after its provider's counters
     * were removed is not counted (the entry is not recreated, so removal keeps memory bounded).
     */
    endCount(url: URL, method: string, elapsed: number, succeeded: boolean): void;
    /** Forgets a provider's counters (called when its invoker is destroyed). */
    remove(url: URL): void;
    /** How many providers have counters. */
    get size(): number;
}
//# sourceMappingURL=rpc-status.d.ts.map