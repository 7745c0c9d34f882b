import { Result, RpcError, type Invocation, type Invoker, type LoadBalance } from '@weft/core';

import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';

/**
 * The `failsafe` strategy's invoker: failures are logged and ignored.
 *
 * @remarks
 * Selects one provider and calls it. Any failure — rejection (business `RpcError` included) or synchronous
 * throw, in selection or in the call — is logged at error level as `Failsafe ignore exception: <message>` and
 * the call resolves with an empty result (`Result.of(undefined)`). A resolved `Result` (even one carrying a
 * business error) is returned as is. An empty provider list still rejects with `no-invoker` (checked by
 * {@link AbstractClusterInvoker} before the strategy runs). Suited to fire-and-forget calls such as audit logs.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('failsafe').join(directory);
 * const result = await invoker.invoke(new Invocation({ methodName: 'audit', args: [entry] })); // never rejects on provider failure
 * ```
 */
export class FailsafeClusterInvoker extends AbstractClusterInvoker {
  protected doInvoke(invocation: Invocation, invokers: readonly Invoker[], loadBalance: LoadBalance): Result | Promise<Result> {
    try {
      const invoker = this.select(loadBalance, invocation, invokers, undefined);
      const answer = this.invokeProvider(invoker, invocation, this.countsRpcStatus(loadBalance));
      if (answer instanceof Result) return answer;
      return this.ignoreFailure(answer);
    } catch (error) {
      return this.ignore(error);
    }
  }

  private ignoreFailure(pending: Promise<Result>): Promise<Result> {
    return pending.then(undefined, (error: unknown) => this.ignore(error));
  }

  private ignore(error: unknown): Result {
    this.log('error', `Failsafe ignore exception: ${RpcError.from(error).message}`, error);
    return Result.of(undefined);
  }
}
