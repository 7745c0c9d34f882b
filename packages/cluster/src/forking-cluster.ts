import type { Directory } from '@weft/core';

import { AbstractCluster, type ClusterInvokerParts } from './abstract-cluster.js';
import { ForkingClusterInvoker } from './forking-cluster-invoker.js';

/**
 * Calls several providers in parallel and takes the first answer: the `Cluster` extension `forking`.
 *
 * @remarks
 * Extension `forking` of `weft.rpc.Cluster`, application scope, singleton (constructor inherited from `AbstractCluster`). `join` returns a
 * {@link ForkingClusterInvoker}. URL keys (service level): `forks` (default 2), `timeout` (default 1000 ms; on expiry the
 * call rejects with `timeout`, where Dubbo returns null). Suited to latency-critical reads, at the cost of extra
 * load.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('forking').join(directory);
 * ```
 */
export class ForkingCluster extends AbstractCluster {
  /** Joins the directory into a {@link ForkingClusterInvoker}. */
  protected createInvoker(directory: Directory, parts: ClusterInvokerParts): ForkingClusterInvoker {
    return new ForkingClusterInvoker(directory, parts.loadBalances, parts.logger, parts.statuses, parts.random);
  }
}
