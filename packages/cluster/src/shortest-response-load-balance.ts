import { RandomSource, RpcStatusRegistry, type Invocation, type Invoker, type URL } from '@weft/core';
import { Inject } from '@weft/core/spi';

import { AbstractLoadBalance } from './abstract-load-balance.js';
import { ClusterDefaults, ClusterKeys } from './cluster-keys.js';

/**
 * Prefers the providers expected to answer soonest: the `LoadBalance` extension `shortestresponse`.
 *
 * @remarks
 * Extension `shortestresponse` of `weft.rpc.LoadBalance`, application scope, singleton. For each provider,
 * `estimate = average elapsed ms of the successful calls in the current window × (calls in flight + 1)`, from
 * its method-level `RpcStatus`; the window is `shortestResponseSlidePeriod` ms (read from the cluster URL,
 * default 30000) and restarts when older. Among the minimal estimates it picks as `leastactive` does: the only
 * one, else weighted random when weights differ, else uniformly. A provider without successes in the window
 * estimates 0, so new providers get tried.
 *
 * `usesRpcStatus` is `true`: cluster invokers count every attempt (with its elapsed time) for it, where Dubbo
 * only counts under `ActiveLimitFilter` (flaw §8 item 10).
 *
 * @example
 * ```ts
 * const url = consumerUrl.addParameters({ loadbalance: 'shortestresponse', shortestResponseSlidePeriod: 10000 });
 * ```
 */
export class ShortestResponseLoadBalance extends AbstractLoadBalance {
  /** Cluster invokers count attempts for this load balance. */
  override readonly usesRpcStatus = true;
  private indexes: number[] = [];
  private weights: number[] = [];

  constructor(
    @Inject(RpcStatusRegistry) private readonly statuses: RpcStatusRegistry,
    @Inject(RandomSource) private readonly random: RandomSource
  ) {
    super();
  }

  protected doSelect(invokers: readonly Invoker[], url: URL, invocation: Invocation): Invoker {
    const method = invocation.getMethodName();
    const period = url.getParameter(ClusterKeys.SHORTEST_RESPONSE_SLIDE_PERIOD, ClusterDefaults.SHORTEST_RESPONSE_SLIDE_PERIOD);
    const now = Date.now();
    const indexes = this.indexes;
    const weights = this.weights;
    let shortest = Infinity;
    let shortestCount = 0;
    let totalWeight = 0;
    let firstWeight = 0;
    let sameWeight = true;
    for (let i = 0; i < invokers.length; i++) {
      const invoker = invokers[i] as Invoker;
      const status = this.statuses.getMethodStatus(invoker.getUrl(), method);
      const estimate = status.getWindowSucceededAverageElapsed(period, now) * (status.active + 1);
      const weight = this.getWeight(invoker, invocation, now);
      weights[i] = weight;
      if (estimate < shortest) {
        shortest = estimate;
        shortestCount = 1;
        indexes[0] = i;
        totalWeight = weight;
        firstWeight = weight;
        sameWeight = true;
      } else if (estimate === shortest) {
        indexes[shortestCount++] = i;
        totalWeight += weight;
        if (sameWeight && weight !== firstWeight) sameWeight = false;
      }
    }
    return this.pickAmongTied(invokers, indexes, shortestCount, weights, totalWeight, sameWeight, this.random);
  }
}
