import { splitCommaList } from '../extension/names.js';
import type { URL } from '../rpc/url.js';

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
  private constructor(
    /** The rule as written. */
    readonly url: URL,
    private readonly absent: boolean,
    private readonly parameters: ReadonlyMap<string, string>,
  ) {}

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
    return out.sort((a, b) => {
      const hosts = a.url.host < b.url.host ? -1 : a.url.host > b.url.host ? 1 : 0;
      return hosts !== 0 ? hosts : priorityOf(a.url) - priorityOf(b.url);
    });
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
    const rule = this.url;
    if (rule.getParameter('enabled') === 'false' || rule.host === '' || url.host === '') return url;
    const side = url.getSide();
    const ruleSide = rule.getSide();
    if (rule.getParameter('configVersion')) {
      if (side === 'consumer' && ruleSide === 'consumer') return this.configureIfMatch(localHost, url);
      if (side === 'provider' && ruleSide === 'provider') return this.configureIfMatch(url.host, url);
      return url;
    }
    if (rule.port !== 0) {
      return url.port === rule.port ? this.configureIfMatch(url.host, url) : url;
    }
    if ((side ?? 'provider') === 'consumer') return this.configureIfMatch(localHost, url);
    if ((side ?? 'consumer') === 'provider') return this.configureIfMatch('0.0.0.0', url);
    return url;
  }

  private configureIfMatch(host: string, url: URL): URL {
    const rule = this.url;
    if (rule.host !== '0.0.0.0' && rule.host !== host) return url;
    const providerAddresses = rule.getParameter('providerAddresses');
    if (providerAddresses) {
      const address = url.getAddress();
      const ok = splitCommaList(providerAddresses).some(
        (a) => a === address || a === '0.0.0.0' || a === '0.0.0.0:*' || a === `0.0.0.0:${url.port}` || a === url.host,
      );
      if (!ok) return url;
    }
    const ruleApp = rule.getApplication() || rule.username || undefined;
    const urlApp = url.getApplication() || url.username || undefined;
    if (ruleApp !== undefined && ruleApp !== '*' && ruleApp !== urlApp) return url;
    const ruleService = rule.getServiceKey();
    if (ruleService !== undefined && ruleService !== '*' && rule.path !== '*' && ruleService !== url.getServiceKey()) return url;
    for (const [key, value] of rule.parameters) {
      if (!(key.startsWith('~') || key === 'application' || key === 'side')) continue;
      const target = key.startsWith('~') ? key.slice(1) : key;
      if (value !== '*' && value !== url.getParameter(target)) return url;
    }
    return this.absent ? url.addParametersIfAbsent(this.parameters) : url.addParameters(this.parameters);
  }
}

function priorityOf(url: URL): number {
  const value = Number(url.getParameter('priority') ?? '0');
  return Number.isFinite(value) ? value : 0;
}
