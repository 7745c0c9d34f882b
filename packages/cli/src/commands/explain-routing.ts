import { Invocation, Invoker, RouterChain, RouterFactory, RpcError, RpcErrorCode, defineService, type Logger, type NotifyListener, type RegistryCategory, type Result, type URL } from '@weft/core';
import { configureProviders, explainActivation, splitCommaList, type ActivateCandidate, type ManifestIndex } from '@weft/core/spi';

import { RegistrySession } from '../registry-session.js';

const ROUTER_POINT = 'weft.rpc.Router';

/** The routers a reference of `url` gets, from the manifests (no code imported). */
export function routerChainOf(index: ManifestIndex, url: URL): { order: readonly string[]; packages: ReadonlyMap<string, string> } {
  const records = (index.records.get(ROUTER_POINT) ?? []).filter((r) => r.entry.kind === 'extension');
  const candidates: ActivateCandidate[] = records.map((r) => ({ name: r.entry.name, activate: r.entry.activate }));
  const raw = url.getParameter('router');
  const values = raw === undefined || raw === '' ? undefined : splitCommaList(raw);
  const { order } = explainActivation(ROUTER_POINT, candidates, url, values, 'consumer');
  return { order, packages: new Map(records.map((r) => [r.entry.name, `${r.pkg.name}@${r.pkg.version}`])) };
}

/** A provider as the preview sees it: its registered URL; never called. */
class PreviewInvoker extends Invoker {
  constructor(private readonly url: URL) {
    super();
  }
  getUrl(): URL {
    return this.url;
  }
  invoke(): Result {
    throw new RpcError(RpcErrorCode.UNKNOWN, 'weft explain never calls providers');
  }
  override isAvailable(): boolean {
    return true;
  }
  override destroy(): Promise<void> {
    return Promise.resolve();
  }
}

/** What one router did to the sample call. */
export interface RoutingStep {
  readonly router: string;
  readonly rules: readonly string[];
  readonly selected: readonly string[];
  readonly removed: readonly string[];
}

/** What the override rules did to the registered providers before routing. */
export interface OverridesStep {
  /** The rules that matched a provider, as `address: key=value, …` (their applied parameters). */
  readonly rules: readonly string[];
  /** Providers an override disabled (never routed to). */
  readonly disabled: readonly string[];
  /** Providers whose configured `weight` is not the default (100), by address. */
  readonly weights: Readonly<Record<string, number>>;
}

const RULE_META_KEYS = new Set(['category', 'dynamic', 'enabled', 'configVersion', 'side', 'application', 'providerAddresses', 'priority', 'interface', 'group', 'version']);

/** A rule as the preview shows it: where it applies and what it sets. */
function describeOverride(rule: URL): string {
  const set = [...rule.parameters].filter(([key]) => !RULE_META_KEYS.has(key) && !key.startsWith('~')).map(([key, value]) => `${key}=${value}`);
  const conditions = [...rule.parameters].filter(([key]) => key.startsWith('~') || key === 'application' || key === 'side').map(([key, value]) => `${key}=${value}`);
  return `${rule.getAddress()}: ${set.join(', ')}${conditions.length > 0 ? ` (when ${conditions.join(', ')})` : ''}`;
}

/**
 * Routes a sample call with the current providers, override rules and routing rules of a registry, exactly as a
 * consumer would: overrides configure (and may disable or weigh) the providers, then the routers installed with the
 * CLI (`@weft/routers`) run; each step is reported.
 */
export async function previewRouting(
  registryUrl: URL,
  timeout: number,
  url: URL,
  methodName: string,
  attachments: Readonly<Record<string, string>>,
): Promise<{ providers: readonly string[]; overrides: OverridesStep; steps: readonly RoutingStep[]; problems: readonly string[] }> {
  const session = await RegistrySession.open(registryUrl, timeout);
  try {
    const subscription = url.addParameters({ category: 'providers,configurators,routers', check: 'false' });
    const seen = new Map<string, readonly URL[]>();
    await session.call(`reading the providers and routing rules of ${url.getServiceInterface() ?? url.path}`, async () => {
      let done: () => void = () => undefined;
      const both = new Promise<void>((resolve) => (done = resolve));
      const listener: NotifyListener = (category: RegistryCategory, urls) => {
        seen.set(category, urls.filter((u) => u.protocol !== 'empty'));
        if (seen.has('providers') && seen.has('configurators') && seen.has('routers')) done();
      };
      await session.registry.subscribe(subscription, listener);
      try {
        await both;
      } finally {
        await session.registry.unsubscribe(subscription, listener).catch(() => undefined);
      }
    });
    const problems: string[] = [];
    const logger: Logger = {
      debug: () => undefined,
      info: () => undefined,
      warn: (m: string) => problems.push(m),
      error: (m: string) => problems.push(m),
    };
    const model = session.model;
    await model.loadExtensions(RouterFactory);
    const factories = model.getExtensionLoader(RouterFactory);
    const providers = (seen.get('providers') ?? []).filter((u) => u.protocol !== 'mock');
    const configured = configureProviders(url, providers, seen.get('configurators') ?? []);
    const matched = new Set(configured.providers.flatMap((p) => p.rules.map((r) => r.url)));
    const weights: Record<string, number> = {};
    for (const p of configured.providers) {
      const weight = p.url.getParameter('weight');
      if (p.enabled && weight !== undefined && Number(weight) !== 100) weights[p.url.getAddress()] = Number(weight);
    }
    const overrides: OverridesStep = {
      rules: [...matched].map(describeOverride),
      disabled: configured.providers.filter((p) => !p.enabled).map((p) => p.url.getAddress()),
      weights,
    };
    const invokers = configured.providers.filter((p) => p.enabled).map((p) => new PreviewInvoker(p.url));
    const service = defineService(url.getServiceInterface() ?? url.path, {});
    const context = { service, consumerUrl: url, logger, providerUrlOf: (i: Invoker) => i.getUrl() };
    const routers = factories.selectActivateNames(url, 'router', 'consumer').map((name) => ({ name, router: factories.getExtension(name).getRouter(context) }));
    const chain = new RouterChain(routers, logger);
    chain.setRules(seen.get('routers') ?? []);
    chain.setInvokers(invokers, configured.consumerUrl);
    const steps = chain.explain(new Invocation({ methodName, attachments })).map((s) => ({
      router: s.name,
      rules: s.rules,
      selected: s.output.map((i) => i.getUrl().getAddress()),
      removed: s.input.filter((i) => !s.output.includes(i)).map((i) => i.getUrl().getAddress()),
    }));
    chain.destroy();
    return { providers: providers.map((u) => u.getAddress()), overrides, steps, problems };
  } finally {
    await session.close();
  }
}
