import type { RpcStatus, URL } from '@weft/core';

import { ClusterDefaults, ClusterKeys } from './cluster-keys.js';
import { LeastScoreLoadBalance } from './least-score-load-balance.js';

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
export class ShortestResponseLoadBalance extends LeastScoreLoadBalance {
  /** Average successful response time in the current window × (calls in flight + 1). */
  protected score(status: RpcStatus, url: URL, now: number): number {
    if (url !== this.periodUrl) {
      // Read once per URL object (URLs are immutable; an override makes a new one), not once per provider.
      this.periodUrl = url;
      this.period = url.getParameter(ClusterKeys.SHORTEST_RESPONSE_SLIDE_PERIOD, ClusterDefaults.SHORTEST_RESPONSE_SLIDE_PERIOD);
    }
    return status.getWindowSucceededAverageElapsed(this.period, now) * (status.active + 1);
  }

  private periodUrl: URL | undefined;
  private period = 0;
}
