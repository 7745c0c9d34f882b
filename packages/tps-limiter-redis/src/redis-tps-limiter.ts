import { randomBytes } from 'node:crypto';

import { ApplicationModel, Logger, RpcError, RpcErrorCode, type ExtensionLoader, type Invocation, type URL } from '@weft/core';
import { Inject, InjectLoader } from '@weft/core/spi';
import { TpsLimiter, tpsRuleOf, type TpsRule } from '@weft/filter-tpslimit';

import { RedisConnection } from './redis-connection.js';
import { RedisTpsConfig } from './redis-tps-config.js';
import { redisTpsSettingsOf, type RedisTpsSettings } from './redis-tps-settings.js';

/** One method's rule and the key of its window. */
interface MethodPlan {
  readonly rule: TpsRule;
  readonly key: string;
}

/** What the limiter worked out once for one provider URL (URLs are immutable: a replaced URL is a new plan). */
interface UrlPlan {
  readonly settings: RedisTpsSettings;
  readonly connection: RedisConnection;
  readonly service: string;
  readonly methods: Map<string, MethodPlan>;
}

/** Rules cached per URL: more distinct method names than this are read from the URL on every call. */
const MAX_CACHED_METHODS = 256;

/**
 * A `weft.filter.TpsLimiter` whose windows live in Redis, shared by every provider process of a service.
 *
 * @remarks
 * Extension `redis` of `weft.filter.TpsLimiter` (select it with `tps.limiter=redis`), application scope. Each
 * decision is one Lua script run atomically on Redis in one round trip, on the Redis server's clock: `fixed`
 * (default) keeps the memory limiter's window — it opens at the first call, admits exactly `tps` calls, and ends
 * `tps.interval` ms later — and `sliding` keeps an exact log of the last interval's admissions. Keys are
 * `<prefix><window>:<service key>` (`#<method>` appended for a method with its own window) and expire with their
 * window. N processes sharing a rule admit exactly `tps` calls per window in total.
 *
 * One ioredis client per Redis address per application, created when a service is exported, closed when the
 * application shuts down. A decision never waits longer than `tps.redis.timeout`; while Redis cannot answer,
 * `tps.redis.on-error` decides: `local` (default: the in-process `memory` limiter with the same rule), `open`
 * (admit) or `closed` (reject with `RpcError` `limit-exceeded`). Settings: URL keys, else the application's
 * {@link RedisTpsConfig}, else defaults; the full table is in the package README.
 *
 * @example
 * ```ts
 * // Every provider process of Greeter shares 100 calls per second:
 * await app.export(Greeter, impl, {
 *   protocol: 'tri',
 *   parameters: { tps: 100, 'tps.interval': 1000, 'tps.limiter': 'redis', 'tps.redis.address': 'redis://10.0.0.5:6379' },
 * });
 * ```
 */
export class RedisTpsLimiter extends TpsLimiter {
  private readonly connections = new Map<string, RedisConnection>();
  private readonly plans = new WeakMap<URL, UrlPlan>();
  /** Makes sliding-log members unique across processes: random per limiter, then a counter. */
  private readonly token = randomBytes(8).toString('hex');
  private sequence = 0;
  private destroyed = false;

  constructor(
    @Inject(Logger) private readonly logger: Logger,
    @Inject(ApplicationModel) private readonly model: ApplicationModel,
    @InjectLoader(TpsLimiter) private readonly limiters: ExtensionLoader<TpsLimiter>,
  ) {
    super();
  }

  /** Asks Redis whether the call fits its window (a promise), or answers at once for unlimited calls and by policy. */
  isAllowable(url: URL, invocation: Invocation): boolean | Promise<boolean> {
    const plan = this.planOf(url, 'tps.limiter=redis');
    const method = this.methodPlan(plan, url, invocation.methodName);
    const { rate, interval } = method.rule;
    if (rate === 0) return true;
    const member = plan.settings.window === 'sliding' ? `${this.token}:${(this.sequence = (this.sequence + 1) % Number.MAX_SAFE_INTEGER)}` : '';
    const answer = plan.connection.decide(plan.settings.window, method.key, rate, interval, member);
    if (answer === undefined) return this.fallback(plan, url, invocation, new Error('not connected'));
    return answer.then(
      (admitted) => admitted === 1,
      (error: unknown) => this.fallback(plan, url, invocation, error),
    );
  }

  /**
   * Checks the URL's `tps.redis.*` settings and opens its Redis connection, so the first call finds it ready.
   * Called by the `tps-redis` config validator at export time.
   * @throws ExtensionError `ERR_SPI_INVALID_PARAMETER`.
   */
  prepare(url: URL, where: string): RedisTpsSettings {
    return this.planOf(url, where).settings;
  }

  /** Closes every Redis client of this application (the application is shutting down). */
  async destroy(): Promise<void> {
    this.destroyed = true;
    const all = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(all.map((c) => c.close()));
  }

  private planOf(url: URL, where: string): UrlPlan {
    let plan = this.plans.get(url);
    if (plan !== undefined) return plan;
    const config = this.model.hasService(RedisTpsConfig) ? this.model.getService(RedisTpsConfig) : undefined;
    const settings = redisTpsSettingsOf(url, config, where);
    if (this.destroyed) throw new RpcError(RpcErrorCode.UNKNOWN, `tps.limiter=redis: the application is shutting down.`);
    const id = `${settings.timeout} ${settings.address}`;
    let connection = this.connections.get(id);
    if (connection === undefined) this.connections.set(id, (connection = new RedisConnection(settings, this.logger)));
    plan = { settings, connection, service: url.getServiceKey() ?? url.toIdentityString(), methods: new Map() };
    this.plans.set(url, plan);
    return plan;
  }

  private methodPlan(plan: UrlPlan, url: URL, method: string): MethodPlan {
    const cached = plan.methods.get(method);
    if (cached !== undefined) return cached;
    const rule = tpsRuleOf(url, method);
    const { prefix, window } = plan.settings;
    const key = `${prefix}${window}:${plan.service}${rule.scope === 'method' ? `#${method}` : ''}`;
    const made = { rule, key };
    // Method names come from callers: never let unknown ones grow the cache without bound.
    if (plan.methods.size < MAX_CACHED_METHODS) plan.methods.set(method, made);
    return made;
  }

  /** The answer of `tps.redis.on-error` for a call Redis could not decide. */
  private fallback(plan: UrlPlan, url: URL, invocation: Invocation, error: unknown): boolean | Promise<boolean> {
    const reason = plan.connection.noteFailure(error, `calls of ${plan.service}`);
    switch (plan.settings.onError) {
      case 'open':
        return true;
      case 'local':
        return this.limiters.getExtension('memory').isAllowable(url, invocation);
      case 'closed':
        throw new RpcError(
          RpcErrorCode.LIMIT_EXCEEDED,
          `Failed to invoke ${plan.service}.${invocation.methodName}() on provider ${url.getAddress()}: refused by tps.limiter=redis, ` +
            `because Redis at ${plan.settings.maskedAddress} cannot answer (${reason}) and tps.redis.on-error=closed.`,
        );
    }
  }
}
