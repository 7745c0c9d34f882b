import type { Invocation } from '../rpc/invocation.js';
import type { Invoker } from '../rpc/invoker.js';
import type { URL } from '../rpc/url.js';
import type { RpcStatusRegistry } from '../rpc/rpc-status.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import { Directory } from './directory.js';

/**
 * A directory over a fixed list of invokers (direct connections, tests).
 *
 * @remarks `list()` returns the fixed list without `mock://` providers (clusters check availability when they
 * select); `destroy()` destroys the invokers and releases their `RpcStatus` counters.
 * @example
 * ```ts
 * const directory = new StaticDirectory(Greeter, consumerUrl, [a, b]);
 * ```
 */
export class StaticDirectory extends Directory {
  private destroyed = false;
  private readonly routable: readonly Invoker[];
  private current: URL;

  constructor(
    readonly service: ServiceDefinition,
    private readonly url: URL,
    private readonly invokers: readonly Invoker[],
    /** When given, the counters of the invokers are released when the directory is destroyed. */
    private readonly statuses?: RpcStatusRegistry,
  ) {
    super();
    this.current = url;
    this.routable = invokers.filter((i) => i.getUrl().protocol !== 'mock');
  }

  /** The consumer URL with the configured overrides. */
  getUrl(): URL {
    return this.current;
  }

  /** The consumer URL as referred. */
  getConsumerUrl(): URL {
    return this.url;
  }

  /**
   * Replaces the effective URL (the consumer URL with overrides applied); the next call reads it.
   * Callers validate first: `WeftApplication.override` does.
   */
  configure(url: URL): void {
    this.current = url;
  }

  list(_invocation: Invocation): readonly Invoker[] {
    return this.routable;
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
    for (const invoker of this.invokers) this.statuses?.remove(invoker.getUrl());
  }
}
