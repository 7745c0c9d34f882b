import { ExtensionError, ExtensionErrorCode, type ServiceDefinition, type URL } from '@weft/core';
import { ConfigValidator } from '@weft/core/spi';

import { CIRCUIT_BREAKER_STRATEGIES, CircuitBreakerKeys, MAX_BUCKETS } from './circuit-breaker-keys.js';

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * Checks the `circuitbreaker` keys when a service is referred or its reference is overridden, so a typo fails
 * there instead of silently leaving a breaker with its defaults.
 *
 * @remarks
 * Extension `circuitbreaker` of `weft.config.ConfigValidator`, activated in group `consumer` when
 * `circuitbreaker` or `circuitbreaker.force` is set (service or method level). Checks, at service level and for
 * every method: the strategy is one of `slow-ratio`, `error-ratio`, `error-count`; the threshold is a ratio in
 * [0, 1] (a count ≥ 0 for `error-count`); `slow-rt` ≥ 0; `window`, `min-requests`, `open-duration`, `probes`
 * are integers > 0; `buckets` an integer in [1, 100] that is at most the window; `biz-errors` is `true`/`false`;
 * `force` is `open`/`closed`; `resource` is `method`/`service` and `per-address` `true`/`false` (service level).
 * Throws `ExtensionError` `ERR_SPI_INVALID_PARAMETER` naming the key, the value and what is expected; a refused
 * override changes nothing.
 *
 * @example
 * ```ts
 * // ERR_SPI_INVALID_PARAMETER: refer(org.acme.Greeter): sayHello.circuitbreaker.threshold=1.5 is not valid: …
 * await app.refer(Greeter, { parameters: { circuitbreaker: 'error-ratio', 'sayHello.circuitbreaker.threshold': 1.5 } });
 * ```
 * @throws ExtensionError `ERR_SPI_INVALID_PARAMETER`.
 */
export class CircuitBreakerConfigValidator extends ConfigValidator {
  /** Throws when a `circuitbreaker` key of the URL, at service or method level, is invalid. */
  validate(url: URL, service: ServiceDefinition | undefined, where: string): void {
    const fail = (key: string, raw: string, expected: string): never => {
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: ${key}=${raw} is not valid: expected ${expected}.`);
    };
    const checkAt = (prefix: string, read: (key: string) => string | undefined, inherited: (key: string) => string | undefined): void => {
      const strategy = read(CircuitBreakerKeys.STRATEGY)?.trim();
      if (strategy !== undefined && strategy !== '' && !(CIRCUIT_BREAKER_STRATEGIES as readonly string[]).includes(strategy)) {
        fail(`${prefix}${CircuitBreakerKeys.STRATEGY}`, strategy, `one of ${CIRCUIT_BREAKER_STRATEGIES.join(', ')}`);
      }
      const effective = strategy || inherited(CircuitBreakerKeys.STRATEGY)?.trim();
      const number = (key: string, integer: boolean, ok: (n: number) => boolean, expected: string): number | undefined => {
        const raw = read(key)?.trim();
        if (raw === undefined || raw === '') return undefined;
        if (!(integer ? INTEGER : NUMBER).test(raw) || !ok(Number(raw))) fail(`${prefix}${key}`, raw, expected);
        return Number(raw);
      };
      if (effective === 'error-count') {
        number(CircuitBreakerKeys.THRESHOLD, false, (n) => n >= 0, 'a number >= 0 (errors in the window; the breaker trips above it)');
      } else {
        number(
          CircuitBreakerKeys.THRESHOLD,
          false,
          (n) => n >= 0 && n <= 1,
          `a ratio between 0 and 1 for ${effective || 'a ratio strategy'} (the breaker trips above it; 1: when every call ${effective === 'slow-ratio' ? 'is slow' : 'failed'})`,
        );
      }
      number(CircuitBreakerKeys.SLOW_RT, false, (n) => n >= 0, 'a number of milliseconds >= 0 (a call slower than this is slow)');
      const window =
        number(CircuitBreakerKeys.WINDOW, true, (n) => n > 0, 'an integer > 0 (the statistics window in milliseconds)') ??
        Number(inherited(CircuitBreakerKeys.WINDOW) ?? Number.NaN);
      number(
        CircuitBreakerKeys.BUCKETS,
        true,
        (n) => n >= 1 && n <= MAX_BUCKETS && !(n > window),
        `an integer between 1 and ${MAX_BUCKETS}, at most the window in milliseconds (1: a tumbling window, as Sentinel)`,
      );
      number(CircuitBreakerKeys.MIN_REQUESTS, true, (n) => n > 0, 'an integer > 0 (calls in the window before the breaker may trip)');
      number(CircuitBreakerKeys.OPEN_DURATION, true, (n) => n > 0, 'an integer > 0 (milliseconds the breaker stays open)');
      number(CircuitBreakerKeys.PROBES, true, (n) => n > 0, 'an integer > 0 (probes admitted while half-open)');
      const biz = read(CircuitBreakerKeys.BIZ_ERRORS)?.trim();
      if (biz !== undefined && biz !== '' && biz.toLowerCase() !== 'true' && biz.toLowerCase() !== 'false') {
        fail(`${prefix}${CircuitBreakerKeys.BIZ_ERRORS}`, biz, 'true or false (whether business errors count as errors)');
      }
      const force = read(CircuitBreakerKeys.FORCE)?.trim();
      if (force !== undefined && force !== '' && force !== 'open' && force !== 'closed') {
        fail(`${prefix}${CircuitBreakerKeys.FORCE}`, force, 'open or closed (remove the key to let the statistics decide)');
      }
    };
    checkAt('', (key) => url.getParameter(key), () => undefined);
    for (const method of service?.methodNames ?? []) {
      checkAt(`${method}.`, (key) => url.getMethodParameterStrict(method, key), (key) => url.getParameter(key));
    }
    const resource = url.getParameter(CircuitBreakerKeys.RESOURCE)?.trim();
    if (resource !== undefined && resource !== '' && resource !== 'method' && resource !== 'service') {
      fail(CircuitBreakerKeys.RESOURCE, resource, 'method or service (one breaker per method, or one shared by the service)');
    }
    const perAddress = url.getParameter(CircuitBreakerKeys.PER_ADDRESS)?.trim().toLowerCase();
    if (perAddress !== undefined && perAddress !== '' && perAddress !== 'true' && perAddress !== 'false') {
      fail(CircuitBreakerKeys.PER_ADDRESS, url.getParameter(CircuitBreakerKeys.PER_ADDRESS) ?? '', 'true or false (one breaker per provider address)');
    }
  }
}
