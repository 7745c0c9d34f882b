import type { NotifyListener } from '../registry/registry.js';
import type { RegistryCategory } from '../registry/url-match.js';
import { URL } from '../rpc/url.js';
import type { RegistrySession } from './registry-session.js';

/** The two kinds of config-centre routing rule: condition routes and tag routes. */
export type RouteRuleKind = 'condition' | 'tag';

/** Flags of a legacy condition route ({@link buildConditionRouteUrl}). */
export interface ConditionRouteFlags {
  /** Keep the rule when no provider matches its then-part. Default false. */
  readonly force?: boolean;
  /** Higher runs first. Default 0. */
  readonly priority?: number;
  /** The rule's runtime flag. Default false. */
  readonly runtime?: boolean;
  /** Write it with `enabled=false`. Default false. */
  readonly disabled?: boolean;
  readonly group?: string;
  readonly version?: string;
}

/**
 * A condition route in the legacy form Dubbo 2.7 and dubbo-admin register, exactly as `weft route add` writes it:
 * `condition://0.0.0.0/<service>?category=routers&dynamic=false&enabled=…&force=…&priority=…&router=condition&runtime=…&rule=<rule>`.
 *
 * @remarks The rule text is URL-encoded once more, as Dubbo writes it, so its `&` and `=` survive the registry's
 * node names.
 * @example
 * ```ts
 * buildConditionRouteUrl('org.acme.Users', 'method = find* => host != 10.20.153.11', { force: true });
 * ```
 */
export function buildConditionRouteUrl(service: string, text: string, flags: ConditionRouteFlags = {}): URL {
  const parameters: [string, string][] = [
    ['category', 'routers'],
    ['dynamic', 'false'],
    ['enabled', String(!(flags.disabled ?? false))],
    ['force', String(flags.force ?? false)],
    ['priority', String(flags.priority ?? 0)],
    ['router', 'condition'],
    ['runtime', String(flags.runtime ?? false)],
  ];
  if (flags.group !== undefined && flags.group !== '') parameters.push(['group', flags.group]);
  if (flags.version !== undefined && flags.version !== '') parameters.push(['version', flags.version]);
  parameters.push(['rule', URL.encode(text)]);
  return new URL({ protocol: 'condition', host: '0.0.0.0', path: service, parameters });
}

/**
 * The rule text of a legacy condition route URL, decoded as the consumers read it.
 *
 * @remarks A value that does not decode is returned as is.
 * @example
 * ```ts
 * conditionRouteText(buildConditionRouteUrl('S', 'a = b => c = d')); // 'a = b => c = d'
 * ```
 */
export function conditionRouteText(url: URL): string {
  const raw = url.getParameter('rule') ?? '';
  try {
    return /[%+]/.test(raw) ? URL.decode(raw) : raw;
  } catch {
    return raw;
  }
}

/**
 * The config-centre node name of a v3 YAML rule, as `weft route put` writes it: `<key>.<kind>-router`, where `key`
 * is an application, or (condition rules only) a service key `<interface>:<version>:<group>`.
 *
 * @remarks ZooKeeper keeps it at `/dubbo/config/dubbo/<node>` (`registry.configPath(node)`).
 * @example
 * ```ts
 * routeRuleNode('condition', 'org.acme.Greeter::'); // 'org.acme.Greeter::.condition-router'
 * routeRuleNode('tag', 'demo-provider'); // 'demo-provider.tag-router'
 * ```
 */
export function routeRuleNode(kind: RouteRuleKind, key: string): string {
  return `${key.trim()}.${kind}-router`;
}

/**
 * A config-centre rule delivered as the consumers' routers get it (`rule.yaml`, `rule.source`, `rule.scope`), for
 * validating it with {@link RegistrySession.checkRoutingRule} before it is written.
 *
 * @remarks `key` is the node's key (without `.<kind>-router`), `path` where it is stored.
 * @example
 * ```ts
 * await session.checkRoutingRule('tag', routeRuleUrl('tag', 'demo-provider', path, yaml));
 * ```
 */
export function routeRuleUrl(kind: RouteRuleKind, key: string, path: string, text: string): URL {
  return new URL({
    protocol: 'route',
    host: '0.0.0.0',
    path: key.includes(':') ? key.slice(0, key.indexOf(':')) : 'weft.cli.Rule',
    parameters: new Map([
      ['category', 'routers'],
      ['router', kind],
      ['rule.scope', key.includes(':') ? 'service' : 'application'],
      ['rule.source', path],
      ['rule.yaml', text],
    ]),
  });
}

/**
 * Reads the legacy routing rules of a service (its `routers` category, every group and version).
 *
 * @remarks Rules delivered from the config centre (`rule.yaml`) and `empty://` placeholders are dropped.
 * @example
 * ```ts
 * const routes = await readConditionRoutes(session, 'org.acme.Users');
 * ```
 */
export async function readConditionRoutes(session: RegistrySession, service: string): Promise<URL[]> {
  const subscription = new URL({
    protocol: 'consumer',
    host: '0.0.0.0',
    path: service,
    parameters: { interface: service, category: 'routers', side: 'consumer', group: '*', version: '*', enabled: '*', check: 'false' },
  });
  return session.call(`reading the routing rules of ${service}`, async () => {
    let deliver: (urls: readonly URL[]) => void = () => undefined;
    const first = new Promise<readonly URL[]>((resolve) => (deliver = resolve));
    const listener: NotifyListener = (category: RegistryCategory, urls) => {
      if (category === 'routers') deliver(urls);
    };
    await session.registry.subscribe(subscription, listener);
    try {
      return (await first).filter((u) => u.protocol !== 'empty' && u.getParameter('rule.yaml') === undefined);
    } finally {
      await session.registry.unsubscribe(subscription, listener).catch(() => undefined);
    }
  });
}
