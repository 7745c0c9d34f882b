import { splitCommaList } from '../extension/names.js';
import type { URL } from '../rpc/url.js';
import { Configurator } from './configurator.js';
import { OverrideIndex } from './override-index.js';
import { mergeProviderUrl } from './registry-directory.js';
import { isProviderEnabled } from './rule-limits.js';

/** One registered provider as a consumer's directory configures it. */
export interface ConfiguredProvider {
  /** The URL the provider registered. */
  readonly registered: URL;
  /** Merged with the consumer URL, then configured by the override rules that match it. */
  readonly url: URL;
  /** `false` when an override disabled it (`disabled=true`, or `enabled` other than `true`): never routed to. */
  readonly enabled: boolean;
  /** The override rules that matched it, in application order. */
  readonly rules: readonly Configurator[];
}

/**
 * What a consumer's registry directory makes of registered providers and override rules, computed once without a
 * directory: the configured consumer URL and each provider's configured URL, whether it stays enabled and which rules
 * changed it.
 *
 * @remarks
 * The same steps as the directory (Dubbo's `RegistryDirectory`): each provider URL is merged with the consumer URL,
 * the override rules (`configurators` URLs; an `empty://` one means none) are indexed for the consumer and applied to
 * the consumer URL and to every merged provider URL, a provider the rules disable is left out of routing, and a
 * consumer that names `protocol` keeps only providers of those protocols. `mock://` providers are not providers here.
 * For tools (`weft explain`) that show what a consumer would route among; consumers never call it.
 *
 * @example
 * ```ts
 * const { providers } = configureProviders(consumerUrl, providerUrls, configuratorUrls);
 * for (const p of providers) console.log(p.url.getAddress(), p.enabled ? p.url.getParameter('weight') : 'disabled');
 * ```
 */
export function configureProviders(
  consumerUrl: URL,
  providerUrls: readonly URL[],
  configuratorUrls: readonly URL[],
): { readonly consumerUrl: URL; readonly providers: readonly ConfiguredProvider[] } {
  const allowed = consumerUrl.getParameter('protocol');
  const protocols = allowed ? new Set(splitCommaList(allowed)) : undefined;
  const registered = providerUrls.filter((u) => u.protocol !== 'mock' && u.protocol !== 'empty' && (protocols === undefined || protocols.has(u.protocol)));
  const merged = registered.map((u) => mergeProviderUrl(u, consumerUrl));
  const rules = configuratorUrls.some((u) => u.protocol === 'empty') ? [] : (Configurator.toConfigurators(configuratorUrls) ?? []);
  const index = new OverrideIndex(consumerUrl);
  index.commit(index.planNow(rules, [consumerUrl, ...merged]));
  const providers = merged.map((url, i) => {
    const configured = index.configured(url);
    return { registered: registered[i] as URL, url: configured.url, enabled: isProviderEnabled(configured.url), rules: configured.matched };
  });
  return { consumerUrl: index.configured(consumerUrl).url, providers };
}
