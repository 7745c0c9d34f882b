import type { Directory } from '@weft/core';

import { AbstractCluster, type ClusterInvokerParts } from './abstract-cluster.js';
import { FailoverClusterInvoker } from './failover-cluster-invoker.js';

/**
 * Retries a failed call on other providers: the default `Cluster` extension, `failover`.
 *
 * @remarks
 * Extension `failover` of `weft.rpc.Cluster` (the point's default), application scope, singleton. `join` returns
 * a {@link FailoverClusterInvoker}. URL keys: `retries` (method level, default 2), and those of every cluster
 * (`loadbalance`, `sticky`, `cluster.availablecheck`, `reselect.count`). Suited to idempotent reads; business
 * errors are never retried.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('failover').join(directory);
 * ```
 */
export class FailoverCluster extends AbstractCluster {
  /** Joins the directory into a {@link FailoverClusterInvoker}. */
  protected createInvoker(directory: Directory, parts: ClusterInvokerParts): FailoverClusterInvoker {
    return new FailoverClusterInvoker(directory, parts.loadBalances, parts.logger, parts.statuses, parts.random);
  }
}
