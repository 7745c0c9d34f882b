import type { Directory } from '@weft/core';

import { AbstractCluster, type ClusterInvokerParts } from './abstract-cluster.js';
import { FailsafeClusterInvoker } from './failsafe-cluster-invoker.js';

/**
 * Logs failures and answers with an empty result: the `Cluster` extension `failsafe`.
 *
 * @remarks
 * Extension `failsafe` of `weft.rpc.Cluster`, application scope, singleton (constructor inherited from `AbstractCluster`). `join` returns a
 * {@link FailsafeClusterInvoker}. No URL keys of its own. Suited to calls whose failure must not affect the caller, such as
 * audit logging.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('failsafe').join(directory);
 * ```
 */
export class FailsafeCluster extends AbstractCluster {
  /** Joins the directory into a {@link FailsafeClusterInvoker}. */
  protected createInvoker(directory: Directory, parts: ClusterInvokerParts): FailsafeClusterInvoker {
    return new FailsafeClusterInvoker(directory, parts.loadBalances, parts.logger, parts.statuses, parts.random);
  }
}
