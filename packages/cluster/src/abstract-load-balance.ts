import { LoadBalance, RpcError, RpcErrorCode, type Invocation, type Invoker, type RandomSource, type URL } from '@weft/core';

import { ClusterDefaults, ClusterKeys } from './cluster-keys.js';

/**
 * The base of Weft's load balances: a single provider short-cut, and the weight with warmup.
 *
 * @remarks
 * `select` returns the only provider of a one-element list and otherwise calls `doSelect`. The weight of a
 * provider ({@link AbstractLoadBalance.getWeight}) is its URL's method-level `weight` (default 100); when it is
 * positive and the provider URL has a `timestamp` (its start time, epoch ms), a provider younger than `warmup`
 * ms (default 600000) gets `max(1, min(weight, floor(uptime / (warmup / weight))))`, and one whose timestamp is in
 * the future gets 1. Negative weights count as 0.
 *
 * `usesRpcStatus` tells cluster invokers whether this load balance reads `RpcStatus` counters; when true they
 * count every provider attempt (`beginCount`/`endCount`), which Dubbo only does under `ActiveLimitFilter`.
 *
 * @example
 * ```ts
 * export class FirstLoadBalance extends AbstractLoadBalance {
 *   protected doSelect(invokers: readonly Invoker[]): Invoker { return invokers[0]!; }
 * }
 * ```
 */
export abstract class AbstractLoadBalance extends LoadBalance {
  /** Whether cluster invokers must count calls for this load balance. @defaultValue false */
  readonly usesRpcStatus: boolean = false;

  /**
   * Picks one provider.
   * @throws RpcError `no-invoker` for an empty list (the contract asks for a non-empty one).
   */
  select(invokers: readonly Invoker[], url: URL, invocation: Invocation): Invoker {
    if (invokers.length === 1) return invokers[0] as Invoker;
    if (invokers.length === 0) {
      throw new RpcError(
        RpcErrorCode.NO_INVOKER,
        `${this.constructor.name}.select() was called without providers for ${invocation.getMethodName()}.`
      );
    }
    return this.doSelect(invokers, url, invocation);
  }

  /** Picks one provider of a list of at least two. */
  protected abstract doSelect(invokers: readonly Invoker[], url: URL, invocation: Invocation): Invoker;

  /** The provider's weight for this call, warmup applied (see the class remarks). */
  protected getWeight(invoker: Invoker, invocation: Invocation, now: number = Date.now()): number {
    const url = invoker.getUrl();
    let weight = url.getMethodParameter(invocation.getMethodName(), ClusterKeys.WEIGHT, ClusterDefaults.WEIGHT);
    if (weight > 0) {
      const timestamp = url.getParameter(ClusterKeys.TIMESTAMP, 0);
      if (timestamp > 0) {
        const uptime = now - timestamp;
        if (uptime < 0) return 1;
        const warmup = url.getParameter(ClusterKeys.WARMUP, ClusterDefaults.WARMUP);
        if (uptime > 0 && uptime < warmup) weight = AbstractLoadBalance.warmupWeight(uptime, warmup, weight);
      }
    }
    return weight > 0 ? weight : 0;
  }

  /**
   * The weight of a provider `uptime` ms after its start, during a warmup of `warmup` ms:
   * `max(1, min(weight, floor(uptime / (warmup / weight))))`.
   */
  static warmupWeight(uptime: number, warmup: number, weight: number): number {
    const warmed = Math.floor(uptime / (warmup / weight));
    return warmed < 1 ? 1 : Math.min(warmed, weight);
  }

  /**
   * Picks among the tied candidates `invokers[indexes[0..count)]`: the only one, else weighted random when the
   * weights differ and their total is positive, else uniform random (shared by `leastactive` and
   * `shortestresponse`).
   */
  protected pickAmongTied(
    invokers: readonly Invoker[],
    indexes: readonly number[],
    count: number,
    weights: readonly number[],
    totalWeight: number,
    sameWeight: boolean,
    random: RandomSource
  ): Invoker {
    if (count === 1) return invokers[indexes[0] as number] as Invoker;
    if (!sameWeight && totalWeight > 0) {
      let offset = random.next() * totalWeight;
      for (let i = 0; i < count; i++) {
        const index = indexes[i] as number;
        offset -= weights[index] as number;
        if (offset < 0) return invokers[index] as Invoker;
      }
    }
    return invokers[indexes[random.nextInt(count)] as number] as Invoker;
  }
}
