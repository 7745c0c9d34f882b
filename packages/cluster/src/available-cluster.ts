import type { Directory } from '@weft/core';

import { AbstractCluster, type ClusterInvokerParts } from './abstract-cluster.js';
import { AvailableClusterInvoker } from './available-cluster-invoker.js';

/**
 * Calls the first available provider, without load balancing: the `Cluster` extension `available`.
 *
 * @remarks
 * Extension `available` of `weft.rpc.Cluster`, application scope, singleton (constructor inherited from `AbstractCluster`). `join` returns a
 * {@link AvailableClusterInvoker}. No URL keys of its own.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('available').join(directory);
 * ```
 */
export class AvailableCluster extends AbstractCluster {
  /** Joins the directory into a {@link AvailableClusterInvoker}. */
  protected createInvoker(directory: Directory, parts: ClusterInvokerParts): AvailableClusterInvoker {
    return new AvailableClusterInvoker(directory, parts.loadBalances, parts.logger, parts.statuses, parts.random);
  }
}
