import type { Logger } from '../common/logger.js';
import type { ExtensionLoader } from '../extension/extension-loader.js';
import type { Invoker } from '../rpc/invoker.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import { RouterChain, type NamedRouter } from './router-chain.js';
import type { RouterContext, RouterFactory } from './router.js';

/**
 * Builds a reference's router chain: the `weft.rpc.Router` factories activated for the consumer URL in group
 * `consumer` (URL key `router` adds or removes names), each asked for one router.
 *
 * @remarks `registered()` returns the provider URLs as registered; routers find an invoker's registered URL by
 * its identity (`protocol://host:port/path`, which overrides never change).
 * @internal
 */
export function buildRouterChain(
  factories: ExtensionLoader<RouterFactory>,
  service: ServiceDefinition,
  consumerUrl: URL,
  logger: Logger,
  registered: () => readonly URL[],
): RouterChain {
  let indexed: readonly URL[] | undefined;
  let byIdentity = new Map<string, URL>();
  const context: RouterContext = {
    service,
    consumerUrl,
    logger,
    providerUrlOf(invoker: Invoker): URL | undefined {
      const urls = registered();
      if (urls !== indexed) {
        indexed = urls;
        byIdentity = new Map(urls.map((u) => [u.toIdentityString(), u]));
      }
      return byIdentity.get(invoker.getUrl().toIdentityString());
    },
  };
  const routers: NamedRouter[] = factories
    .selectActivateNames(consumerUrl, 'router', 'consumer')
    .map((name) => ({ name, router: factories.getExtension(name).getRouter(context) }));
  return new RouterChain(routers, logger);
}
