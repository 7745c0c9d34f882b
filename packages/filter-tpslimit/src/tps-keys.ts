/**
 * URL keys read by the `tps` filter and its limiters.
 *
 * @remarks
 * `tps` and `tps.interval` are read per call, method level first (`sayHello.tps`, `sayHello.tps.interval`),
 * then service level; `tps.limiter` is read at service level. See {@link TpsDefaults} for the defaults.
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl, { parameters: { [TpsKeys.TPS]: 100, [TpsKeys.INTERVAL]: 1000 } });
 * ```
 */
export const TpsKeys = {
  /** Calls admitted per window; `<= 0` (or unset) means unlimited. Activates the filter when set. */
  TPS: 'tps',
  /** Window length in milliseconds. */
  INTERVAL: 'tps.interval',
  /** Name of the `weft.filter.TpsLimiter` extension that decides. */
  LIMITER: 'tps.limiter',
} as const;

/**
 * Defaults of the {@link TpsKeys}.
 *
 * @example
 * ```ts
 * const interval = url.getMethodParameter(method, TpsKeys.INTERVAL, TpsDefaults.INTERVAL);
 * ```
 */
export const TpsDefaults = {
  /** No limit. */
  TPS: -1,
  /** One minute, as Dubbo. */
  INTERVAL: 60_000,
  /** The in-process fixed-window limiter. */
  LIMITER: 'memory',
} as const;
