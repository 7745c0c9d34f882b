import { RpcError, RpcErrorCode, whenSettled, type Invocation, type Invoker, type LoadBalance, type Result } from '@weft/core';

import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';
import { ClusterDefaults, ClusterKeys } from './cluster-keys.js';
import { RetryPolicy } from './retry-policy.js';

/**
 * The `forking` strategy's invoker: calls several providers in parallel, the first answer wins.
 *
 * @remarks
 * Reads `forks` (service level, default 2): ≤ 0 or ≥ the number of providers means all of them; otherwise that
 * many distinct providers are selected (a method declared `idempotent: false` gets one fork, never several) (with the usual selection rules; if selection cannot find another
 * distinct provider — e.g. the rest are unavailable — the fork count is lowered instead of looping, where Dubbo
 * could spin). All are called at once. The first resolved `Result` wins (a business error carried by a result
 * is an answer too); the call rejects only when *every* fork failed, with the last failure's code and the
 * message `Failed to forking invoke provider [<addresses>], but no luck to perform the invocation. Last error
 * is: <message>`.
 *
 * It waits at most `timeout` ms (service level, default 1000; ≤ 0 means the default). When neither a result
 * nor the last failure has arrived by then it **rejects** with `RpcError` `timeout` — Dubbo returns a null
 * result there (flaw §8.15). Late answers of the losing forks are ignored.
 *
 * @example
 * ```ts
 * const url = consumerUrl.addParameters({ cluster: 'forking', forks: 3, timeout: 500 });
 * const invoker = app.getExtensionLoader(Cluster).getAdaptiveExtension().join(new StaticDirectory(Greeter, url, providers));
 * ```
 */
export class ForkingClusterInvoker extends AbstractClusterInvoker {
  protected doInvoke(invocation: Invocation, invokers: readonly Invoker[], loadBalance: LoadBalance): Promise<Result> {
    const url = this.getUrl();
    // A method declared idempotent: false must not run on several providers: one fork.
    const forks = RetryPolicy.isIdempotent(invocation) ? url.getParameter(ClusterKeys.FORKS, ClusterDefaults.FORKS) : 1;
    const timeout = url.getPositiveParameter(ClusterKeys.TIMEOUT, ClusterDefaults.TIMEOUT);
    let selected: readonly Invoker[];
    if (forks <= 0 || forks >= invokers.length) {
      selected = invokers;
    } else {
      const chosen: Invoker[] = [];
      while (chosen.length < forks) {
        const invoker = this.select(loadBalance, invocation, invokers, chosen);
        if (chosen.includes(invoker)) break;
        chosen.push(invoker);
      }
      selected = chosen;
    }
    const counted = this.countsRpcStatus(loadBalance);
    return new Promise<Result>((resolve, reject) => {
      let settled = false;
      let failures = 0;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        reject(
          new RpcError(
            RpcErrorCode.TIMEOUT,
            `Failed to forking invoke provider ${this.describeInvokers(selected)}, but no luck to perform the invocation: ` +
              `no result within the timeout of ${timeout} ms (${failures} of ${selected.length} forks failed).`
          )
        );
      }, timeout);
      const onResult = (result: Result): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const onError = (error: unknown): void => {
        if (settled) return;
        failures++;
        if (failures < selected.length) return;
        settled = true;
        clearTimeout(timer);
        const last = RpcError.from(error);
        reject(
          new RpcError(
            last.code,
            `Failed to forking invoke provider ${this.describeInvokers(selected)}, but no luck to perform the invocation. ` +
              `Last error is: ${last.message}`,
            { cause: last }
          )
        );
      };
      for (const invoker of selected) void whenSettled(this.invokeProvider(invoker, invocation, counted), onResult, onError);
    });
  }
}
