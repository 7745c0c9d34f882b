import type { RpcStatus } from '@weft/core';

import { LeastScoreLoadBalance } from './least-score-load-balance.js';

/**
 * Prefers the providers with the fewest calls in flight: the `LoadBalance` extension `leastactive`.
 *
 * @remarks
 * Extension `leastactive` of `weft.rpc.LoadBalance`, application scope, singleton. Reads each provider's
 * method-level `RpcStatus.active` from the application's `RpcStatusRegistry`, keeps the providers with the
 * minimum, and picks the only one, else weighted random among them when their weights differ, else uniformly.
 *
 * `usesRpcStatus` is `true`: cluster invokers count every attempt for it. In Dubbo only `ActiveLimitFilter`
 * counts, so without `actives` configured every count is 0 (flaw §8 item 10); here the counts are always real.
 *
 * @example
 * ```ts
 * const url = consumerUrl.addParameter('sayHello.loadbalance', 'leastactive');
 * ```
 */
export class LeastActiveLoadBalance extends LeastScoreLoadBalance {
  /** Calls in flight to the provider. */
  protected score(status: RpcStatus): number {
    return status.active;
  }
}
