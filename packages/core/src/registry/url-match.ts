import { splitCommaList } from '../extension/names.js';
import type { URL } from '../rpc/url.js';

/** Categories a registry keeps per service. */
export const RegistryCategory = {
  PROVIDERS: 'providers',
  CONSUMERS: 'consumers',
  CONFIGURATORS: 'configurators',
  ROUTERS: 'routers',
} as const;

/** One of the {@link RegistryCategory} values. */
export type RegistryCategory = (typeof RegistryCategory)[keyof typeof RegistryCategory];

/** Whether a URL is an override rule: protocol `override`/`absent`, or category `configurators`. */
export function isConfigurator(url: URL): boolean {
  return url.protocol === 'override' || url.protocol === 'absent' || url.getCategory() === RegistryCategory.CONFIGURATORS;
}

/** Whether a URL is a routing rule: protocol `route`, or category `routers`. */
export function isRouter(url: URL): boolean {
  return url.protocol === 'route' || url.getCategory() === RegistryCategory.ROUTERS;
}

/**
 * Dubbo's `UrlUtils.isMatch(consumer, url)`: whether a registry entry concerns this consumer.
 *
 * @remarks All must hold: same interface (or either side `*`); the entry's category (default `providers`) is among
 * the consumer's `category` list (default `providers`); the entry is not `enabled=false` (unless the consumer
 * says `enabled=*`); group: the consumer's is `*`, equal, or a comma list containing the entry's; version: the
 * consumer's is `*` or equal (unset equals unset only); `classifier` likewise. This applies to override rules
 * too: an override without `version` does not reach a consumer of version `1.0.0`.
 * @example
 * ```ts
 * isMatch(consumerUrl, URL.parse('tri://10.0.0.5:50051/org.acme.Greeter?version=1.0.0')); // true for a 1.0.0 consumer
 * ```
 */
export function isMatch(consumer: URL, url: URL): boolean {
  return matcherFor(consumer)(url);
}

/**
 * {@link isMatch} with the consumer's side parsed once: the test for many entries of one subscription.
 * @example
 * ```ts
 * const matches = matcherFor(subscriptionUrl);
 * const mine = entries.filter(matches);
 * ```
 */
export function matcherFor(consumer: URL): (url: URL) => boolean {
  const consumerInterface = consumer.getServiceInterface();
  const categories = new Set(splitCommaList(consumer.getParameter('category') ?? RegistryCategory.PROVIDERS));
  const anyCategory = categories.has('*');
  const anyEnabled = consumer.getParameter('enabled') === '*';
  const consumerGroup = consumer.getGroup() || undefined;
  const consumerGroups = consumerGroup === undefined ? undefined : new Set(splitCommaList(consumerGroup));
  const consumerVersion = consumer.getVersion() || undefined;
  const consumerClassifier = consumer.getParameter('classifier') || '*';
  return (url) => {
    const providerInterface = url.getServiceInterface();
    if (!(consumerInterface === '*' || providerInterface === '*' || consumerInterface === providerInterface)) return false;
    const category = isConfigurator(url)
      ? RegistryCategory.CONFIGURATORS
      : isRouter(url)
        ? RegistryCategory.ROUTERS
        : url.getCategory(RegistryCategory.PROVIDERS);
    if (!anyCategory && !categories.has(category)) return false;
    if (!anyEnabled && url.getParameter('enabled') === 'false') return false;
    const providerGroup = url.getGroup() || undefined;
    const providerVersion = url.getVersion() || undefined;
    const providerClassifier = url.getParameter('classifier') || undefined;
    const groupMatches =
      consumerGroup === '*' ||
      consumerGroup === providerGroup ||
      (consumerGroups !== undefined && providerGroup !== undefined && consumerGroups.has(providerGroup));
    const versionMatches = consumerVersion === '*' || consumerVersion === providerVersion;
    const classifierMatches = consumerClassifier === '*' || consumerClassifier === providerClassifier;
    return groupMatches && versionMatches && classifierMatches;
  };
}

/**
 * The category a URL is registered under: its `category` parameter; `configurators` for `override://`/`absent://`
 * rules; `routers` for `route://`; else `consumers` or `providers` by side.
 * @example
 * ```ts
 * registryCategoryOf(URL.parse('override://0.0.0.0/org.acme.Greeter?mock=force')); // 'configurators'
 * ```
 */
export function registryCategoryOf(url: URL): string {
  const category = url.getParameter('category');
  if (category) return category;
  if (url.protocol === 'override' || url.protocol === 'absent') return RegistryCategory.CONFIGURATORS;
  if (url.protocol === 'route') return RegistryCategory.ROUTERS;
  return url.getSide() === 'consumer' || url.protocol === 'consumer' ? RegistryCategory.CONSUMERS : RegistryCategory.PROVIDERS;
}
