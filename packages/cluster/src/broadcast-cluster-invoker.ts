import { Invocation, RpcError, RpcErrorCode, type Invoker, type LoadBalance, type Result } from '@weft/core';

import { AbstractClusterInvoker } from './abstract-cluster-invoker.js';
import { ClusterDefaults, ClusterKeys } from './cluster-keys.js';

/**
 * The `broadcast` strategy's invoker: calls every provider, one after the other.
 *
 * @remarks
 * Each provider gets its own copy of the invocation (same method, arguments, attachments, signal, deadline and
 * service). A failure is a rejection (or synchronous throw) or a resolved `Result` carrying a business error.
 * `broadcast.fail.percent` (service level, default 100; outside 0..100 it is logged and reset to 100) sets when
 * to stop early: after a failure, once the failure count reaches `ceil(providers × percent / 100)`. So `100`
 * calls every provider and `0` stops at the first failure — Dubbo compares after incrementing and never stops
 * with `0` (flaw §8.15), and it rounds the threshold down. At the end, if any call failed, the call rejects
 * with the last failure as an `RpcError` (a business error from a result becomes code `biz` with the original
 * as `cause`); otherwise it resolves with the last result. Typical use: refreshing caches on every provider.
 *
 * @example
 * ```ts
 * const url = consumerUrl.addParameters({ cluster: 'broadcast', 'broadcast.fail.percent': 20 });
 * ```
 */
export class BroadcastClusterInvoker extends AbstractClusterInvoker {
  protected async doInvoke(invocation: Invocation, invokers: readonly Invoker[], loadBalance: LoadBalance): Promise<Result> {
    let percent = this.getUrl().getParameter(ClusterKeys.BROADCAST_FAIL_PERCENT, ClusterDefaults.BROADCAST_FAIL_PERCENT);
    if (!(percent >= 0 && percent <= 100)) {
      this.log(
        'info',
        `The value corresponding to the ${ClusterKeys.BROADCAST_FAIL_PERCENT} parameter must be between 0 and 100. ` +
          `The current setting is ${percent}, which is reset to 100.`
      );
      percent = 100;
    }
    const threshold = Math.ceil((invokers.length * percent) / 100);
    const counted = this.countsRpcStatus(loadBalance);
    let failures = 0;
    let exception: RpcError | undefined;
    let result: Result | undefined;
    for (const invoker of invokers) {
      const copy = new Invocation({
        methodName: invocation.methodName,
        args: invocation.args,
        attachments: invocation.getAttachments(),
        signal: invocation.signal,
        deadline: invocation.deadline,
        service: invocation.service,
      });
      let failure: RpcError | undefined;
      try {
        const answer = await this.invokeProvider(invoker, copy, counted);
        if (answer.hasException()) failure = bizError(answer.exception);
        else result = answer;
      } catch (error) {
        failure = RpcError.from(error);
      }
      if (failure !== undefined) {
        exception = failure;
        failures++;
        this.log('debug', `broadcast invoke of ${invoker.getUrl().getAddress()} failed: ${failure.message}`);
        if (failures >= threshold) break;
      }
    }
    if (exception !== undefined) {
      this.log(
        'debug',
        failures >= threshold
          ? `The number of BroadcastCluster call failures has reached the threshold ${threshold}`
          : `The number of BroadcastCluster call failures has not reached the threshold ${threshold}, fail size is ${failures}`
      );
      throw exception;
    }
    return result as Result;
  }
}

/** A business error carried by a result, as the `RpcError` to throw. */
function bizError(exception: unknown): RpcError {
  if (exception instanceof RpcError) return exception;
  const message = exception instanceof Error ? `${exception.name}: ${exception.message}` : String(exception);
  return new RpcError(RpcErrorCode.BIZ, message, { cause: exception });
}
