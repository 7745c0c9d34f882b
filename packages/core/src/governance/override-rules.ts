import type { NotifyListener } from '../registry/registry.js';
import type { RegistryCategory } from '../registry/url-match.js';
import { URL } from '../rpc/url.js';
import type { RegistrySession } from './registry-session.js';

/** Keys that make up an override rule's identity: set by flags, never as settings. */
export const OVERRIDE_IDENTITY_KEYS: ReadonlySet<string> = new Set(['category', 'dynamic', 'group', 'version', 'application', 'interface']);
/** Numeric keys consumers check (as `WeftApplication` does at refer time), at service or method level. */
const NUMERIC_KEYS = new Set(['timeout', 'retries', 'tps', 'tps.interval', 'executes', 'actives', 'weight', 'warmup', 'forks']);
/** Of those, the counts: whole numbers only. */
const INTEGER_KEYS = new Set(['retries', 'tps', 'executes', 'actives', 'weight', 'forks']);
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
/** Keys that do not configure anything by themselves: a rule left with only these is removed. */
const INERT_KEYS = new Set(['enabled', 'check', 'side', 'configVersion', 'priority', 'providerAddresses', 'anyhost']);

/**
 * Who an override rule is for: the address it names (`0.0.0.0` = every consumer, a provider `host:port`), and its
 * group, version and application conditions.
 *
 * @remarks Two rules with the same identity are one rule: writing merges into it.
 * @example
 * ```ts
 * const everyone: OverrideIdentity = { host: '0.0.0.0', port: 0, group: undefined, version: undefined, application: undefined };
 * ```
 */
export interface OverrideIdentity {
  readonly host: string;
  readonly port: number;
  readonly group: string | undefined;
  readonly version: string | undefined;
  readonly application: string | undefined;
}

/**
 * The identity of an override rule URL.
 *
 * @remarks Empty group/version/application read as absent.
 * @example
 * ```ts
 * overrideIdentityOf(URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators')).host; // '0.0.0.0'
 * ```
 */
export function overrideIdentityOf(rule: URL): OverrideIdentity {
  return { host: rule.host, port: rule.port, group: rule.getGroup() || undefined, version: rule.getVersion() || undefined, application: rule.getApplication() || undefined };
}

/**
 * Whether `rule` has identity `id`.
 *
 * @remarks Compares address, group, version and application.
 * @example
 * ```ts
 * sameOverrideIdentity(rule, overrideIdentityOf(rule)); // true
 * ```
 */
export function sameOverrideIdentity(rule: URL, id: OverrideIdentity): boolean {
  const other = overrideIdentityOf(rule);
  return other.host === id.host && other.port === id.port && other.group === id.group && other.version === id.version && other.application === id.application;
}

/**
 * The rule's settings: its parameters other than its identity keys, in order.
 *
 * @remarks A fresh map the caller may change.
 * @example
 * ```ts
 * overrideSettings(URL.parse('override://0.0.0.0/S?category=configurators&dynamic=false&timeout=3000')); // Map { timeout → 3000 }
 * ```
 */
export function overrideSettings(rule: URL): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of rule.parameters) if (!OVERRIDE_IDENTITY_KEYS.has(key)) out.set(key, value);
  return out;
}

/**
 * Builds an override rule exactly as `weft override set` and dubbo-admin write it:
 * `override://<address>/<service>?category=configurators&dynamic=false[&group][&version][&application]&<settings>`.
 *
 * @remarks `dynamic=false`: the rule is persistent, it stays when the tool that wrote it exits.
 * @example
 * ```ts
 * buildOverrideRule('org.acme.Greeter', everyone, new Map([['sayHello.mock', 'force:return null']])).toString();
 * // override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&sayHello.mock=force%3Areturn+null
 * ```
 */
export function buildOverrideRule(service: string, id: OverrideIdentity, values: ReadonlyMap<string, string>): URL {
  const parameters: [string, string][] = [
    ['category', 'configurators'],
    ['dynamic', 'false'],
  ];
  if (id.group !== undefined) parameters.push(['group', id.group]);
  if (id.version !== undefined) parameters.push(['version', id.version]);
  if (id.application !== undefined) parameters.push(['application', id.application]);
  for (const entry of values) parameters.push(entry);
  return new URL({ protocol: 'override', host: id.host, port: id.port, path: service, parameters });
}

/**
 * The numeric keys of a rule with values consumers would refuse (`timeout=abc`, `retries=1.5`).
 *
 * @remarks Checks `timeout`, `retries`, `tps`, `tps.interval`, `executes`, `actives`, `weight`, `warmup`, `forks`,
 * also at method level (`sayHello.timeout`).
 * @example
 * ```ts
 * overrideNumericProblems(URL.parse('override://0.0.0.0/S?weight=x')); // ['weight=x: expected a finite decimal number']
 * ```
 */
export function overrideNumericProblems(rule: URL): string[] {
  const problems: string[] = [];
  for (const [name, value] of rule.parameters) {
    let key: string | undefined;
    if (NUMERIC_KEYS.has(name)) key = name;
    else {
      const dot = name.indexOf('.');
      if (dot > 0 && NUMERIC_KEYS.has(name.slice(dot + 1))) key = name.slice(dot + 1);
    }
    if (key === undefined) continue;
    const number = DECIMAL.test(value) ? Number(value) : NaN;
    if (!Number.isFinite(number)) problems.push(`${name}=${value}: expected a finite decimal number`);
    else if (INTEGER_KEYS.has(key) && !Number.isInteger(number)) problems.push(`${name}=${value}: expected a whole number`);
  }
  return problems;
}

/**
 * Merges `values` into the rule with identity `id` among `existing` (the service's current rules), as
 * `weft override set` does.
 *
 * @remarks Returns the rule to write, the rules it replaces (to remove after writing it) and whether nothing changes.
 * @example
 * ```ts
 * const { rule, replaced, unchanged } = mergeOverrideRule(current, 'org.acme.Greeter', everyone, new Map([['timeout', '3000']]));
 * ```
 */
export function mergeOverrideRule(existing: readonly URL[], service: string, id: OverrideIdentity, values: ReadonlyMap<string, string>): { rule: URL; replaced: URL[]; unchanged: boolean; same: URL[] } {
  const same = existing.filter((r) => sameOverrideIdentity(r, id));
  const merged = new Map<string, string>();
  for (const rule of same) for (const [k, v] of overrideSettings(rule)) merged.set(k, v);
  for (const [k, v] of values) merged.set(k, v);
  const rule = buildOverrideRule(service, id, merged);
  const replaced = same.filter((r) => !r.equals(rule));
  return { rule, replaced, unchanged: same.length > 0 && replaced.length === 0, same };
}

/**
 * What is left of `rule` without `keys`, as `weft override rm <key>…` writes it: `undefined` when nothing that
 * configures anything is left (the rule is then removed as a whole).
 *
 * @remarks Keys starting with `~` and inert keys (`enabled`, `check`, `side`, `priority`…) do not keep a rule alive.
 * @example
 * ```ts
 * withoutOverrideKeys(rule, ['sayHello.mock']); // the rest of the rule, or undefined
 * ```
 */
export function withoutOverrideKeys(rule: URL, keys: readonly string[]): URL | undefined {
  const remaining = overrideSettings(rule);
  for (const key of keys) remaining.delete(key);
  const applied = [...remaining.keys()].filter((k) => !k.startsWith('~') && !INERT_KEYS.has(k));
  if (applied.length === 0) return undefined;
  return buildOverrideRule(rule.getServiceInterface() ?? rule.path, overrideIdentityOf(rule), remaining);
}

/** Subscribes to `categories` of a service and resolves with the first notification of each. */
async function readCategories(session: RegistrySession, service: string, categories: readonly RegistryCategory[], what: string): Promise<Map<RegistryCategory, readonly URL[]>> {
  const subscription = new URL({
    protocol: 'consumer',
    host: '0.0.0.0',
    path: service,
    parameters: { interface: service, category: categories.join(','), side: 'consumer', group: '*', version: '*', enabled: '*', check: 'false' },
  });
  return session.call(what, async () => {
    const seen = new Map<RegistryCategory, readonly URL[]>();
    let done: () => void = () => undefined;
    const all = new Promise<void>((resolve) => (done = resolve));
    const listener: NotifyListener = (category: RegistryCategory, urls) => {
      if (!categories.includes(category)) return;
      seen.set(category, urls);
      if (seen.size === categories.length) done();
    };
    await session.registry.subscribe(subscription, listener);
    try {
      await all;
      return seen;
    } finally {
      await session.registry.unsubscribe(subscription, listener).catch(() => undefined);
    }
  });
}

/**
 * Reads the current override rules of a service (its `configurators` category), every group and version.
 *
 * @remarks Subscribes, takes the first notification and unsubscribes; `empty://` placeholders are dropped.
 * @example
 * ```ts
 * const rules = await readOverrideRules(session, 'org.acme.Greeter');
 * ```
 */
export async function readOverrideRules(session: RegistrySession, service: string): Promise<URL[]> {
  const seen = await readCategories(session, service, ['configurators'], `reading the override rules of ${service}`);
  return (seen.get('configurators') ?? []).filter((u) => u.protocol !== 'empty');
}

/**
 * Reads the providers and consumers registered for a service (their URLs carry `interface`, `methods` and their keys).
 *
 * @remarks Every group and version; disabled providers too (`enabled=*`).
 * @example
 * ```ts
 * const { providers, consumers } = await readRegistrations(session, 'org.acme.Greeter');
 * ```
 */
export async function readRegistrations(session: RegistrySession, service: string): Promise<{ providers: URL[]; consumers: URL[] }> {
  const seen = await readCategories(session, service, ['providers', 'consumers'], `reading the providers and consumers of ${service}`);
  const real = (urls: readonly URL[] | undefined) => (urls ?? []).filter((u) => u.protocol !== 'empty');
  return { providers: real(seen.get('providers')), consumers: real(seen.get('consumers')) };
}

/**
 * Validates an override rule as `weft override set` does: numeric keys, then every `ConfigValidator` the rule
 * activates in group `consumer` (with `@weft/mock` installed: mock expressions must parse), method-level mock
 * expressions (`sayHello.mock`) each on their own.
 *
 * @remarks Returns the problems (empty when valid); nothing is written.
 * @example
 * ```ts
 * const problems = await validateOverrideRule(session, rule, 'org.acme.Greeter');
 * ```
 */
export async function validateOverrideRule(session: RegistrySession, rule: URL, service: string): Promise<string[]> {
  const problems = overrideNumericProblems(rule);
  const where = `override rule for ${service}`;
  problems.push(...(await session.validate(rule, where)));
  for (const [name, value] of rule.parameters) {
    const dot = name.indexOf('.');
    if (dot <= 0 || name.slice(dot + 1) !== 'mock') continue;
    const alone = new URL({ protocol: rule.protocol, host: rule.host, port: rule.port, path: rule.path, parameters: { mock: value } });
    problems.push(...(await session.validate(alone, `${where} (${name})`)));
  }
  return problems;
}
