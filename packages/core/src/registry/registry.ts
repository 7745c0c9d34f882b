import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import type { URL } from '../rpc/url.js';
import type { RegistryCategory } from './url-match.js';

/**
 * Receives the current entries of one category of a subscribed service.
 *
 * @remarks Each notification carries the **full** current list of that category (never a delta); an empty
 * category arrives as a single `empty://` URL with `category=<category>`.
 */
export type NotifyListener = (category: RegistryCategory, urls: readonly URL[]) => void;

/**
 * A connection to one registry (one address): where providers register and consumers discover them.
 *
 * @remarks
 * Obtained from a `RegistryFactory` extension (`weft.registry.RegistryFactory`, adaptive on the registry URL's
 * protocol): `zookeeper://127.0.0.1:2181`, `embedded:///path/to/dir`. Layout and semantics follow Dubbo's
 * interface-level registry: per service, the categories `providers`, `consumers`, `configurators` (override
 * rules) and `routers`; `register` publishes a URL (ephemeral unless `dynamic=false`), `subscribe` delivers the
 * matching entries of the categories named by the subscription URL's `category` parameter — first all of
 * them, then each category again whenever it changes. Implementations extend `AbstractRegistry`, which keeps
 * registrations and subscriptions across reconnects, retries failures, and caches notifications on disk.
 *
 * @example
 * ```ts
 * const registry = app.model.getExtensionLoader(RegistryFactory).getAdaptiveExtension().getRegistry(registryUrl);
 * await registry.register(providerUrl);
 * registry.subscribe(consumerUrl.addParameter('category', 'providers,configurators'), (category, urls) => …);
 * ```
 */
export abstract class Registry {
  /** The registry's own URL. */
  abstract getUrl(): URL;
  /** Whether the registry is reachable now. */
  abstract isAvailable(): boolean;
  /** Publishes a URL under its service and category. */
  abstract register(url: URL): Promise<void>;
  /** Removes a published URL. */
  abstract unregister(url: URL): Promise<void>;
  /** Subscribes a listener to the categories named by `url`'s `category` parameter. */
  abstract subscribe(url: URL, listener: NotifyListener): Promise<void>;
  /** Stops notifying a listener. */
  abstract unsubscribe(url: URL, listener: NotifyListener): Promise<void>;
  /** The entries last seen for a subscription URL (all its categories). */
  abstract lookup(url: URL): readonly URL[];
  /**
   * The service interfaces the registry holds entries for, for tools (`weft override set` suggests the closest
   * one for a misspelt service); `undefined` when this registry cannot list them.
   */
  listServices(): Promise<readonly string[] | undefined> {
    return Promise.resolve(undefined);
  }
  /**
   * Where this registry keeps config-centre documents (`/dubbo/config/dubbo/<key>` on ZooKeeper), for tools that
   * write rules (`weft route`); `undefined` when it has no config centre.
   */
  configPath(_key: string): string | undefined {
    return undefined;
  }
  /**
   * Writes (or, with `undefined`, deletes) a config-centre document such as `shop.condition-router`.
   * @throws `RpcError` `registry` when the registry has no config centre or the write fails.
   */
  publishConfig(key: string, _content: string | undefined): Promise<void> {
    return Promise.reject(new RpcError(RpcErrorCode.REGISTRY, `${this.getUrl().toIdentityString()} has no config centre: cannot write ${key}`));
  }
  /** Reads a config-centre document; `undefined` when absent (or when the registry has no config centre). */
  getConfig(_key: string): Promise<string | undefined> {
    return Promise.resolve(undefined);
  }
  /** Unregisters dynamic URLs, stops watching and disconnects. */
  abstract destroy(): Promise<void>;
}
