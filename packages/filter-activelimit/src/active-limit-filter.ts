import {
  DEFAULT_TIMEOUT,
  Filter,
  Result,
  RpcError,
  RpcErrorCode,
  RpcStatusRegistry,
  type Invocation,
  type Invoker,
  type URL,
} from '@weft/core';
import { Inject } from '@weft/core/spi';

/** A call waiting for a free slot of one provider method: a node of its queue. */
interface Waiter {
  readonly url: URL;
  readonly max: number;
  readonly queue: WaitQueue;
  /** Its budget in ms, and whether it comes from the invocation's deadline (else the `timeout` key). */
  readonly budget: number;
  readonly byDeadline: boolean;
  readonly since: number;
  readonly signal: AbortSignal | undefined;
  /** The slot was counted in for it: go on with the call. */
  readonly admit: () => void;
  readonly reject: (error: RpcError) => void;
  prev: Waiter | undefined;
  next: Waiter | undefined;
  queued: boolean;
  timer: ReturnType<typeof setTimeout> | undefined;
  onAbort: (() => void) | undefined;
}

/** The FIFO queue of the calls waiting for one provider method (a doubly linked list: O(1) removal). */
class WaitQueue {
  head: Waiter | undefined;
  tail: Waiter | undefined;
  size = 0;

  constructor(
    readonly key: string,
    readonly method: string,
  ) {}

  push(waiter: Waiter): void {
    waiter.prev = this.tail;
    if (this.tail === undefined) this.head = waiter;
    else this.tail.next = waiter;
    this.tail = waiter;
    waiter.queued = true;
    this.size++;
  }

  remove(waiter: Waiter): void {
    if (waiter.prev === undefined) this.head = waiter.next;
    else waiter.prev.next = waiter.next;
    if (waiter.next === undefined) this.tail = waiter.prev;
    else waiter.next.prev = waiter.prev;
    waiter.prev = waiter.next = undefined;
    waiter.queued = false;
    this.size--;
  }
}

/** The longest delay `setTimeout` honours (longer ones fire at once); a longer wait ends there. */
const MAX_TIMER = 2 ** 31 - 1;

/** The key of a provider method's queue: the provider's `RpcStatusRegistry` key, then the method. */
function queueKey(url: URL, method: string): string {
  return `${RpcStatusRegistry.keyOf(url)}#${method}`;
}

/**
 * Limits how many calls of each provider method a consumer has in flight, waiting fairly for a free slot: the
 * `active-limit` extension of `weft.rpc.Filter`.
 *
 * @remarks
 * Extension `active-limit` of `weft.rpc.Filter`, application scope (its wait queues belong to the instance, so
 * to the application). Activated in group `consumer` when the reference sets `actives` (service or method level,
 * other than `0`/`false`); order 0. It runs in the consumer chain of each provider, around the protocol invoker
 * (which enforces the call's timeout and abort signal):
 * ```
 *  consumer: proxy → cluster → [ … → active-limit → … ] → protocol invoker ══ network ══> provider
 *                                     ├─ slot free (and nobody waiting) → count in, call
 *                                     ├─ full → wait in the FIFO queue of (provider, method): woken one at a time
 *                                     │         as calls end; timeout → reject `timeout`; abort → reject `cancelled`
 *                                     └─ every call counted in is counted out exactly once when it ends
 * ```
 * Keys, read from the provider invoker's URL on every call: `actives` / `<method>.actives` — calls of the method
 * in flight at once to this provider (default 0 = unlimited: such methods pass through uncounted);
 * `timeout` / `<method>.timeout` — how long a call may wait for a slot (default 1000 ms, as the protocol
 * invoker). The wait is bounded exactly as the protocol invoker bounds the attempt: by the per-call timeout
 * (`$call(…, { timeout })`) when there is one, else the `timeout` key, and by the deadline the invocation
 * arrived with (propagated from upstream) when that comes sooner. **A timeout of 0 without a deadline means
 * "do not wait"**: a call that finds the method full is refused at once — never Dubbo's indefinite wait (§8.10).
 * The wait does not shorten the call itself: once admitted it gets its own timeout, as in Dubbo. A cluster
 * retry of the invocation is bounded by the deadline it first arrived with, not by the one the protocol invoker
 * wrote for the failed attempt.
 *
 * Counting goes through the application's `RpcStatusRegistry` (`beginCount(url, method, actives)` on the
 * provider URL), so `getMethodStatus(providerUrl, method).active` shows the calls in flight. When a call ends
 * its slot goes straight to the first waiter (counted in on its behalf before anyone else can take it), so
 * waiters are served in arrival order and a newcomer never overtakes them. A waiter that times out or is
 * aborted leaves the queue and never holds a slot; an empty queue is removed. A waiter whose time is up gets
 * a last chance at a slot freed by another component before it is refused (Dubbo checks the deadline before
 * retrying, so a waiter woken at the deadline fails even when a slot is free).
 *
 * Errors: the wait timed out (or the deadline had passed) → `RpcError` `timeout`, because the caller's time ran
 * out — the message names the wait, the limit and the calls in flight and waiting; full with timeout 0 →
 * `RpcError` `limit-exceeded` (nothing waited, the limit refused the call); aborted while waiting → `cancelled`; application shut down while
 * waiting → `no-invoker`. The count is released exactly once on every path — result, business error,
 * rejection (including an inner limiter's limit-exceeded error, which Dubbo mistakes for its own, §8.11),
 * synchronous throw, timeout and abort: each pass through the filter counts out once, where its call ends,
 * never inferring from the error whether it was counted. A call admitted at once whose inner chain completes
 * synchronously (answers with a `Result`) is counted out before the filter answers, and the filter answers with
 * that `Result` synchronously; a call that waited for its slot answers with a promise.
 *
 * @example
 * ```ts
 * // At most 4 calls of each method in flight to each provider; wait up to 200 ms for a slot.
 * const greeter = await app.refer(Greeter, { timeout: 200, parameters: { actives: 4 } });
 * await greeter.$call('sayHello', ['ann'], { timeout: 50 }); // waits at most 50 ms for a slot, then 50 ms for the answer
 * ```
 */
export class ActiveLimitFilter extends Filter {
  private readonly queues = new Map<string, WaitQueue>();
  /** The deadline an invocation arrived with (NaN: none), noted when one of its attempts failed: for retries. */
  private readonly upstream = new WeakMap<Invocation, number>();
  private waiterCount = 0;

  constructor(@Inject(RpcStatusRegistry) private readonly statuses: RpcStatusRegistry) {
    super();
  }

  /** Calls waiting for a slot now, over all providers and methods (for monitoring and tests). */
  get waiting(): number {
    return this.waiterCount;
  }

  /** Provider methods with calls waiting now: one queue each, removed when it empties. */
  get queueCount(): number {
    return this.queues.size;
  }

  /**
   * Counts the call in and continues, or waits in line for a free slot; counts it out exactly once. A call
   * admitted at once whose inner chain completes synchronously is answered synchronously (no promise); a call
   * that has to wait answers with a promise.
   */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const url = invoker.getUrl();
    const method = invocation.methodName;
    const max = url.getMethodParameter(method, 'actives', 0);
    if (!(max > 0)) return invoker.invoke(invocation);
    if ((this.queues.size === 0 || !this.queues.has(queueKey(url, method))) && this.statuses.beginCount(url, method, max)) {
      return this.run(invoker, invocation, url, method, invocation.deadline);
    }
    return this.wait(invoker, invocation, url, method, max);
  }

  /** Rejects every waiting call (`no-invoker`): the application is shutting down. */
  destroy(): void {
    for (const queue of [...this.queues.values()]) {
      while (queue.head !== undefined) {
        const waiter = queue.head;
        this.detach(waiter);
        waiter.reject(
          new RpcError(
            RpcErrorCode.NO_INVOKER,
            `The application shut down while a call of ${describe(waiter.url, queue.method)} waited for a free slot (actives=${waiter.max}).`,
          ),
        );
      }
    }
  }

  /**
   * Calls with a slot counted in; counts it out exactly once, then hands it to the first waiter. `arrived` is the
   * deadline the invocation came with: remembered when the attempt fails, for a retry to wait by. A completed
   * `Result` (or a synchronous throw) is counted out on the spot, with no promise and no closure.
   */
  private run(invoker: Invoker, invocation: Invocation, url: URL, method: string, arrived: number | undefined): Result | Promise<Result> {
    const start = performance.now();
    let answer: Result | Promise<Result>;
    try {
      answer = invoker.invoke(invocation);
    } catch (error) {
      this.end(invocation, url, method, arrived, start, false);
      throw error;
    }
    if (answer instanceof Result) {
      this.end(invocation, url, method, arrived, start, true);
      return answer;
    }
    // A foreign thenable is still awaited.
    return this.endWhenSettled(answer instanceof Promise ? answer : Promise.resolve(answer), invocation, url, method, arrived, start);
  }

  /** Pending: exactly one of the two reactions runs (closures only here, off the synchronous path). */
  private endWhenSettled(
    pending: Promise<Result>,
    invocation: Invocation,
    url: URL,
    method: string,
    arrived: number | undefined,
    start: number,
  ): Promise<Result> {
    return pending.then(
      (result) => {
        this.end(invocation, url, method, arrived, start, true);
        return result;
      },
      (error: unknown) => {
        this.end(invocation, url, method, arrived, start, false);
        throw error;
      },
    );
  }

  /** Counts a call out (called exactly once per pass through `run`), then serves the method's waiters. */
  private end(invocation: Invocation, url: URL, method: string, arrived: number | undefined, start: number, succeeded: boolean): void {
    // Only a failed attempt is retried, and the protocol invoker may have written its own deadline on the
    // invocation meanwhile: keep the one it arrived with (the first time only).
    if (!succeeded && !this.upstream.has(invocation)) this.upstream.set(invocation, arrived ?? Number.NaN);
    this.statuses.endCount(url, method, performance.now() - start, succeeded);
    if (this.queues.size > 0) {
      const queue = this.queues.get(queueKey(url, method));
      if (queue !== undefined) this.drain(queue);
    }
  }

  private wait(invoker: Invoker, invocation: Invocation, url: URL, method: string, max: number): Promise<Result> {
    const upstream = this.upstreamDeadline(invocation);
    // The budget of the attempt, as the protocol invoker computes it: the per-call timeout, else the method's
    // `timeout` key (0: none), shortened by the deadline the invocation arrived with.
    const timeout = invocation.timeout ?? url.getMethodParameter(method, 'timeout', DEFAULT_TIMEOUT);
    let budget = timeout;
    let byDeadline = false;
    if (upstream !== undefined) {
      const remaining = upstream - Date.now();
      if (timeout <= 0 || remaining < timeout) {
        budget = remaining;
        byDeadline = true;
      }
    }
    if (budget <= 0) {
      return Promise.reject(
        byDeadline
          ? new RpcError(
              RpcErrorCode.TIMEOUT,
              `No time left to wait for a free slot of ${describe(url, method)}: the call's deadline has passed ` +
                `(actives=${max}, ${this.statuses.getMethodStatus(url, method).active} call(s) in flight).`,
            )
          : new RpcError(
              RpcErrorCode.LIMIT_EXCEEDED,
              `Failed to invoke ${describe(url, method)}: actives limit reached, at most ${max} concurrent call${max === 1 ? '' : 's'} ` +
                `(${this.statuses.getMethodStatus(url, method).active} in flight), and timeout ${budget} allows no wait. ` +
                `Raise actives (or ${method}.actives), or set a timeout to wait for a free slot.`,
              // Refused before anything was sent: a cluster may try another provider, even for idempotent: false.
              { unsent: true },
            ),
      );
    }
    const signal = invocation.signal;
    if (signal?.aborted) return Promise.reject(this.cancelled(url, method, max, signal));
    const key = queueKey(url, method);
    let queue = this.queues.get(key);
    if (queue === undefined) this.queues.set(key, (queue = new WaitQueue(key, method)));
    const waitingIn = queue;
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        url,
        max,
        queue: waitingIn,
        budget,
        byDeadline,
        since: performance.now(),
        signal,
        admit: resolve,
        reject,
        prev: undefined,
        next: undefined,
        queued: false,
        timer: undefined,
        onAbort: undefined,
      };
      waitingIn.push(waiter);
      this.waiterCount++;
      waiter.timer = setTimeout(() => this.expire(waiter), Math.min(budget, MAX_TIMER));
      if (signal !== undefined) {
        waiter.onAbort = () => {
          if (!waiter.queued) return;
          this.detach(waiter);
          reject(this.cancelled(url, method, max, signal));
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      // A slot freed by someone else than this filter (nothing woke the queue): serve the line, in order, now.
      this.drain(waitingIn);
    }).then(() => this.run(invoker, invocation, url, method, upstream));
  }

  /** Counts slots in for the first waiters while the method has room, and lets them go on, in order. */
  private drain(queue: WaitQueue): void {
    for (let waiter = queue.head; waiter !== undefined; waiter = queue.head) {
      if (!this.statuses.beginCount(waiter.url, queue.method, waiter.max)) return;
      this.detach(waiter);
      waiter.admit();
    }
  }

  /** A waiter's time is up: one last chance for a slot (in queue order), else it is refused with `timeout`. */
  private expire(waiter: Waiter): void {
    waiter.timer = undefined;
    if (!waiter.queued) return;
    this.drain(waiter.queue);
    if (!waiter.queued) return;
    this.detach(waiter);
    const method = waiter.queue.method;
    const waited = Math.round(performance.now() - waiter.since);
    waiter.reject(
      new RpcError(
        RpcErrorCode.TIMEOUT,
        `Waiting for a free slot of ${describe(waiter.url, method)} timed out on the consumer side after ${waited} ms ` +
          `(${waiter.byDeadline ? `the call's deadline, ${Math.round(waiter.budget)} ms away` : `timeout ${waiter.budget} ms`}): ` +
          `actives limit ${waiter.max}, ${this.statuses.getMethodStatus(waiter.url, method).active} call(s) in flight, ` +
          `${waiter.queue.size} still waiting.`,
        { unsent: true },
      ),
    );
  }

  /** Takes a waiter out of its queue (dropping the queue when it empties), its timer and its abort listener. */
  private detach(waiter: Waiter): void {
    const queue = waiter.queue;
    queue.remove(waiter);
    this.waiterCount--;
    if (queue.size === 0 && this.queues.get(queue.key) === queue) this.queues.delete(queue.key);
    if (waiter.timer !== undefined) {
      clearTimeout(waiter.timer);
      waiter.timer = undefined;
    }
    if (waiter.onAbort !== undefined) {
      waiter.signal?.removeEventListener('abort', waiter.onAbort);
      waiter.onAbort = undefined;
    }
  }

  private cancelled(url: URL, method: string, max: number, signal: AbortSignal): RpcError {
    return new RpcError(
      RpcErrorCode.CANCELLED,
      `Call ${describe(url, method)} was cancelled by its caller while waiting for a free slot (actives=${max}).`,
      { cause: signal.reason },
    );
  }

  /**
   * The deadline the invocation arrived with: the current one, unless an earlier attempt failed (a retry), whose
   * protocol invoker may have replaced it with that attempt's own deadline.
   */
  private upstreamDeadline(invocation: Invocation): number | undefined {
    const seen = this.upstream.get(invocation);
    if (seen === undefined) return invocation.deadline;
    return Number.isNaN(seen) ? undefined : seen;
  }
}

function describe(url: URL, method: string): string {
  return `${url.getServiceKey() ?? url.path}.${method}() on provider ${url.getAddress()}`;
}
