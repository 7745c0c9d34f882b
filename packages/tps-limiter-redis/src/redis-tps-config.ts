/**
 * The application-wide settings of the `redis` limiter: what a provider URL without `tps.redis.*` keys uses.
 *
 * @remarks
 * Register one per application, before the first call (typically right after `WeftApplication.start`), with
 * `app.model.registerService(RedisTpsConfig, new RedisTpsConfig({ … }))`. A key set on the provider URL wins over
 * the same setting here; a setting missing from both takes its {@link RedisTpsDefaults} value. The values are
 * checked as the URL keys are (at export time, by the `tps-redis` config validator).
 *
 * @example
 * ```ts
 * const app = await WeftApplication.start({ root, name: 'shop' });
 * app.model.registerService(RedisTpsConfig, new RedisTpsConfig({ address: process.env.REDIS_URL, onError: 'closed' }));
 * await app.export(Greeter, impl, { parameters: { tps: 100, 'tps.interval': 1000, 'tps.limiter': 'redis' } });
 * ```
 */
export class RedisTpsConfig {
  /** `tps.redis.address`: `redis://[[user]:password@]host[:port][/db]` or `rediss://…`. */
  readonly address: string | undefined;
  /** `tps.redis.prefix`. */
  readonly prefix: string | undefined;
  /** `tps.redis.window`: `fixed` or `sliding`. */
  readonly window: string | undefined;
  /** `tps.redis.on-error`: `local`, `open` or `closed`. */
  readonly onError: string | undefined;
  /** `tps.redis.timeout`, in ms. */
  readonly timeout: number | undefined;

  constructor(options: { address?: string; prefix?: string; window?: string; onError?: string; timeout?: number } = {}) {
    this.address = options.address;
    this.prefix = options.prefix;
    this.window = options.window;
    this.onError = options.onError;
    this.timeout = options.timeout;
  }
}
