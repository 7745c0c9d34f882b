import { ExtensionError, ExtensionErrorCode, Filter, type WeftApplication } from '@weft/core';

import { CircuitBreakerFilter } from './circuit-breaker-filter.js';
import type { CircuitBreakerRegistry } from './circuit-breaker-registry.js';

/**
 * The breakers of an application, and their state-change events.
 *
 * @remarks
 * The registry of the application's `circuitbreaker` filter (created on first use, application scope).
 *
 * @example
 * ```ts
 * circuitBreakersOf(app).onStateChange((e) => console.log(`${e.resource}: ${e.from} → ${e.to}`));
 * ```
 * @throws ExtensionError `ERR_SPI_NOT_FOUND` when the application does not have this package installed, or
 * `ERR_SPI_INVALID_PARAMETER` when another class took the name `circuitbreaker`.
 */
export function circuitBreakersOf(app: WeftApplication): CircuitBreakerRegistry {
  const filter = app.model.getExtensionLoader(Filter).getExtension('circuitbreaker');
  if (!(filter instanceof CircuitBreakerFilter)) {
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `circuitBreakersOf(): the weft.rpc.Filter extension "circuitbreaker" is a ${filter.constructor.name}, not @weft/filter-circuitbreaker's CircuitBreakerFilter.`,
    );
  }
  return filter.breakers;
}
