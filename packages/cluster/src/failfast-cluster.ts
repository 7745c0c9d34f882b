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

import { FailfastClusterInvoker } from './failfast-cluster-invoker.js';

/**
 * Makes exactly one attempt and reports its failure at once: the `Cluster` extension `failfast`.
 *
 * @remarks
 * Extension `failfast` of `weft.rpc.Cluster`, application scope, singleton. `join` returns a
 * {@link FailfastClusterInvoker}. No URL keys of its own. Suited to non-idempotent writes.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('failfast').join(directory);
 * ```
 */
export class FailfastCluster extends Cluster {
  constructor(
    @InjectLoader(LoadBalance) private readonly loadBalances: ExtensionLoader<LoadBalance>,
    @Inject(Logger) private readonly logger: Logger,
    @Inject(RpcStatusRegistry) private readonly statuses: RpcStatusRegistry,
    @Inject(RandomSource) private readonly random: RandomSource
  ) {
    super();
  }

  /** Joins the directory into a {@link FailfastClusterInvoker}. */
  join(directory: Directory): Invoker {
    return new FailfastClusterInvoker(directory, this.loadBalances, this.logger, this.statuses, this.random);
  }
}
