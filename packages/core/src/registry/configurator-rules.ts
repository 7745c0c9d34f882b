import { isCollection, isPair, parseDocument } from 'yaml';

import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import { URL } from '../rpc/url.js';
import { RuleLimitDefaults, RuleLimitKeys, type RuleLimits } from './rule-limits.js';

/** `configVersion` values a rule may carry. */
const CONFIG_VERSIONS = ['v2.7', 'v3.0'];
/** `type` values of a rule item. */
const ITEM_TYPES = ['general', 'weight', 'balancing', 'disabled'];
/** Category of the override URLs translated from service-scope rules (and of every item's parameter string). */
const DYNAMIC_CONFIGURATORS = 'dynamicconfigurators';
/** Category of the override URLs translated from application-scope rules. */
const APP_DYNAMIC_CONFIGURATORS = 'appdynamicconfigurators';
const ANYHOST = '0.0.0.0';

type Plain = Record<string, unknown>;

/**
 * Translates a config-centre configurator rule — the YAML (or JSON) that dubbo-admin writes to
 * `/dubbo/config/dubbo/{app}.configurators` or `/dubbo/config/dubbo/{interface}:{version}:{group}.configurators` —
 * into the override URLs it stands for.
 *
 * @remarks
 * Dubbo's `ConfigParser` (wire-and-registry spec §B.7), rule by rule:
 * - a JSON (or YAML) **list of strings** is a list of override URLs in Dubbo's decoded form, taken as is;
 * - otherwise the document is a rule: `configVersion` (`v2.7` | `v3.0`, required), `scope` (`service`, the default,
 *   or `application`), `key` (the app name; for service scope `[group/]interface[:version]`), `enabled` (boolean,
 *   default true) and `configs`, a list of items. Each item needs `side` (`consumer` | `provider`; a rule without it
 *   never applies, so it is refused) and a non-empty `parameters` map; `addresses` (default `["0.0.0.0"]`, entries
 *   may carry a port), `providerAddresses`, `applications`, `services` (application scope; default `*`), `type`
 *   (`general` | `weight` | `balancing` | `disabled`) and `enabled` (used when `type` is not `general`) are optional.
 * - Each item becomes one URL per address (times one per application, or per service in application scope):
 *   `override://{address}/{interface}?[group=…&version=…&]category=dynamicconfigurators[&side=…]&<parameters>
 *   [&providerAddresses=…]&enabled=…&configVersion=…[&application=…]`; application scope uses
 *   `category=appdynamicconfigurators` and `application={key}`. A `side: provider` item without
 *   `providerAddresses` gets its `addresses` there.
 * - `match` (v3.0) is supported where it can be expressed exactly by an override URL: `app` (or `application`)
 *   `oneof` of `exact` names (one URL per name, like `applications`), `param` entries with an `exact` value
 *   (`~key=value` conditions) and `providerAddress` with `exact`. Any other matcher (`address`, `service`,
 *   `prefix`/`regex`/`wildcard`/`cird`/`empty`/`noempty` values) is refused rather than applied too widely.
 * An empty document means "no rules". Unknown keys are ignored (forward compatibility).
 *
 * Bounded (`limits`, from the registry URL): a document longer than `rule.yaml.max-bytes` (default 65536), nested
 * deeper than `rule.yaml.max-depth` (default 32, checked before parsing) or expanding more than
 * `rule.yaml.max-aliases` alias references (default 100), and more than `rule.max-count` translated URLs (default
 * 20000), are refused before any rule of it applies.
 *
 * @example
 * ```ts
 * parseConfiguratorRules('configVersion: v3.0\nkey: org.acme.Greeter\nconfigs:\n  - side: consumer\n    parameters: {timeout: 6000}\n');
 * // [override://0.0.0.0/org.acme.Greeter?category=dynamicconfigurators&side=consumer&timeout=6000&enabled=true&configVersion=v3.0]
 * ```
 * @throws `ExtensionError` `ERR_SPI_INVALID_PARAMETER` naming the offending field and what is expected.
 */
export function parseConfiguratorRules(text: string, limits: RuleLimits = DEFAULT_LIMITS): URL[] {
  if (text.trim() === '') return [];
  const bytes = Buffer.byteLength(text);
  if (bytes > limits.yamlMaxBytes) {
    throw invalid(`the document is ${bytes} bytes, more than ${RuleLimitKeys.YAML_MAX_BYTES}=${limits.yamlMaxBytes} (a registry URL key); it was not parsed`);
  }
  const depth = nestingDepth(text);
  if (depth > limits.yamlMaxDepth) {
    throw invalid(`the document nests at least ${depth} levels deep, more than ${RuleLimitKeys.YAML_MAX_DEPTH}=${limits.yamlMaxDepth}; it was not parsed`);
  }
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw invalid(`the text is neither valid YAML nor JSON: ${doc.errors[0]?.message ?? 'syntax error'}`);
  }
  const parsedDepth = nodeDepth(doc.contents);
  if (parsedDepth > limits.yamlMaxDepth) {
    throw invalid(`the document nests ${parsedDepth} levels deep, more than ${RuleLimitKeys.YAML_MAX_DEPTH}=${limits.yamlMaxDepth}`);
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: limits.yamlMaxAliases });
  } catch (error) {
    throw invalid(`the document expands its aliases too much (more than ${RuleLimitKeys.YAML_MAX_ALIASES}=${limits.yamlMaxAliases}): ${(error as Error).message}`);
  }
  if (value === null || value === undefined) return [];
  const urls = Array.isArray(value)
    ? parseUrlList(value)
    : isPlain(value)
      ? translateRule(value)
      : fail(`expected a rule (a map with configVersion, key and configs) or a list of override URLs, got ${describe(value)}`);
  if (urls.length > limits.maxCount) throw invalid(`it stands for ${urls.length} override URLs, more than ${RuleLimitKeys.MAX_COUNT}=${limits.maxCount}`);
  return urls;
}

const DEFAULT_LIMITS: RuleLimits = {
  maxCount: RuleLimitDefaults.MAX_COUNT,
  maxBytes: RuleLimitDefaults.MAX_BYTES,
  yamlMaxBytes: RuleLimitDefaults.YAML_MAX_BYTES,
  yamlMaxDepth: RuleLimitDefaults.YAML_MAX_DEPTH,
  yamlMaxAliases: RuleLimitDefaults.YAML_MAX_ALIASES,
};

/** The collection nesting of a parsed document (iterative: no recursion on hostile input). */
function nodeDepth(root: unknown): number {
  let max = 0;
  const stack: Array<[unknown, number]> = [[root, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (!isCollection(node)) continue;
    if (depth > max) max = depth;
    for (const item of node.items) {
      if (isPair(item)) {
        stack.push([item.key, depth + 1], [item.value, depth + 1]);
      } else {
        stack.push([item, depth + 1]);
      }
    }
  }
  return max;
}

function fail(message: string): never {
  throw invalid(message);
}

/**
 * A cheap upper estimate of a YAML text's collection nesting, without parsing: flow brackets (`[`, `{`) outside
 * quotes and comments, plus block levels (distinct indentations on the way in, and `- ` entries opened on one line).
 */
const QUOTE_OPENERS = ' \t\n[{,:-';

function nestingDepth(text: string): number {
  let max = 0;
  let flow = 0;
  const indents: number[] = [];
  let lineStart = true;
  let indent = 0;
  let dashes = 0;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\n') {
      lineStart = true;
      indent = 0;
      dashes = 0;
      continue;
    }
    if (quote !== undefined) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (lineStart) {
      if (c === ' ') {
        indent++;
        continue;
      }
      if (c === '-' && (text[i + 1] === ' ' || text[i + 1] === '\n')) {
        dashes++;
        indent += 2;
        i++;
        continue;
      }
      lineStart = false;
      if (c === '#' || c === '\r') continue;
      while (indents.length > 0 && (indents[indents.length - 1] as number) >= indent - dashes * 2) indents.pop();
      indents.push(indent - dashes * 2);
      const depth = indents.length + dashes + flow;
      if (depth > max) max = depth;
    }
    if (c === '#' && (text[i - 1] === ' ' || text[i - 1] === '\t')) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end - 1;
    } else if ((c === '"' || c === "'") && QUOTE_OPENERS.includes(text[i - 1] ?? ' ')) {
      quote = c;
    } else if (c === '[' || c === '{') {
      flow++;
      if (indents.length + dashes + flow > max) max = indents.length + dashes + flow;
    } else if ((c === ']' || c === '}') && flow > 0) {
      flow--;
    }
  }
  return max;
}

function parseUrlList(list: readonly unknown[]): URL[] {
  return list.map((entry, i) => {
    if (typeof entry !== 'string' || entry.trim() === '') {
      throw invalid(`a list of override URLs must hold only URL strings; entry ${i} is ${describe(entry)}`);
    }
    try {
      return URL.parse(entry, { decoded: true });
    } catch (error) {
      throw invalid(`entry ${i} "${entry}" is not a URL: ${(error as Error).message}`);
    }
  });
}

function translateRule(rule: Plain): URL[] {
  const configVersion = rule['configVersion'];
  if (typeof configVersion !== 'string' || !CONFIG_VERSIONS.includes(configVersion)) {
    throw invalid(`configVersion must be one of ${CONFIG_VERSIONS.join(', ')}; got ${describe(configVersion)}`);
  }
  const scope = rule['scope'] ?? 'service';
  if (scope !== 'service' && scope !== 'application') throw invalid(`scope must be "service" or "application"; got ${describe(scope)}`);
  const key = rule['key'];
  if (typeof key !== 'string' || key.trim() === '') {
    throw invalid(`key is required: the application name (scope application) or [group/]interface[:version] (scope service); got ${describe(key)}`);
  }
  const enabled = rule['enabled'] ?? true;
  if (typeof enabled !== 'boolean') throw invalid(`enabled must be true or false; got ${describe(enabled)}`);
  const configs = rule['configs'];
  if (!Array.isArray(configs)) throw invalid(`configs must be a list of items (each with side and parameters); got ${describe(configs)}`);
  const service = scope === 'service' ? splitServiceKey(key.trim(), 'key') : undefined;
  const urls: URL[] = [];
  configs.forEach((raw: unknown, index: number) => {
    const where = `configs[${index}]`;
    if (!isPlain(raw)) throw invalid(`${where} must be a map with side and parameters; got ${describe(raw)}`);
    const item = readItem(raw, where, configVersion, scope === 'application');
    const itemEnabled = item.type === 'general' ? enabled : item.enabled;
    for (const address of item.addresses) {
      if (service !== undefined) {
        for (const application of item.applications ?? [undefined]) {
          const params = serviceKeyParams(service);
          putItemParams(params, item);
          params.set('enabled', String(itemEnabled));
          params.set('category', DYNAMIC_CONFIGURATORS);
          params.set('configVersion', configVersion);
          if (application !== undefined) params.set('application', application);
          urls.push(overrideUrl(address, service.iface, params));
        }
      } else {
        for (const entry of item.services) {
          const target = entry === '*' ? { iface: '*' } : splitServiceKey(entry, `${where}.services`);
          const params = serviceKeyParams(target);
          putItemParams(params, item);
          params.set('application', key.trim());
          params.set('enabled', String(itemEnabled));
          params.set('category', APP_DYNAMIC_CONFIGURATORS);
          params.set('configVersion', configVersion);
          urls.push(overrideUrl(address, target.iface, params));
        }
      }
    }
  });
  return urls;
}

interface Item {
  readonly side: string;
  readonly addresses: readonly Address[];
  readonly providerAddresses: readonly string[] | undefined;
  readonly applications: readonly string[] | undefined;
  readonly services: readonly string[];
  readonly parameters: ReadonlyMap<string, string>;
  readonly conditions: ReadonlyMap<string, string>;
  readonly type: string;
  readonly enabled: boolean;
}

interface Address {
  readonly host: string;
  readonly port: number;
}

function readItem(raw: Plain, where: string, configVersion: string, applicationScope: boolean): Item {
  const side = raw['side'];
  if (side !== 'consumer' && side !== 'provider') {
    throw invalid(`${where}.side is required and must be "consumer" or "provider" (a rule without side never applies); got ${describe(side)}`);
  }
  const addressList = stringList(raw['addresses'], `${where}.addresses`) ?? [ANYHOST];
  const addresses = addressList.map((a, i) => parseAddress(a, `${where}.addresses[${i}]`));
  let providerAddresses = stringList(raw['providerAddresses'], `${where}.providerAddresses`);
  let applications = stringList(raw['applications'], `${where}.applications`);
  const services = (applicationScope ? stringList(raw['services'], `${where}.services`) : undefined) ?? ['*'];
  const type = raw['type'] ?? 'general';
  if (typeof type !== 'string' || !ITEM_TYPES.includes(type)) throw invalid(`${where}.type must be one of ${ITEM_TYPES.join(', ')}; got ${describe(type)}`);
  const enabled = raw['enabled'] ?? true;
  if (typeof enabled !== 'boolean') throw invalid(`${where}.enabled must be true or false; got ${describe(enabled)}`);
  const rawParameters = raw['parameters'];
  if (!isPlain(rawParameters) || Object.keys(rawParameters).length === 0) {
    throw invalid(`${where}.parameters is required and must be a non-empty map of what to change, e.g. parameters: {timeout: 6000}; got ${describe(rawParameters)}`);
  }
  const parameters = new Map<string, string>();
  for (const [name, value] of Object.entries(rawParameters)) {
    if (name.trim() === '') throw invalid(`${where}.parameters has an empty key`);
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw invalid(`${where}.parameters.${name} must be a string, number or boolean; got ${describe(value)}`);
    }
    parameters.set(name, String(value));
  }
  const conditions = new Map<string, string>();
  if (raw['match'] !== undefined && raw['match'] !== null) {
    if (configVersion !== 'v3.0') throw invalid(`${where}.match needs configVersion v3.0 (got ${configVersion})`);
    const match = readMatch(raw['match'], `${where}.match`);
    if (match.applications !== undefined) {
      if (applications !== undefined) throw invalid(`${where}: give either applications or match.app, not both`);
      applications = match.applications;
    }
    if (match.providerAddress !== undefined) {
      if (providerAddresses !== undefined) throw invalid(`${where}: give either providerAddresses or match.providerAddress, not both`);
      providerAddresses = [match.providerAddress];
    }
    for (const [name, value] of match.params) conditions.set(`~${name}`, value);
  }
  if (side === 'provider' && providerAddresses === undefined) providerAddresses = addressList;
  return { side, addresses, providerAddresses, applications, services, parameters, conditions, type, enabled };
}

function readMatch(raw: unknown, where: string): { applications?: string[]; providerAddress?: string; params: Map<string, string> } {
  if (!isPlain(raw)) throw invalid(`${where} must be a map; got ${describe(raw)}`);
  const out: { applications?: string[]; providerAddress?: string; params: Map<string, string> } = { params: new Map() };
  for (const [field, value] of Object.entries(raw)) {
    if (value === null || value === undefined) continue;
    if (field === 'app' || field === 'application') {
      if (!isPlain(value) || !Array.isArray(value['oneof']) || value['oneof'].length === 0) {
        throw invalid(`${where}.${field} must be {oneof: [{exact: <name>}, …]}; got ${describe(value)}`);
      }
      out.applications = value['oneof'].map((m: unknown, i: number) => exactOf(m, `${where}.${field}.oneof[${i}]`));
    } else if (field === 'param') {
      if (!Array.isArray(value)) throw invalid(`${where}.param must be a list of {key, value: {exact: …}}; got ${describe(value)}`);
      value.forEach((entry: unknown, i: number) => {
        if (!isPlain(entry) || typeof entry['key'] !== 'string' || entry['key'] === '') {
          throw invalid(`${where}.param[${i}] must be {key: <name>, value: {exact: …}}; got ${describe(entry)}`);
        }
        out.params.set(entry['key'], exactOf(entry['value'], `${where}.param[${i}].value`));
      });
    } else if (field === 'providerAddress') {
      out.providerAddress = exactOf(value, `${where}.providerAddress`);
    } else {
      throw invalid(
        `${where}.${field} is not supported by Weft (supported: app/application oneof exact, param exact, providerAddress exact); ` +
          'the rule is refused rather than applied more widely than written',
      );
    }
  }
  return out;
}

function exactOf(raw: unknown, where: string): string {
  if (isPlain(raw)) {
    const kinds = Object.keys(raw).filter((k) => raw[k] !== null && raw[k] !== undefined);
    const exact = raw['exact'];
    if (kinds.length === 1 && (typeof exact === 'string' || typeof exact === 'number') && String(exact) !== '') return String(exact);
    if (kinds.some((k) => k !== 'exact')) {
      throw invalid(`${where}: only {exact: …} matching is supported by Weft (got ${kinds.join(', ')}); the rule is refused rather than applied more widely than written`);
    }
  }
  throw invalid(`${where} must be {exact: <value>}; got ${describe(raw)}`);
}

function putItemParams(params: Map<string, string>, item: Item): void {
  params.set('category', DYNAMIC_CONFIGURATORS);
  params.set('side', item.side);
  for (const [name, value] of item.parameters) params.set(name, value);
  if (item.providerAddresses !== undefined && item.providerAddresses.length > 0) params.set('providerAddresses', item.providerAddresses.join(','));
  for (const [name, value] of item.conditions) params.set(name, value);
}

interface ServiceKey {
  readonly iface: string;
  readonly group?: string;
  readonly version?: string;
}

/** Dubbo's `appendService`: `[group/]interface[:version]`. */
function splitServiceKey(key: string, where: string): ServiceKey {
  let iface = key;
  let group: string | undefined;
  let version: string | undefined;
  const slash = iface.indexOf('/');
  if (slash > 0) {
    group = iface.slice(0, slash);
    iface = iface.slice(slash + 1);
  }
  const colon = iface.indexOf(':');
  if (colon > 0) {
    version = iface.slice(colon + 1);
    iface = iface.slice(0, colon);
  }
  if (iface === '' || /[\s/?#&=]/.test(iface)) throw invalid(`${where} "${key}" is not [group/]interface[:version]`);
  return { iface, ...(group === undefined ? {} : { group }), ...(version === undefined || version === '' ? {} : { version }) };
}

function serviceKeyParams(service: ServiceKey): Map<string, string> {
  const params = new Map<string, string>();
  if (service.group !== undefined) params.set('group', service.group);
  if (service.version !== undefined) params.set('version', service.version);
  return params;
}

function parseAddress(text: string, where: string): Address {
  try {
    const url = new URL({ protocol: 'override' }).withAddress(text.trim());
    if (url.host === '') throw new Error('no host');
    return { host: url.host, port: url.port };
  } catch (error) {
    throw invalid(`${where} "${text}" is not host or host:port (${(error as Error).message})`);
  }
}

function overrideUrl(address: Address, iface: string, params: ReadonlyMap<string, string>): URL {
  return new URL({ protocol: 'override', host: address.host, port: address.port, path: iface, parameters: params });
}

function stringList(raw: unknown, where: string): string[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw invalid(`${where} must be a list, e.g. ["0.0.0.0"]; got ${describe(raw)}`);
  return raw.map((entry: unknown, i: number) => {
    if ((typeof entry !== 'string' && typeof entry !== 'number') || String(entry).trim() === '') {
      throw invalid(`${where}[${i}] must be a non-empty string; got ${describe(entry)}`);
    }
    return String(entry).trim();
  });
}

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Map);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a map';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function invalid(message: string): ExtensionError {
  return new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `Invalid configurator rule: ${message.replace(/\.+$/, '')}.`);
}
