import type { Invocation, Invoker, URL } from '@weft/core';

import { AbstractLoadBalance } from './abstract-load-balance.js';
import { ClusterDefaults, ClusterKeys } from './cluster-keys.js';
import { ConsistentHashSelector } from './consistent-hash-selector.js';

/**
 * Sends calls with the same key arguments to the same provider: the `LoadBalance` extension `consistenthash`.
 *
 * @remarks
 * Extension `consistenthash` of `weft.rpc.LoadBalance`, application scope, singleton. An md5 hash ring per
 * `<serviceKey of the first provider>.<method>`, rebuilt when the provider list (elements or order) or the
 * settings change. Method-level keys read from the first provider's URL: `hash.nodes` (virtual nodes per
 * provider, default 160, 4 per digest) and `hash.arguments` (comma-separated argument indexes forming the key,
 * default `0`). Removing a provider only moves the keys it owned. Weights (warm-up included) set each provider's
 * share of the ring's virtual nodes — equal weights give Dubbo's ring, which ignores weights — and a provider of
 * weight 0 gets none (drained); a weight change rebuilds the ring, moving only the keys of the virtual nodes added or removed. `null` renders as
 * `"null"` in the key, as in Dubbo.
 *
 * @example
 * ```ts
 * const url = consumerUrl.addParameters({ 'getUser.loadbalance': 'consistenthash', 'getUser.hash.arguments': '0' });
 * ```
 * @throws ExtensionError `ERR_SPI_INVALID_PARAMETER` when `hash.arguments` is not a list of integers.
 */
export class ConsistentHashLoadBalance extends AbstractLoadBalance {
  private readonly selectors = new Map<string, ConsistentHashSelector>();
  /** The weights of the current call's providers (selection is synchronous). */
  private readonly weights: number[] = [];

  protected doSelect(invokers: readonly Invoker[], _url: URL, invocation: Invocation): Invoker {
    const method = invocation.getMethodName();
    const first = (invokers[0] as Invoker).getUrl();
    const key = `${first.getServiceKey() ?? ''}.${method}`;
    const replicas = first.getMethodParameter(method, ClusterKeys.HASH_NODES, ClusterDefaults.HASH_NODES);
    const argumentsText = first.getMethodParameter(method, ClusterKeys.HASH_ARGUMENTS, ClusterDefaults.HASH_ARGUMENTS);
    const weights = this.weights;
    const now = Date.now();
    weights.length = invokers.length;
    for (let i = 0; i < invokers.length; i++) weights[i] = this.getWeight(invokers[i] as Invoker, invocation, now);
    let selector = this.selectors.get(key);
    if (selector === undefined || !selector.matches(invokers, replicas, argumentsText, weights)) {
      selector = new ConsistentHashSelector(invokers, method, replicas, argumentsText, weights);
      this.selectors.set(key, selector);
    }
    return selector.select(invocation);
  }
}
