import { Filter, Logger, PendingResult, Result, RpcError, RpcErrorCode, type Invocation, type Invoker, type URL } from '@weft/core';
import { DeadlineWheel, Inject, safeLog, type WheelEntry } from '@weft/core/spi';

/**
 * The provider timeout when the URL sets none, in ms.
 *
 * @remarks Dubbo's default. Read by {@link TimeoutFilter} when neither `<method>.timeout` nor `timeout` is set on
 * the provider URL; `timeout=0` (or less) disables the provider timeout instead.
 * @example
 * ```ts
 * await app.export(Greeter, impl);                   // budget: DEFAULT_PROVIDER_TIMEOUT (1000 ms)
 * await app.export(Greeter, impl, { timeout: 0 });   // no provider budget (the consumer's deadline still counts)
 * ```
 */
export const DEFAULT_PROVIDER_TIMEOUT = 1000;

/** Resolution of the deadline checks, in ms: a call is aborted at most this late. */
const TICK_MS = 10;

/** What bounds a call: the provider's own `timeout`, or the deadline propagated from the consumer. */
type Bound = 'provider timeout' | 'consumer deadline';

/**
 * The provider's time budget for each call: aborts the implementation and fails the call when it runs out.
 *
 * @remarks
 * Extension `timeout` of `weft.rpc.Filter` (`@weft/filter-timeout`), activated in group `provider` for every
 * export (group only, as in Dubbo 3.x), order `-10000`: after `echo` (-110000), before the order-0 filters
 * (`exception`, `token`, `tps`, `executelimit`, …), so its budget covers their time as well as the
 * implementation's, and a call that arrives too late is refused before any of them runs.
 *
 * The budget of a call is the earlier of:
 * - the method's `timeout` on the provider URL (method-level `<method>.timeout` first, then `timeout`;
 *   default 1000 ms; `0` or less: no provider timeout), counted from the call's arrival: `invocation.startedAt`
 *   when the protocol recorded it (the in-process protocol passes the consumer's clock reading on), else the
 *   moment the call reaches this filter;
 * - the absolute `invocation.deadline` propagated from the consumer (its own timeout or per-call deadline).
 *
 * For a call with a budget the filter makes the invocation's signal abortable (`invocation.enableAbort()`: the
 * signal is created only if someone reads it, and follows any signal already there, such as the consumer's
 * cancellation) and sets `invocation.deadline` to the effective deadline, so the implementation can observe both — through
 * `RpcContext.current()?.signal` when the `context` filter is installed, or from the invocation in a custom
 * filter. When the budget runs out first, the filter
 * 1. aborts the signal with a `DOMException` named `TimeoutError`,
 * 2. logs a warning naming the service, the method and the elapsed milliseconds,
 * 3. rejects the call with `RpcError` `timeout` — the late result, if any, is dropped.
 * A call whose consumer deadline has already passed when it reaches the filter is rejected with `RpcError`
 * `timeout-terminate` (Dubbo's `TIMEOUT_TERMINATE`, 8) without calling the rest of the chain.
 *
 * A call with neither a provider timeout nor a consumer deadline passes straight through. A call the inner
 * chain completes synchronously (it answers with a `Result`: a synchronous implementation) could not be
 * interrupted, so its elapsed time is checked as it returns: in time, its `Result` is answered synchronously —
 * no promise, no wheel entry; at or past the deadline, the late answer is dropped exactly as above (signal
 * aborted, warning, `timeout` rejection). A synchronous throw is rethrown as is. Pending calls are checked
 * on one `DeadlineWheel` per filter instance (one per application) with a 10 ms tick: no timer per call (a
 * call that settles in time costs one entry added and removed), the wheel's single timer is unref'd, runs only
 * while calls are pending, and is released by `destroy()` (after which calls pass through unwatched). A timeout
 * fires at most one tick late.
 *
 * @example
 * ```ts
 * // Installing @weft/filter-timeout is all it takes; the budget comes from the export's timeout.
 * await app.export(Reports, {
 *   async build(id: string) {
 *     const signal = RpcContext.current()?.signal;   // with @weft/filter-context installed
 *     return renderReport(id, { signal });            // stops working once the caller's budget is gone
 *   },
 * }, { timeout: 2000, methods: { build: { timeout: 5000 } } });
 * ```
 */
export class TimeoutFilter extends Filter {
  private readonly wheel = new DeadlineWheel(TICK_MS);
  private readonly timeouts = new WeakMap<URL, Map<string, number>>();
  private destroyed = false;
  private lastUrl: URL | undefined = undefined;
  private lastMethod: string | undefined = undefined;
  private lastTimeout = 0;

  constructor(@Inject(Logger) private readonly logger: Logger) {
    super();
  }

  /** Calls in flight being watched (a call stops being watched when it settles or times out). */
  get watched(): number {
    return this.wheel.size;
  }

  /**
   * Runs the rest of the chain within the call's budget: rejects with `timeout` when it runs out, with
   * `timeout-terminate` when it ran out before the call arrived. A call the inner chain completed synchronously
   * is answered synchronously when it completed in time.
   */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const upstream = invocation.deadline;
    const url = invoker.getUrl();
    const timeout = this.timeoutOf(url, invocation.methodName);
    if ((timeout <= 0 && upstream === undefined) || this.destroyed) return invoker.invoke(invocation);

    // When the protocol recorded the call's arrival (in-process: the consumer's reading), no second clock read.
    const arrived = invocation.startedAt ?? Date.now();
    if (upstream !== undefined && upstream <= arrived) return Promise.reject(this.terminate(url, invocation, arrived - upstream));
    let deadline: number;
    let bound: Bound;
    if (upstream !== undefined && (timeout <= 0 || upstream < arrived + timeout)) {
      deadline = upstream;
      bound = 'consumer deadline';
    } else {
      deadline = arrived + timeout;
      bound = 'provider timeout';
    }

    // The signal is created lazily by the invocation — only if the implementation reads it — and follows the
    // caller's signal; `abort()` aborts it (or makes later reads see it aborted).
    invocation.enableAbort();
    invocation.deadline = deadline;

    // A synchronous throw stays synchronous (the chain reports it to every outer filter's onError): nothing to undo.
    const answer = invoker.invoke(invocation);
    if (answer instanceof Result) {
      // Completed synchronously: the wheel could not have fired meanwhile (the thread was busy), so the elapsed
      // time decides — in time: answered as is, no promise, no wheel entry; late: the same timeout as the wheel's.
      if (Date.now() < deadline) return answer;
      return Promise.reject(this.timedOut(url, invocation, arrived, deadline, bound));
    }
    return this.watch(answer, url, invocation, arrived, deadline, bound);
  }

  /**
   * Races a pending call against its deadline on the wheel: the first to come settles the caller's pending result.
   * The watched call is its own wheel slot: no closure, no promise.
   */
  private watch(pending: Promise<Result>, url: URL, invocation: Invocation, arrived: number, deadline: number, bound: Bound): Promise<Result> {
    const watched = new WatchedCall(this, this.wheel, url, invocation, arrived, deadline, bound);
    this.wheel.arm(watched);
    watched.resolve(pending);
    return watched;
  }

  /** @internal The budget of `watched` ran out (called by the wheel). */
  expired(url: URL, invocation: Invocation, arrived: number, deadline: number, bound: Bound): RpcError {
    return this.timedOut(url, invocation, arrived, deadline, bound);
  }

  /** The budget ran out: logs the warning, aborts the implementation's signal, and returns the `timeout` error. */
  private timedOut(url: URL, invocation: Invocation, arrived: number, deadline: number, bound: Bound): RpcError {
    const elapsed = Date.now() - arrived;
    const budget = deadline - arrived;
    const where = `${serviceOf(url)}.${invocation.methodName}()`;
    safeLog(
      this.logger,
      'warn',
      `invoke timed out: service ${serviceOf(url)}, method ${invocation.methodName}, elapsed ${elapsed} ms ` +
        `(budget ${budget} ms, ${bound}); the implementation's signal was aborted and the call failed with "timeout".`,
    );
    invocation.abort(new DOMException(`${where} exceeded its ${bound} of ${budget} ms.`, 'TimeoutError'));
    return new RpcError(RpcErrorCode.TIMEOUT, `Provider gave up on ${where} after ${elapsed} ms: it exceeded its ${bound} of ${budget} ms.`);
  }

  /** Stops the deadline wheel's timer; calls still in flight are no longer watched. */
  destroy(): void {
    this.destroyed = true;
    this.wheel.close();
  }

  private terminate(url: URL, invocation: Invocation, late: number): RpcError {
    const where = `${serviceOf(url)}.${invocation.methodName}()`;
    safeLog(
      this.logger,
      'warn',
      `invoke not started: service ${serviceOf(url)}, method ${invocation.methodName}: the consumer deadline passed ${late} ms before ` +
        'the call reached the timeout filter; failed with "timeout-terminate".',
    );
    return new RpcError(
      RpcErrorCode.TIMEOUT_TERMINATE,
      `No time left for ${where}: the consumer's deadline passed ${late} ms before the provider could start it; terminated directly.`,
    );
  }

  /** The provider timeout of a method in ms (cached per URL object: URLs are immutable). */
  private timeoutOf(url: URL, method: string): number {
    // One-entry inline cache in front of the maps: consecutive calls usually name the same provider and method.
    if (url === this.lastUrl && method === this.lastMethod) return this.lastTimeout;
    const timeout = this.loadTimeout(url, method);
    this.lastUrl = url;
    this.lastMethod = method;
    this.lastTimeout = timeout;
    return timeout;
  }

  private loadTimeout(url: URL, method: string): number {
    let perMethod = this.timeouts.get(url);
    if (perMethod === undefined) this.timeouts.set(url, (perMethod = new Map()));
    let timeout = perMethod.get(method);
    if (timeout === undefined) {
      try {
        timeout = url.getMethodParameter(method, 'timeout', DEFAULT_PROVIDER_TIMEOUT);
      } catch (error) {
        // Exports validate `timeout`; a URL built by hand may not have been. Fall back rather than fail every call.
        safeLog(this.logger, 'warn', `timeout filter: ignoring invalid timeout of ${serviceOf(url)}.${method}; using ${DEFAULT_PROVIDER_TIMEOUT} ms.`, error);
        timeout = DEFAULT_PROVIDER_TIMEOUT;
      }
      perMethod.set(method, timeout);
    }
    return timeout;
  }
}


function serviceOf(url: URL): string {
  return url.getServiceKey() ?? url.path;
}

/** A call the filter watches: the caller's pending result and, until it settles, its slot on the deadline wheel. */
class WatchedCall extends PendingResult<Result> implements WheelEntry {
  // Declared and assigned in the constructor: a field-definition pass per call would be megamorphic across the
  // pending result's subclasses.
  declare wheelBucket: object | undefined;
  declare wheelPrev: WheelEntry | undefined;
  declare wheelNext: WheelEntry | undefined;
  declare readonly deadline: number;
  private declare readonly filter: TimeoutFilter;
  private declare readonly wheel: DeadlineWheel;
  private declare readonly url: URL;
  private declare readonly invocation: Invocation;
  private declare readonly arrived: number;
  private declare readonly bound: Bound;

  constructor(filter: TimeoutFilter, wheel: DeadlineWheel, url: URL, invocation: Invocation, arrived: number, deadline: number, bound: Bound) {
    super();
    this.wheelBucket = undefined;
    this.wheelPrev = undefined;
    this.wheelNext = undefined;
    this.deadline = deadline;
    this.filter = filter;
    this.wheel = wheel;
    this.url = url;
    this.invocation = invocation;
    this.arrived = arrived;
    this.bound = bound;
  }

  expire(): void {
    this.reject(this.filter.expired(this.url, this.invocation, this.arrived, this.deadline, this.bound));
  }

  protected override onSettled(): void {
    if (this.wheelBucket !== undefined) this.wheel.remove(this);
  }
}
