import { Logger, RegistryFactory, type Registry, type URL } from '@weft/core';
import { Inject } from '@weft/core/spi';

import { EmbeddedRegistry } from './embedded-registry.js';
import { defaultRegistryDirectory } from './registry-folder.js';

/**
 * Creates {@link EmbeddedRegistry} clients: extension `embedded` of `weft.registry.RegistryFactory` (its default).
 *
 * @remarks One registry per directory and group, per application; destroyed with the application.
 * @example
 * ```ts
 * await WeftApplication.start({ root, registry: 'embedded://' }); // $XDG_RUNTIME_DIR/weft-registry, ~/.weft/registry, …
 * ```
 */
export class EmbeddedRegistryFactory extends RegistryFactory {
  private readonly registries = new Map<string, EmbeddedRegistry>();

  constructor(@Inject(Logger) private readonly logger: Logger) {
    super();
  }

  getRegistry(url: URL): Registry {
    const key = `${url.path}|${url.getParameter('group') ?? 'dubbo'}`;
    let registry = this.registries.get(key);
    if (registry === undefined) {
      registry = new EmbeddedRegistry(url, this.logger, defaultRegistryDirectory());
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
