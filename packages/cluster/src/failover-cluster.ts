import {
  Cluster,
  LoadBalance,
  Logger,
  RandomSource,
  RpcStatusRegistry,
  type Directory,
  type ExtensionLoader,
  type Invoker,
} from '@weft/core';
import { Inject, InjectLoader } from '@weft/core/spi';

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
export class FailoverCluster extends Cluster {
  constructor(
    @InjectLoader(LoadBalance) private readonly loadBalances: ExtensionLoader<LoadBalance>,
    @Inject(Logger) private readonly logger: Logger,
    @Inject(RpcStatusRegistry) private readonly statuses: RpcStatusRegistry,
    @Inject(RandomSource) private readonly random: RandomSource
  ) {
    super();
  }

  /** Joins the directory into a {@link FailoverClusterInvoker}. */
  join(directory: Directory): Invoker {
    return new FailoverClusterInvoker(directory, this.loadBalances, this.logger, this.statuses, this.random);
  }
}
