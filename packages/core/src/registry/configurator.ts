import { splitCommaList } from '../extension/names.js';
import { URL } from '../rpc/url.js';

/** Keys of an override rule that are conditions, never applied as parameters. */
const CONDITION_KEYS = new Set([
  'category',
  'check',
  'dynamic',
  'enabled',
  'group',
  'version',
  'application',
  'side',
  'configVersion',
  'compatible_config',
  'interfaces',
  // Weft also never applies these bookkeeping keys of a rule.
  'providerAddresses',
  'priority',
  'anyhost',
]);

/**
 * One override rule (`override://` or `absent://`), applied to URLs it matches.
 *
 * @remarks Dubbo's `AbstractConfigurator` rules (see `docs/guide/governance.md`): a rule with `enabled=false`
 * never applies; with `configVersion` (2.7+ rules) a `side=consumer` rule matches consumer URLs against the
 * consumer's host and a `side=provider` rule provider URLs against their host; without it (legacy rules), a rule
 * **with a port** applies to the URL with that port (and host), a rule **without a port** to a consumer URL whose
 * host it names (or `0.0.0.0`) and to a provider URL only when it says `0.0.0.0`. Then `providerAddresses`,
 * `application` (or the user name), the service key (`[group/]interface[:version]`, or `*`) and every `~key`,
 * `side` and `application` condition must match. Applying adds the rule's parameters (all but its conditions):
 * `override` overwrites, `absent` only fills what is missing.
 * @example
 * ```ts
 * const rule = Configurator.from(URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&mock=force:return+null'));
 * const configured = rule?.configure(consumerUrl, consumerUrl.host);
 * ```
 */
export class Configurator {
  /** `host` of the rule (what rules are sorted by first). */
  readonly host: string;
  /** `priority` of the rule (sorted by second, ascending). */
  readonly priority: number;
  private readonly enabled: boolean;
  private readonly versioned: boolean;
  private readonly side: string | undefined;
  private readonly providerAddresses: readonly string[] | undefined;
  private readonly application: string | undefined;
  private readonly serviceKey: string | undefined;
  /** The `~key`, `side` and `application` conditions: target key and the value it must have (`*` = any). */
  private readonly conditions: ReadonlyArray<readonly [string, string]>;

  private constructor(
    /** The rule as written. */
    readonly url: URL,
    private readonly absent: boolean,
    private readonly parameters: ReadonlyMap<string, string>,
  ) {
    this.host = url.host;
    this.priority = priorityOf(url);
    this.enabled = url.getParameter('enabled') !== 'false';
    this.versioned = !!url.getParameter('configVersion');
    this.side = url.getSide();
    const providerAddresses = url.getParameter('providerAddresses');
    this.providerAddresses = providerAddresses ? splitCommaList(providerAddresses) : undefined;
    this.application = url.getApplication() || url.username || undefined;
    this.serviceKey = url.path === '*' ? undefined : url.getServiceKey();
    const conditions: Array<readonly [string, string]> = [];
    for (const [key, value] of url.parameters) {
      if (key.startsWith('~')) conditions.push([key.slice(1), value]);
      else if (key === 'application' || key === 'side') conditions.push([key, value]);
    }
    this.conditions = conditions;
  }

  /** A configurator for an override URL, or `undefined` for one that changes nothing (only conditions). */
  static from(url: URL): Configurator | undefined {
    const parameters = new Map<string, string>();
    for (const [key, value] of url.parameters) {
      if (!CONDITION_KEYS.has(key) && !key.startsWith('~')) parameters.set(key, value);
    }
    if (parameters.size === 0) return undefined;
    return new Configurator(url, url.protocol === 'absent', parameters);
  }

  /**
   * Builds the ordered configurators of a notification (Dubbo's `toConfigurators`): `undefined` for an empty
   * list (keep the previous rules), `[]` when an `empty://` URL clears them, else the rules sorted by host string
   * then `priority` ascending — applied in that order, so later ones win.
   */
  static toConfigurators(urls: readonly URL[]): Configurator[] | undefined {
    if (urls.length === 0) return undefined;
    const out: Configurator[] = [];
    for (const url of urls) {
      if (url.protocol === 'empty') return [];
      const configurator = Configurator.from(url);
      if (configurator !== undefined) out.push(configurator);
    }
    return out.sort(Configurator.compare);
  }

  /** The application order of two rules: host string, then `priority` ascending (Dubbo's `compareTo`). */
  static compare(this: void, a: Configurator, b: Configurator): number {
    return a.host < b.host ? -1 : a.host > b.host ? 1 : a.priority - b.priority;
  }

  /** The parameters this rule sets. */
  get appliedParameters(): ReadonlyMap<string, string> {
    return this.parameters;
  }

  /** Whether the rule names a provider address (`host:port`). */
  get addressed(): boolean {
    return this.url.port !== 0;
  }

  /**
   * Applies the rule to `url` if it matches; returns `url` itself otherwise.
   * @param localHost - the consumer's own host (what a port-less consumer rule is matched against).
   */
  configure(url: URL, localHost: string): URL {
    const changes = new Map<string, string>();
    if (!this.matches(url, (key) => url.getParameter(key), localHost)) return url;
    this.applyTo((key) => url.getParameter(key), changes);
    return changes.size === 0 ? url : url.addParameters(changes);
  }

  /**
   * Whether the rule applies to a target URL whose parameters are read through `get` (the URL's own, or as edited
   * by earlier rules) — Dubbo's `AbstractConfigurator.configure` decision (see the class remarks).
   * @internal
   */
  matches(url: URL, get: (key: string) => string | undefined, localHost: string): boolean {
    if (!this.enabled || this.host === '' || url.host === '') return false;
    const side = get('side');
    if (this.versioned) {
      if (side === 'consumer' && this.side === 'consumer') return this.matchesAt(localHost, url, get);
      if (side === 'provider' && this.side === 'provider') return this.matchesAt(url.host, url, get);
      return false;
    }
    if (this.url.port !== 0) return url.port === this.url.port && this.matchesAt(url.host, url, get);
    if (side === 'consumer') return this.matchesAt(localHost, url, get);
    if (side === 'provider') return this.matchesAt('0.0.0.0', url, get);
    return false;
  }

  /**
   * Writes the parameters this rule changes into `changes` (`override` overwrites, `absent` fills what is missing
   * or empty), reading current values through `get`; returns whether anything changed.
   * @internal
   */
  applyTo(get: (key: string) => string | undefined, changes: Map<string, string>): boolean {
    let changed = false;
    for (const [key, value] of this.parameters) {
      if (value === '') continue;
      const current = changes.has(key) ? changes.get(key) : get(key);
      if (current === value || (this.absent && current)) continue;
      changes.set(key, value);
      changed = true;
    }
    return changed;
  }

  /** Whether this rule can ever apply to an URL with a different side than `consumer` (for indexing). @internal */
  get versionedSide(): string | undefined {
    return this.versioned ? (this.side ?? '') : undefined;
  }

  /** `providerAddresses` of the rule, split. @internal */
  get targetAddresses(): readonly string[] | undefined {
    return this.providerAddresses;
  }

  /** The application the rule is limited to (`application` or user name), if any. @internal */
  get targetApplication(): string | undefined {
    return this.application;
  }

  /** Whether the rule is `enabled` (not `enabled=false`). @internal */
  get isEnabled(): boolean {
    return this.enabled;
  }

  private matchesAt(host: string, url: URL, get: (key: string) => string | undefined): boolean {
    if (this.host !== '0.0.0.0' && this.host !== host) return false;
    const providerAddresses = this.providerAddresses;
    if (providerAddresses !== undefined) {
      const address = url.getAddress();
      const ok = providerAddresses.some(
        (a) => a === address || a === '0.0.0.0' || a === '0.0.0.0:*' || a === `0.0.0.0:${url.port}` || a === url.host,
      );
      if (!ok) return false;
    }
    const ruleApp = this.application;
    if (ruleApp !== undefined && ruleApp !== '*' && ruleApp !== (get('application') || url.username || undefined)) return false;
    const ruleService = this.serviceKey;
    if (ruleService !== undefined && ruleService !== '*') {
      const iface = get('interface') || url.path || undefined;
      if (iface === undefined || ruleService !== URL.buildKey(iface, get('group'), get('version'))) return false;
    }
    for (const [key, value] of this.conditions) {
      if (value !== '*' && value !== get(key)) return false;
    }
    return true;
  }
}

function priorityOf(url: URL): number {
  const value = Number(url.getParameter('priority') ?? '0');
  return Number.isFinite(value) ? value : 0;
}
