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

import { BroadcastClusterInvoker } from './broadcast-cluster-invoker.js';

/**
 * Calls every provider in turn: the `Cluster` extension `broadcast`.
 *
 * @remarks
 * Extension `broadcast` of `weft.rpc.Cluster`, application scope, singleton. `join` returns a
 * {@link BroadcastClusterInvoker}. URL key (service level): `broadcast.fail.percent` (default 100). Suited to notifying
 * every provider, e.g. to refresh caches.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('broadcast').join(directory);
 * ```
 */
export class BroadcastCluster extends Cluster {
  constructor(
    @InjectLoader(LoadBalance) private readonly loadBalances: ExtensionLoader<LoadBalance>,
    @Inject(Logger) private readonly logger: Logger,
    @Inject(RpcStatusRegistry) private readonly statuses: RpcStatusRegistry,
    @Inject(RandomSource) private readonly random: RandomSource
  ) {
    super();
  }

  /** Joins the directory into a {@link BroadcastClusterInvoker}. */
  join(directory: Directory): Invoker {
    return new BroadcastClusterInvoker(directory, this.loadBalances, this.logger, this.statuses, this.random);
  }
}
