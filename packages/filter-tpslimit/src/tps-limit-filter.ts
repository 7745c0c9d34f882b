import { ApplicationEvents, Filter, RpcError, RpcErrorCode, type ExtensionLoader, type Invocation, type Invoker, type Result, type URL } from '@weft/core';
import { Inject, InjectLoader } from '@weft/core/spi';

import { TpsDefaults, TpsKeys } from './tps-keys.js';
import { TpsLimiter } from './tps-limiter.js';
import { tpsRuleOf } from './tps-rule.js';

/**
 * Limits the calls a provider accepts per time window: the `tps` extension of `weft.rpc.Filter`.
 *
 * @remarks
 * Extension `tps` of `weft.rpc.Filter`, application scope. Activated in group `provider` when the provider URL
 * sets `tps` (at service or method level, to a value other than `0`/`false`); order 0, so among filters of
 * equal order it sits by name (inside `executelimit`, which then sees a refusal as a failed call):
 * ```
 *  provider: exporter → [ … → tps → … ] → service implementation
 *                                ╰─ TpsLimiter (tps.limiter, default "memory") says yes → continue
 *                                                                               no  → reject limit-exceeded
 * ```
 * Keys, read from the invoker's URL on every call (a URL replaced at runtime applies to the next call):
 * `tps` / `<method>.tps` (calls per window, default -1 = unlimited), `tps.interval` / `<method>.tps.interval`
 * (window in ms, default 60000), `tps.limiter` (the `weft.filter.TpsLimiter` extension, default `memory`).
 * Methods with method-level settings get a window of their own; the others share the service's window.
 *
 * A refused call **rejects** with `RpcError` `limit-exceeded` naming the service, method, rate and interval
 * (Dubbo 3.x instead resolves with a result carrying the exception; 2.7 throws). The implementation is never
 * reached, and an outer filter that counts the call (such as `executelimit`) releases it as for any failure.
 * An admitted call's answer is returned as is — a `Result` when it completed synchronously — adding no promise.
 * A limiter answering with a promise (a shared store) makes the call wait for it. A limiter's own `RpcError` is
 * passed on as is; an unknown `tps.limiter`, a malformed `tps` value or another limiter failure rejects with
 * `RpcError` `unknown` (the `tps` config validator refuses the first two at export time).
 *
 * @example
 * ```ts
 * // 100 calls per second for the service, and 5 per second for sayHello on its own:
 * await app.export(Greeter, impl, { parameters: { tps: 100, 'tps.interval': 1000 }, methods: { sayHello: { tps: 5 } } });
 * ```
 */
export class TpsLimitFilter extends Filter {
  constructor(
    @InjectLoader(TpsLimiter) private readonly limiters: ExtensionLoader<TpsLimiter>,
    @Inject(ApplicationEvents) private readonly events: ApplicationEvents,
  ) {
    super();
  }

  /** Asks the limiter; continues when it admits the call, else rejects with `limit-exceeded`. */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const url = invoker.getUrl();
    const name = url.getParameter(TpsKeys.LIMITER) || TpsDefaults.LIMITER;
    let allowed: boolean | Promise<boolean>;
    try {
      allowed = this.limiters.getExtension(name).isAllowable(url, invocation);
    } catch (error) {
      return Promise.reject(this.failed(url, invocation, name, error));
    }
    if (allowed === true) return invoker.invoke(invocation);
    if (allowed === false) return Promise.reject(this.exceeded(url, invocation, name));
    return allowed.then(
      (ok) => (ok ? invoker.invoke(invocation) : Promise.reject(this.exceeded(url, invocation, name))),
      (error: unknown) => Promise.reject(this.failed(url, invocation, name, error)),
    );
  }

  private exceeded(url: URL, invocation: Invocation, limiter: string): RpcError {
    const method = invocation.methodName;
    if (this.events.listening('limit.refused')) this.events.emit({ type: 'limit.refused', limiter: 'tps', service: url.path, method, url });
    const service = url.getServiceKey() ?? url.path;
    const { rate, interval, scope } = tpsRuleOf(url, method);
    const window = scope === 'method' ? `the window of method ${method}` : `the window shared by the methods of ${service}`;
    const limit = rate > 0 ? `tps limit exceeded: at most ${rate} call${rate === 1 ? '' : 's'} per ${interval} ms (${window})` : 'refused by the tps limiter';
    return new RpcError(
      RpcErrorCode.LIMIT_EXCEEDED,
      `Failed to invoke ${service}.${method}() on provider ${url.getAddress()}: ${limit}; tps.limiter=${limiter}.`,
    );
  }

  private failed(url: URL, invocation: Invocation, limiter: string, error: unknown): RpcError {
    if (error instanceof RpcError) return error;
    const why = error instanceof Error ? error.message : String(error);
    return new RpcError(
      RpcErrorCode.UNKNOWN,
      `Cannot apply the tps limit to ${url.getServiceKey() ?? url.path}.${invocation.methodName}() with tps.limiter=${limiter}: ${why}`,
      { cause: error },
    );
  }
}
