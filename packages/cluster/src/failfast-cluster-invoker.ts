import { maskSecrets, Result, RpcError, type Invocation, type Invoker, type LoadBalance } from '@weft/core';

import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';

/**
 * The `failfast` strategy's invoker: one attempt, failures reported at once.
 *
 * @remarks
 * Selects one provider and calls it. A business `RpcError` is rethrown as is (a business error in a resolved
 * `Result` is returned as is); any other failure — rejection or synchronous throw — rejects with an `RpcError`
 * keeping the failure's code (`unknown` for a non-`RpcError`) and reading `Failfast invoke providers
 * <provider url> <LoadBalanceClass> for service <iface> method <m> on consumer <host>, but no luck to perform the
 * invocation. Last error is: <message>`.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('failfast').join(directory);
 * await invoker.invoke(new Invocation({ methodName: 'placeOrder', args: [order] }));
 * ```
 */
export class FailfastClusterInvoker extends AbstractClusterInvoker {
  protected doInvoke(invocation: Invocation, invokers: readonly Invoker[], loadBalance: LoadBalance): Result | Promise<Result> {
    const invoker = this.select(loadBalance, invocation, invokers, undefined);
    const answer = this.invokeProvider(invoker, invocation, this.countsRpcStatus(loadBalance));
    if (answer instanceof Result) return answer;
    return this.explainFailure(answer, invocation, invoker, loadBalance);
  }

  private explainFailure(pending: Promise<Result>, invocation: Invocation, invoker: Invoker, loadBalance: LoadBalance): Promise<Result> {
    return pending.then(undefined, (error: unknown) => {
      const rpcError = RpcError.from(error);
      if (rpcError.isBiz) throw rpcError;
      throw new RpcError(
        rpcError.code,
        `Failfast invoke providers ${maskSecrets(invoker.getUrl())} ${
          loadBalance.constructor.name
        } for service ${this.serviceName()} ` +
          `method ${invocation.getMethodName()} on consumer ${this.consumerHost()}, but no luck to perform the invocation. ` +
          `Last error is: ${rpcError.message}`,
        { cause: rpcError }
      );
    });
  }
}
