import { ExtensionError, maskedIdentity, maskSecrets, maskUrlText, URL } from '@weft/core';

import { explainActivation, isConfigNotEmpty, splitCommaList, type ActivateCandidate, type ActivateMetadata, type ManifestRecord } from '@weft/core/spi';

import { booleanFlag, integerFlag, listFlag, stringFlag, type ParsedArgs } from '../args.js';
import { HELP_OPTION, JSON_OPTION, ROOT_OPTION, type Command, type CommandContext } from '../command.js';
import { ExitCode, formatTable, toJson, UsageError } from '../io.js';
import { discoverProject, displayPath, findProjectRoot } from '../project.js';
import { previewRouting, routerChainOf, type OverridesStep, type RoutingStep } from './explain-routing.js';

const FILTER_POINT = 'weft.rpc.Filter';
/** What `defineService` accepts as an interface name. */
const SERVICE_NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
const METHOD_NAME = /^[A-Za-z_][A-Za-z0-9_$]*$/;


/** Which URL parameter activated an extension automatically. */
interface ActivatedBy {
  readonly key: string;
  readonly value: string;
  /** Set when a method-level parameter (`<method>.<key>`) did it. */
  readonly method: string | null;
}

/** Mirrors the loader's condition check, and says which parameter (plain, else which method's) made it hold. */
function activatedBy(meta: ActivateMetadata, url: URL): ActivatedBy | undefined {
  for (const { key, expected } of meta.conditions) {
    const plain = url.getParameter(key);
    if (plain !== undefined && plain !== '') {
      if (expected !== undefined ? expected === plain : isConfigNotEmpty(plain)) return { key, value: plain, method: null };
      continue;
    }
    const any = url.getAnyMethodParameter(key);
    if (any === undefined || !(expected !== undefined ? expected === any : isConfigNotEmpty(any))) continue;
    return { key, value: any, method: methodSetting(url, key, any) ?? null };
  }
  return undefined;
}

/** The method whose `<method>.<key>` parameter `getAnyMethodParameter(key)` returned. */
function methodSetting(url: URL, key: string, value: string): string | undefined {
  const listed = url.getParameter('methods');
  const order = listed ? splitCommaList(listed.trim()) : [...url.parameters.keys()].filter((k) => k.endsWith(`.${key}`)).map((k) => k.slice(0, k.indexOf('.')));
  return order.find((m) => url.getMethodParameterStrict(m, key) === value);
}

interface Explained {
  readonly name: string;
  readonly package: string;
  readonly manifest: string;
  readonly position: number;
  readonly reason: string;
  readonly detail: string;
  readonly activatedBy: ActivatedBy | null;
  /** The URL keys its manifest declares (`"keys"`) that the URL sets, plain and method-level: the filter's rule. */
  readonly settings: readonly { readonly key: string; readonly value: string }[];
}

/** The URL parameters that set the keys a manifest entry declares (`tps`, `sayHello.tps`, …), in URL order. */
function settingsOf(record: ManifestRecord, url: URL): { key: string; value: string }[] {
  const declared = record.entry.keys;
  if (declared.length === 0) return [];
  const settings: { key: string; value: string }[] = [];
  for (const [key, value] of url.parameters) {
    const hit = declared.some((d) => d.key === key || (d.method && key.endsWith(`.${d.key}`) && METHOD_NAME.test(key.slice(0, key.length - d.key.length - 1))));
    if (hit) settings.push({ key, value });
  }
  return settings;
}

/** Builds the URL to explain from the argument and flags. */
function buildUrl(args: ParsedArgs): { url: URL; side: 'provider' | 'consumer'; notes: string[] } {
  if (args.positionals.length === 0) throw new UsageError('missing <url-or-service>: give a service interface name (org.acme.Greeter) or a URL');
  if (args.positionals.length > 1) throw new UsageError(`expected one <url-or-service>, got ${args.positionals.length}: ${args.positionals.join(' ')}`);
  const input = (args.positionals[0] as string).trim();
  const sideFlag = stringFlag(args, 'side') as 'provider' | 'consumer' | undefined;
  const notes: string[] = [];
  let url: URL;
  if (!input.includes('://') && !input.includes('/')) {
    if (!SERVICE_NAME.test(input)) {
      throw new UsageError(
        `unknown service "${input}": not a service interface name (dotted identifiers such as org.acme.Greeter) and not a URL (protocol://host/interface?key=value)`,
      );
    }
    if (sideFlag === undefined) throw new UsageError('missing --side provider|consumer: which chain to explain');
    url = new URL({ protocol: sideFlag, host: '127.0.0.1', path: input, parameters: { interface: input, side: sideFlag } });
  } else {
    try {
      url = URL.parse(input);
    } catch (error) {
      throw new UsageError(`cannot parse the URL "${maskUrlText(input)}": ${(error as Error).message}`);
    }
    const iface = url.getServiceInterface();
    if (iface === undefined) throw new UsageError(`the URL "${maskUrlText(input)}" names no service: put the interface in its path (tri://host:port/org.acme.Greeter) or an interface= parameter`);
    if (!SERVICE_NAME.test(iface)) {
      throw new UsageError(`unknown service "${iface}" in "${maskUrlText(input)}": not a service interface name (dotted identifiers such as org.acme.Greeter)`);
    }
  }
  const urlSide = url.getSide() ?? (url.protocol === 'consumer' || url.protocol === 'provider' ? url.protocol : undefined);
  const side = sideFlag ?? (urlSide === 'provider' || urlSide === 'consumer' ? urlSide : undefined);
  if (side === undefined) throw new UsageError('missing --side provider|consumer (the URL has no side=provider|consumer parameter)');
  if (urlSide !== undefined && urlSide !== side) notes.push(`the URL says side=${urlSide}; explaining the ${side} chain as --side asks`);
  url = url.addParameter('side', side);

  const method = stringFlag(args, 'method');
  if (method !== undefined) {
    if (!METHOD_NAME.test(method)) throw new UsageError(`--method "${method}" is not a method name (an identifier)`);
    const methods = url.getParameter('methods');
    if (methods && !splitCommaList(methods.trim()).includes(method)) {
      notes.push(`the URL's methods=${methods} does not list ${method}: activation ignores its method-level keys`);
    }
  }
  const params: Record<string, string> = {};
  for (const pair of listFlag(args, 'param')) {
    const eq = pair.indexOf('=');
    if (eq <= 0 || eq === pair.length - 1) throw new UsageError(`--param "${pair}" must be key=value with a non-empty key and value`);
    params[method !== undefined ? `${method}.${pair.slice(0, eq)}` : pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  url = url.addParameters(params);
  const filter = stringFlag(args, 'filter');
  if (filter !== undefined) {
    const key = side === 'provider' ? 'service.filter' : 'reference.filter';
    url = filter.trim() === '' ? url.removeParameter(key) : url.addParameter(key, filter);
  }
  return { url, side, notes };
}

async function run(args: ParsedArgs, ctx: CommandContext): Promise<number> {
  const { url, side, notes } = buildUrl(args);
  const root = findProjectRoot(ctx.io.cwd, stringFlag(args, 'root'));
  const index = discoverProject(root);
  const filterKey = side === 'provider' ? 'service.filter' : 'reference.filter';
  const rawList = url.getParameter(filterKey);
  const values = rawList === undefined || rawList === '' ? undefined : splitCommaList(rawList);

  const records = index.records.get(FILTER_POINT) ?? [];
  const extensions = records.filter((r) => r.entry.kind === 'extension');
  const wrappers = records.filter((r) => r.entry.kind === 'wrapper');
  const byName = new Map<string, ManifestRecord[]>();
  for (const r of extensions) {
    const list = byName.get(r.entry.name);
    if (list === undefined) byName.set(r.entry.name, [r]);
    else list.push(r);
  }
  const errors: string[] = [];
  const warnings: string[] = [...notes];
  const candidates: ActivateCandidate[] = [];
  const clashes: Explained[] = [];
  for (const [name, list] of byName) {
    const first = list[0] as ManifestRecord;
    if (list.length === 1) {
      candidates.push({ name, activate: first.entry.activate });
      continue;
    }
    const who = list.map((r) => `${r.pkg.name}@${r.pkg.version} (${displayPath(root, r.manifestPath)})`).join(' and ');
    errors.push(`filter "${name}" is declared by ${who}: the loader refuses the name, so the application does not start. Uninstall or rename one (see weft doctor).`);
    clashes.push({ name, package: list.map((r) => `${r.pkg.name}@${r.pkg.version}`).join(', '), manifest: displayPath(root, first.manifestPath), position: -1, reason: 'clash', detail: `declared by ${who}`, activatedBy: null, settings: [] });
  }
  for (const p of index.problems.filter((p) => p.pointId === FILTER_POINT)) {
    errors.push(`invalid filter manifest ${displayPath(root, p.file)}: ${p.message} (it contributes no filters, and loading weft.rpc.Filter fails)`);
  }
  for (const name of values ?? []) {
    const bare = name.trim();
    if (bare === '' || bare === 'default' || bare === '-default') continue;
    const wanted = bare.startsWith('-') ? bare.slice(1) : bare;
    if (byName.has(wanted)) continue;
    if (bare.startsWith('-')) warnings.push(`${filterKey} removes "${wanted}", which is not installed: the removal has no effect`);
    else errors.push(`${filterKey} names "${wanted}", which is not installed: the application refuses this URL at ${side === 'provider' ? 'export' : 'refer'} time. Installed filters: ${[...byName.keys()].sort().join(', ') || '(none)'}.`);
  }

  let explained: { readonly order: readonly string[]; readonly verdicts: readonly { name: string; position: number; reason: string; detail: string }[] };
  try {
    explained = explainActivation(FILTER_POINT, candidates, url, values, side);
  } catch (error) {
    if (!(error instanceof ExtensionError)) throw error;
    ctx.err(`weft explain: ${error.message} [${error.code}]\n`);
    return ExitCode.FAILURE;
  }
  const recordOf = (name: string) => (byName.get(name) ?? [])[0] as ManifestRecord;
  const describe = (v: { name: string; position: number; reason: string; detail: string }): Explained => {
    const record = recordOf(v.name);
    const meta = record.entry.activate;
    return {
      name: v.name,
      package: `${record.pkg.name}@${record.pkg.version}`,
      manifest: displayPath(root, record.manifestPath),
      position: v.position,
      reason: v.reason,
      detail: v.detail,
      activatedBy: (v.reason === 'activated' && meta !== undefined ? activatedBy(meta, url) : undefined) ?? null,
      settings: settingsOf(record, url),
    };
  };
  const verdicts = explained.verdicts.map(describe);
  const routing = side === 'consumer' ? await explainRouting(args, ctx, index, url) : undefined;
  // Dubbo keeps duplicates when `default` is expanded next to an explicit name; show the chain as built.
  const chain = explained.order.map((name, position) => ({ ...(verdicts.find((v) => v.name === name) as Explained), position }));
  const excluded = [...verdicts.filter((v) => v.position < 0), ...clashes].sort((a, b) => a.name.localeCompare(b.name));

  const protocol = protocolOf(url, index.records.get(PROTOCOL_POINT) ?? []);
  if (booleanFlag(args, 'json')) {
    ctx.out(
      toJson({
        root,
        service: url.getServiceInterface(),
        side,
        protocol,
        group: side,
        filterKey,
        url: url.toString(),
        filterList: values ?? null,
        chain,
        excluded,
        wrappers: wrappers.map((w) => ({ name: w.entry.name, package: `${w.pkg.name}@${w.pkg.version}`, order: w.entry.wrapper?.order ?? 0 })),
        ...(routing !== undefined ? { routers: routing } : {}),
        errors,
        warnings,
      }),
    );
    return errors.length > 0 ? ExitCode.FAILURE : ExitCode.OK;
  }
  const title = side === 'provider' ? 'Provider' : 'Consumer';
  ctx.out(`${title} filter chain of ${url.getServiceInterface() as string}\n`);
  ctx.out(`  URL          ${maskSecrets(url)}\n`);
  ctx.out(`  filter list  ${filterKey} = ${rawList ? rawList : '(not set: automatic activation only)'}\n`);
  ctx.out(`  installed    ${byName.size} filter${byName.size === 1 ? '' : 's'} found from ${root}\n`);
  if (protocol !== null) {
    const where = protocol.package === null ? 'not installed' : protocol.package;
    const keys = protocol.settings.length > 0 ? `; ${protocol.settings.map((k) => `${k.key}=${k.value}`).join(' ')}` : '';
    ctx.out(`  protocol     ${protocol.name} (${where}${keys})\n`);
  }
  ctx.out('\n');
  const links = chain.length > 0 ? chain.map((c) => c.name).join(' → ') : '(no filters)';
  ctx.out(side === 'provider' ? `  exporter → [ ${links} ] → service implementation\n` : `  proxy → cluster → [ ${links} ] → protocol invoker\n`);
  if (chain.length > 0) {
    ctx.out('\nIn the chain (outermost first):\n');
    ctx.out(formatTable(['#', 'NAME', 'PACKAGE', 'WHY'], chain.map((c) => [String(c.position + 1), c.name, c.package, why(c)])));
    const configured = chain.filter((c, i) => c.settings.length > 0 && chain.findIndex((o) => o.name === c.name) === i);
    if (configured.length > 0) {
      ctx.out('\nTheir settings (the URL keys each one declares, as this URL sets them; unset keys take their defaults):\n');
      ctx.out(formatTable(['NAME', 'SETTINGS'], configured.map((c) => [c.name, c.settings.map((k) => `${k.key}=${k.value}`).join(' ')])));
    }
  }
  if (excluded.length > 0) {
    ctx.out('\nNot in the chain:\n');
    ctx.out(formatTable(['NAME', 'PACKAGE', 'WHY'], excluded.map((c) => [c.name, c.package, c.detail])));
  }
  if (wrappers.length > 0) {
    ctx.out(`\nEvery filter is wrapped by: ${wrappers.map((w) => `${w.entry.name} (${w.pkg.name}@${w.pkg.version})`).join(', ')}\n`);
  }
  if (routing !== undefined) printRouting(ctx, routing);
  for (const warning of warnings) ctx.err(`weft explain: warning: ${warning}\n`);
  for (const error of errors) ctx.err(`weft explain: error: ${error}\n`);
  return errors.length > 0 ? ExitCode.FAILURE : ExitCode.OK;
}

const PROTOCOL_POINT = 'weft.rpc.Protocol';

/**
 * The protocol a provider or consumer URL names (`dubbo://…`): the package contributing it and the keys of its
 * manifest the URL sets; `null` for `consumer://`/`provider://` URLs and bare service names.
 */
function protocolOf(url: URL, records: readonly ManifestRecord[]): { name: string; package: string | null; settings: { key: string; value: string }[] } | null {
  const name = url.protocol;
  if (name === 'consumer' || name === 'provider' || name === '') return null;
  const record = records.find((r) => r.entry.kind === 'extension' && r.entry.name === name);
  if (record === undefined) return { name, package: null, settings: [] };
  return { name, package: `${record.pkg.name}@${record.pkg.version}`, settings: settingsOf(record, url) };
}

/** The routers of a reference (manifests), and with --registry what they select for a sample call. */
interface RoutingExplained {
  readonly routerList: string | null;
  readonly chain: readonly { readonly name: string; readonly package: string }[];
  readonly sample: {
    readonly registry: string;
    readonly method: string;
    readonly attachments: Record<string, string>;
    readonly providers: readonly string[];
    readonly overrides: OverridesStep;
    readonly steps: readonly RoutingStep[];
    readonly problems: readonly string[];
  } | null;
}

async function explainRouting(args: ParsedArgs, ctx: CommandContext, index: ReturnType<typeof discoverProject>, url: URL): Promise<RoutingExplained> {
  const { order, packages } = routerChainOf(index, url);
  const chain = order.map((name) => ({ name, package: packages.get(name) ?? '?' }));
  const registry = stringFlag(args, 'registry') ?? ctx.io.env['WEFT_REGISTRY'];
  const attachments: Record<string, string> = {};
  for (const pair of listFlag(args, 'attachment')) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--attachment "${pair}" must be key=value`);
    attachments[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  if (registry === undefined || registry.trim() === '') return { routerList: url.getParameter('router') ?? null, chain, sample: null };
  let registryUrl: URL;
  try {
    registryUrl = URL.parse(registry);
  } catch (error) {
    throw new UsageError(`cannot parse the registry URL "${maskUrlText(registry)}": ${(error as Error).message}`);
  }
  const method = stringFlag(args, 'method') ?? splitCommaList(url.getParameter('methods') ?? '')[0] ?? 'call';
  const preview = await previewRouting(registryUrl, integerFlag(args, 'timeout', 5000), url, method, attachments);
  return { routerList: url.getParameter('router') ?? null, chain, sample: { registry: maskedIdentity(registryUrl), method, attachments, ...preview } };
}

function printRouting(ctx: CommandContext, routing: RoutingExplained): void {
  const links = routing.chain.length > 0 ? routing.chain.map((c) => c.name).join(' → ') : '(no routers installed)';
  ctx.out(`
Router chain (weft.rpc.Router, group consumer; router = ${routing.routerList ?? '(not set: automatic activation only)'}):
`);
  ctx.out(`  directory → [ ${links} ] → load balance
`);
  if (routing.chain.length > 0) ctx.out(formatTable(['#', 'ROUTER', 'PACKAGE'], routing.chain.map((c, i) => [String(i + 1), c.name, c.package])));
  const sample = routing.sample;
  if (sample === null) return;
  const tags = Object.entries(sample.attachments).map(([k, v]) => `${k}=${v}`).join(', ');
  ctx.out(`
A sample call ${sample.method}()${tags ? ` with attachments ${tags}` : ''}, routed among the ${sample.providers.length} provider(s) at ${sample.registry} by the routers installed with weft:
`);
  const overrides = sample.overrides;
  if (overrides.rules.length > 0) {
    ctx.out(`  override rules matching these providers (${overrides.rules.length}): ${overrides.rules.join('; ')}
`);
    ctx.out(`  disabled by an override: ${overrides.disabled.join(', ') || '(none)'}
`);
  }
  ctx.out(
    formatTable(
      ['ROUTER', 'RULES', 'SELECTED', 'REMOVED'],
      sample.steps.map((s) => [s.router, s.rules.join('; ') || '(none)', s.selected.join(', ') || '(none)', s.removed.join(', ') || '-']),
    ),
  );
  const last = sample.steps[sample.steps.length - 1];
  const chosen = last?.selected ?? sample.providers.filter((p) => !overrides.disabled.includes(p));
  const weighed = chosen.map((p) => (overrides.weights[p] === undefined ? p : `${p} (weight ${overrides.weights[p]})`));
  ctx.out(`  → the load balance chooses among: ${weighed.join(', ') || '(none: the call fails with no-invoker)'}
`);
  for (const problem of sample.problems) ctx.err(`weft explain: warning: ${problem}\n`);
}

function why(c: Explained): string {
  const by = c.activatedBy;
  if (by === null) return c.detail;
  if (by.method === null) return `${c.detail}: ${by.key}=${by.value}`;
  return `${c.detail}: ${by.method}.${by.key}=${by.value} (method level: in every method's chain, applied to ${by.method} calls)`;
}

/** `weft explain`. @internal */
export const explainCommand: Command = {
  name: 'explain',
  summary: 'show the exact filter chain a URL gets, and why every installed filter is in or out',
  usage: [
    'explain --side provider|consumer <service> [--param key=value]... [--method <m>] [--filter <list>]',
    'explain [--side provider|consumer] <url> [--param key=value]... [--method <m>] [--filter <list>]',
  ],
  description: `
Computes the filter chain that an export (--side provider: group "provider", list key service.filter) or a
reference (--side consumer: group "consumer", list key reference.filter) of that URL gets, in order (the first
filter is outermost), with exactly the loader's rules — and for every installed filter why it is in or out:
activated automatically (group and URL key), named explicitly in the filter list, removed by "-name", removed
with every automatic one by "-default", in another group, missing its URL key, or never activated because it
has no activation metadata. Only manifests are read (META-INF/weft/weft.rpc.Filter.json of the packages found
from --root); no filter code is imported.

<service> is an interface name (org.acme.Greeter); the URL is then
provider|consumer://127.0.0.1/<service>?interface=<service>&side=<side> plus --param keys. A <url> is parsed as
Weft parses URLs (tri://10.0.0.5:50051/org.acme.Greeter?tps=100&service.filter=-accesslog); its side= parameter
is the default --side.

Method-level keys (--method): Weft builds one chain per export or reference, not per method. A filter whose
activation key is set for one method only (sayHello.tps=5) is activated as if the key were set for the whole
service — activation reads the plain key, and when it is missing or empty, the first method-level value of any
method — so it is in the chain of every method, and at call time reads the value of the called method
(getMethodParameter) and leaves the other methods alone. --method <m> writes the --param keys at method level
(m.key=value) to show exactly this; it does not build a per-method chain. When the URL has a methods= list, only
the listed methods' keys count. A value of false, 0, null or N/A (any case) does not activate.

Routing (--side consumer): the router chain (weft.rpc.Router extensions activated in group consumer, the router
key adding or removing names) is shown from the manifests. With --registry <url>, the service's current
providers, override rules and routing rules are read from that registry; the override rules configure the
providers as a consumer's directory does (the ones they disable are left out, configured weights are shown), and a
sample call (--method, --attachment key=value) is routed through the routers installed with weft (@weft/routers) —
what each one keeps and removes.`,
  options: [
    { name: 'side', kind: 'string', value: 'provider|consumer', choices: ['provider', 'consumer'], description: 'Which chain: provider (export) or consumer (refer).' },
    { name: 'param', kind: 'list', value: 'key=value', description: 'Add a URL parameter (with --method: a method-level one).' },
    { name: 'method', kind: 'string', value: '<m>', description: 'Write the --param keys as method-level keys <m>.key.' },
    { name: 'filter', kind: 'string', value: '<list>', description: 'The filter list (service.filter / reference.filter): names, -name, default, -default.' },
    { name: 'registry', kind: 'string', value: '<url>', description: 'Consumer side: route a sample call (--method, --attachment) with the providers and rules of this registry.' },
    { name: 'attachment', kind: 'list', value: 'key=value', description: 'An attachment of the sample call (dubbo.tag=gray).' },
    { name: 'timeout', kind: 'string', value: '<ms>', description: 'With --registry: how long each registry operation may take. Default: 5000.' },
    ROOT_OPTION,
    JSON_OPTION,
    HELP_OPTION,
  ],
  examples: [
    'weft explain --side provider org.acme.Greeter --param tps=100',
    '# a method-level key puts the filter in every method\'s chain; the filter applies it to sayHello only',
    'weft explain --side provider org.acme.Greeter --method sayHello --param tps=5',
    'weft explain --side consumer org.acme.Greeter --filter "-default,mylog"',
    '# which providers a gray findUser call reaches, with the rules in ZooKeeper',
    'weft explain --side consumer org.acme.Users --registry zookeeper://127.0.0.1:2181 --method findUser --attachment dubbo.tag=gray',
    'weft explain "tri://10.0.0.5:50051/org.acme.Greeter?side=provider&accesslog=true&service.filter=-echo" --json',
  ],
  exitCodes: [
    '0  explained, and the application would accept this configuration',
    '1  the application would refuse or fail it: the list names a filter that is not installed, a filter name is declared by two packages, a filter manifest is invalid, before/after constraints form a cycle',
    '2  usage error: missing --side, unparsable URL, a name that is not a service interface',
  ],
  run,
};
