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

import { FailsafeClusterInvoker } from './failsafe-cluster-invoker.js';

/**
 * Logs failures and answers with an empty result: the `Cluster` extension `failsafe`.
 *
 * @remarks
 * Extension `failsafe` of `weft.rpc.Cluster`, application scope, singleton. `join` returns a
 * {@link FailsafeClusterInvoker}. No URL keys of its own. Suited to calls whose failure must not affect the caller, such as
 * audit logging.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('failsafe').join(directory);
 * ```
 */
export class FailsafeCluster extends Cluster {
  constructor(
    @InjectLoader(LoadBalance) private readonly loadBalances: ExtensionLoader<LoadBalance>,
    @Inject(Logger) private readonly logger: Logger,
    @Inject(RpcStatusRegistry) private readonly statuses: RpcStatusRegistry,
    @Inject(RandomSource) private readonly random: RandomSource
  ) {
    super();
  }

  /** Joins the directory into a {@link FailsafeClusterInvoker}. */
  join(directory: Directory): Invoker {
    return new FailsafeClusterInvoker(directory, this.loadBalances, this.logger, this.statuses, this.random);
  }
}
