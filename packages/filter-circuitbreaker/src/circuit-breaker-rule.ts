import type { URL } from '@weft/core';

import { CIRCUIT_BREAKER_STRATEGIES, CircuitBreakerDefaults, CircuitBreakerKeys, MAX_BUCKETS, type CircuitBreakerStrategy } from './circuit-breaker-keys.js';

/**
 * A degrade rule as read from a URL for one method: what a breaker obeys, and which breaker it is.
 *
 * @remarks
 * Read by {@link circuitBreakerRuleOf}; equal rules have equal `signature`s, so a breaker keeps its state when a
 * pushed configuration leaves its rule unchanged (Sentinel's `getExistingSameCbOrNew`).
 *
 * @example
 * ```ts
 * const rule = circuitBreakerRuleOf(url, 'sayHello');
 * if (rule !== undefined) console.log(rule.resource, rule.strategy, rule.threshold);
 * ```
 */
export interface CircuitBreakerRule {
  /** The strategy; undefined when only `circuitbreaker.force` is set. */
  readonly strategy: CircuitBreakerStrategy | undefined;
  /** Ratio in [0, 1] or count, exceeded strictly to trip. */
  readonly threshold: number;
  /** `slow-ratio`: a call slower than this many ms (rounded) is slow. */
  readonly slowRt: number;
  /** Statistics window, ms. */
  readonly window: number;
  /** Buckets of the window. */
  readonly buckets: number;
  /** Calls the window must hold before it may trip. */
  readonly minRequests: number;
  /** Open duration, ms. */
  readonly openDuration: number;
  /** Probes admitted while half-open. */
  readonly probes: number;
  /** Whether business errors count as errors. */
  readonly bizErrors: boolean;
  /** A forced state, if any. */
  readonly force: 'open' | 'closed' | undefined;
  /** The resource: `<serviceKey>` or `<serviceKey>#<method>`, with `@<address>` when per address. */
  readonly resource: string;
  /** The service key of the resource. */
  readonly service: string;
  /** The method of the resource; undefined for a service-wide breaker. */
  readonly method: string | undefined;
  /** The provider address of the resource; undefined unless `circuitbreaker.per-address`. */
  readonly address: string | undefined;
  /** The rule's settings as one string: equal rules, equal signatures. */
  readonly signature: string;
}

/** The keys that give a method a breaker of its own when set at method level (for `circuitbreaker.resource=service`). */
const METHOD_KEYS: readonly string[] = [
  CircuitBreakerKeys.STRATEGY,
  CircuitBreakerKeys.THRESHOLD,
  CircuitBreakerKeys.SLOW_RT,
  CircuitBreakerKeys.WINDOW,
  CircuitBreakerKeys.BUCKETS,
  CircuitBreakerKeys.MIN_REQUESTS,
  CircuitBreakerKeys.OPEN_DURATION,
  CircuitBreakerKeys.PROBES,
  CircuitBreakerKeys.BIZ_ERRORS,
  CircuitBreakerKeys.FORCE,
];

function isStrategy(value: string): value is CircuitBreakerStrategy {
  return (CIRCUIT_BREAKER_STRATEGIES as readonly string[]).includes(value);
}

/** A number read leniently: a malformed or out-of-range value gives the default (the validator refuses it at refer/override). */
function numberOf(raw: string | undefined, fallback: number, ok: (n: number) => boolean): number {
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  return Number.isFinite(value) && ok(value) ? value : fallback;
}

const isInteger = (n: number): boolean => Number.isInteger(n);

/**
 * Reads the degrade rule of `method` from a (provider invoker's) URL; undefined when no breaker applies.
 *
 * @remarks
 * Method-level keys first (`sayHello.circuitbreaker.threshold`), then service level. No rule unless
 * `circuitbreaker` names a strategy or `circuitbreaker.force` is `open`/`closed` for the method. With
 * `circuitbreaker.resource=service`, methods without method-level breaker keys share the service's breaker; a
 * method with any of them has its own. Malformed values read as their defaults (the config validator refuses
 * them at refer and override time). Cheap enough to call once per URL and method; the filter caches it.
 *
 * @example
 * ```ts
 * const url = URL.parse('tri://10.0.0.1:50051/org.acme.Greeter?circuitbreaker=error-count&circuitbreaker.threshold=3');
 * circuitBreakerRuleOf(url, 'sayHello')?.resource; // 'org.acme.Greeter#sayHello'
 * ```
 */
export function circuitBreakerRuleOf(url: URL, method: string): CircuitBreakerRule | undefined {
  const read = (key: string): string | undefined => {
    const value = url.getMethodParameter(method, key);
    return value === undefined ? undefined : value.trim();
  };
  const rawStrategy = read(CircuitBreakerKeys.STRATEGY);
  const strategy = rawStrategy !== undefined && isStrategy(rawStrategy) ? rawStrategy : undefined;
  const rawForce = read(CircuitBreakerKeys.FORCE);
  const force = rawForce === 'open' || rawForce === 'closed' ? rawForce : undefined;
  if (strategy === undefined && force === undefined) return undefined;
  const defaultThreshold =
    strategy === 'error-count'
      ? CircuitBreakerDefaults.ERROR_COUNT_THRESHOLD
      : strategy === 'slow-ratio'
        ? CircuitBreakerDefaults.SLOW_RATIO_THRESHOLD
        : CircuitBreakerDefaults.ERROR_RATIO_THRESHOLD;
  const threshold = numberOf(read(CircuitBreakerKeys.THRESHOLD), defaultThreshold, (n) =>
    strategy === 'error-count' ? n >= 0 : n >= 0 && n <= 1,
  );
  const slowRt = Math.round(numberOf(read(CircuitBreakerKeys.SLOW_RT), CircuitBreakerDefaults.SLOW_RT, (n) => n >= 0));
  const window = numberOf(read(CircuitBreakerKeys.WINDOW), CircuitBreakerDefaults.WINDOW, (n) => isInteger(n) && n > 0);
  const buckets = numberOf(read(CircuitBreakerKeys.BUCKETS), CircuitBreakerDefaults.BUCKETS, (n) => isInteger(n) && n >= 1 && n <= MAX_BUCKETS && n <= window);
  const minRequests = numberOf(read(CircuitBreakerKeys.MIN_REQUESTS), CircuitBreakerDefaults.MIN_REQUESTS, (n) => isInteger(n) && n > 0);
  const openDuration = numberOf(read(CircuitBreakerKeys.OPEN_DURATION), CircuitBreakerDefaults.OPEN_DURATION, (n) => isInteger(n) && n > 0);
  const probes = numberOf(read(CircuitBreakerKeys.PROBES), CircuitBreakerDefaults.PROBES, (n) => isInteger(n) && n > 0);
  const rawBiz = read(CircuitBreakerKeys.BIZ_ERRORS)?.toLowerCase();
  const bizErrors = rawBiz === 'false' ? false : rawBiz === 'true' ? true : CircuitBreakerDefaults.BIZ_ERRORS;

  const service = url.getServiceKey() ?? url.path;
  const shared =
    url.getParameter(CircuitBreakerKeys.RESOURCE)?.trim() === 'service' &&
    METHOD_KEYS.every((key) => url.getMethodParameterStrict(method, key) === undefined);
  const perAddress = url.getParameter(CircuitBreakerKeys.PER_ADDRESS)?.trim().toLowerCase() === 'true';
  const address = perAddress ? url.getAddress() : undefined;
  const resource = `${service}${shared ? '' : `#${method}`}${address === undefined ? '' : `@${address}`}`;
  const signature = [strategy ?? '', threshold, slowRt, window, buckets, minRequests, openDuration, probes, bizErrors, force ?? ''].join('|');
  return {
    strategy,
    threshold,
    slowRt,
    window,
    buckets,
    minRequests,
    openDuration,
    probes,
    bizErrors,
    force,
    resource,
    service,
    method: shared ? undefined : method,
    address,
    signature,
  };
}

/** The rule in words, for log lines and error messages: `error-ratio > 0.5 over 1000 ms (min 5 calls)`. */
export function describeRule(rule: CircuitBreakerRule): string {
  if (rule.strategy === undefined) return `forced ${rule.force ?? ''}`.trim();
  const condition =
    rule.strategy === 'slow-ratio'
      ? `slow-ratio (calls over ${rule.slowRt} ms) > ${rule.threshold}`
      : rule.strategy === 'error-ratio'
        ? `error-ratio > ${rule.threshold}`
        : `error-count > ${rule.threshold}`;
  return `${condition} over ${rule.window} ms (min ${rule.minRequests} calls), open ${rule.openDuration} ms`;
}
