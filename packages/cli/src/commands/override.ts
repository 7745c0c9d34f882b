import {
  buildOverrideRule,
  maskUrlText,
  mergeOverrideRule,
  OVERRIDE_IDENTITY_KEYS,
  overrideIdentityOf,
  overrideNumericProblems,
  overrideSettings,
  ParameterRegistry,
  readOverrideRules,
  readRegistrations,
  sameOverrideIdentity,
  URL,
  validateOverrideRule,
  withoutOverrideKeys,
  type OverrideIdentity,
} from '@weft/core';
import { boundedEditDistance, splitCommaList } from '@weft/core/spi';

import { booleanFlag, integerFlag, stringFlag, type ParsedArgs } from '../args.js';
import { HELP_OPTION, JSON_OPTION, type Command, type CommandContext } from '../command.js';
import { CliFailure, ExitCode, formatTable, toJson, UsageError } from '../io.js';
import { RegistrySession } from '../registry-session.js';

const SERVICE_NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
const DEFAULT_TIMEOUT = 5000;

/** A rule as listed. */
interface ListedRule {
  readonly url: string;
  readonly address: string;
  readonly service: string;
  readonly group: string | null;
  readonly version: string | null;
  readonly application: string | null;
  readonly enabled: boolean;
  readonly parameters: Record<string, string>;
}

function listedRule(rule: URL): ListedRule {
  return {
    url: rule.toString(),
    address: rule.getAddress(),
    service: rule.getServiceInterface() ?? rule.path,
    group: rule.getGroup() || null,
    version: rule.getVersion() || null,
    application: rule.getApplication() || null,
    enabled: rule.getParameter('enabled') !== 'false',
    parameters: Object.fromEntries(overrideSettings(rule)),
  };
}

/** The providers and consumers registered for a service (their URLs carry `interface`, `methods` and their keys). */
async function readRegistered(session: RegistrySession, service: string): Promise<URL[]> {
  const { providers, consumers } = await readRegistrations(session, service);
  return [...providers, ...consumers];
}

/** The closest of `candidates` to `name` (bounded edit distance), if any is close. */
function closest(name: string, candidates: Iterable<string>): string | undefined {
  const max = name.length <= 4 ? 1 : name.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = max + 1;
  for (const candidate of candidates) {
    const distance = boundedEditDistance(name, candidate, max);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * What the registry's providers and consumers say about a rule: its service must be one they serve or use, its
 * method-level keys must name their methods, its keys must be read by Weft, a first-party package, a plugin the
 * CLI sees, or be set on their URLs (an application's own keys). Nothing is judged when nothing is registered.
 */
async function registryProblems(session: RegistrySession, service: string, values: ReadonlyMap<string, string>): Promise<string[]> {
  const services = await session.call('listing the services', () => session.registry.listServices());
  const registered = await readRegistered(session, service);
  if (registered.length === 0) {
    if (services === undefined || services.length === 0 || services.includes(service)) return [];
    const near = closest(service, services);
    return [
      `unknown service ${service}: nothing is registered for it at ${session.address}` +
        (near !== undefined ? `; did you mean ${near}?` : ` (services: ${[...services].sort().slice(0, 20).join(', ')})`),
    ];
  }
  const methods = [...new Set(registered.flatMap((u) => splitCommaList(u.getParameter('methods') ?? '')))].filter((m) => m !== '').sort();
  const own = [...new Set(registered.flatMap((u) => [...u.parameters.keys()]))];
  const keys = ParameterRegistry.fromIndex(session.index, { declare: own, firstParty: 'all' });
  const where = `override rule for ${service}`;
  const problems: string[] = [];
  const rest: string[] = [];
  for (const key of values.keys()) {
    const dot = key.indexOf('.');
    const method = dot > 0 ? key.slice(0, dot) : '';
    const methodKey = key.slice(dot + 1);
    if (dot > 0 && methods.length > 0 && !methods.includes(method) && !keys.has(key) && /^[A-Za-z_$][\w$]*$/.test(method) && keys.isMethodKey(methodKey)) {
      const near = closest(method, methods);
      problems.push(
        `\`${key}\`: unknown method ${method} of ${service} (methods: ${methods.join(', ')})` + (near !== undefined ? `; did you mean \`${near}.${methodKey}\`?` : ''),
      );
    } else {
      rest.push(key);
    }
  }
  problems.push(...keys.check(rest, methods, where));
  return problems;
}

function parseIdentity(args: ParsedArgs): { service: string; id: OverrideIdentity; given: Set<string> } {
  const service = stringFlag(args, 'service');
  if (service === undefined) throw new UsageError('missing --service <interface>: whose override rules');
  if (!SERVICE_NAME.test(service)) throw new UsageError(`unknown service "${service}": not a service interface name (dotted identifiers such as org.acme.Greeter)`);
  const given = new Set(['address', 'group', 'version', 'application'].filter((f) => stringFlag(args, f) !== undefined));
  const address = stringFlag(args, 'address') ?? '0.0.0.0';
  let at: URL;
  try {
    at = new URL({ protocol: 'override', path: service }).withAddress(address);
  } catch (error) {
    throw new UsageError(`--address "${address}" is not host or host:port: ${(error as Error).message}`);
  }
  if (at.host === '') throw new UsageError(`--address "${address}" names no host (0.0.0.0 means every address)`);
  const nonEmpty = (name: string) => {
    const value = stringFlag(args, name);
    if (value === '') throw new UsageError(`--${name} needs a non-empty value`);
    return value;
  };
  return { service, id: { host: at.host, port: at.port, group: nonEmpty('group'), version: nonEmpty('version'), application: nonEmpty('application') }, given };
}

function registryUrl(args: ParsedArgs, ctx: CommandContext): URL {
  const text = stringFlag(args, 'registry') ?? ctx.io.env['WEFT_REGISTRY'];
  if (text === undefined || text.trim() === '') throw new UsageError('missing --registry <url> (or the WEFT_REGISTRY environment variable): e.g. zookeeper://127.0.0.1:2181 or embedded:///var/tmp/weft-registry');
  let url: URL;
  try {
    url = URL.parse(text);
  } catch (error) {
    throw new UsageError(`cannot parse the registry URL "${maskUrlText(text)}": ${(error as Error).message}`);
  }
  if (url.protocol === '') throw new UsageError(`the registry URL "${maskUrlText(text)}" has no protocol (zookeeper://host:port, embedded:///dir)`);
  return url;
}

function describeIdentity(service: string, id: OverrideIdentity): string {
  const conditions = [id.group && `group ${id.group}`, id.version && `version ${id.version}`, id.application && `application ${id.application}`].filter(Boolean);
  const address = id.port === 0 ? id.host : `${id.host}:${id.port}`;
  return `${service} at ${address}${conditions.length > 0 ? ` (${conditions.join(', ')})` : ''}`;
}

async function verify(session: RegistrySession, service: string, present: readonly URL[], absent: readonly URL[]): Promise<void> {
  const now = await readOverrideRules(session, service);
  const has = (rule: URL) => now.some((u) => u.equals(rule));
  const missing = present.filter((r) => !has(r));
  const kept = absent.filter((r) => has(r) && !present.some((p) => p.equals(r)));
  if (missing.length + kept.length > 0) {
    const what = [...missing.map((r) => `${r.toString()} is not there`), ...kept.map((r) => `${r.toString()} is still there`)].join('; ');
    throw new CliFailure(`the registry ${session.address} did not take the change: reading it back, ${what}${session.reported()}`);
  }
}

async function set(args: ParsedArgs, ctx: CommandContext, pairs: readonly string[]): Promise<number> {
  const { service, id } = parseIdentity(args);
  const url = registryUrl(args, ctx);
  if (pairs.length === 0) throw new UsageError('missing key=value: what the rule sets (e.g. timeout=3000, mock=force:return null)');
  const values = new Map<string, string>();
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`"${pair}" is not key=value`);
    const key = pair.slice(0, eq);
    const value = pair.slice(eq + 1);
    if (OVERRIDE_IDENTITY_KEYS.has(key)) throw new UsageError(`"${key}" is part of the rule's identity, not a setting: use --${key === 'interface' ? 'service' : key} instead`);
    if (value === '') throw new UsageError(`"${pair}" has an empty value: to remove a key from a rule, use weft override rm ${key}`);
    values.set(key, value);
  }
  const requested = buildOverrideRule(service, id, values);
  const early = overrideNumericProblems(requested);
  if (early.length > 0) throw new CliFailure(`rejected, nothing written: ${early.join('; ')}`);
  const session = await RegistrySession.open(url, integerFlag(args, 'timeout', DEFAULT_TIMEOUT));
  try {
    if (!booleanFlag(args, 'force')) {
      const unknown = await registryProblems(session, service, values);
      if (unknown.length > 0) throw new CliFailure(`rejected, nothing written (--force writes it anyway): ${unknown.join('; ')}`);
    }
    const problems = await validateOverrideRule(session, requested, service);
    if (problems.length > 0) throw new CliFailure(`rejected, nothing written: ${problems.join('; ')}`);
    const { rule, replaced, unchanged, same: existing } = mergeOverrideRule(await readOverrideRules(session, service), service, id, values);
    if (existing.length > 0) {
      const mergedProblems = await validateOverrideRule(session, rule, service);
      if (mergedProblems.length > 0) {
        throw new CliFailure(`rejected, nothing written: merged with the existing rule ${existing.map((r) => r.toString()).join(', ')} it is invalid: ${mergedProblems.join('; ')}`);
      }
    }
    if (!unchanged) {
      await session.call(`writing ${rule.toString()}`, () => session.registry.register(rule));
      for (const old of replaced) await session.call(`removing ${old.toString()}`, () => session.registry.unregister(old));
      await verify(session, service, [rule], replaced);
    }
    if (booleanFlag(args, 'json')) {
      ctx.out(toJson({ ok: true, registry: session.address, service, rule: rule.toString(), replaced: replaced.map((r) => r.toString()), unchanged }));
    } else if (unchanged) {
      ctx.out(`Unchanged: the rule for ${describeIdentity(service, id)} already sets that.\n  ${rule.toString()}\n`);
    } else {
      ctx.out(`Wrote the override rule for ${describeIdentity(service, id)} to ${session.address}:\n  ${rule.toString()}\n`);
      if (replaced.length > 0) ctx.out(`It replaces:\n${replaced.map((r) => `  ${r.toString()}\n`).join('')}`);
    }
    return ExitCode.OK;
  } finally {
    await session.close();
  }
}

async function list(args: ParsedArgs, ctx: CommandContext): Promise<number> {
  const { service, id, given } = parseIdentity(args);
  const url = registryUrl(args, ctx);
  const session = await RegistrySession.open(url, integerFlag(args, 'timeout', DEFAULT_TIMEOUT));
  try {
    const rules = (await readOverrideRules(session, service)).filter((r) => matchesGiven(r, id, given));
    if (booleanFlag(args, 'json')) {
      ctx.out(toJson({ registry: session.address, service, rules: rules.map(listedRule) }));
      return ExitCode.OK;
    }
    if (rules.length === 0) {
      ctx.out(`No override rules for ${service} at ${session.address}.\n`);
      return ExitCode.OK;
    }
    ctx.out(`Override rules for ${service} at ${session.address} (${rules.length}):\n`);
    const dash = (s: string | null) => s ?? '-';
    ctx.out(
      formatTable(
        ['ADDRESS', 'GROUP', 'VERSION', 'APPLICATION', 'SETTINGS'],
        rules.map(listedRule).map((r) => [
          r.address,
          dash(r.group),
          dash(r.version),
          dash(r.application),
          Object.entries(r.parameters).map(([k, v]) => `${k}=${v}`).join(' ') + (r.enabled ? '' : '  (disabled)'),
        ]),
      ),
    );
    return ExitCode.OK;
  } finally {
    await session.close();
  }
}

/** Whether a rule matches the identity flags that were given (omitted flags match anything). */
function matchesGiven(rule: URL, id: OverrideIdentity, given: ReadonlySet<string>): boolean {
  const other = overrideIdentityOf(rule);
  if (given.has('address') && (other.host !== id.host || other.port !== id.port)) return false;
  if (given.has('group') && other.group !== id.group) return false;
  if (given.has('version') && other.version !== id.version) return false;
  if (given.has('application') && other.application !== id.application) return false;
  return true;
}

async function rm(args: ParsedArgs, ctx: CommandContext, keys: readonly string[]): Promise<number> {
  const { service, id, given } = parseIdentity(args);
  const url = registryUrl(args, ctx);
  const all = booleanFlag(args, 'all');
  if (all && keys.length > 0) throw new UsageError('give keys to remove, or --all, not both');
  if (!all && keys.length === 0) throw new UsageError('missing <key>...: which keys to remove from the rule (or --all to remove whole rules)');
  for (const key of keys) {
    if (key.includes('=')) throw new UsageError(`"${key}": give keys only (timeout, not timeout=3000)`);
    if (OVERRIDE_IDENTITY_KEYS.has(key)) throw new UsageError(`"${key}" is part of the rule's identity: use --all with --${key} to remove whole rules`);
  }
  const session = await RegistrySession.open(url, integerFlag(args, 'timeout', DEFAULT_TIMEOUT));
  try {
    const rules = await readOverrideRules(session, service);
    const removed: URL[] = [];
    const written: URL[] = [];
    if (all) {
      const targets = rules.filter((r) => matchesGiven(r, id, given));
      if (targets.length === 0) throw new CliFailure(`no override rules for ${service}${given.size > 0 ? ' match the given flags' : ''} at ${session.address}; nothing removed`);
      for (const rule of targets) {
        await session.call(`removing ${rule.toString()}`, () => session.registry.unregister(rule));
        removed.push(rule);
      }
    } else {
      const targets = rules.filter((r) => sameOverrideIdentity(r, id) && keys.some((k) => overrideSettings(r).has(k)));
      if (targets.length === 0) {
        const same = rules.filter((r) => sameOverrideIdentity(r, id));
        const hint = same.length === 0 ? 'there is no rule for it' : `its rule sets ${[...overrideSettings(same[0] as URL).keys()].join(', ')}`;
        throw new CliFailure(`no override rule for ${describeIdentity(service, id)} sets ${keys.join(', ')} (${hint}); nothing removed`);
      }
      for (const rule of targets) {
        const next = withoutOverrideKeys(rule, keys);
        if (next !== undefined) {
          await session.call(`writing ${next.toString()}`, () => session.registry.register(next));
          written.push(next);
        }
        await session.call(`removing ${rule.toString()}`, () => session.registry.unregister(rule));
        removed.push(rule);
      }
    }
    await verify(session, service, written, removed);
    if (booleanFlag(args, 'json')) {
      ctx.out(toJson({ ok: true, registry: session.address, service, removed: removed.map((r) => r.toString()), written: written.map((r) => r.toString()) }));
    } else {
      ctx.out(`Removed from ${session.address}:\n${removed.map((r) => `  ${r.toString()}\n`).join('')}`);
      if (written.length > 0) ctx.out(`Written instead (the rest of the rule):\n${written.map((r) => `  ${r.toString()}\n`).join('')}`);
    }
    return ExitCode.OK;
  } finally {
    await session.close();
  }
}

async function run(args: ParsedArgs, ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = args.positionals;
  switch (sub) {
    case 'set':
      return set(args, ctx, rest);
    case 'list':
    case 'ls':
      if (rest.length > 0) throw new UsageError(`list takes no arguments (got ${rest.join(' ')})`);
      return list(args, ctx);
    case 'rm':
      return rm(args, ctx, rest);
    case undefined:
      throw new UsageError('missing subcommand: set, list or rm');
    default:
      throw new UsageError(`unknown subcommand "${sub}": expected set, list or rm`);
  }
}

/** `weft override set|list|rm`. @internal */
export const overrideCommand: Command = {
  name: 'override',
  summary: 'write, list and remove override rules (mock, timeout, tps…) in a registry',
  usage: [
    'override set  --registry <url> --service <interface> [identity flags] <key=value>...',
    'override list --registry <url> --service <interface> [identity flags] [--json]',
    'override rm   --registry <url> --service <interface> [identity flags] <key>... | --all',
  ],
  description: `
Manages Dubbo-style override rules — override://<address>/<interface>?category=configurators&dynamic=false&…
— in a registry (embedded:///dir, zookeeper://host:port). Consumers subscribed to the service apply them live:
force or fail mock (mock=force:return null, sayHello.mock=fail:throw), timeout, retries, tps and any other key.
Rules are persistent (dynamic=false): they stay when the CLI exits.

A rule is identified by its address (--address, default 0.0.0.0: every consumer) and its group, version and
application conditions (--group, --version, --application; omitted: none). set merges the keys into the rule with
that identity (creating it), rm <key>... removes keys from it (the whole rule when nothing is left), rm --all
removes every rule matching the identity flags given (omitted flags match any), list shows the rules matching
the identity flags given.

Checked against the registry before it is written: when providers or consumers of the service are registered,
set refuses a service nothing is registered for (suggesting the closest registered one), a <method>.<key> naming
a method they do not have, and a key that neither Weft, a first-party package, nor their own URLs use ("tsp:
unknown parameter …; did you mean tps?"). --force writes it anyway.

Validated before it is written: numeric keys (timeout, retries, tps, tps.interval, executes, actives, weight,
warmup, forks — also at method level) must be numbers, and every ConfigValidator the rule activates in group
consumer runs on it (with @weft/mock: mock expressions must parse). A rejected rule is not written. After
writing, the rule is read back from the registry to confirm it is there.

The registry client is the weft.registry.RegistryFactory extension named by the URL's protocol, from the CLI's
own dependencies; check=true, timeout=<--timeout> and file-cache=false are added to the registry URL.`,
  options: [
    { name: 'registry', kind: 'string', value: '<url>', description: 'Registry URL. Default: $WEFT_REGISTRY.' },
    { name: 'service', kind: 'string', value: '<interface>', description: 'The service interface (org.acme.Greeter).' },
    { name: 'address', kind: 'string', value: '<host[:port]>', description: 'Who the rule addresses: 0.0.0.0 (default, every consumer), a consumer host, or a provider host:port.' },
    { name: 'group', kind: 'string', value: '<group>', description: 'Only the service group <group>.' },
    { name: 'version', kind: 'string', value: '<version>', description: 'Only the service version <version>.' },
    { name: 'application', kind: 'string', value: '<app>', description: 'Only the application <app>.' },
    { name: 'all', kind: 'boolean', description: 'rm: remove whole rules.' },
    { name: 'force', kind: 'boolean', description: 'set: write even when the registry knows no such service, method or key.' },
    { name: 'timeout', kind: 'string', value: '<ms>', description: `How long each registry operation may take. Default: ${DEFAULT_TIMEOUT}.` },
    JSON_OPTION,
    HELP_OPTION,
  ],
  examples: [
    '# degrade every call of sayHello to a fixed answer, for every consumer',
    'weft override set --registry zookeeper://127.0.0.1:2181 --service org.acme.Greeter \'sayHello.mock=force:return "unavailable"\'',
    'weft override set --registry embedded:///var/tmp/weft-registry --service org.acme.Greeter --version 1.0.0 timeout=3000 retries=0',
    'weft override list --registry zookeeper://127.0.0.1:2181 --service org.acme.Greeter --json',
    'weft override rm --registry zookeeper://127.0.0.1:2181 --service org.acme.Greeter sayHello.mock',
    'weft override rm --registry zookeeper://127.0.0.1:2181 --service org.acme.Greeter --all',
  ],
  exitCodes: [
    '0  written / listed / removed (and read back)',
    '1  rejected by validation or by what the registry knows (nothing written; --force skips the latter), the registry cannot be reached or did not keep the change, nothing to remove',
    '2  usage error: missing --registry/--service, unparsable registry URL, a name that is not a service interface, key=value malformed',
  ],
  run,
};
