import { Logger, RegistryFactory, type Registry, type URL } from '@weft/core';
import { Inject } from '@weft/core/spi';

import { ZookeeperRegistry } from './zookeeper-registry.js';

/**
 * Creates {@link ZookeeperRegistry} clients: extension `zookeeper` of `weft.registry.RegistryFactory`.
 *
 * @remarks Reached through the adaptive factory for registry URLs `zookeeper://host:port…`. One registry (one
 * ZooKeeper session) per address, backup list, root (`group`) and user, per application; every registry created
 * is destroyed with the application (its dynamic registrations removed, its session closed).
 * @example
 * ```ts
 * const app = await WeftApplication.start({ root, name: 'shop', registry: 'zookeeper://127.0.0.1:2181' });
 * app.registry; // a ZookeeperRegistry
 * ```
 */
export class ZookeeperRegistryFactory extends RegistryFactory {
  private readonly registries = new Map<string, ZookeeperRegistry>();

  constructor(@Inject(Logger) private readonly logger: Logger) {
    super();
  }

  getRegistry(url: URL): Registry {
    const key = [url.username, `${url.host || '127.0.0.1'}:${url.port || 2181}`, url.getParameter('backup') ?? '', url.getParameter('group', 'dubbo')].join('|');
    let registry = this.registries.get(key);
    if (registry === undefined) {
      registry = new ZookeeperRegistry(url, this.logger);
      this.registries.set(key, registry);
    }
    return registry;
  }

  /** Destroys every registry created (called when the application is destroyed). */
  async destroy(): Promise<void> {
    await Promise.allSettled([...this.registries.values()].map((r) => r.destroy()));
    this.registries.clear();
  }
}
