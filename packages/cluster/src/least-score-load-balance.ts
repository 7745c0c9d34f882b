import { RandomSource, RpcStatusRegistry, type Invocation, type Invoker, type RpcStatus, type URL } from '@weft/core';
import { Inject } from '@weft/core/spi';

import { AbstractLoadBalance } from './abstract-load-balance.js';

/**
 * Base of the load balancers that pick the provider with the lowest score computed from its `RpcStatus`
 * (`leastactive`: calls in flight; `shortestresponse`: estimated response time), ties broken by weighted random.
 *
 * @remarks A provider whose weight is 0 (e.g. a `weight=0` override) is never picked while another has a positive
 * weight — Dubbo would still pick it when it alone has the lowest score. Subclasses implement {@link LeastScoreLoadBalance.score}; the constructor and its injection are
 * inherited. Cluster invokers count attempts for these load balancers (`usesRpcStatus`).
 * @example
 * ```ts
 * export class FewestFailuresLoadBalance extends LeastScoreLoadBalance {
 *   protected score(status: RpcStatus) { return status.failed; }
 * }
 * ```
 */
export abstract class LeastScoreLoadBalance extends AbstractLoadBalance {
  /** Cluster invokers count attempts for this load balance. */
  override readonly usesRpcStatus = true;
  private readonly indexes: number[] = [];
  private readonly weights: number[] = [];

  constructor(
    @Inject(RpcStatusRegistry) private readonly statuses: RpcStatusRegistry,
    @Inject(RandomSource) private readonly random: RandomSource,
  ) {
    super();
  }

  /** The score of one provider for this call: lower is better. */
  protected abstract score(status: RpcStatus, url: URL, now: number): number;

  protected doSelect(invokers: readonly Invoker[], url: URL, invocation: Invocation): Invoker {
    const method = invocation.getMethodName();
    const now = Date.now();
    const indexes = this.indexes;
    const weights = this.weights;
    let least = Infinity;
    let leastCount = 0;
    let totalWeight = 0;
    let firstWeight = 0;
    let sameWeight = true;
    // A weight of 0 drains a provider: it is left out while any other has a positive weight.
    let drain = false;
    for (let i = 0; i < invokers.length; i++) {
      const weight = this.getWeight(invokers[i] as Invoker, invocation, now);
      weights[i] = weight;
      if (weight === 0) drain = true;
    }
    if (drain && !weights.some((w, i) => i < invokers.length && w > 0)) drain = false;
    for (let i = 0; i < invokers.length; i++) {
      const weight = weights[i] as number;
      if (drain && weight === 0) continue;
      const invoker = invokers[i] as Invoker;
      const score = this.score(this.statuses.getMethodStatus(invoker.getUrl(), method), url, now);
      if (leastCount === 0 || score < least) {
        least = score;
        leastCount = 1;
        indexes[0] = i;
        totalWeight = weight;
        firstWeight = weight;
        sameWeight = true;
      } else if (score === least) {
        indexes[leastCount++] = i;
        totalWeight += weight;
        if (sameWeight && weight !== firstWeight) sameWeight = false;
      }
    }
    return this.pickAmongTied(invokers, indexes, leastCount, weights, totalWeight, sameWeight, this.random);
  }
}
