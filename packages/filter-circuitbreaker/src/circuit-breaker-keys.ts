/**
 * URL keys read by the `circuitbreaker` filter and its config validator.
 *
 * @remarks
 * Every key but `circuitbreaker.resource` and `circuitbreaker.per-address` also works at method level
 * (`sayHello.circuitbreaker.threshold`), method level first. See {@link CircuitBreakerDefaults} for the defaults
 * and the package README for the semantics of each key.
 *
 * @example
 * ```ts
 * await app.refer(Greeter, { parameters: { [CircuitBreakerKeys.STRATEGY]: 'error-ratio', [CircuitBreakerKeys.THRESHOLD]: 0.5 } });
 * ```
 */
export const CircuitBreakerKeys = {
  /** The strategy: `slow-ratio`, `error-ratio` or `error-count`. Activates the filter when set. */
  STRATEGY: 'circuitbreaker',
  /** The trip threshold: a ratio in [0, 1] (`slow-ratio`, `error-ratio`) or a count (`error-count`), exceeded strictly. */
  THRESHOLD: 'circuitbreaker.threshold',
  /** `slow-ratio`: a call is slow when its response time (ms) is above this value (rounded). */
  SLOW_RT: 'circuitbreaker.slow-rt',
  /** Length of the statistics window, in ms. */
  WINDOW: 'circuitbreaker.window',
  /** Buckets of the sliding window (1: Sentinel's tumbling window). */
  BUCKETS: 'circuitbreaker.buckets',
  /** Calls the window must hold before the breaker may trip. */
  MIN_REQUESTS: 'circuitbreaker.min-requests',
  /** How long the breaker stays open before admitting probes, in ms. */
  OPEN_DURATION: 'circuitbreaker.open-duration',
  /** Probes admitted while half-open; all must succeed to close the breaker. */
  PROBES: 'circuitbreaker.probes',
  /** Whether business errors count as errors (`true`, as Sentinel's Dubbo adapter) or as successes. */
  BIZ_ERRORS: 'circuitbreaker.biz-errors',
  /** `open` or `closed`: forces the breaker into that state, whatever the statistics say. Activates the filter. */
  FORCE: 'circuitbreaker.force',
  /** `method` (one breaker per method) or `service` (methods without method-level keys share one). Service level only. */
  RESOURCE: 'circuitbreaker.resource',
  /** `true`: one breaker per provider address as well. Service level only. */
  PER_ADDRESS: 'circuitbreaker.per-address',
} as const;

/**
 * The breaker strategies, after Sentinel's degrade-rule grades 0, 1 and 2.
 *
 * @example
 * ```ts
 * const grade = CIRCUIT_BREAKER_STRATEGIES.indexOf('error-ratio'); // 1, Sentinel's grade
 * ```
 */
export const CIRCUIT_BREAKER_STRATEGIES = ['slow-ratio', 'error-ratio', 'error-count'] as const;

/** One of the {@link CIRCUIT_BREAKER_STRATEGIES}. */
export type CircuitBreakerStrategy = (typeof CIRCUIT_BREAKER_STRATEGIES)[number];

/**
 * Defaults of the {@link CircuitBreakerKeys}.
 *
 * @example
 * ```ts
 * const window = url.getMethodParameter(method, CircuitBreakerKeys.WINDOW, CircuitBreakerDefaults.WINDOW);
 * ```
 */
export const CircuitBreakerDefaults = {
  /** `slow-ratio`: trips only when every call of the window is slow (Sentinel's `slowRatioThreshold` default). */
  SLOW_RATIO_THRESHOLD: 1,
  /** `error-ratio`: trips when more than half the calls failed. */
  ERROR_RATIO_THRESHOLD: 0.5,
  /** `error-count`: trips on the 6th error of the window. */
  ERROR_COUNT_THRESHOLD: 5,
  /** 1 second. */
  SLOW_RT: 1000,
  /** 1 second, as Sentinel's `statIntervalMs`. */
  WINDOW: 1000,
  /** 10 buckets of a tenth of the window each. */
  BUCKETS: 10,
  /** 5, as Sentinel's `minRequestAmount`. */
  MIN_REQUESTS: 5,
  /** 5 seconds. */
  OPEN_DURATION: 5000,
  /** One probe, as Sentinel. */
  PROBES: 1,
  /** Business errors count, as in Sentinel's Dubbo adapter. */
  BIZ_ERRORS: true,
  /** One breaker per method. */
  RESOURCE: 'method',
  /** One breaker for all providers. */
  PER_ADDRESS: false,
} as const;

/** The most buckets a window may have (each call touches one; a long pause clears them all, once). */
export const MAX_BUCKETS = 100;
