/**
 * The URL keys `@weft/mock` reads.
 *
 * @remarks `mock` (method level: `<method>.mock`) is the degradation expression; `mock.log.interval` (ms,
 * default 10000, read from the reference's current URL) is how often a fail-mock warning is logged per service
 * and method — the degradations in between are counted into the next line; `0` logs every degradation.
 * @example
 * ```ts
 * await app.refer(Greeter, { mock: 'fail:return null', parameters: { [MockKeys.LOG_INTERVAL]: 60_000 } });
 * ```
 */
export const MockKeys = {
  /** The mock expression (method level first). */
  MOCK: 'mock',
  /** Milliseconds between two fail-mock warnings of one service and method. */
  LOG_INTERVAL: 'mock.log.interval',
} as const;

/** Defaults of the {@link MockKeys}. */
export const MockDefaults = {
  /** `mock.log.interval`: 10 s. */
  LOG_INTERVAL: 10_000,
} as const;
