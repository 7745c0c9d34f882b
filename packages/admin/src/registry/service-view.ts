import {
  conditionRouteText,
  isSecretKey,
  maskSecrets,
  overrideSettings,
  ParameterRegistry,
  readConditionRoutes,
  readOverrideRules,
  parseReturnTypes,
  readRegistrations,
  RETURN_TYPES_KEY,
  routeRuleNode,
  type RegistrySession,
  type URL,
} from '@weft/core';
import { splitCommaList } from '@weft/core/spi';

import { HttpError } from '../http/http-error.js';
import { closestName, SERVICE_NAME } from './service-names.js';

/** What the registry holds for one service, read fresh. */
export interface ServiceState {
  readonly service: string;
  readonly providers: readonly URL[];
  readonly consumers: readonly URL[];
  readonly overrides: readonly URL[];
  readonly routes: readonly URL[];
  /** Config-centre routing documents: the provider applications' tag rules and the service's condition rule. */
  readonly documents: readonly { readonly kind: 'condition' | 'tag'; readonly path: string; readonly text: string }[];
}

/** A registered URL's parameters, secrets masked. */
function maskedParameters(url: URL, secrets: ReadonlySet<string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of url.parameters) out[key] = value !== '' && isSecretKey(key, secrets) ? '***' : value;
  return out;
}

/** Whether an override rule addresses the provider at `address` (`host:port`) or every provider (`0.0.0.0`). */
function ruleAddresses(rule: URL, provider: URL): boolean {
  if (rule.host === '0.0.0.0' || rule.host === '') return true;
  if (rule.host !== provider.host) return false;
  return rule.port === 0 || rule.port === provider.port;
}

/** Whether a rule's group/version conditions (if any) match the provider's. */
function ruleMatchesKey(rule: URL, provider: URL): boolean {
  const group = rule.getGroup();
  const version = rule.getVersion();
  if (group && group !== '*' && group !== (provider.getGroup() ?? '')) return false;
  if (version && version !== '*' && version !== (provider.getVersion() ?? '')) return false;
  return true;
}

/**
 * Reads and presents one registry's services for the console: lists with counts, one service in detail.
 *
 * @remarks Every answer is read fresh from the registry through core's governance helpers (the same reads
 * `weft override list` and `weft route list` do); secret parameters are masked `***` everywhere.
 * @example
 * ```ts
 * const view = new ServiceView(session);
 * const state = await view.read('org.acme.Greeter');
 * ```
 */
export class ServiceView {
  private readonly secrets: ReadonlySet<string>;

  constructor(private readonly session: RegistrySession) {
    this.secrets = ParameterRegistry.fromIndex(session.index, { firstParty: 'all' }).secretKeys;
  }

  /** The services the registry knows, sorted. */
  async services(): Promise<string[]> {
    const listed = await this.session.call('listing the services', () => this.session.registry.listServices());
    return [...new Set(listed ?? [])].filter((s) => SERVICE_NAME.test(s)).sort();
  }

  /**
   * Resolves a service name given by a client: must be a service interface name the registry knows.
   * @throws {@link HttpError} 400 for a malformed name, 404 naming the closest known service.
   */
  async known(service: string): Promise<string> {
    if (!SERVICE_NAME.test(service)) throw new HttpError(400, `"${service.slice(0, 200)}" is not a service interface name (dotted identifiers such as org.acme.Greeter)`);
    const services = await this.services();
    if (services.includes(service)) return service;
    const near = closestName(service, services);
    throw new HttpError(
      404,
      `unknown service ${service}: nothing is registered for it at ${this.session.address}` +
        (near !== undefined ? `; did you mean ${near}?` : ` (services: ${services.slice(0, 20).join(', ') || 'none'})`),
    );
  }

  /** What the registry holds for `service` now. */
  async read(service: string): Promise<ServiceState> {
    const { providers, consumers } = await readRegistrations(this.session, service);
    const overrides = await readOverrideRules(this.session, service);
    const routes = await readConditionRoutes(this.session, service);
    const documents: { kind: 'condition' | 'tag'; path: string; text: string }[] = [];
    const apps = [...new Set(providers.map((p) => p.getApplication()).filter((a): a is string => a !== undefined && a !== ''))].sort().slice(0, 20);
    const nodes: ['condition' | 'tag', string][] = [['condition', routeRuleNode('condition', `${service}::`)], ...apps.map((a): ['tag', string] => ['tag', routeRuleNode('tag', a)])];
    for (const [kind, node] of nodes) {
      const path = this.session.registry.configPath(node);
      if (path === undefined) continue;
      const text = await this.session.call(`reading ${path}`, () => this.session.registry.getConfig(node));
      if (text !== undefined && text.trim() !== '') documents.push({ kind, path, text });
    }
    return { service, providers, consumers, overrides, routes, documents };
  }

  /** Whether `provider` is enabled: no `disabled=true` override for its address applies, and not `enabled=false`. */
  providerEnabled(provider: URL, overrides: readonly URL[]): boolean {
    if (provider.getParameter('enabled') === 'false') return false;
    let enabled = true;
    for (const rule of overrides) {
      if (rule.getParameter('enabled') === 'false' || !ruleAddresses(rule, provider) || !ruleMatchesKey(rule, provider)) continue;
      const disabled = rule.getParameter('disabled');
      if (disabled !== undefined) enabled = disabled.toLowerCase() !== 'true';
    }
    return enabled;
  }

  /** The method names the providers and consumers declare (`methods`), sorted. */
  methods(state: ServiceState): string[] {
    const names = new Set<string>();
    for (const url of [...state.providers, ...state.consumers]) for (const m of splitCommaList(url.getParameter('methods') ?? '')) if (m !== '') names.add(m);
    return [...names].sort();
  }

  /**
   * The declared return type of each method, as the registrations' `weft.returns` name it (see `typeText` of
   * `@weft/core`): the providers' first, then the consumers' (the first registration naming a method wins).
   */
  returnTypes(state: ServiceState): Map<string, string> {
    const types = new Map<string, string>();
    for (const url of [...state.providers, ...state.consumers]) {
      for (const [method, text] of parseReturnTypes(url.getParameter(RETURN_TYPES_KEY))) if (!types.has(method)) types.set(method, text);
    }
    return types;
  }

  /** The mock the service's rules set: the service-level `mock` value, else the first `<method>.mock` value (the detail names the method). */
  mockOf(state: ServiceState): string | null {
    let methodLevel: string | null = null;
    for (const rule of state.overrides) {
      if (rule.getParameter('enabled') === 'false') continue;
      const settings = overrideSettings(rule);
      const mock = settings.get('mock');
      if (mock !== undefined && mock !== '') return mock;
      for (const [key, value] of settings) if (methodLevel === null && key.endsWith('.mock') && value !== '') methodLevel = value;
    }
    return methodLevel;
  }

  /** The detail answer of `GET /api/services/<interface>` (filtered by group/version when given). */
  detail(state: ServiceState, filter: { group?: string | undefined; version?: string | undefined } = {}) {
    const keep = (u: URL) => (filter.group === undefined || (u.getGroup() ?? '') === filter.group) && (filter.version === undefined || (u.getVersion() ?? '') === filter.version);
    const providers = state.providers.filter(keep);
    const consumers = state.consumers.filter(keep);
    const returnTypes = this.returnTypes(state);
    return {
      service: state.service,
      methods: this.methods(state).map((name) => ({ name, returns: returnTypes.get(name) ?? null })),
      providers: providers.map((p) => ({
        url: maskSecrets(p, this.secrets),
        address: p.getAddress(),
        application: p.getApplication() ?? null,
        protocol: p.protocol,
        group: p.getGroup() || null,
        version: p.getVersion() || null,
        weight: Number(p.getParameter('weight') ?? 100),
        enabled: this.providerEnabled(p, state.overrides),
        parameters: maskedParameters(p, this.secrets),
      })),
      consumers: consumers.map((c) => ({ url: maskSecrets(c, this.secrets), address: c.host, application: c.getApplication() ?? null, parameters: maskedParameters(c, this.secrets) })),
      overrides: state.overrides.map((o) => ({
        url: maskSecrets(o, this.secrets),
        address: o.getAddress(),
        enabled: o.getParameter('enabled') !== 'false',
        parameters: Object.fromEntries([...overrideSettings(o)].map(([k, v]) => [k, v !== '' && isSecretKey(k, this.secrets) ? '***' : v])),
      })),
      routes: [
        ...state.routes.map((r) => ({ kind: (r.getParameter('router') === 'tag' ? 'tag' : 'condition') as 'condition' | 'tag', text: conditionRouteText(r), url: maskSecrets(r, this.secrets) })),
        ...state.documents.map((d) => ({ kind: d.kind, text: d.text, url: d.path })),
      ],
    };
  }

  /** The secret keys to mask (built-in names plus those the installed packages declare). */
  get secretKeys(): ReadonlySet<string> {
    return this.secrets;
  }
}
