import type { Directory } from '@weft/core';

import { AbstractCluster, type ClusterInvokerParts } from './abstract-cluster.js';
import { BroadcastClusterInvoker } from './broadcast-cluster-invoker.js';

/**
 * Calls every provider in turn: the `Cluster` extension `broadcast`.
 *
 * @remarks
 * Extension `broadcast` of `weft.rpc.Cluster`, application scope, singleton (constructor inherited from `AbstractCluster`). `join` returns a
 * {@link BroadcastClusterInvoker}. URL key (service level): `broadcast.fail.percent` (default 100). Suited to notifying
 * every provider, e.g. to refresh caches.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('broadcast').join(directory);
 * ```
 */
export class BroadcastCluster extends AbstractCluster {
  /** Joins the directory into a {@link BroadcastClusterInvoker}. */
  protected createInvoker(directory: Directory, parts: ClusterInvokerParts): BroadcastClusterInvoker {
    return new BroadcastClusterInvoker(directory, parts.loadBalances, parts.logger, parts.statuses, parts.random);
  }
}
