import { ApplicationEvents, ApplicationModel, Filter, Logger, PendingResult, Result, RpcError, RpcErrorCode, type Invocation, type Invoker, type URL } from '@weft/core';
import { Inject } from '@weft/core/spi';

import { CircuitBreaker, Outcome, REJECT } from './circuit-breaker.js';
import { CircuitBreakerRegistry } from './circuit-breaker-registry.js';
import { circuitBreakerRuleOf, describeRule, type CircuitBreakerRule } from './circuit-breaker-rule.js';

/** Rules cached per URL: more distinct method names than this are read from the URL on every call. */
const MAX_CACHED_METHODS = 256;

/**
 * What a (URL, method) resolves to, cached: the rule, its breaker, and the completion handlers of calls that
 * need no per-call state (created once per breaker, so an asynchronous call adds no closure).
 */
class Slot {
  /** `slow-ratio`: each call needs its start time (so a closure on the asynchronous path). */
  readonly timed: boolean;
  breaker!: CircuitBreaker;
  onResult!: (result: Result) => void;
  onError!: (error: unknown) => void;

  constructor(
    readonly rule: CircuitBreakerRule,
    private readonly registry: CircuitBreakerRegistry,
  ) {
    this.timed = rule.strategy === 'slow-ratio';
    this.attach();
  }

  /** The slot's breaker, fetched again from the registry when it was replaced. */
  current(): CircuitBreaker {
    if (this.breaker.retired) this.attach();
    return this.breaker;
  }

  private attach(): void {
    const breaker = this.registry.breakerFor(this.rule);
    const clock = this.registry.now;
    const rule = this.rule;
    this.breaker = breaker;
    // The common case — a closed breaker, a plain success — takes the short path: no outcome mapping, no branches.
    this.onResult = (result) =>
      result.hasException() ? breaker.complete(clock(), 0, outcomeOfResult(result, rule), 0) : breaker.succeeded(clock());
    this.onError = (error) => breaker.complete(clock(), 0, outcomeOfError(error, rule), 0);
  }
}

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
 * nothing for a call that completes synchronously, nor for one answering with Weft's `PendingResult` (a
 * completion listener counts it), and one `then` branch for a foreign promise; the answer is returned as is. See the package README for the keys, the state machine and the events.
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
  private readonly slots = new WeakMap<URL, Map<string, Slot | null>>();
  /** The chains this filter is in (their invokers), so that breakers no chain's rule names can be released. */
  private readonly chains = new Set<Invoker>();
  private releaseQueued = false;
  private lastUrl: URL | undefined;
  private lastMethod: string | undefined;
  private lastSlot: Slot | undefined;

  constructor(
    @Inject(Logger) logger: Logger,
    @Inject(ApplicationEvents) events: ApplicationEvents,
    @Inject(ApplicationModel) private readonly app: ApplicationModel,
  ) {
    super();
    this.breakers = new CircuitBreakerRegistry(logger, events);
  }

  /** Admits the call (counting its outcome) or rejects it with `circuit-open`. */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const url = invoker.getUrl();
    const slot = this.slotOf(url, invocation.methodName);
    if (slot === undefined) return invoker.invoke(invocation);
    const breaker = slot.current();
    const state = breaker.state;
    if (state === 'forced-closed') return invoker.invoke(invocation);
    const clock = this.breakers.now;
    // A closed breaker needs the time only to measure the call (slow-ratio): others read the clock once, at the end.
    let start = 0;
    let token = 0;
    if (state !== 'closed' || slot.timed) {
      start = clock();
      token = breaker.tryPass(start);
      if (token === REJECT) return Promise.reject(this.refused(breaker, url, invocation, start));
    }
    const rule = slot.rule;
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
      if (token === 0 && !slot.timed && !answer.hasException()) breaker.succeeded(end);
      else breaker.complete(end, end - start, outcomeOfResult(answer, rule), token);
      return answer;
    }
    if (answer instanceof PendingResult) {
      // Weft's own pending answer: the outcome is counted by a completion listener — no branch promise, and for
      // the common case (closed, not timed) no closure either.
      if (token === 0 && !slot.timed) answer.whenComplete(slot.onResult, slot.onError);
      else this.countWhenComplete(answer, breaker, start, token);
      return answer;
    }
    const pending = answer instanceof Promise ? answer : Promise.resolve(answer);
    // A native promise (a foreign invoker): counted on a branch of it; the caller gets the promise as is.
    if (token === 0 && !slot.timed) pending.then(slot.onResult, slot.onError);
    else this.countWhenSettled(pending, breaker, start, token);
    return answer;
  }

  /** Counts a timed call or a probe when its pending result completes (closures only here, off the common path). */
  private countWhenComplete(pending: PendingResult<Result>, breaker: CircuitBreaker, start: number, token: number): void {
    const clock = this.breakers.now;
    pending.whenComplete(
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

  /** Forgets every breaker and listener: the application shut down. */
  destroy(): void {
    this.lastUrl = this.lastSlot = undefined;
    this.chains.clear();
    this.breakers.clear();
  }

  /** A provider's chain holds this filter: its rules keep their breakers. */
  override onChainBuilt(invoker: Invoker): void {
    this.chains.add(invoker);
  }

  /**
   * A provider's chain is gone (the provider left, or an override re-referred it — possibly without this filter,
   * when the override removed every breaker key): once the chains released together are gone, the breakers no
   * remaining chain's rule names are removed — with a change to `closed` (reason `rule-removed`) for one that was
   * not closed; silently while the application shuts down.
   */
  override onChainReleased(invoker: Invoker): void {
    this.chains.delete(invoker);
    if (this.releaseQueued) return;
    this.releaseQueued = true;
    // A directory releases the chains it replaced in one go, after building their replacements: one pass for all.
    queueMicrotask(() => {
      this.releaseQueued = false;
      this.releaseUnused();
    });
  }

  private releaseUnused(): void {
    if (this.breakers.size === 0) return;
    const live = new Set<string>();
    for (const invoker of this.chains) {
      const url = invoker.getUrl();
      // The service's methods: from its definition, else from the provider URL's `methods` key.
      const methods = new Set(invoker.getService()?.methodNames ?? (url.getParameter('methods') ?? '').split(','));
      for (const slot of this.slots.get(url)?.values() ?? []) if (slot !== null) live.add(slot.rule.resource);
      for (const method of methods) {
        const rule = circuitBreakerRuleOf(url, method);
        if (rule !== undefined) live.add(rule.resource);
      }
    }
    this.lastUrl = this.lastSlot = undefined;
    this.breakers.retain(live, !this.app.shuttingDown);
  }

  /** Counts a timed call or a probe when it settles (closures only here, off the common path). */
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

  private slotOf(url: URL, method: string): Slot | undefined {
    // The last (URL, method) seen: a reference calling one method in a loop skips both map lookups.
    if (url === this.lastUrl && method === this.lastMethod) return this.lastSlot;
    const slot = this.lookUp(url, method);
    this.lastUrl = url;
    this.lastMethod = method;
    this.lastSlot = slot;
    return slot;
  }

  private lookUp(url: URL, method: string): Slot | undefined {
    let byMethod = this.slots.get(url);
    if (byMethod === undefined) this.slots.set(url, (byMethod = new Map()));
    let slot = byMethod.get(method);
    if (slot === undefined) {
      const rule = circuitBreakerRuleOf(url, method);
      slot = rule === undefined ? null : new Slot(rule, this.breakers);
      // Method names come from callers: never let unknown ones grow the cache without bound.
      if (byMethod.size < MAX_CACHED_METHODS) byMethod.set(method, slot);
    }
    return slot ?? undefined;
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
      { retryable: rule.address !== undefined, unsent: true },
    );
  }
}
