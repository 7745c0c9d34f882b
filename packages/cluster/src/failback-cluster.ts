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

import { FailbackClusterInvoker } from './failback-cluster-invoker.js';

/**
 * Hides failures from the caller and retries them in the background: the `Cluster` extension `failback`.
 *
 * @remarks
 * Extension `failback` of `weft.rpc.Cluster`, application scope, singleton. `join` returns a
 * {@link FailbackClusterInvoker}. URL keys (service level): `retries` (default 3), `failbacktasks` (default
 * 100), `failback.interval` (default 5000 ms). The extension instance knows the invokers that have pending
 * retries (and only those, so idle invokers are never kept alive); its `destroy()` — called by core when the
 * application is destroyed — cancels all their timers. Suited to notifications that must eventually arrive.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getExtension('failback').join(directory);
 * await app.destroy(); // cancels pending background retries
 * ```
 */
export class FailbackCluster extends Cluster {
  private readonly pendingOwners = new Set<FailbackClusterInvoker>();

  constructor(
    @InjectLoader(LoadBalance) private readonly loadBalances: ExtensionLoader<LoadBalance>,
    @Inject(Logger) private readonly logger: Logger,
    @Inject(RpcStatusRegistry) private readonly statuses: RpcStatusRegistry,
    @Inject(RandomSource) private readonly random: RandomSource
  ) {
    super();
  }

  /** Joins the directory into a {@link FailbackClusterInvoker}. */
  join(directory: Directory): Invoker {
    return new FailbackClusterInvoker(directory, this.loadBalances, this.logger, this.statuses, this.random, this.pendingOwners);
  }

  /** Cancels the pending background retries of every invoker this extension joined. */
  destroy(): void {
    for (const invoker of [...this.pendingOwners]) invoker.cancelRetries();
    this.pendingOwners.clear();
  }
}
