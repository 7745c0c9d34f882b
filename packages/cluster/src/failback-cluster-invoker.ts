import {
  Result,
  RpcError,
  type Directory,
  type ExtensionLoader,
  type Invocation,
  type Invoker,
  type LoadBalance,
  type Logger,
  type RandomSource,
  type RpcStatusRegistry,
  whenSettled,
} from '@weft/core';

import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';
import { ClusterDefaults, ClusterKeys } from './cluster-keys.js';
import { RetryPolicy } from './retry-policy.js';

/** One queued background retry. */
interface RetryTask {
  readonly invocation: Invocation;
  readonly loadBalance: LoadBalance;
  readonly retries: number;
  lastInvoker: Invoker | undefined;
  retried: number;
  timer: ReturnType<typeof setTimeout> | undefined;
  cancelled: boolean;
}

/**
 * The `failback` strategy's invoker: a failed call resolves empty at once and is retried in the background.
 *
 * @remarks
 * Selects one provider and calls it. On failure (rejection or synchronous throw, other than a business
 * `RpcError`, which is rethrown and never retried) it logs `Failback to invoke method <m>, wait for retry in
 * background. Ignored exception: <message>`, resolves with an empty result (`Result.of(undefined)`), and — when
 * `retries` (service level, default 3, negative → 3, clamped to `retries.max`) is > 0 — queues a background retry.
 * A method declared `idempotent: false` is queued only after a failure known to happen before sending; otherwise
 * the call rejects (a later retry could run it twice).
 *
 * The queue: a retry runs every `failback.interval` ms (default 5000 — Dubbo's fixed 5 s, made configurable),
 * lists the providers again and selects avoiding the provider that failed last. At most `failbacktasks`
 * (default 100, ≤ 0 → 100) retries are pending per invoker; when the queue is full the **oldest** pending task
 * is dropped with an error log, so memory stays bounded. A retry that resolves ends the task; after `retries`
 * failed retries (or a business error) the task is abandoned with an error log. Unlike Dubbo, a retry's
 * asynchronous failure is seen and counted (Dubbo flaw §8.20). Timers are `unref()`ed, so pending retries never
 * keep the process alive; `destroy()` of this invoker, and of the `failback` extension instance (when its
 * application is destroyed), cancel them.
 *
 * @example
 * ```ts
 * const url = consumerUrl.addParameters({ cluster: 'failback', retries: 5, 'failback.interval': 2000 });
 * const invoker = app.getExtensionLoader(Cluster).getAdaptiveExtension().join(new StaticDirectory(Notifier, url, providers));
 * ```
 */
export class FailbackClusterInvoker extends AbstractClusterInvoker {
  /** Pending tasks, oldest first. */
  private readonly tasks: RetryTask[] = [];

  constructor(
    directory: Directory,
    loadBalances: ExtensionLoader<LoadBalance>,
    logger: Logger,
    statuses: RpcStatusRegistry,
    random?: RandomSource,
    /** Invokers with pending retries, owned by the `failback` extension so that its `destroy()` can cancel them. */
    private readonly pendingOwners: Set<FailbackClusterInvoker> = new Set()
  ) {
    super(directory, loadBalances, logger, statuses, random);
  }

  /** How many background retries are queued or running. */
  get pendingRetries(): number {
    return this.tasks.length;
  }

  /** Cancels every pending background retry. */
  cancelRetries(): void {
    for (const task of this.tasks) {
      task.cancelled = true;
      if (task.timer !== undefined) clearTimeout(task.timer);
      task.timer = undefined;
    }
    this.tasks.length = 0;
    this.pendingOwners.delete(this);
  }

  /** Cancels pending retries, then destroys the directory. */
  override destroy(): Promise<void> {
    this.cancelRetries();
    return super.destroy();
  }

  protected doInvoke(invocation: Invocation, invokers: readonly Invoker[], loadBalance: LoadBalance): Result | Promise<Result> {
    let invoker: Invoker | undefined;
    try {
      invoker = this.select(loadBalance, invocation, invokers, undefined);
      const answer = this.invokeProvider(invoker, invocation, this.countsRpcStatus(loadBalance));
      if (answer instanceof Result) return answer;
      return this.failBackOn(answer, invocation, loadBalance, invoker);
    } catch (error) {
      try {
        return this.onFailure(invocation, loadBalance, invoker, error);
      } catch (biz) {
        return Promise.reject(biz);
      }
    }
  }

  private failBackOn(pending: Promise<Result>, invocation: Invocation, loadBalance: LoadBalance, invoker: Invoker): Promise<Result> {
    return pending.then(undefined, (error: unknown) => this.onFailure(invocation, loadBalance, invoker, error));
  }

  private onFailure(invocation: Invocation, loadBalance: LoadBalance, invoker: Invoker | undefined, error: unknown): Result {
    const rpcError = RpcError.from(error);
    if (rpcError.isBiz || !rpcError.retryable) throw rpcError;
    if (!this.policy().mayRetry(rpcError, RetryPolicy.isIdempotent(invocation))) {
      // A non-idempotent call that may have run: retrying it later could run it twice, so the caller is told.
      throw new RpcError(
        rpcError.code,
        `Failback did not queue a retry of ${invocation.getMethodName()}() in the service ${this.serviceName()}: it is declared ` +
          `idempotent: false and the request may have reached the provider. Last error is: ${rpcError.message}`,
        { cause: rpcError, grpcStatus: rpcError.grpcStatus, details: rpcError.details }
      );
    }
    this.log(
      'error',
      `Failback to invoke method ${invocation.getMethodName()}, wait for retry in background. Ignored exception: ${
        rpcError.message
      }`,
      rpcError
    );
    this.addFailed(invocation, loadBalance, invoker);
    return Result.of(undefined);
  }

  private retryPolicy: RetryPolicy | undefined;

  private policy(): RetryPolicy {
    return (this.retryPolicy ??= new RetryPolicy(this.logger));
  }

  private addFailed(invocation: Invocation, loadBalance: LoadBalance, lastInvoker: Invoker | undefined): void {
    const url = this.getUrl();
    const configured = url.getParameter(ClusterKeys.RETRIES, ClusterDefaults.FAILBACK_RETRIES);
    // Dubbo: a negative value means the default; then the ceiling applies as for failover.
    const retries = this.policy().limit(configured < 0 ? ClusterDefaults.FAILBACK_RETRIES : configured, url, `the key "${ClusterKeys.RETRIES}"`);
    if (retries <= 0 || this.isDestroyed()) return;
    let max = url.getParameter(ClusterKeys.FAILBACK_TASKS, ClusterDefaults.FAILBACK_TASKS);
    if (max <= 0) max = ClusterDefaults.FAILBACK_TASKS;
    while (this.tasks.length >= max) {
      const oldest = this.tasks.shift() as RetryTask;
      oldest.cancelled = true;
      if (oldest.timer !== undefined) clearTimeout(oldest.timer);
      this.log(
        'error',
        `Failback retry queue of ${this.serviceName()} is full (${max} pending, key ${ClusterKeys.FAILBACK_TASKS}): ` +
          `dropped the oldest retry, of method ${oldest.invocation.getMethodName()} (${oldest.retried} of ${
            oldest.retries
          } retries done).`
      );
    }
    const task: RetryTask = { invocation, loadBalance, retries, lastInvoker, retried: 0, timer: undefined, cancelled: false };
    this.tasks.push(task);
    this.pendingOwners.add(this);
    this.schedule(task);
  }

  private schedule(task: RetryTask): void {
    let interval = this.getUrl().getParameter(ClusterKeys.FAILBACK_INTERVAL, ClusterDefaults.FAILBACK_INTERVAL);
    if (!(interval > 0)) interval = ClusterDefaults.FAILBACK_INTERVAL;
    const timer = setTimeout(() => this.retry(task), interval);
    timer.unref?.();
    task.timer = timer;
  }

  private retry(task: RetryTask): void {
    task.timer = undefined;
    if (task.cancelled) return;
    const method = task.invocation.getMethodName();
    this.log(
      'info',
      `Attempt to retry to invoke method ${method}. The total will retry ${task.retries} times, the current is the ${
        task.retried + 1
      } retry`
    );
    let pending: Result | Promise<Result>;
    try {
      this.checkWhetherDestroyed();
      const invokers = this.list(task.invocation);
      this.checkInvokers(invokers, task.invocation);
      const last = task.lastInvoker;
      const invoker = this.select(task.loadBalance, task.invocation, invokers, last === undefined ? undefined : [last]);
      task.lastInvoker = invoker;
      pending = this.invokeProvider(invoker, task.invocation, this.countsRpcStatus(task.loadBalance));
    } catch (error) {
      pending = Promise.reject(error);
    }
    void whenSettled(
      pending,
      () => {
        if (task.cancelled) return;
        this.remove(task);
        this.log('info', `Failback retry ${task.retried + 1} of method ${method} succeeded.`);
      },
      (error: unknown) => this.retryFailed(task, RpcError.from(error))
    );
  }

  private retryFailed(task: RetryTask, error: RpcError): void {
    if (task.cancelled) return;
    task.retried++;
    const method = task.invocation.getMethodName();
    if (!this.policy().mayRetry(error, RetryPolicy.isIdempotent(task.invocation)) || task.retried >= task.retries) {
      this.remove(task);
      this.log(
        'error',
        `Failed retry times exceed threshold (${task.retries}), We have to abandon, invocation->method ${method} of ` +
          `${this.serviceName()} after ${task.retried} retries. Last error is: ${error.message}`,
        error
      );
      return;
    }
    this.log('error', `Failed retry to invoke method ${method}, waiting again. Last error is: ${error.message}`, error);
    if (this.isDestroyed()) {
      this.remove(task);
      return;
    }
    this.schedule(task);
  }

  private remove(task: RetryTask): void {
    const index = this.tasks.indexOf(task);
    if (index >= 0) this.tasks.splice(index, 1);
    if (this.tasks.length === 0) this.pendingOwners.delete(this);
  }
}
