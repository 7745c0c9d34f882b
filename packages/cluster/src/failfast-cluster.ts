import type { Directory } from '@weft/core';

import { AbstractCluster, type ClusterInvokerParts } from './abstract-cluster.js';
import { FailfastClusterInvoker } from './failfast-cluster-invoker.js';

/**
 * Makes exactly one attempt and reports its failure at once: the `Cluster` extension `failfast`.
 *
 * @remarks
 * Extension `failfast` of `weft.rpc.Cluster`, application scope, singleton (constructor inherited from `AbstractCluster`). `join` returns a
 * {@link FailfastClusterInvoker}. No URL keys of its own. Suited to non-idempotent writes.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('failfast').join(directory);
 * ```
 */
export class FailfastCluster extends AbstractCluster {
  /** Joins the directory into a {@link FailfastClusterInvoker}. */
  protected createInvoker(directory: Directory, parts: ClusterInvokerParts): FailfastClusterInvoker {
    return new FailfastClusterInvoker(directory, parts.loadBalances, parts.logger, parts.statuses, parts.random);
  }
}
