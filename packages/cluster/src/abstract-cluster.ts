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

import type { AbstractClusterInvoker } from './abstract-cluster-invoker.js';

/** What every cluster invoker is built from. */
export interface ClusterInvokerParts {
  readonly loadBalances: ExtensionLoader<LoadBalance>;
  readonly logger: Logger;
  readonly statuses: RpcStatusRegistry;
  readonly random: RandomSource;
}

/**
 * Base of the cluster strategies: injects what every cluster invoker needs and joins a directory into the
 * strategy's invoker.
 *
 * @remarks Subclasses only implement {@link AbstractCluster.createInvoker}; their constructor (and its
 * injection) is inherited. Application scope, singleton per application.
 * @example
 * ```ts
 * export class FirstCluster extends AbstractCluster {
 *   protected createInvoker(directory: Directory, parts: ClusterInvokerParts) {
 *     return new FirstClusterInvoker(directory, parts.loadBalances, parts.logger, parts.statuses, parts.random);
 *   }
 * }
 * ```
 */
export abstract class AbstractCluster extends Cluster {
  private readonly parts: ClusterInvokerParts;

  constructor(
    @InjectLoader(LoadBalance) loadBalances: ExtensionLoader<LoadBalance>,
    @Inject(Logger) logger: Logger,
    @Inject(RpcStatusRegistry) statuses: RpcStatusRegistry,
    @Inject(RandomSource) random: RandomSource,
  ) {
    super();
    this.parts = { loadBalances, logger, statuses, random };
  }

  /** Joins the directory into the strategy's invoker. */
  join(directory: Directory): Invoker {
    return this.createInvoker(directory, this.parts);
  }

  /** Builds the strategy's invoker for a directory. */
  protected abstract createInvoker(directory: Directory, parts: ClusterInvokerParts): AbstractClusterInvoker;
}
