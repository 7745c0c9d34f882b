import { RpcErrorCode, type Invocation, type Logger, type RpcError, type URL } from '@weft/core';
import { safeLog } from '@weft/core/spi';

import { ClusterDefaults, ClusterKeys } from './cluster-keys.js';

/** How long a clamping or invalid-value warning for one source stays quiet after it was logged. */
const WARNING_INTERVAL_MS = 60_000;

/** The retry budget of one method, read from one URL object (cached: URLs are immutable). */
interface Budget {
  readonly retries: number;
}

/**
 * Which failures a cluster may retry, and how many retries a configured `retries` allows.
 *
 * @remarks
 * One instance per cluster invoker (no module state). The rules, in the order they apply:
 *
 * - never: business errors (`biz`) and errors the protocol marked final (`retryable: false`);
 * - always (any method): failures known to happen before the request was written — `RpcError.unsent` (no
 *   connection, refused stream, header encoding, a deadline already past), `no-invoker`, `circuit-open`;
 * - otherwise (the request may have reached a provider: a timeout, a reset connection, tri's `UNAVAILABLE` after
 *   the write): only methods not declared `idempotent: false`.
 *
 * `retries` is clamped to `retries.max` (default {@link ClusterDefaults.RETRIES_MAX}); a clamped, negative or
 * non-numeric value logs a warning naming where it came from, at most once a minute per source.
 *
 * @example
 * ```ts
 * const policy = new RetryPolicy(logger);
 * if (policy.mayRetry(error, RetryPolicy.isIdempotent(invocation))) retry();
 * ```
 */
export class RetryPolicy {
  private readonly budgets = new WeakMap<URL, Map<string, Budget>>();
  private readonly warned = new Map<string, number>();

  constructor(private readonly logger: Logger) {}

  /** Whether the method of this call may run twice (not declared `idempotent: false`). */
  static isIdempotent(invocation: Invocation): boolean {
    return invocation.service?.getMethod(invocation.getMethodName())?.idempotent !== false;
  }

  /** Whether the failure is known to have happened before the request was sent. */
  static isUnsent(error: RpcError): boolean {
    return error.unsent || error.code === RpcErrorCode.NO_INVOKER || error.code === RpcErrorCode.CIRCUIT_OPEN;
  }

  /** Whether a cluster may try the call again after this failure (see the class remarks). */
  mayRetry(error: RpcError, idempotent: boolean): boolean {
    if (error.isBiz || !error.retryable) return false;
    return idempotent || RetryPolicy.isUnsent(error);
  }

  /**
   * The retries allowed for `method`: the method-level `retries` of `url` (default `fallback`), or `override` (a
   * `retries` attachment of the call), clamped to `[0, retries.max]`.
   */
  retries(url: URL, consumerUrl: URL, method: string, fallback: number, override: number | undefined): number {
    if (override !== undefined) return this.limit(override, url, `the "retries" attachment of the call to ${method}()`);
    let perMethod = this.budgets.get(url);
    if (perMethod === undefined) this.budgets.set(url, (perMethod = new Map()));
    let budget = perMethod.get(method);
    if (budget === undefined) {
      budget = { retries: this.read(url, consumerUrl, method, fallback) };
      perMethod.set(method, budget);
    }
    return budget.retries;
  }

  private read(url: URL, consumerUrl: URL, method: string, fallback: number): number {
    const methodLevel = url.getMethodParameterStrict(method, ClusterKeys.RETRIES);
    const key = methodLevel ? `${method}.${ClusterKeys.RETRIES}` : ClusterKeys.RETRIES;
    const raw = methodLevel || url.getParameter(ClusterKeys.RETRIES);
    if (!raw) return this.limit(fallback, url, 'the default');
    const fromOverride = (methodLevel ? consumerUrl.getMethodParameterStrict(method, ClusterKeys.RETRIES) : consumerUrl.getParameter(ClusterKeys.RETRIES)) !== raw;
    const source = `${fromOverride ? 'an override (configurator)' : 'the consumer URL'} key "${key}"`;
    const value = Number(raw);
    if (raw.trim() === '' || !Number.isFinite(value)) {
      this.warn(
        `${source}:${raw}`,
        `retries ${JSON.stringify(raw)} from ${source} is not a number; using the default ${fallback} for ${method}().`
      );
      return this.limit(fallback, url, 'the default');
    }
    return this.limit(value, url, source);
  }

  /** `value` clamped to `[0, retries.max of url]`; a clamp or a negative value logs a warning naming `source`. */
  limit(value: number, url: URL, source: string): number {
    const max = this.maxOf(url);
    if (!Number.isFinite(value) || value < 0) {
      this.warn(`${source}:${value}`, `retries=${value} from ${source} is negative; making one attempt (no retries).`);
      return 0;
    }
    const retries = Math.floor(value);
    if (retries <= max) return retries;
    this.warn(
      `${source}:${value}:${max}`,
      `retries=${value} from ${source} exceeds the ceiling ${ClusterKeys.RETRIES_MAX}=${max}; using ${max} ` +
        `(set "${ClusterKeys.RETRIES_MAX}" on the consumer to allow more).`
    );
    return max;
  }

  private maxOf(url: URL): number {
    const raw = url.getParameter(ClusterKeys.RETRIES_MAX);
    if (!raw) return ClusterDefaults.RETRIES_MAX;
    const max = Number(raw);
    if (!Number.isFinite(max) || max < 0) {
      this.warn(
        `${ClusterKeys.RETRIES_MAX}:${raw}`,
        `${ClusterKeys.RETRIES_MAX}=${JSON.stringify(raw)} is not a non-negative number; using ${ClusterDefaults.RETRIES_MAX}.`
      );
      return ClusterDefaults.RETRIES_MAX;
    }
    return Math.floor(max);
  }

  /** Logs once per source per {@link WARNING_INTERVAL_MS}; the map of sources stays bounded. */
  private warn(source: string, message: string): void {
    const now = Date.now();
    const last = this.warned.get(source);
    if (last !== undefined && now - last < WARNING_INTERVAL_MS) return;
    if (this.warned.size >= 256) this.warned.clear();
    this.warned.set(source, now);
    safeLog(this.logger, 'warn', message);
  }
}
