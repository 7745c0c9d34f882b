import { ExtensionError, ExtensionErrorCode, type ExtensionLoader, type ServiceDefinition, type URL } from '@weft/core';
import { ConfigValidator, InjectLoader } from '@weft/core/spi';
import { TpsLimiter } from '@weft/filter-tpslimit';

import { RedisTpsKeys } from './redis-tps-keys.js';
import { RedisTpsLimiter } from './redis-tps-limiter.js';

/**
 * Checks the `tps.redis.*` keys when a service is exported with `tps.limiter=redis`, and opens its Redis connection.
 *
 * @remarks
 * Extension `tps-redis` of `weft.config.ConfigValidator`, activated in group `provider` when `tps.limiter` or a
 * `tps.redis.*` key is set. With `tps.limiter=redis` it checks `tps.redis.address`, `tps.redis.prefix`,
 * `tps.redis.window`, `tps.redis.on-error` and `tps.redis.timeout` (URL first, then the application's
 * `RedisTpsConfig`) and starts connecting, so the first call finds Redis connected. A `tps.redis.*` key set
 * while another limiter decides has no effect and is refused, naming the limiter in use. Throws `ExtensionError`
 * `ERR_SPI_INVALID_PARAMETER` naming the key, where the value came from and what is accepted.
 *
 * @example
 * ```ts
 * // ERR_SPI_INVALID_PARAMETER: export(org.acme.Greeter): tps.redis.on-error=close (provider URL) is not valid: expected one of local, open, closed; did you mean closed?
 * await app.export(Greeter, impl, { parameters: { tps: 10, 'tps.limiter': 'redis', 'tps.redis.on-error': 'close' } });
 * ```
 * @throws ExtensionError `ERR_SPI_INVALID_PARAMETER`.
 */
export class RedisTpsConfigValidator extends ConfigValidator {
  constructor(@InjectLoader(TpsLimiter) private readonly limiters: ExtensionLoader<TpsLimiter>) {
    super();
  }

  /** Throws when a `tps.redis.*` setting is invalid or set for another limiter; else connects to Redis. */
  validate(url: URL, _service: ServiceDefinition | undefined, where: string): void {
    const limiter = url.getParameter('tps.limiter');
    if (limiter !== 'redis') {
      const stray = Object.values(RedisTpsKeys).find((key) => (url.getParameter(key) ?? '') !== '');
      if (stray === undefined) return;
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where}: ${stray} is set but tps.limiter=${limiter === undefined || limiter === '' ? 'memory (the default)' : limiter} decides, ` +
          `so it has no effect. Set tps.limiter=redis to share the window through Redis, or remove ${stray}.`,
      );
    }
    const redis = this.limiters.getExtension('redis');
    if (redis instanceof RedisTpsLimiter) redis.prepare(url, where);
  }
}
