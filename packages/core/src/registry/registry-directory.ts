import { performance } from 'node:perf_hooks';

import type { ApplicationEvents } from '../common/application-events.js';
import { safeLog, type Logger } from '../common/logger.js';
import { Directory } from '../cluster/directory.js';
import type { RouterFactory } from '../cluster/router.js';
import { buildRouterChain } from '../cluster/router-chain-builder.js';
import type { RouterChain } from '../cluster/router-chain.js';
import type { ExtensionLoader } from '../extension/extension-loader.js';
import { splitCommaList } from '../extension/names.js';
import type { Protocol } from '../protocol/protocol.js';
import type { Invocation } from '../rpc/invocation.js';
import type { Invoker } from '../rpc/invoker.js';
import type { RpcStatusRegistry } from '../rpc/rpc-status.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import type { Configurator } from './configurator.js';
import { OverrideIndex, type OverridePlan } from './override-index.js';
import { isProviderEnabled, OverrideRulesMemo, readOverrideRules } from './rule-limits.js';
import { TimeSlicer } from './time-slicer.js';
import type { NotifyListener, Registry } from './registry.js';
import { RegistryCategory } from './url-match.js';
import { maskedIdentity, maskSecrets } from '../common/mask-secrets.js';

/** Provider keys that describe the provider's own threads and transport; never merged into consumer URLs. */
const PROVIDER_ONLY_KEYS = ['threadname', 'threadpool', 'corethreads', 'threads', 'queues', 'alive', 'transporter'];
/** Consumer keys that never override a provider's. */
const CONSUMER_EXCLUDED_KEYS = new Set(['release', 'dubbo', 'methods', 'timestamp', 'dubbo.tag', 'category', 'check']);

/** What a {@link RegistryDirectory} needs from its application. */
export interface RegistryDirectoryOptions {
  readonly service: ServiceDefinition;
  /** The consumer URL as referred (`consumer://<host>/<interface>?…`). */
  readonly consumerUrl: URL;
  readonly registry: Registry;
  /** Protocols, to refer each provider by its URL's protocol (wrapped: consumer filter chains apply). */
  readonly protocols: ExtensionLoader<Protocol>;
  readonly logger: Logger;
  /** Validates an effective consumer URL (numeric keys, extension names, `ConfigValidator`s); throws to refuse it. */
  readonly validate: (url: URL, where: string) => void;
  /**
   * Reports the unknown URL keys an override rule sets (a warning, or a throw in strict mode: the rules are then
   * refused). @defaultValue no check
   */
  readonly checkKeys?: (keys: Iterable<string>, where: string) => void;
  /** When given, the counters of invokers the directory destroys are released (bounded memory). */
  readonly statuses?: RpcStatusRegistry;
  /** When given, every notification is reported as a `registry.notify` event (category, URL count). */
  readonly events?: ApplicationEvents;
  /** The application's `weft.rpc.Router` factories; without them `routers` rules are ignored (logged once). */
  readonly routers?: ExtensionLoader<RouterFactory>;
}

/** An invoker referred, and the configured provider URL it was referred for. */
interface Referred {
  readonly url: URL;
  readonly invoker: Invoker;
}

/** The longest wait before applying a notification that arrived while the previous one was being applied, in ms. */
const COALESCE_MAX_WAIT = 50;

/**
 * A directory fed by a registry: providers come and go, override rules change the URLs — live.
 *
 * @remarks
 * Subscribes to the service's `providers`, `configurators` and `routers` categories. Updates are applied one at a
 * time, in order:
 * - **providers**: each provider URL is merged with the consumer's parameters (Dubbo's merge: consumer values win
 *   except `group`/`version`/`generic` the provider sets, provider-only thread keys dropped, `remote.application`
 *   set), then the override rules are applied; invokers are referred for new URLs (by protocol — the consumer
 *   filter chain is built there), reused for unchanged ones, destroyed for vanished ones (their `RpcStatus`
 *   counters released). `disabled=true` or
 *   `enabled=false` providers, providers whose protocol the consumer's `protocol` list excludes, and unknown
 *   protocols are skipped (logged). `mock://` providers are kept apart: never routed to, offered to the mock
 *   cluster invoker. An `empty://` list removes every provider.
 * - **configurators** (override rules): the effective consumer URL — what {@link RegistryDirectory.getUrl}
 *   returns, what clusters and the mock cluster invoker read on every call — is the consumer URL with the rules
 *   that address it (port-less `0.0.0.0` or the consumer's host). Beyond Dubbo 3.x, and as 2.6/2.7 consumers
 *   did, the parameters that a rule addressed to a **provider** (`host:port`) sets are also merged into it when
 *   absent — so an operator's provider-addressed `sayHello.mock=force:…` degrades that method. The new state is
 *   **validated before it is applied**; an invalid rule (e.g. a bad mock expression) is logged and refused, and
 *   the previous behaviour stays. An empty notification keeps the rules; `empty://` clears them.
 * - **routers** (routing rules, and config-centre routing rules the registry delivers as URLs): handed to the
 *   reference's {@link RouterChain} (the `weft.rpc.Router` factories activated for the consumer URL), which
 *   `list(invocation)` runs on every call from a cache rebuilt only when providers or rules change.
 *
 * Rules scale (see `OverrideIndex`): each rule is indexed by the URLs it can reach, a notification is diffed against
 * the rules in force and only the URLs the changed rules reach are recomputed, in slices of a few milliseconds; the
 * previous rules stay in force until the new set is complete. Notifications that arrive while one is applied are
 * coalesced (the latest list per category wins). The registry URL's `rule.max-count` and `rule.max-bytes` bound
 * what is accepted (refusals are logged naming the rule and source). `disabled`/`enabled` are read after the
 * overrides, so an override can take a provider out and put it back.
 * While the registry is unreachable the last known providers keep being called.
 *
 * @example
 * ```ts
 * const directory = new RegistryDirectory({ service, consumerUrl, registry, protocols, logger, validate });
 * await directory.subscribe();
 * const invoker = cluster.join(directory);
 * ```
 */
export class RegistryDirectory extends Directory {
  readonly service: ServiceDefinition;
  private readonly consumerUrl: URL;
  /** The consumer URL with programmatic overrides (`configure`); the registry's rules apply on top. */
  private base: URL;
  private current: URL;
  private providerUrls: readonly URL[] = [];
  /** The override rules in force, indexed (see `OverrideIndex`): rebuilt when `base` changes. */
  private index: OverrideIndex;
  /** Merged provider URLs by provider string, for the current `base`. */
  private merged = new Map<string, URL>();
  /** Notifications not applied yet, latest list per category (a burst is coalesced into one update each). */
  private readonly pending = new Map<RegistryCategory, readonly URL[]>();
  private draining = false;
  /** Until when the next update waits (after a long one), so that notifications arriving meanwhile coalesce. */
  private coolUntil = 0;
  /** What the last `configurators` notification gave (registries reuse the objects of unchanged entries). */
  private readonly ruleMemo = new OverrideRulesMemo();
  /** The invokers referred: one per distinct configured provider URL (the URL it was referred for), in order. */
  private referred: readonly Referred[] = [];
  private routable: readonly Invoker[] = [];
  private mocks: readonly Invoker[] = [];
  private updates: Promise<void> = Promise.resolve();
  private destroyed = false;
  private warnedRouters = false;
  /** Routing step: the reference's routers (undefined without router factories). */
  private readonly routerChain: RouterChain | undefined;
  private firstProviders: (() => void) | undefined;
  private readonly providersSeen: Promise<void>;
  private readonly listener: NotifyListener;
  private readonly subscribeUrl: URL;

  constructor(private readonly options: RegistryDirectoryOptions) {
    super();
    this.service = options.service;
    this.consumerUrl = options.consumerUrl;
    this.base = options.consumerUrl;
    this.current = options.consumerUrl;
    this.index = new OverrideIndex(options.consumerUrl);
    this.subscribeUrl = options.consumerUrl.addParameter('category', 'providers,configurators,routers');
    this.providersSeen = new Promise((resolve) => (this.firstProviders = resolve));
    this.routerChain = options.routers && buildRouterChain(options.routers, options.service, options.consumerUrl, options.logger, () => this.providerUrls);
    this.listener = (category, urls) => {
      // Each notification carries the full list: only the latest per category matters.
      this.pending.set(category, urls);
      if (this.draining) return;
      this.draining = true;
      this.updates = this.updates.then(() => this.drain());
    };
  }

  /** Subscribes to the registry and waits until the first provider list has been applied. */
  async subscribe(): Promise<void> {
    await this.options.registry.subscribe(this.subscribeUrl, this.listener);
    await this.providersSeen;
    await this.updates;
  }

  /** Resolves once every notification received so far has been applied (for tests and tools). */
  settled(): Promise<void> {
    return this.updates;
  }

  getUrl(): URL {
    return this.current;
  }

  getConsumerUrl(): URL {
    return this.consumerUrl;
  }

  list(invocation: Invocation): readonly Invoker[] {
    return this.routerChain === undefined ? this.routable : this.routerChain.route(invocation);
  }

  /** The reference's router chain (for tools such as `weft explain`); `undefined` without router factories. */
  getRouterChain(): RouterChain | undefined {
    return this.routerChain;
  }

  override listMockInvokers(_invocation: Invocation): readonly Invoker[] {
    return this.mocks;
  }

  getAllInvokers(): readonly Invoker[] {
    return this.referred.map((r) => r.invoker);
  }

  override isAvailable(): boolean {
    return !this.destroyed && this.routable.some((i) => i.isAvailable());
  }

  isDestroyed(): boolean {
    return this.destroyed;
  }

  /**
   * Replaces the consumer URL the registry's rules are applied to (programmatic overrides); validated like a
   * pushed rule. @throws when invalid — nothing changes.
   */
  configure(url: URL): void {
    const index = new OverrideIndex(url);
    const merged = new Map<string, URL>();
    for (const provider of this.providerUrls) merged.set(provider.toString(), mergeProviderUrl(provider, url));
    index.commit(index.planNow(this.index.configurators(), [url, ...merged.values()]));
    const state = this.compute(url, index, merged, undefined);
    this.options.validate(state.directoryUrl, `override(${this.service.name})`);
    this.base = url;
    this.index = index;
    this.merged = merged;
    this.current = state.directoryUrl; // the next call obeys at once; provider invokers follow asynchronously
    this.updates = this.updates.then(() => this.refresh());
  }

  /**
   * Applies the pending notifications, oldest category first, until none is left. After an update that took more
   * than a millisecond, the next one waits as long as it took (up to `COALESCE_MAX_WAIT` ms): notifications
   * arriving meanwhile — a registry delivers a burst of writes one per event-loop turn, each the full list — are
   * coalesced into the latest, so a burst of N rules costs a few full applications instead of N (O(N²)), and rule
   * processing takes at most about half of the event loop's time.
   */
  private async drain(): Promise<void> {
    try {
      // Nothing pending: stop (the next notification starts a new drain, which waits out the cool-down first).
      while (this.pending.size > 0 && !this.destroyed) {
        const wait = this.coolUntil - performance.now();
        if (wait > 0) await new Promise<void>((resolve) => setTimeout(resolve, Math.ceil(wait)));
        const next = this.pending.entries().next();
        if (next.done === true || this.destroyed) break;
        const [category, urls] = next.value;
        this.pending.delete(category);
        const started = performance.now();
        await this.apply(category, urls);
        const busy = performance.now() - started;
        if (busy > 1) this.coolUntil = performance.now() + Math.min(COALESCE_MAX_WAIT, busy);
      }
    } finally {
      this.draining = false;
    }
  }

  private async apply(category: RegistryCategory, urls: readonly URL[]): Promise<void> {
    if (this.destroyed) return;
    const events = this.options.events;
    if (events?.listening('registry.notify') === true) {
      const registry = this.options.registry.getUrl();
      // protocol://host:port (a folder for a host-less registry such as embedded://): never the credentials.
      const where = registry.host === '' ? `/${registry.path.replace(/^\/+/, '')}` : registry.getAddress();
      events.emit({ type: 'registry.notify', service: this.service.name, category, urls: urls.length, registry: `${registry.protocol}://${where}` });
    }
    try {
      if (category === RegistryCategory.PROVIDERS) {
        this.providerUrls = urls.filter((u) => u.protocol !== 'empty');
        await this.refresh();
        this.firstProviders?.();
        this.firstProviders = undefined;
      } else if (category === RegistryCategory.CONFIGURATORS) {
        const slicer = new TimeSlicer();
        const what = `override rules for ${this.service.name}`;
        const known = (key: string): Configurator | undefined => this.index.configuratorOf(key);
        const next = await readOverrideRules(urls, this.options.registry.getUrl(), what, this.options.logger, slicer, this.ruleMemo, known);
        if (next === undefined || this.destroyed) return;
        const index = this.index;
        let plan = await index.plan(next, [this.base, ...this.mergedProviders()], slicer);
        // What follows up to the first refer cannot pause: start it in a fresh slice.
        await slicer.pause();
        if (this.destroyed) return;
        // configure() replaced the index meanwhile: plan against the new one.
        if (this.index !== index) plan = this.index.planNow(next, [this.base, ...this.mergedProviders()]);
        const state = this.compute(this.base, this.index, this.merged, plan);
        try {
          if (this.options.checkKeys !== undefined) this.checkRuleKeys(plan.added.filter((rule) => plan.matched.has(rule)));
          this.options.validate(state.directoryUrl, `override rule for ${this.service.name} from ${maskedIdentity(this.options.registry.getUrl())}`);
        } catch (error) {
          const shown = plan.added.length > 0 ? plan.added.slice(0, 10).map((c) => maskSecrets(c.url)) : urls.slice(0, 10).map((u) => maskSecrets(u));
          const more = plan.added.length > 10 ? ` (and ${plan.added.length - 10} more)` : '';
          safeLog(
            this.options.logger,
            'error',
            `Rejected override rule(s) ${shown.join(' ')}${more}: ${(error as Error).message} The previous configuration stays.`,
            error,
          );
          return;
        }
        this.index.commit(plan);
        await this.refresh(state, slicer);
      } else if (category === RegistryCategory.ROUTERS) {
        const rules = urls.filter((u) => u.protocol !== 'empty');
        if (this.routerChain !== undefined && this.routerChain.routers.length > 0) this.routerChain.setRules(rules);
        else if (!this.warnedRouters && rules.length > 0) {
          this.warnedRouters = true;
          safeLog(this.options.logger, 'warn', `routing rules for ${this.service.name} are ignored: no router is installed (install @weft/routers for condition and tag routes)`);
        }
      }
    } catch (error) {
      safeLog(this.options.logger, 'error', `applying a ${category} notification for ${this.service.name} failed`, error);
    }
  }

  /**
   * Reports the unknown keys of the rules that apply to this consumer or its providers and were not checked before
   * (a rule for another application, group or side is not this consumer's business; YAML config-centre rules are
   * named as such).
   */
  private checkRuleKeys(rules: readonly Configurator[]): void {
    const check = this.options.checkKeys;
    if (check === undefined) return;
    const from = maskedIdentity(this.options.registry.getUrl());
    for (const rule of rules) {
      const category = rule.url.getParameter('category') ?? '';
      const kind = category.endsWith('dynamicconfigurators') ? 'config-centre rule' : 'override rule';
      check(rule.appliedParameters.keys(), `${kind} for ${this.service.name} at ${rule.url.getAddress()} from ${from}`);
    }
  }

  /** The merged provider URLs for the current `base` (cached per provider). */
  private mergedProviders(): URL[] {
    const next = new Map<string, URL>();
    for (const provider of this.providerUrls) {
      const key = provider.toString();
      next.set(key, this.merged.get(key) ?? mergeProviderUrl(provider, this.base));
    }
    this.merged = next;
    return [...next.values()];
  }

  /**
   * The effective URLs for a consumer URL under an index (and a plan not yet in force), without side effects: the
   * configured provider URLs that stay enabled (`disabled`/`enabled` read after the overrides, as Dubbo does) and the
   * directory URL.
   */
  private compute(consumerUrl: URL, index: OverrideIndex, merged: ReadonlyMap<string, URL>, plan: OverridePlan | undefined): { directoryUrl: URL; providers: URL[] } {
    const configured = (url: URL) => plan?.recomputed.get(index.urlKeyOf(url)) ?? index.configured(url);
    const allowed = consumerUrl.getParameter('protocol');
    const allowedProtocols = allowed ? new Set(splitCommaList(allowed)) : undefined;
    const providers: URL[] = [];
    const base = configured(consumerUrl).url;
    const own = base.parameters;
    // The provider-addressed parameters join the directory URL where it has no value, each key as the first provider
    // (in order) gives it — `base.addParametersIfAbsent(first occurrence of each key)`, in one pass.
    let params: Map<string, string> | undefined;
    let decidedEmpty: Set<string> | undefined; // keys whose first occurrence (or the directory's own value) is ''
    for (const provider of this.providerUrls) {
      if (allowedProtocols !== undefined && !allowedProtocols.has(provider.protocol)) continue;
      const mergedUrl = merged.get(provider.toString()) ?? mergeProviderUrl(provider, consumerUrl);
      const result = configured(mergedUrl);
      for (const [key, value] of result.addressed) {
        const current = (params ?? own).get(key);
        if (current !== undefined && current !== '') continue; // the directory's own, or a first provider's
        if (decidedEmpty !== undefined && decidedEmpty.has(key)) continue;
        if (current === '' || value === '') (decidedEmpty ??= new Set()).add(key);
        if (value !== '') (params ??= new Map(own)).set(key, value);
      }
      if (!isProviderEnabled(result.url)) continue;
      providers.push(result.url);
    }
    return { directoryUrl: params === undefined ? base : base.withParameterMap(params), providers };
  }

  /**
   * Refers and releases invokers for the current state (`computed`: the state just computed for a committed plan),
   * pausing between providers when `slicer` says so (the new invokers are put in force together, at the end).
   */
  private async refresh(computed?: { directoryUrl: URL; providers: URL[] }, slicer?: TimeSlicer): Promise<void> {
    if (this.destroyed) return;
    const merged = this.mergedProviders();
    this.index.retain(new Set(merged.map((url) => this.index.urlKeyOf(url))));
    const { directoryUrl, providers } = computed ?? this.compute(this.base, this.index, this.merged, undefined);
    // Invokers are kept per distinct configured URL (`URL.equals`), found by their address and compared parameter by
    // parameter, so that the long URLs many rules make are never written out to compare them.
    const old = this.referred;
    const oldAt = indexByIdentity(old);
    const kept = new Uint8Array(old.length);
    const next: Referred[] = [];
    const nextAt = new Map<string, number[]>();
    for (const url of providers) {
      const identity = url.toIdentityString();
      if (findSame(next, nextAt.get(identity), url) >= 0) continue;
      const at = findSame(old, oldAt.get(identity), url);
      if (at >= 0) {
        kept[at] = 1;
        addReferred(next, nextAt, identity, { url, invoker: (old[at] as Referred).invoker });
        continue;
      }
      if (!this.options.protocols.hasExtension(url.protocol)) {
        safeLog(this.options.logger, 'warn', `provider ${maskedIdentity(url)} uses protocol "${url.protocol}", which is not installed; skipped. ${this.options.protocols.describeMissing(url.protocol)}`);
        continue;
      }
      try {
        addReferred(next, nextAt, identity, { url, invoker: await this.options.protocols.getExtension(url.protocol).refer(this.service, url) });
      } catch (error) {
        safeLog(this.options.logger, 'error', `cannot refer provider ${maskedIdentity(url)} of ${this.service.name}`, error);
      }
      if (slicer?.spent() === true) await slicer.pause();
    }
    const removed = old.filter((_, i) => kept[i] === 0).map((r) => r.invoker);
    this.referred = next;
    const all = next.map((r) => r.invoker);
    this.routable = all.filter((i) => i.getUrl().protocol !== 'mock');
    this.mocks = all.filter((i) => i.getUrl().protocol === 'mock');
    this.current = directoryUrl;
    this.routerChain?.setInvokers(this.routable, directoryUrl);
    await Promise.allSettled(removed.map((i) => i.destroy()));
    for (const invoker of removed) this.options.statuses?.remove(invoker.getUrl());
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    this.firstProviders?.();
    await this.options.registry.unsubscribe(this.subscribeUrl, this.listener).catch(() => undefined);
    await this.updates.catch(() => undefined);
    const invokers = this.referred.map((r) => r.invoker);
    this.referred = [];
    this.routable = [];
    this.mocks = [];
    this.routerChain?.destroy();
    await Promise.allSettled(invokers.map((i) => i.destroy()));
    for (const invoker of invokers) this.options.statuses?.remove(invoker.getUrl());
  }
}

/**
 * Dubbo's provider URL merge (`DefaultProviderURLMergeProcessor`): the provider URL with the consumer's parameters.
 * @internal
 */
export function mergeProviderUrl(provider: URL, consumer: URL): URL {
  const params = new Map(provider.parameters);
  for (const key of PROVIDER_ONLY_KEYS) {
    params.delete(key);
    params.delete(`default.${key}`);
  }
  const providerApplication = provider.getApplication();
  const providerFilters = provider.getParameter('reference.filter');
  for (const [key, value] of consumer.parameters) {
    if (CONSUMER_EXCLUDED_KEYS.has(key)) continue;
    if ((key === 'group' || key === 'version' || key === 'generic') && params.has(key)) continue;
    params.set(key, value);
  }
  if (providerApplication) params.set('remote.application', providerApplication);
  const consumerFilters = consumer.getParameter('reference.filter');
  if (providerFilters && consumerFilters) params.set('reference.filter', `${providerFilters},${consumerFilters}`);
  params.set('check', 'false');
  return provider.clearParameters().addParameters(params);
}

/** Positions of `referred` by the identity string (`protocol://host:port/path`) of their URLs. */
function indexByIdentity(referred: readonly Referred[]): Map<string, number[]> {
  const at = new Map<string, number[]>();
  referred.forEach((r, i) => addPosition(at, r.url.toIdentityString(), i));
  return at;
}

function addReferred(list: Referred[], at: Map<string, number[]>, identity: string, referred: Referred): void {
  addPosition(at, identity, list.length);
  list.push(referred);
}

function addPosition(at: Map<string, number[]>, identity: string, position: number): void {
  const positions = at.get(identity);
  if (positions === undefined) at.set(identity, [position]);
  else positions.push(position);
}

/** The position among `positions` of `referred` whose URL equals `url` (`URL.equals`); -1 when none. */
function findSame(referred: readonly Referred[], positions: readonly number[] | undefined, url: URL): number {
  if (positions === undefined) return -1;
  for (const i of positions) if ((referred[i] as Referred).url.equals(url)) return i;
  return -1;
}

