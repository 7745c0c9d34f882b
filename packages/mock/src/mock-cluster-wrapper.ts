import { ApplicationEvents, ApplicationModel, Cluster, Logger, type Directory, type Invoker } from '@weft/core';
import { Inject, InjectWrapped } from '@weft/core/spi';

import { FailMockWarnings } from './fail-mock-warnings.js';
import { MockClusterInvoker } from './mock-cluster-invoker.js';
import { MockExpressionCache } from './mock-expression-cache.js';
import { MockRegistry } from './mock-registry.js';

/**
 * Wraps every cluster so that any reference can degrade: installing `@weft/mock` is all it takes.
 *
 * @remarks Wrapper (order 0) of the `weft.rpc.Cluster` extension point: `join(directory)` returns a
 * {@link MockClusterInvoker} around the wrapped cluster's invoker. Users never opt in by hand.
 * @example
 * ```ts
 * // app.model.getExtensionLoader(Cluster).getExtension('failover') is already wrapped by this class.
 * ```
 */
export class MockClusterWrapper extends Cluster {
  constructor(
    @InjectWrapped() private readonly cluster: Cluster,
    @Inject(ApplicationModel) private readonly app: ApplicationModel,
    @Inject(Logger) private readonly logger: Logger,
  ) {
    super();
  }

  join(directory: Directory): Invoker {
    return new MockClusterInvoker(
      directory,
      this.cluster.join(directory),
      MockRegistry.of(this.app),
      this.logger,
      MockExpressionCache.of(this.app),
      FailMockWarnings.of(this.app),
      this.app.getService(ApplicationEvents),
    );
  }
}
