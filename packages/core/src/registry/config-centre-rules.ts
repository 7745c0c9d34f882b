import { URL } from '../rpc/url.js';
import { RegistryCategory } from './url-match.js';

/**
 * A config-centre routing rule (`{key}.condition-router`, `{app}.tag-router`) as the `routers` URL a registry delivers
 * to `subscription`: `route://0.0.0.0/{interface}?category=routers&router=…&rule.scope=…&rule.source=…&rule.yaml=…`.
 *
 * @remarks The subscriber's group and version are copied so the registry's matching delivers the rule to it. The
 * routers of `@weft/routers` parse and validate `rule.yaml` (and keep the previous rule when a new text is refused).
 * `undefined` when the text is empty (no rule).
 * @example
 * ```ts
 * configCentreRouteUrl(subscription, 'tag', 'provider-application', '/dubbo/config/dubbo/shop.tag-router', text);
 * ```
 */
export function configCentreRouteUrl(subscription: URL, router: 'condition' | 'tag', scope: string, source: string, text: string): URL | undefined {
  if (text.trim() === '') return undefined;
  const parameters = new Map([
    ['category', RegistryCategory.ROUTERS as string],
    ['router', router],
    ['rule.scope', scope],
    ['rule.source', source],
    ['rule.yaml', text],
  ]);
  for (const key of ['group', 'version'] as const) {
    const value = subscription.getParameter(key);
    if (value) parameters.set(key, value);
  }
  return new URL({ protocol: 'route', host: '0.0.0.0', path: subscription.getServiceInterface() ?? subscription.path, parameters });
}

/**
 * An override URL translated from a config-centre configurator rule, as delivered to `subscription`.
 *
 * @remarks App-scope rules for every service (`*`) carry no group or version; the registry's matching (an override
 * without `version` does not reach a consumer of version 1.0.0) would drop them, although Dubbo applies them to every
 * service of the application. They are given the subscriber's group and version, which the configurator then ignores
 * for a `*` rule. Other rules are returned as they are.
 * @example
 * ```ts
 * const urls = parseConfiguratorRules(text).map((u) => configuratorForSubscriber(u, subscription));
 * ```
 */
export function configuratorForSubscriber(rule: URL, subscription: URL): URL {
  if (rule.path !== '*') return rule;
  return rule.addParameters({ group: subscription.getGroup(), version: subscription.getVersion() });
}

/** A config-centre document a subscription reads: its key, which rule it holds, and the rule's scope. */
export interface ConfigCentreDocument {
  /** `shop.configurators`, `org.acme.Greeter::.condition-router`, `demo-provider.tag-router`. */
  readonly key: string;
  readonly kind: 'configurators' | 'condition' | 'tag';
  /** `application` (the consumer's), `service` or `provider-application`. */
  readonly scope: 'application' | 'service' | 'provider-application';
}

/**
 * The config-centre documents a subscription reads for its `configurators` or `routers` category, in the order their
 * rules apply: the subscriber application's, then the service's (`{interface}:{version}:{group}`).
 *
 * @remarks Routing rules of the provider applications come from {@link providerApplicationDocuments}, once the
 * providers are known. Shared by every registry with a config centre, so they all read the same documents.
 * @example
 * ```ts
 * subscriptionDocuments(subscription, 'configurators'); // [{ key: 'shop.configurators', … }, { key: 'org.acme.Greeter::.configurators', … }]
 * ```
 */
export function subscriptionDocuments(subscription: URL, category: 'configurators' | 'routers'): ConfigCentreDocument[] {
  const application = subscription.getApplication();
  const service = subscription.getColonSeparatedKey();
  const kind = category === 'configurators' ? 'configurators' : 'condition';
  const suffix = category === 'configurators' ? 'configurators' : 'condition-router';
  return [
    ...(application ? [{ key: `${application}.${suffix}`, kind, scope: 'application' } as const] : []),
    { key: `${service}.${suffix}`, kind, scope: 'service' } as const,
  ];
}

/**
 * The routing documents of a provider application seen among a subscription's providers: its tag rule, and its
 * condition rule unless it is the subscriber's own application (read already as the application's).
 *
 * @example
 * ```ts
 * providerApplicationDocuments('demo-provider', 'shop'); // demo-provider.tag-router, demo-provider.condition-router
 * ```
 */
export function providerApplicationDocuments(application: string, consumerApplication: string | undefined): ConfigCentreDocument[] {
  const tag = { key: `${application}.tag-router`, kind: 'tag', scope: 'provider-application' } as const;
  if (application === consumerApplication) return [tag];
  return [tag, { key: `${application}.condition-router`, kind: 'condition', scope: 'provider-application' }];
}
