import type { Invocation, Invoker, URL } from '@weft/core';

import { AbstractLoadBalance } from './abstract-load-balance.js';

/** Smooth round-robin state of one provider. */
interface WeightedRoundRobin {
  weight: number;
  current: number;
  lastUpdate: number;
}

/** Entries not touched for this long are dropped when the provider set changes. */
const RECYCLE_PERIOD = 60_000;

/**
 * Smooth weighted round robin (nginx style): the `LoadBalance` extension `roundrobin`.
 *
 * @remarks
 * Extension `roundrobin` of `weft.rpc.LoadBalance`, application scope, singleton — the counters live in the
 * instance, so each application has its own. State is kept per `<serviceKey of the first provider>.<method>`,
 * then per provider `toIdentityString()`. Each call adds every provider's weight to its `current` (a changed
 * weight resets `current` to 0), picks the provider with the greatest `current` (the first one on ties) and
 * subtracts the total weight from it. With weights 5/1/1 for a/b/c the picks are `a a b a c a a`, repeating.
 * When the number of providers differs from the number of entries, entries idle for more than 60 s are dropped.
 *
 * @example
 * ```ts
 * const url = consumerUrl.addParameter('loadbalance', 'roundrobin');
 * ```
 */
export class RoundRobinLoadBalance extends AbstractLoadBalance {
  private readonly methodWeightMap = new Map<string, Map<string, WeightedRoundRobin>>();

  protected doSelect(invokers: readonly Invoker[], _url: URL, invocation: Invocation): Invoker {
    const key = `${(invokers[0] as Invoker).getUrl().getServiceKey() ?? ''}.${invocation.getMethodName()}`;
    let map = this.methodWeightMap.get(key);
    if (map === undefined) this.methodWeightMap.set(key, (map = new Map()));
    const now = Date.now();
    let totalWeight = 0;
    let maxCurrent = -Infinity;
    let selected: Invoker | undefined;
    let selectedState: WeightedRoundRobin | undefined;
    for (const invoker of invokers) {
      const identity = invoker.getUrl().toIdentityString();
      const weight = this.getWeight(invoker, invocation, now);
      let state = map.get(identity);
      if (state === undefined) {
        map.set(identity, (state = { weight, current: 0, lastUpdate: now }));
      } else if (state.weight !== weight) {
        state.weight = weight;
        state.current = 0;
      }
      state.current += weight;
      state.lastUpdate = now;
      if (state.current > maxCurrent) {
        maxCurrent = state.current;
        selected = invoker;
        selectedState = state;
      }
      totalWeight += weight;
    }
    if (invokers.length !== map.size) {
      for (const [identity, state] of map) if (now - state.lastUpdate > RECYCLE_PERIOD) map.delete(identity);
    }
    if (selected !== undefined && selectedState !== undefined) {
      selectedState.current -= totalWeight;
      return selected;
    }
    return invokers[0] as Invoker;
  }
}
