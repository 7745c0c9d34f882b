import type { URL } from '@weft/core';

import { TpsDefaults, TpsKeys } from './tps-keys.js';

/**
 * The rate limit that applies to one method of a service, as read from its URL.
 *
 * @example
 * ```ts
 * const rule: TpsRule = tpsRuleOf(url, 'sayHello'); // { rate: 10, interval: 1000, scope: 'method' }
 * ```
 */
export interface TpsRule {
  /** Calls admitted per window, an integer `>= 1`; `0` when the method is not limited. */
  readonly rate: number;
  /** Window length in milliseconds, `> 0`. */
  readonly interval: number;
  /**
   * `'method'` when the method sets `<method>.tps` or `<method>.tps.interval`: it has a window of its own.
   * `'service'` otherwise: every such method of the service shares the service's window.
   */
  readonly scope: 'method' | 'service';
}

/**
 * Reads the {@link TpsRule} of a method from a URL.
 *
 * @remarks
 * `rate` is `<method>.tps`, else `tps` (default `-1`), rounded down; a result `<= 0` means unlimited (`rate: 0`).
 * `interval` is `<method>.tps.interval`, else `tps.interval`, else 60000; a value `<= 0` gives the default.
 * `scope` is `'method'` as soon as either key is set at method level (Dubbo keys every method's window by the
 * service, so per-method rates rebuild one shared window on every call — §8.8 of the spec).
 * Limiters call it on every decision, so a URL replaced at runtime takes effect on the next call.
 *
 * @example
 * ```ts
 * const url = URL.parse('tri://h/org.acme.Greeter?tps=100&sayHello.tps=5');
 * tpsRuleOf(url, 'sayHello'); // { rate: 5, interval: 60000, scope: 'method' }
 * tpsRuleOf(url, 'sayBye');   // { rate: 100, interval: 60000, scope: 'service' }
 * ```
 * @throws ExtensionError `ERR_SPI_INVALID_PARAMETER` when a value is not a number.
 */
export function tpsRuleOf(url: URL, method: string): TpsRule {
  const rate = Math.floor(url.getMethodParameter(method, TpsKeys.TPS, TpsDefaults.TPS));
  const interval = url.getMethodParameter(method, TpsKeys.INTERVAL, TpsDefaults.INTERVAL);
  const scope = url.getMethodParameterStrict(method, TpsKeys.TPS) || url.getMethodParameterStrict(method, TpsKeys.INTERVAL) ? 'method' : 'service';
  return { rate: rate > 0 ? rate : 0, interval: interval > 0 ? interval : TpsDefaults.INTERVAL, scope };
}
