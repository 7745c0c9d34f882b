import type { RedisOnErrorPolicy, RedisWindowKind } from './redis-tps-settings.js';

/**
 * URL keys read by the `redis` limiter (`tps.limiter=redis`), besides `tps` and `tps.interval`.
 *
 * @remarks
 * All are read at service level from the provider URL. Unset keys fall back to the application's
 * {@link RedisTpsConfig}, then to {@link RedisTpsDefaults}.
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl, { parameters: { tps: 100, 'tps.limiter': 'redis', [RedisTpsKeys.ADDRESS]: 'redis://10.0.0.5:6379' } });
 * ```
 */
export const RedisTpsKeys = {
  /** The Redis server: `redis://[[user]:password@]host[:port][/db]` or `rediss://…` (TLS). */
  ADDRESS: 'tps.redis.address',
  /** Prefix of every key the limiter writes. */
  PREFIX: 'tps.redis.prefix',
  /** `fixed` (the memory limiter's window) or `sliding` (an exact sliding log). */
  WINDOW: 'tps.redis.window',
  /** What a call gets while Redis cannot answer: `local`, `open` or `closed`. */
  ON_ERROR: 'tps.redis.on-error',
  /** How long one decision may wait for Redis, in ms, before `tps.redis.on-error` applies. */
  TIMEOUT: 'tps.redis.timeout',
} as const;

/**
 * Defaults of the {@link RedisTpsKeys}.
 *
 * @example
 * ```ts
 * const window = url.getParameter(RedisTpsKeys.WINDOW) ?? RedisTpsDefaults.WINDOW; // 'fixed'
 * ```
 */
export const RedisTpsDefaults = {
  /** A Redis on this host. */
  ADDRESS: 'redis://127.0.0.1:6379',
  PREFIX: 'weft:tps:',
  WINDOW: 'fixed',
  /** Fall back to the in-process `memory` limiter with the same rule (see the README for why). */
  ON_ERROR: 'local',
  /** 100 ms: far above a healthy round trip (~0.1–1 ms), far below a call timeout. */
  TIMEOUT: 100,
} as const;

/** The window kinds of {@link RedisTpsKeys.WINDOW}. */
export const WINDOW_KINDS: readonly RedisWindowKind[] = ['fixed', 'sliding'];
/** The policies of {@link RedisTpsKeys.ON_ERROR}. */
export const ON_ERROR_POLICIES: readonly RedisOnErrorPolicy[] = ['local', 'open', 'closed'];
/** The largest `tps.redis.timeout` accepted, in ms. */
export const MAX_TIMEOUT = 60_000;
