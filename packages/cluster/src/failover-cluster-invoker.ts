import { Result, RpcError, type Invocation, type Invoker, type LoadBalance, type URL } from '@weft/core';

import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';
import { ClusterDefaults, ClusterKeys } from './cluster-keys.js';
import { RetryPolicy } from './retry-policy.js';

/** Why a failover call stopped before its attempts were used up. */
type Stop = 'deadline' | 'non-idempotent';

/** The state of one failover call, allocated only once an attempt has failed. */
interface FailoverState {
  readonly invocation: Invocation;
  readonly loadBalance: LoadBalance;
  readonly counted: boolean;
  readonly attempts: number;
  /** Epoch ms after which no attempt starts (the call's deadline), or `undefined` for none. */
  readonly deadline: number | undefined;
  readonly idempotent: boolean;
  attempt: number;
  invokers: readonly Invoker[];
  readonly invoked: Invoker[];
  readonly failed: Set<string>;
  last: RpcError | undefined;
}

/**
 * The `failover` strategy's invoker: on failure, retries on another provider.
 *
 * @remarks
 * Up to `retries + 1` attempts, where `retries` is the method-level URL key (default 2); a numeric `retries`
 * attachment on the invocation overrides it for this call and is removed; a value ≤ 0 means one attempt, and
 * values above `retries.max` (default 10) are clamped to it with a warning naming their source. The whole loop
 * is bounded by the call's deadline (the first attempt's: the caller's `deadline`, else its start + `timeout`):
 * no attempt starts once it has passed, and each retry only gets the time left. A method declared
 * `idempotent: false` is retried only after failures known to happen before sending ({@link RetryPolicy}).
 * Before each retry the providers are listed again (a destroyed invoker or an empty list rejects at once) and
 * the providers already tried are excluded when others are available. A rejection with a business `RpcError`
 * (`isBiz`), or with one its protocol marked final (`retryable: false`, e.g. tri's gRPC `NOT_FOUND` or
 * `INVALID_ARGUMENT`), is rethrown at once; an error carried by a resolved `Result` — a business error, or a
 * framework `RpcError` the provider passed on (its own downstream call's timeout) — is simply returned (Dubbo
 * retries only thrown `RpcException`s; fail mock degrades the latter): none is ever retried. Any other rejection
 * (or synchronous throw) counts as a failed attempt, as long as {@link RetryPolicy.mayRetry} allows another;
 * non-`RpcError` values are mapped with `RpcError.from`. When every attempt failed, rejects with an `RpcError` carrying the last error's code, `grpcStatus`, `details` and
 * cause, whose message reads `Failed to invoke the method <m> in the service <iface>. Tried <n> times of the
 * providers [<addresses>] (<failed>/<listed>) from the registry <address> on the consumer <host>. Last error is:
 * <message>`. A success after failures logs a warning.
 *
 * Unlike Dubbo, failures are seen whichever way they arrive (rejected promise or synchronous throw), so retries
 * also cover asynchronous failures (Dubbo flaw: only synchronous throws are retried). The success path
 * allocates nothing beyond one `then` callback.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('failover').join(directory);
 * const result = await invoker.invoke(new Invocation({ methodName: 'sayHello', args: ['world'], attachments: { retries: 0 } }));
 * ```
 */
export class FailoverClusterInvoker extends AbstractClusterInvoker {
  private retryPolicy: RetryPolicy | undefined;

  protected doInvoke(invocation: Invocation, invokers: readonly Invoker[], loadBalance: LoadBalance): Result | Promise<Result> {
    // The retry budget is only needed after a failure: on the success path, only a `retries` attachment (which
    // must not travel to the provider) is taken off the invocation.
    const override = invocation.hasAttachments() ? this.takeRetriesOverride(invocation) : undefined;
    const invoker = this.select(loadBalance, invocation, invokers, undefined);
    const answer = this.invokeProvider(invoker, invocation, this.countsRpcStatus(loadBalance));
    // Completed: nothing to retry, no promise to chain.
    return answer instanceof Result ? answer : this.retryOnFailure(answer, invocation, invokers, loadBalance, override, invoker);
  }

  // The closure lives here, off the synchronous path: one in `doInvoke` would cost a context allocation per call.
  private retryOnFailure(
    pending: Promise<Result>,
    invocation: Invocation,
    invokers: readonly Invoker[],
    loadBalance: LoadBalance,
    override: number | undefined,
    invoker: Invoker
  ): Promise<Result> {
    const counted = this.countsRpcStatus(loadBalance);
    // The first attempt has started: the deadline it wrote is the call's (the caller's, or now + timeout).
    const deadline = invocation.deadline ?? this.deadlineOf(invoker, invocation);
    return pending.then(undefined, (error: unknown) =>
      this.onFailure(
        {
          invocation,
          loadBalance,
          counted,
          attempts: this.attempts(invocation, override),
          deadline,
          idempotent: RetryPolicy.isIdempotent(invocation),
          attempt: 1,
          invokers,
          invoked: [invoker],
          failed: new Set(),
          last: undefined,
        },
        invoker,
        error
      )
    );
  }

  /** A numeric `retries` attachment, removed from the invocation (it overrides the URL once); others stay. */
  private takeRetriesOverride(invocation: Invocation): number | undefined {
    const override = invocation.getAttachment(ClusterKeys.RETRIES);
    if (typeof override !== 'number') return undefined;
    invocation.removeAttachment(ClusterKeys.RETRIES);
    return Number.isFinite(override) ? override : undefined;
  }

  /** The retry rules of this invoker (created at the first failure). */
  private policy(): RetryPolicy {
    return (this.retryPolicy ??= new RetryPolicy(this.logger));
  }

  /** `retries + 1` from the URL (method level), or from the attachment override, clamped; at least 1. */
  private attempts(invocation: Invocation, override: number | undefined): number {
    const method = invocation.getMethodName();
    const url = this.getUrl();
    return this.policy().retries(url, this.directory.getConsumerUrl(), method, ClusterDefaults.FAILOVER_RETRIES, override) + 1;
  }

  /** No deadline was written (an invoker that does not enforce one): start + the provider's `timeout`, if any. */
  private deadlineOf(invoker: Invoker, invocation: Invocation): number | undefined {
    const timeout = invocation.timeout ?? this.timeoutOf(invoker.getUrl(), invocation.getMethodName());
    return timeout > 0 ? Date.now() + timeout : undefined;
  }

  private lastTimeoutUrl: URL | undefined = undefined;
  private lastTimeoutMethod: string | undefined = undefined;
  private lastTimeout = 0;

  /**
   * A provider URL's method-level `timeout`, behind a one-entry cache (URLs are immutable: an override makes a new
   * one). Read for every pending call without a deadline — a reference with `timeout=0` — so not parsed per call.
   */
  private timeoutOf(url: URL, method: string): number {
    if (url === this.lastTimeoutUrl && method === this.lastTimeoutMethod) return this.lastTimeout;
    const timeout = url.getMethodParameter(method, ClusterKeys.TIMEOUT, 0);
    this.lastTimeoutUrl = url;
    this.lastTimeoutMethod = method;
    this.lastTimeout = timeout;
    return timeout;
  }

  private onFailure(state: FailoverState, invoker: Invoker, error: unknown): Result | Promise<Result> {
    try {
      const rpcError = RpcError.from(error);
      if (rpcError.isBiz || !rpcError.retryable) throw rpcError;
      state.failed.add(invoker.getUrl().getAddress());
      state.last = rpcError;
      if (state.attempt >= state.attempts) throw this.exhausted(state, rpcError, undefined);
      if (!this.policy().mayRetry(rpcError, state.idempotent)) throw this.exhausted(state, rpcError, 'non-idempotent');
      const deadline = state.deadline;
      if (deadline !== undefined) {
        if (Date.now() >= deadline) throw this.exhausted(state, rpcError, 'deadline');
        // The retry gets only the time left: the call's deadline becomes its upstream deadline.
        state.invocation.deadline = deadline;
        state.invocation.attemptDeadline = undefined;
      }
      state.attempt++;
      this.checkWhetherDestroyed();
      const invokers = this.list(state.invocation);
      this.checkInvokers(invokers, state.invocation);
      state.invokers = invokers;
      const next = this.select(state.loadBalance, state.invocation, invokers, state.invoked);
      state.invoked.push(next);
      const answer = this.invokeProvider(next, state.invocation, state.counted);
      if (answer instanceof Result) {
        this.recovered(state, next);
        return answer;
      }
      return answer.then(
        (result) => {
          this.recovered(state, next);
          return result;
        },
        (nextError: unknown) => this.onFailure(state, next, nextError)
      );
    } catch (thrown) {
      return Promise.reject(RpcError.from(thrown));
    }
  }

  private exhausted(state: FailoverState, last: RpcError, stop: Stop | undefined): RpcError {
    const method = state.invocation.getMethodName();
    const why =
      stop === 'deadline'
        ? `The call's deadline ended the retries after ${state.attempt} of ${state.attempts} attempts. `
        : stop === 'non-idempotent'
          ? `Not retried: ${method}() is declared idempotent: false and the request may have reached the provider. `
          : '';
    return new RpcError(
      last.code,
      `Failed to invoke the method ${method} in the service ${this.serviceName()}. ${why}` +
        `Tried ${state.attempt} times of the providers [${[...state.failed].join(', ')}] ` +
        `(${state.failed.size}/${state.invokers.length}) from the registry ${this.registryAddress()} ` +
        `on the consumer ${this.consumerHost()}. Last error is: ${last.message}`,
      { cause: last, grpcStatus: last.grpcStatus, details: last.details }
    );
  }

  private recovered(state: FailoverState, invoker: Invoker): void {
    this.log(
      'warn',
      `Although retry the method ${state.invocation.getMethodName()} in the service ${this.serviceName()} was successful ` +
        `by the provider ${invoker.getUrl().getAddress()}, but there have been failed providers [${[...state.failed].join(
          ', '
        )}] ` +
        `(${state.failed.size}/${state.invokers.length}) from the registry ${this.registryAddress()} on the consumer ` +
        `${this.consumerHost()}. Last error is: ${state.last?.message ?? ''}`,
      state.last
    );
  }
}
