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

import { ForkingClusterInvoker } from './forking-cluster-invoker.js';

/**
 * Calls several providers in parallel and takes the first answer: the `Cluster` extension `forking`.
 *
 * @remarks
 * Extension `forking` of `weft.rpc.Cluster`, application scope, singleton. `join` returns a
 * {@link ForkingClusterInvoker}. URL keys (service level): `forks` (default 2), `timeout` (default 1000 ms; on expiry the
 * call rejects with `timeout`, where Dubbo returns null). Suited to latency-critical reads, at the cost of extra
 * load.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('forking').join(directory);
 * ```
 */
export class ForkingCluster extends Cluster {
  constructor(
    @InjectLoader(LoadBalance) private readonly loadBalances: ExtensionLoader<LoadBalance>,
    @Inject(Logger) private readonly logger: Logger,
    @Inject(RpcStatusRegistry) private readonly statuses: RpcStatusRegistry,
    @Inject(RandomSource) private readonly random: RandomSource
  ) {
    super();
  }

  /** Joins the directory into a {@link ForkingClusterInvoker}. */
  join(directory: Directory): Invoker {
    return new ForkingClusterInvoker(directory, this.loadBalances, this.logger, this.statuses, this.random);
  }
}
