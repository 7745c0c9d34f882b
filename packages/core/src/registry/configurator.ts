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

const NO_CONDITIONS: ReadonlyArray<readonly [string, string]> = Object.freeze([]);

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
  get host(): string {
    return this.ruleHost;
  }
  /** `priority` of the rule (sorted by second, ascending). */
  readonly priority: number;
  private readonly enabled: boolean;
  private readonly versioned: boolean;
  private readonly side: string | undefined;
  private readonly providerAddresses: readonly string[] | undefined;
  private readonly application: string | undefined;
  /** The service key the rule names (`undefined` for `*`); pooled by the index that holds the rule. */
  private serviceKey: string | undefined;
  /** `host` (pooled by the index that holds the rule). */
  private ruleHost: string;
  /** Whether `host` is `0.0.0.0`. */
  private readonly anyHost: boolean;
  /** The rule's port (0: none). */
  private readonly port: number;
  private parameters: ReadonlyMap<string, string> | undefined;

  private constructor(
    /** The rule as written. */
    readonly url: URL,
    private readonly absent: boolean,
    /** The parameters it sets (never empty), in the rule's order. */
    private readonly entries: ReadonlyArray<readonly [string, string]>,
    /** The `~key`, `side` and `application` conditions. */
    private readonly conditions: ReadonlyArray<readonly [string, string]>,
  ) {
    this.ruleHost = url.host;
    this.anyHost = this.ruleHost === '0.0.0.0';
    this.port = url.port;
    this.priority = priorityOf(url);
    this.enabled = url.getParameter('enabled') !== 'false';
    this.versioned = !!url.getParameter('configVersion');
    this.side = url.getSide();
    const providerAddresses = url.getParameter('providerAddresses');
    this.providerAddresses = providerAddresses ? splitCommaList(providerAddresses) : undefined;
    this.application = url.getApplication() || url.username || undefined;
    this.serviceKey = url.path === '*' ? undefined : url.getServiceKey();
  }

  /** A configurator for an override URL, or `undefined` for one that changes nothing (only conditions). */
  static from(url: URL): Configurator | undefined {
    let entries: Array<readonly [string, string]> | undefined;
    let conditions: Array<readonly [string, string]> | undefined;
    url.parameters.forEach((value, key) => {
      // The `~key`, `side` and `application` conditions: target key and the value it must have (`*` = any).
      if (key.startsWith('~')) conditions = add(conditions, [flatString(key.slice(1)), value]);
      else if (key === 'application' || key === 'side') conditions = add(conditions, [key, value]);
      if (!CONDITION_KEYS.has(key) && !key.startsWith('~')) entries = add(entries, [flatString(key), value]);
    });
    if (entries === undefined) return undefined;
    return new Configurator(url, url.protocol === 'absent', entries, conditions ?? NO_CONDITIONS);
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
    return a.ruleHost === b.ruleHost ? a.priority - b.priority : a.ruleHost < b.ruleHost ? -1 : 1;
  }

  /** The parameters this rule sets. */
  get appliedParameters(): ReadonlyMap<string, string> {
    return (this.parameters ??= new Map(this.entries));
  }

  /** Whether the rule names a provider address (`host:port`). */
  get addressed(): boolean {
    return this.port !== 0;
  }

  /**
   * Applies the rule to `url` if it matches; returns `url` itself otherwise.
   * @param localHost - the consumer's own host (what a port-less consumer rule is matched against).
   */
  configure(url: URL, localHost: string): URL {
    const target = new RuleTarget(url, localHost);
    if (!this.matches(target)) return url;
    this.applyTo(target);
    return target.configured();
  }

  /**
   * Whether the rule applies to `target` (a URL as edited by earlier rules) — Dubbo's `AbstractConfigurator.configure`
   * decision (see the class remarks).
   * @internal
   */
  matches(target: RuleTarget): boolean {
    const url = target.url;
    if (!this.enabled || this.ruleHost === '' || url.host === '') return false;
    const side = target.side;
    if (this.versioned) {
      if (side === 'consumer' && this.side === 'consumer') return this.matchesAt(target.localHost, target);
      if (side === 'provider' && this.side === 'provider') return this.matchesAt(target.host, target);
      return false;
    }
    if (this.port !== 0) return url.port === this.port && this.matchesAt(target.host, target);
    if (side === 'consumer') return this.matchesAt(target.localHost, target);
    if (side === 'provider') return this.matchesAt('0.0.0.0', target);
    return false;
  }

  /**
   * Writes the parameters this rule changes into `target` (`override` overwrites, `absent` fills what is missing or
   * empty); returns whether anything changed.
   * @internal
   */
  applyTo(target: RuleTarget): boolean {
    let changed = false;
    const entries = this.entries;
    for (let i = 0; i < entries.length; i++) {
      const [key, value] = entries[i] as readonly [string, string];
      if (value === '') continue;
      const current = target.get(key);
      if (current === value || (this.absent && current)) continue;
      target.set(key, value);
      changed = true;
    }
    return changed;
  }

  /**
   * Replaces the rule's host and service key by the equal strings `pool` holds (the first of their kind), so that
   * comparing them with other rules' and a target's pooled ones is a pointer comparison. @internal
   */
  shareStrings(pool: Map<string, string>): void {
    this.ruleHost = pooled(pool, this.ruleHost);
    if (this.serviceKey !== undefined) this.serviceKey = pooled(pool, this.serviceKey);
  }

  /** The parameters this rule sets, as entries. @internal */
  get appliedEntries(): ReadonlyArray<readonly [string, string]> {
    return this.entries;
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

  private matchesAt(host: string, target: RuleTarget): boolean {
    if (!this.anyHost && this.ruleHost !== host) return false;
    const providerAddresses = this.providerAddresses;
    if (providerAddresses !== undefined) {
      const url = target.url;
      const address = url.getAddress();
      const ok = providerAddresses.some(
        (a) => a === address || a === '0.0.0.0' || a === '0.0.0.0:*' || a === `0.0.0.0:${url.port}` || a === url.host,
      );
      if (!ok) return false;
    }
    const ruleApp = this.application;
    if (ruleApp !== undefined && ruleApp !== '*' && ruleApp !== target.application) return false;
    const ruleService = this.serviceKey;
    if (ruleService !== undefined && ruleService !== '*') {
      const serviceKey = target.serviceKey;
      if (serviceKey === undefined || ruleService !== serviceKey) return false;
    }
    const conditions = this.conditions;
    for (let i = 0; i < conditions.length; i++) {
      const [key, value] = conditions[i] as readonly [string, string];
      if (value !== '*' && value !== target.get(key)) return false;
    }
    return true;
  }
}

/**
 * A URL being configured by rules in application order: its parameters as the rules so far have edited them.
 *
 * @remarks `side`, `application`, `group` and `version` are conditions of a rule, never parameters it applies, so
 * they are read once; the service key is recomputed only after a rule set `interface`.
 * @internal
 */
export class RuleTarget {
  /** The URL's host, and the consumer's own (what a port-less consumer rule is matched against), pooled. */
  readonly host: string;
  readonly localHost: string;
  /** The URL's `side`. */
  readonly side: string | undefined;
  /** The URL's `application` (or, when empty, its user name). */
  readonly application: string | undefined;
  private readonly own: ReadonlyMap<string, string>;
  /** The URL's parameters with the rules' changes, created by the first change. */
  private edited: Map<string, string> | undefined;
  /** `[group/]interface[:version]` of the URL as edited; `null` until computed. */
  private key: string | undefined | null = null;

  constructor(
    readonly url: URL,
    localHost: string,
    /** Strings shared with the rules (see `Configurator.shareStrings`). */
    private readonly pool?: Map<string, string>,
  ) {
    this.host = pool === undefined ? url.host : pooled(pool, url.host);
    this.localHost = pool === undefined ? localHost : pooled(pool, localHost);
    this.own = url.parameters;
    this.side = this.own.get('side');
    this.application = this.own.get('application') || url.username || undefined;
  }

  /** The current value of `key`. */
  get(key: string): string | undefined {
    return (this.edited ?? this.own).get(key);
  }

  /** Sets `key` to `value` (non-empty, and not its current value). */
  set(key: string, value: string): void {
    (this.edited ??= new Map(this.own)).set(key, value);
    if (key === 'interface') this.key = null;
  }

  /** The service key the rules' service keys are compared with; `undefined` without interface and path. */
  get serviceKey(): string | undefined {
    if (this.key === null) {
      const iface = this.get('interface') || this.url.path || undefined;
      const key = iface === undefined ? undefined : URL.buildKey(iface, this.own.get('group'), this.own.get('version'));
      this.key = key === undefined || this.pool === undefined ? key : pooled(this.pool, key);
    }
    return this.key;
  }

  /** The URL with the changes (itself when they change nothing): what `url.addParameters(changes)` gives. */
  configured(): URL {
    const edited = this.edited;
    if (edited === undefined) return this.url;
    if (edited.size === this.own.size) {
      // Only values replaced: maybe all back to what they were.
      let same = true;
      this.own.forEach((value, key) => (same &&= edited.get(key) === value));
      if (same) return this.url;
    }
    return this.url.withParameterMap(edited);
  }
}

/** The string of `pool` equal to `text` (`text` itself, added, when it has none). @internal */
export function pooled(pool: Map<string, string>, text: string): string {
  const known = pool.get(text);
  if (known !== undefined) return known;
  pool.set(text, text);
  return text;
}

/**
 * `text`, or an equal copy of it that is one flat run of characters when it is a slice of a longer string (what
 * `URL.parse` gives for names of 13 characters or more): the rules' keys are looked up in many URLs' parameter maps,
 * and a flat key is hashed and compared at about half the cost.
 */
function flatString(text: string): string {
  // decodeURIComponent of a text without `%` returns it unchanged, as a new flat string.
  return text.length < 13 || text.includes('%') ? text : decodeURIComponent(text);
}

/** Appends to a list created on first use (sized for one: most rules set one parameter). */
function add<T>(list: T[] | undefined, item: T): T[] {
  if (list === undefined) return [item];
  list.push(item);
  return list;
}

function priorityOf(url: URL): number {
  const value = Number(url.getParameter('priority') ?? '0');
  return Number.isFinite(value) ? value : 0;
}
