import { SPI } from '../extension/decorators.js';
import type { URL } from '../rpc/url.js';
import type { Registry } from './registry.js';

/**
 * Creates registry clients: the `weft.registry.RegistryFactory` extension point.
 *
 * @remarks
 * Extension point `weft.registry.RegistryFactory`, default `embedded`, application scope; `getRegistry` is
 * adaptive on the registry URL's protocol, so `zookeeper://…` reaches `@weft/registry-zookeeper` and
 * `embedded://…` reaches `@weft/registry-embedded`. A factory returns one {@link Registry} per address
 * (`host:port` and root), created on first use and destroyed with the application. Registries are per address,
 * so — as in Dubbo — the extension point is the factory and `Registry` is the client contract.
 *
 * @example
 * ```ts
 * export class ZookeeperRegistryFactory extends RegistryFactory {
 *   getRegistry(url: URL) { … }
 * }
 * ```
 */
@SPI({ id: 'weft.registry.RegistryFactory', default: 'embedded', adaptive: { getRegistry: ['protocol'] } })
export abstract class RegistryFactory {
  /** The registry client for `url`'s address (one per address, reused). */
  abstract getRegistry(url: URL): Registry;
}
