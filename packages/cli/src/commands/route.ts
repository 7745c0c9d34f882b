import { readFileSync } from 'node:fs';

import { buildConditionRouteUrl, conditionRouteText, readConditionRoutes, routeRuleNode, routeRuleUrl, URL } from '@weft/core';

import { booleanFlag, integerFlag, stringFlag, type ParsedArgs } from '../args.js';
import { HELP_OPTION, JSON_OPTION, type Command, type CommandContext } from '../command.js';
import { CliFailure, ExitCode, formatTable, toJson, UsageError } from '../io.js';
import { RegistrySession } from '../registry-session.js';

const SERVICE_NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
const DEFAULT_TIMEOUT = 5000;
const KINDS = ['condition', 'tag'] as const;
type Kind = (typeof KINDS)[number];

function registryUrl(args: ParsedArgs, ctx: CommandContext): URL {
  const text = stringFlag(args, 'registry') ?? ctx.io.env['WEFT_REGISTRY'];
  if (text === undefined || text.trim() === '') throw new UsageError('missing --registry <url> (or the WEFT_REGISTRY environment variable): e.g. zookeeper://127.0.0.1:2181 or embedded:///var/tmp/weft-registry');
  let url: URL;
  try {
    url = URL.parse(text);
  } catch (error) {
    throw new UsageError(`cannot parse the registry URL "${text}": ${(error as Error).message}`);
  }
  if (url.protocol === '') throw new UsageError(`the registry URL "${text}" has no protocol (zookeeper://host:port, embedded:///dir)`);
  return url;
}

function serviceFlag(args: ParsedArgs): string {
  const service = stringFlag(args, 'service');
  if (service === undefined) throw new UsageError('missing --service <interface>: whose routing rules');
  if (!SERVICE_NAME.test(service)) throw new UsageError(`unknown service "${service}": not a service interface name (dotted identifiers such as org.acme.Greeter)`);
  return service;
}

function kindFlag(args: ParsedArgs): Kind {
  const kind = stringFlag(args, 'kind') ?? 'condition';
  if (!(KINDS as readonly string[]).includes(kind)) throw new UsageError(`--kind "${kind}": expected condition or tag`);
  return kind as Kind;
}

/** The legacy condition route of the flags (core's {@link buildConditionRouteUrl}, shared with `@weft/admin`). */
function legacyRule(args: ParsedArgs, service: string, text: string): URL {
  return buildConditionRouteUrl(service, text, {
    force: booleanFlag(args, 'force'),
    priority: integerFlag(args, 'priority', 0),
    runtime: booleanFlag(args, 'runtime'),
    disabled: booleanFlag(args, 'disabled'),
    group: stringFlag(args, 'group'),
    version: stringFlag(args, 'version'),
  });
}

async function rejectIfBad(session: RegistrySession, kind: Kind, rule: URL, what: string): Promise<void> {
  const problems = await session.checkRoutingRule(kind, rule);
  if (problems.length > 0) throw new CliFailure(`rejected, nothing written: ${what}: ${problems.join('; ')}`);
}

async function add(args: ParsedArgs, ctx: CommandContext, rest: readonly string[]): Promise<number> {
  const service = serviceFlag(args);
  if (rest.length !== 1) throw new UsageError(`expected one condition rule in quotes ("method = find* => host != 10.20.153.11"), got ${rest.length} arguments`);
  const rule = legacyRule(args, service, rest[0] as string);
  const session = await RegistrySession.open(registryUrl(args, ctx), integerFlag(args, 'timeout', DEFAULT_TIMEOUT));
  try {
    // Read first: the registry is then connected, whatever the validation says (closing a client mid-handshake is not clean).
    const before = await readConditionRoutes(session, service);
    await rejectIfBad(session, 'condition', rule, `the rule "${rest[0] as string}"`);
    if (before.some((u) => u.equals(rule))) {
      ctx.out(booleanFlag(args, 'json') ? toJson({ ok: true, registry: session.address, service, rule: rule.toString(), unchanged: true }) : `Unchanged: ${service} already has that condition route.\n  ${rule.toString()}\n`);
      return ExitCode.OK;
    }
    await session.call(`writing ${rule.toString()}`, () => session.registry.register(rule));
    const now = await readConditionRoutes(session, service);
    if (!now.some((u) => u.equals(rule))) throw new CliFailure(`the registry ${session.address} did not keep ${rule.toString()}${session.reported()}`);
    if (booleanFlag(args, 'json')) ctx.out(toJson({ ok: true, registry: session.address, service, rule: rule.toString() }));
    else ctx.out(`Wrote the condition route for ${service} to ${session.address}:\n  ${rule.toString()}\n`);
    return ExitCode.OK;
  } finally {
    await session.close();
  }
}

function documentKey(args: ParsedArgs, kind: Kind): string {
  const key = stringFlag(args, 'key');
  if (key === undefined || key.trim() === '') {
    throw new UsageError(`missing --key: the application (${kind === 'tag' ? 'the provider application, for tag rules' : 'shop'}) or the service key <interface>:<version>:<group> (org.acme.Greeter::)`);
  }
  if (kind === 'tag' && key.includes(':')) throw new UsageError(`--key ${key}: tag rules belong to a provider application (demo-provider), not a service`);
  return routeRuleNode(kind, key);
}

async function put(args: ParsedArgs, ctx: CommandContext, rest: readonly string[]): Promise<number> {
  const kind = kindFlag(args);
  const node = documentKey(args, kind);
  const file = stringFlag(args, 'file');
  const inline = stringFlag(args, 'yaml');
  if ((file === undefined) === (inline === undefined) || rest.length > 0) throw new UsageError('give the rule with --file <path> or --yaml <text> (one of them)');
  let text: string;
  try {
    text = file !== undefined ? readFileSync(file, 'utf8') : (inline as string);
  } catch (error) {
    throw new UsageError(`cannot read --file ${file as string}: ${(error as Error).message}`);
  }
  if (text.trim() === '') throw new UsageError('the rule is empty: to remove it, use weft route rm --key … --kind …');
  const session = await RegistrySession.open(registryUrl(args, ctx), integerFlag(args, 'timeout', DEFAULT_TIMEOUT));
  try {
    const path = session.registry.configPath(node);
    if (path === undefined) {
      throw new CliFailure(`${session.address} has no config centre (config-center=false): YAML rules need one (or use weft route add for a routers URL)`);
    }
    await session.call(`reading ${path}`, () => session.registry.getConfig(node));
    await rejectIfBad(session, kind, routeRuleUrl(kind, node.slice(0, node.lastIndexOf('.')), path, text), `the ${kind} rule for ${path}`);
    await session.call(`writing ${path}`, () => session.registry.publishConfig(node, text));
    const back = await session.call(`reading ${path} back`, () => session.registry.getConfig(node));
    if (back !== text) throw new CliFailure(`the registry ${session.address} did not keep ${path}${session.reported()}`);
    if (booleanFlag(args, 'json')) ctx.out(toJson({ ok: true, registry: session.address, path, kind }));
    else ctx.out(`Wrote the ${kind} rule ${path} to ${session.address}.\n`);
    return ExitCode.OK;
  } finally {
    await session.close();
  }
}

async function list(args: ParsedArgs, ctx: CommandContext): Promise<number> {
  const service = serviceFlag(args);
  const apps = [stringFlag(args, 'application'), stringFlag(args, 'provider-application')].filter((a): a is string => a !== undefined && a !== '');
  const session = await RegistrySession.open(registryUrl(args, ctx), integerFlag(args, 'timeout', DEFAULT_TIMEOUT));
  try {
    const legacy = await readConditionRoutes(session, service);
    const nodes = [
      `${service}:${stringFlag(args, 'version') ?? ''}:${stringFlag(args, 'group') ?? ''}.condition-router`,
      ...apps.map((a) => `${a}.condition-router`),
      ...apps.map((a) => `${a}.tag-router`),
    ];
    const documents: { path: string; text: string }[] = [];
    for (const node of nodes) {
      const path = session.registry.configPath(node);
      if (path === undefined) continue;
      const text = await session.call(`reading ${path}`, () => session.registry.getConfig(node));
      if (text !== undefined && text.trim() !== '') documents.push({ path, text });
    }
    const rows = legacy.map((u) => ({
      rule: conditionRouteText(u),
      force: u.getParameter('force') === 'true',
      priority: Number(u.getParameter('priority') ?? 0),
      enabled: u.getParameter('enabled') !== 'false',
      url: u.toString(),
    }));
    if (booleanFlag(args, 'json')) {
      ctx.out(toJson({ registry: session.address, service, routers: rows, documents }));
      return ExitCode.OK;
    }
    if (rows.length === 0 && documents.length === 0) {
      ctx.out(`No routing rules for ${service} at ${session.address}.\n`);
      return ExitCode.OK;
    }
    if (rows.length > 0) {
      ctx.out(`Condition routes of ${service} in the routers category (${rows.length}):\n`);
      ctx.out(formatTable(['RULE', 'FORCE', 'PRIORITY', 'ENABLED'], rows.map((r) => [r.rule, String(r.force), String(r.priority), String(r.enabled)])));
    }
    for (const d of documents) ctx.out(`\n${d.path}:\n${d.text.replace(/^/gm, '  ')}${d.text.endsWith('\n') ? '' : '\n'}`);
    return ExitCode.OK;
  } finally {
    await session.close();
  }
}

async function rm(args: ParsedArgs, ctx: CommandContext, rest: readonly string[]): Promise<number> {
  const session = await RegistrySession.open(registryUrl(args, ctx), integerFlag(args, 'timeout', DEFAULT_TIMEOUT));
  try {
    if (stringFlag(args, 'key') !== undefined) {
      const kind = kindFlag(args);
      const node = documentKey(args, kind);
      const path = session.registry.configPath(node) ?? node;
      const before = await session.call(`reading ${path}`, () => session.registry.getConfig(node));
      if (before === undefined) throw new CliFailure(`there is no ${kind} rule at ${path}; nothing removed`);
      await session.call(`deleting ${path}`, () => session.registry.publishConfig(node, undefined));
      ctx.out(booleanFlag(args, 'json') ? toJson({ ok: true, registry: session.address, removed: [path] }) : `Removed ${path} from ${session.address}.\n`);
      return ExitCode.OK;
    }
    const service = serviceFlag(args);
    const all = booleanFlag(args, 'all');
    if (all === (rest.length > 0)) throw new UsageError('give the rule text to remove, or --all (or --key … --kind … for a YAML rule)');
    const legacy = await readConditionRoutes(session, service);
    const targets = all ? legacy : legacy.filter((u) => conditionRouteText(u) === rest[0]);
    if (targets.length === 0) {
      const known = legacy.map((u) => `"${conditionRouteText(u)}"`).join(', ') || 'none';
      throw new CliFailure(`no condition route of ${service} ${all ? 'exists' : `is "${rest[0] as string}"`} at ${session.address} (routes: ${known}); nothing removed`);
    }
    for (const rule of targets) await session.call(`removing ${rule.toString()}`, () => session.registry.unregister(rule));
    ctx.out(booleanFlag(args, 'json') ? toJson({ ok: true, registry: session.address, removed: targets.map((t) => t.toString()) }) : `Removed from ${session.address}:\n${targets.map((t) => `  ${t.toString()}\n`).join('')}`);
    return ExitCode.OK;
  } finally {
    await session.close();
  }
}

async function run(args: ParsedArgs, ctx: CommandContext): Promise<number> {
  const [sub, ...rest] = args.positionals;
  switch (sub) {
    case 'add':
      return add(args, ctx, rest);
    case 'put':
      return put(args, ctx, rest);
    case 'list':
    case 'ls':
      if (rest.length > 0) throw new UsageError(`list takes no arguments (got ${rest.join(' ')})`);
      return list(args, ctx);
    case 'rm':
      return rm(args, ctx, rest);
    case undefined:
      throw new UsageError('missing subcommand: add, put, list or rm');
    default:
      throw new UsageError(`unknown subcommand "${sub}": expected add, put, list or rm`);
  }
}

/** `weft route add|put|list|rm`. @internal */
export const routeCommand: Command = {
  name: 'route',
  summary: 'write, list and remove routing rules (condition routes, tag routes) in a registry',
  usage: [
    'route add  --registry <url> --service <interface> [--group g] [--version v] [--force] [--priority n] [--disabled] "<when> => <then>"',
    'route put  --registry <url> --kind condition|tag --key <app|interface:version:group> (--file <path> | --yaml <text>)',
    'route list --registry <url> --service <interface> [--application <app>] [--provider-application <app>] [--json]',
    'route rm   --registry <url> --service <interface> "<when> => <then>" | --all',
    'route rm   --registry <url> --kind condition|tag --key <key>',
  ],
  description: `
Manages Dubbo's routing rules, validated with the same routers (@weft/routers) that consumers run, before
anything is written.

add writes a condition route in the legacy form Dubbo 2.7 and dubbo-admin register:
condition://0.0.0.0/<interface>?category=routers&dynamic=false&enabled=…&force=…&priority=…&router=condition&rule=<rule>
(the rule URL-encoded once more), with embedded:// or zookeeper://. Consumers with @weft/routers obey it on their
next call. --force keeps the rule when no provider matches its then-part (the call fails instead of falling back).

put writes a v3 YAML rule to the config centre (ZooKeeper: /dubbo/config/dubbo/<key>.<kind>-router; embedded:
<folder>/dubbo/config/dubbo/<key>.<kind>-router, the key URL-encoded):
--kind condition with --key <interface>:<version>:<group> (service scope, e.g. org.acme.Greeter::) or an
application (the consumer's, or a provider application's); --kind tag with --key <provider application>.

list shows the service's routers-category rules and its config-centre documents (the service's, and those of the
applications given). rm removes a routers-category rule by its text (or --all), or a config-centre document.`,
  options: [
    { name: 'registry', kind: 'string', value: '<url>', description: 'Registry URL. Default: $WEFT_REGISTRY.' },
    { name: 'service', kind: 'string', value: '<interface>', description: 'The service interface (org.acme.Greeter).' },
    { name: 'group', kind: 'string', value: '<group>', description: 'add/list: the service group.' },
    { name: 'version', kind: 'string', value: '<version>', description: 'add/list: the service version.' },
    { name: 'force', kind: 'boolean', description: 'add: the rule\'s force flag (an empty result is not ignored).' },
    { name: 'priority', kind: 'string', value: '<n>', description: 'add: the rule\'s priority (higher runs first). Default: 0.' },
    { name: 'runtime', kind: 'boolean', description: 'add: the rule\'s runtime flag (informational in Weft: results are cached per method when possible).' },
    { name: 'disabled', kind: 'boolean', description: 'add: write the rule with enabled=false.' },
    { name: 'kind', kind: 'string', value: 'condition|tag', choices: ['condition', 'tag'], description: 'put/rm: which YAML rule. Default: condition.' },
    { name: 'key', kind: 'string', value: '<key>', description: 'put/rm: the application, or <interface>:<version>:<group>.' },
    { name: 'file', kind: 'string', value: '<path>', description: 'put: read the YAML rule from a file.' },
    { name: 'yaml', kind: 'string', value: '<text>', description: 'put: the YAML (or JSON) rule itself.' },
    { name: 'application', kind: 'string', value: '<app>', description: 'list: also show this (consumer) application\'s condition and tag rules.' },
    { name: 'provider-application', kind: 'string', value: '<app>', description: 'list: also show this provider application\'s rules.' },
    { name: 'all', kind: 'boolean', description: 'rm: remove every routers-category rule of the service.' },
    { name: 'timeout', kind: 'string', value: '<ms>', description: `How long each registry operation may take. Default: ${DEFAULT_TIMEOUT}.` },
    JSON_OPTION,
    HELP_OPTION,
  ],
  examples: [
    '# findUser calls from 10.20.* go anywhere but 10.20.153.11',
    'weft route add --registry zookeeper://127.0.0.1:2181 --service org.acme.Users "host = 10.20.* & method = find* => host != 10.20.153.11"',
    'weft route put --registry zookeeper://127.0.0.1:2181 --kind condition --key org.acme.Users:: --yaml "conditions: [\'=> region = \\$region\']"',
    'weft route put --registry zookeeper://127.0.0.1:2181 --kind tag --key user-service --file gray.yaml',
    'weft route list --registry zookeeper://127.0.0.1:2181 --service org.acme.Users --provider-application user-service',
    'weft route rm --registry zookeeper://127.0.0.1:2181 --kind tag --key user-service',
  ],
  exitCodes: [
    '0  written (and read back) / listed / removed',
    '1  rejected by the router (nothing written), the registry cannot be reached or has no config centre, nothing to remove',
    '2  usage error: missing --registry/--service/--key, unparsable registry URL, several or no rule texts',
  ],
  run,
};
