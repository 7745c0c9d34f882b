import { ApplicationEvents, Filter, Result, RpcError, RpcErrorCode, RpcStatusRegistry, type Invocation, type Invoker, type URL } from '@weft/core';
import { Inject } from '@weft/core/spi';

/**
 * One admitted execution still pending: ends its count exactly once, whichever way its promise settles.
 *
 * @remarks The "counted" state lives here, one object per pass through the filter (a cluster retry of the same
 * invocation is a new pass): it is never inferred from the error a call fails with. A pass that ends
 * synchronously (a completed `Result` or a throw) needs no such object: it is counted out on the spot.
 */
class Execution {
  private counted = true;

  constructor(
    private readonly statuses: RpcStatusRegistry,
    private readonly url: URL,
    private readonly method: string,
    private readonly start: number,
  ) {}

  /** Counts the execution out; later calls do nothing. */
  end(succeeded: boolean): void {
    if (!this.counted) return;
    this.counted = false;
    this.statuses.endCount(this.url, this.method, performance.now() - this.start, succeeded);
  }
}

/**
 * Limits how many calls of each method a provider executes at once: the `executelimit` extension of
 * `weft.rpc.Filter`.
 *
 * @remarks
 * Extension `executelimit` of `weft.rpc.Filter`, application scope. Activated in group `provider` when the
 * provider URL sets `executes` (service or method level, other than `0`/`false`); order 0, so among filters of
 * equal order it sits by name (outside `tps`, `timeout`, `token`):
 * ```
 *  provider: exporter → [ … → executelimit → … ] → service implementation
 *                              ├─ beginCount(url, method, executes) false → reject limit-exceeded
 *                              └─ true → continue; endCount exactly once when the call ends
 * ```
 * Key: `executes` / `<method>.executes` — the most executions of the method in flight at once on this provider
 * (default 0 = unlimited), read from the invoker's URL on every call. Counting goes through the application's
 * `RpcStatusRegistry` (`@Inject(RpcStatusRegistry)`), so the status of the provider URL and method shows the
 * executions in flight; it is keyed by the provider URL and its service key (group and version included).
 *
 * The count is released **exactly once on every path**: a result (also one carrying a business error: counted
 * as succeeded, as Dubbo), a rejection (framework error, including a limit-exceeded error of an inner limiter
 * such as `tps` — Dubbo leaks the count there, §8.11), and a synchronous throw of an inner filter or the
 * invoker (rethrown as is). A call the inner chain completed synchronously (it answered with a `Result`) is
 * counted out at once and answered synchronously, with no promise. An execution whose consumer timed out or
 * aborted still runs here, so it is counted until the implementation returns. A refused call **rejects** with
 * `RpcError` `limit-exceeded` naming the service, method and limit; nothing is counted for it.
 *
 * @example
 * ```ts
 * // At most 8 concurrent executions of each method, and 1 of rebuildIndex:
 * await app.export(Search, impl, { parameters: { executes: 8 }, methods: { rebuildIndex: { executes: 1 } } });
 * ```
 */
export class ExecuteLimitFilter extends Filter {
  constructor(
    @Inject(RpcStatusRegistry) private readonly statuses: RpcStatusRegistry,
    @Inject(ApplicationEvents) private readonly events: ApplicationEvents,
  ) {
    super();
  }

  /**
   * Counts the call in (or rejects with `limit-exceeded` when the method is full), continues, counts it out once.
   * A call the inner chain completed synchronously is counted out at once and answered synchronously.
   */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const url = invoker.getUrl();
    const method = invocation.methodName;
    const max = url.getMethodParameter(method, 'executes', 0);
    if (!this.statuses.beginCount(url, method, max)) return Promise.reject(this.refused(url, method, max));
    const start = performance.now();
    let answer: Result | Promise<Result>;
    try {
      answer = invoker.invoke(invocation);
    } catch (error) {
      this.statuses.endCount(url, method, performance.now() - start, false);
      throw error;
    }
    // Completed (a value or a business error, counted as succeeded): counted out now, no promise, no closure.
    if (answer instanceof Result) {
      this.statuses.endCount(url, method, performance.now() - start, true);
      return answer;
    }
    // A sloppy inner invoker answering with a foreign thenable is still awaited.
    return this.countOut(answer instanceof Promise ? answer : Promise.resolve(answer), new Execution(this.statuses, url, method, start));
  }

  /** Counts a pending call out once it settles (closures only here: in `invoke` they would cost a context per call). */
  private countOut(pending: Promise<Result>, execution: Execution): Promise<Result> {
    return pending.then(
      (result) => {
        execution.end(true);
        return result;
      },
      (error: unknown) => {
        execution.end(false);
        throw error;
      },
    );
  }

  private refused(url: URL, method: string, max: number): RpcError {
    if (this.events.listening('limit.refused')) this.events.emit({ type: 'limit.refused', limiter: 'executelimit', service: url.path, method, url });
    return this.exceeded(url, method, max);
  }

  private exceeded(url: URL, method: string, max: number): RpcError {
    const active = this.statuses.getMethodStatus(url, method).active;
    return new RpcError(
      RpcErrorCode.LIMIT_EXCEEDED,
      `Failed to invoke method ${method} of service ${url.getServiceKey() ?? url.path} on provider ${url.getAddress()}: ` +
        `executes limit reached, at most ${max} concurrent execution${max === 1 ? '' : 's'} of ${method} (${active} in flight). ` +
        `Raise executes (or ${method}.executes) or add providers.`,
    );
  }
}
