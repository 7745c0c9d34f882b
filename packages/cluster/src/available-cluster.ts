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

import { AvailableClusterInvoker } from './available-cluster-invoker.js';

/**
 * Calls the first available provider, without load balancing: the `Cluster` extension `available`.
 *
 * @remarks
 * Extension `available` of `weft.rpc.Cluster`, application scope, singleton. `join` returns a
 * {@link AvailableClusterInvoker}. No URL keys of its own.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('available').join(directory);
 * ```
 */
export class AvailableCluster extends Cluster {
  constructor(
    @InjectLoader(LoadBalance) private readonly loadBalances: ExtensionLoader<LoadBalance>,
    @Inject(Logger) private readonly logger: Logger,
    @Inject(RpcStatusRegistry) private readonly statuses: RpcStatusRegistry,
    @Inject(RandomSource) private readonly random: RandomSource
  ) {
    super();
  }

  /** Joins the directory into a {@link AvailableClusterInvoker}. */
  join(directory: Directory): Invoker {
    return new AvailableClusterInvoker(directory, this.loadBalances, this.logger, this.statuses, this.random);
  }
}
