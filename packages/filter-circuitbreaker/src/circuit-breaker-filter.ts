import { Filter, Logger, Result, RpcError, RpcErrorCode, type Invocation, type Invoker, type URL } from '@weft/core';
import { Inject } from '@weft/core/spi';

import { CircuitBreaker, Outcome, REJECT } from './circuit-breaker.js';
import { CircuitBreakerRegistry } from './circuit-breaker-registry.js';
import { circuitBreakerRuleOf, describeRule, type CircuitBreakerRule } from './circuit-breaker-rule.js';

/** Rules cached per URL: more distinct method names than this are read from the URL on every call. */
const MAX_CACHED_METHODS = 256;

/** How a rejected call counts: an inner breaker's refusal and a caller's cancellation are not the provider's doing. */
function outcomeOfError(error: unknown, rule: CircuitBreakerRule): Outcome {
  if (error instanceof RpcError) {
    if (error.code === RpcErrorCode.CIRCUIT_OPEN || error.code === RpcErrorCode.CANCELLED) return Outcome.IGNORED;
    if (error.isBiz) return rule.bizErrors ? Outcome.ERROR : Outcome.SUCCESS;
  }
  return Outcome.ERROR;
}

/** How a resolved call counts: a framework `RpcError` the result carries is a failure; a business error per `biz-errors`. */
function outcomeOfResult(result: Result, rule: CircuitBreakerRule): Outcome {
  if (!result.hasException()) return Outcome.SUCCESS;
  const exception = result.exception;
  if (exception instanceof RpcError && !exception.isBiz) return outcomeOfError(exception, rule);
  return rule.bizErrors ? Outcome.ERROR : Outcome.SUCCESS;
}

/**
 * Stops sending calls to a failing or slow provider for a while, failing them fast instead: the `circuitbreaker`
 * extension of `weft.rpc.Filter`.
 *
 * @remarks
 * Extension `circuitbreaker` of `weft.rpc.Filter`, application scope (its breakers belong to the instance, so to
 * the application: {@link CircuitBreakerFilter.breakers}). Activated in group `consumer` when the reference sets
 * `circuitbreaker` (a strategy) or `circuitbreaker.force`, at service or method level; order 0. It runs in the
 * consumer chain of each provider, around the protocol invoker:
 * ```
 *  consumer: proxy → mock → cluster → [ … → circuitbreaker → … ] → protocol invoker ══ network ══> provider
 *                                            ├─ closed / probe admitted → call, count the outcome in the window
 *                                            └─ open / half-open full / forced open → reject `circuit-open` at once
 *                                                  (not business: a fail mock answers instead)
 * ```
 * The rule is read from the provider invoker's URL (method level first) and cached per URL object, so an
 * override (or a registry rule) applies to the next call; an unchanged rule keeps its breaker's state. The
 * resource is the method (or the service, `circuitbreaker.resource=service`), per provider address with
 * `circuitbreaker.per-address=true`. Errors are rejections and results carrying a framework `RpcError`, and
 * business errors unless `circuitbreaker.biz-errors=false`; `cancelled` and `circuit-open` are not counted. The
 * refusal is retryable only per address (another provider's breaker may be closed). The closed path allocates
 * nothing for a call that completes synchronously, and one `then` branch for one that does not; the answer is
 * returned as is. See the package README for the keys, the state machine and the events.
 *
 * @example
 * ```ts
 * const greeter = await app.refer(Greeter, {
 *   parameters: { circuitbreaker: 'error-ratio', 'circuitbreaker.threshold': 0.5, mock: 'fail:return "busy"' },
 * });
 * ```
 */
export class CircuitBreakerFilter extends Filter {
  /** The application's breakers and their state-change events. */
  readonly breakers: CircuitBreakerRegistry;
  private readonly rules = new WeakMap<URL, Map<string, CircuitBreakerRule | null>>();

  constructor(@Inject(Logger) logger: Logger) {
    super();
    this.breakers = new CircuitBreakerRegistry(logger);
  }

  /** Admits the call (counting its outcome) or rejects it with `circuit-open`. */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const url = invoker.getUrl();
    const rule = this.ruleOf(url, invocation.methodName);
    if (rule === undefined) return invoker.invoke(invocation);
    const breaker = this.breakers.breakerFor(rule);
    const clock = this.breakers.now;
    const start = clock();
    const token = breaker.tryPass(start);
    if (token === REJECT) return Promise.reject(this.refused(breaker, url, invocation, start));
    if (breaker.state === 'forced-closed') return invoker.invoke(invocation);
    let answer: Result | Promise<Result>;
    try {
      answer = invoker.invoke(invocation);
    } catch (error) {
      const end = clock();
      breaker.complete(end, end - start, outcomeOfError(error, rule), token);
      throw error;
    }
    if (answer instanceof Result) {
      const end = clock();
      breaker.complete(end, end - start, outcomeOfResult(answer, rule), token);
      return answer;
    }
    this.countWhenSettled(answer instanceof Promise ? answer : Promise.resolve(answer), breaker, start, token);
    return answer;
  }

  /** Forgets every breaker and listener: the application shut down. */
  destroy(): void {
    this.breakers.clear();
  }

  /** Counts the outcome when the call settles, on a branch of its promise (the caller gets the promise as is). */
  private countWhenSettled(pending: Promise<Result>, breaker: CircuitBreaker, start: number, token: number): void {
    const clock = this.breakers.now;
    pending.then(
      (result) => {
        const end = clock();
        breaker.complete(end, end - start, outcomeOfResult(result, breaker.rule), token);
      },
      (error: unknown) => {
        const end = clock();
        breaker.complete(end, end - start, outcomeOfError(error, breaker.rule), token);
      },
    );
  }

  private ruleOf(url: URL, method: string): CircuitBreakerRule | undefined {
    let byMethod = this.rules.get(url);
    if (byMethod === undefined) this.rules.set(url, (byMethod = new Map()));
    let rule = byMethod.get(method);
    if (rule === undefined) {
      rule = circuitBreakerRuleOf(url, method) ?? null;
      // Method names come from callers: never let unknown ones grow the cache without bound.
      if (byMethod.size < MAX_CACHED_METHODS) byMethod.set(method, rule);
    }
    return rule ?? undefined;
  }

  private refused(breaker: CircuitBreaker, url: URL, invocation: Invocation, now: number): RpcError {
    const rule = breaker.rule;
    const target = `${rule.service}.${invocation.methodName}()`;
    const provider = url.getAddress();
    let why: string;
    switch (breaker.state) {
      case 'forced-open':
        why = `is forced open (circuitbreaker.force=open)`;
        break;
      case 'half-open':
        why = `is half-open with its ${rule.probes} probe${rule.probes === 1 ? '' : 's'} in flight (rule: ${describeRule(rule)})`;
        break;
      default: {
        const value = breaker.lastTripValue;
        const shown = rule.strategy === 'error-count' ? String(value) : String(Math.round(value * 1000) / 1000);
        why =
          `is open: ${rule.strategy ?? ''} reached ${shown} over ${breaker.lastTripTotal} calls (rule: ${describeRule(rule)}); ` +
          `a probe is admitted in ${Math.ceil(breaker.retryIn(now))} ms`;
      }
    }
    return new RpcError(
      RpcErrorCode.CIRCUIT_OPEN,
      `Call ${target} refused without reaching provider ${provider}: circuit breaker ${rule.resource} ${why}.`,
      { retryable: rule.address !== undefined },
    );
  }
}
