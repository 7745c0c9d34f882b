import type { Invocation } from '../rpc/invocation.js';
import type { Invoker } from '../rpc/invoker.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import { Directory } from './directory.js';

/**
 * A directory over a fixed list of invokers (direct connections, tests).
 *
 * @remarks `list()` returns the fixed list (clusters check availability when they select); `destroy()`
 * destroys the invokers.
 * @example
 * ```ts
 * const directory = new StaticDirectory(Greeter, consumerUrl, [a, b]);
 * ```
 */
export class StaticDirectory extends Directory {
  private destroyed = false;

  constructor(
    readonly service: ServiceDefinition,
    private readonly url: URL,
    private readonly invokers: readonly Invoker[],
  ) {
    super();
  }

  getUrl(): URL {
    return this.url;
  }

  getConsumerUrl(): URL {
    return this.url;
  }

  list(_invocation: Invocation): readonly Invoker[] {
    return this.invokers;
  }

  getAllInvokers(): readonly Invoker[] {
    return this.invokers;
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    await Promise.all(this.invokers.map((i) => i.destroy()));
  }
}
