import { Result, RpcError, RpcErrorCode, type Invocation, type Invoker, type LoadBalance } from '@weft/core';

import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';

/**
 * The `available` strategy's invoker: calls the first available provider, without load balancing.
 *
 * @remarks
 * Walks the provider list in order and calls the first whose `isAvailable()` is true; no retry. When none is
 * available, rejects with `RpcError` `no-invoker`: `No provider available in [<addresses>]` (Dubbo uses the
 * generic code 0). A rejection of the call is passed on, mapped with `RpcError.from`. The load balance is not
 * consulted, but attempts are still counted when it reads call counters.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('available').join(directory);
 * ```
 */
export class AvailableClusterInvoker extends AbstractClusterInvoker {
  protected doInvoke(invocation: Invocation, invokers: readonly Invoker[], loadBalance: LoadBalance): Result | Promise<Result> {
    for (const invoker of invokers) {
      if (invoker.isAvailable()) {
        const answer = this.invokeProvider(invoker, invocation, this.countsRpcStatus(loadBalance));
        if (answer instanceof Result) return answer;
        return answer.then(undefined, asRpcError);
      }
    }
    return Promise.reject(new RpcError(RpcErrorCode.NO_INVOKER, `No provider available in ${this.describeInvokers(invokers)}`));
  }
}

function asRpcError(error: unknown): never {
  throw RpcError.from(error);
}
