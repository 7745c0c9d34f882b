import { performance } from 'node:perf_hooks';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

import { safeLog, type Logger } from '../common/logger.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import { URL } from '../rpc/url.js';
import { splitCommaList } from '../extension/names.js';
import { Registry, type NotifyListener } from './registry.js';
import { startsWithList } from './list-prefix.js';
import { matcherFor, RegistryCategory } from './url-match.js';
import { maskedIdentity, maskSecrets } from '../common/mask-secrets.js';

interface Subscription {
  readonly url: URL;
  readonly listeners: Set<NotifyListener>;
  /** Last list notified per category. */
  readonly notified: Map<RegistryCategory, readonly URL[]>;
  /** `isMatch` against this subscription, parsed once. */
  readonly matches: (url: URL) => boolean;
  /** The categories subscribed to. */
  readonly categories: ReadonlySet<string>;
  /** Categories delivered in the current event-loop turn: a further list of one of them waits for the next turn. */
  readonly delivered: Set<RegistryCategory>;
  /** The latest list of a category that arrived after one was delivered in this turn (or its quiet window). */
  readonly queued: Map<RegistryCategory, readonly URL[]>;
  /** Until when (performance.now() ms) a further list of a category waits, after a long list was delivered. */
  readonly quietUntil: Map<RegistryCategory, number>;
  /** The last list of each category matched (a copy) and the entries of it that matched: a list that starts with it
   * is matched from where it ended. */
  readonly filtered: Map<RegistryCategory, { readonly urls: readonly URL[]; readonly matched: readonly URL[] }>;
  turn: ReturnType<typeof setImmediate> | undefined;
  timer: ReturnType<typeof setTimeout> | undefined;
  /** The check, one event-loop turn after the timer, that no new list arrived meanwhile (the burst is over). */
  settle: ReturnType<typeof setImmediate> | undefined;
  /** Lists the registry notified while one was waiting (what the settle check compares). */
  arrivals: number;
  /** When (performance.now() ms) the registry last notified a list, and the usual time between two (moving average). */
  lastArrival: number;
  gap: number;
}

/** Lists shorter than this are delivered once per event-loop turn at most; longer ones open a quiet window. */
const QUIET_MIN_LIST = 32;
/**
 * The quiet window after delivering a long list: this many ms per entry, capped at {@link QUIET_MAX_WINDOW}. Long
 * enough that the list roughly doubles during a burst before the next delivery (a burst of N rules then costs a few
 * deliveries whose lengths add up to about 2N); the end of a burst does not wait for it (see {@link QUIET_SETTLE}).
 */
const QUIET_MS_PER_ENTRY = 0.01;
/** The longest quiet window, in ms: while a burst goes on, its latest list is delivered at least this often. */
const QUIET_MAX_WINDOW = 50;
/**
 * A burst has ended when no list arrived for this long (ms) — and for {@link QUIET_GAPS} times the usual time between
 * two of its lists, for a registry whose notifications come at network pace — and for one more event-loop turn (so
 * a source held up by this process's own work is not taken for one that stopped): its last list is then delivered,
 * not held back for the rest of the window.
 */
const QUIET_SETTLE = 1;
const QUIET_GAPS = 4;

/**
 * The shared half of every registry client: bookkeeping, notifications, failback and the local cache file.
 *
 * @remarks
 * Implementations provide `doRegister`/`doUnregister`/`doSubscribe`/`doUnsubscribe` against their store and call
 * {@link AbstractRegistry.notify} with the **full** current entries of one category whenever they change. This
 * class then:
 * - keeps only the entries that concern the subscriber (`isMatch`: interface, category, enabled, group, version)
 *   and replaces an empty category by Dubbo's `empty://…?category=<c>` URL (for `providers` unless the
 *   registry URL says `enable-empty-protection=true`);
 * - remembers every registration and subscription, so {@link AbstractRegistry.recover} re-registers and
 *   re-subscribes after a new session, and retries failed operations every `retry.period` ms (default 5000);
 * - saves the last notifications in a cache file (`file` key, default `~/.weft/registry-<app>-<host>-<port>.cache`,
 *   JSON; `file-cache=false` disables it) and, when a subscription fails because the registry is down, notifies
 *   from that cache so a consumer can start without the registry;
 * - never lets a listener's exception escape (it is logged).
 * All state is per instance (one registry client per address per application).
 *
 * @example
 * ```ts
 * class MemoryRegistry extends AbstractRegistry {
 *   protected async doRegister(url: URL) { … }
 *   protected async doSubscribe(url: URL) { this.notify(url, 'providers', [...]); }
 *   …
 * }
 * ```
 */
export abstract class AbstractRegistry extends Registry {
  private readonly registered = new Map<string, URL>();
  private readonly subscriptions = new Map<string, Subscription>();
  private readonly failedRegistrations = new Map<string, URL>();
  private readonly failedUnregistrations = new Map<string, URL>();
  private readonly failedSubscriptions = new Map<string, URL>();
  private retryTimer: ReturnType<typeof setInterval> | undefined;
  private cacheTimer: ReturnType<typeof setTimeout> | undefined;
  private readonly cacheFile: string | undefined;
  private cache: Record<string, string[]> = {};
  protected destroyed = false;
  /** Set while `destroy()` unregisters: failures then are not retried. */
  private closing = false;

  constructor(
    protected readonly url: URL,
    protected readonly logger: Logger,
  ) {
    super();
    this.cacheFile = url.getParameter('file-cache', true) ? cacheFilePath(url) : undefined;
    if (this.cacheFile !== undefined) this.cache = readCache(this.cacheFile, logger);
  }

  getUrl(): URL {
    return this.url;
  }

  /** Publishes `url` in the store. */
  protected abstract doRegister(url: URL): Promise<void>;
  /** Removes `url` from the store. */
  protected abstract doUnregister(url: URL): Promise<void>;
  /** Starts watching the categories of `url`, calling `notify` for each (now and on every change). */
  protected abstract doSubscribe(url: URL): Promise<void>;
  /** Stops watching for `url`. */
  protected abstract doUnsubscribe(url: URL): Promise<void>;

  async register(url: URL): Promise<void> {
    this.assertAlive();
    const key = url.toString();
    this.registered.set(key, url);
    this.failedUnregistrations.delete(key);
    try {
      await this.doRegister(url);
      this.failedRegistrations.delete(key);
    } catch (error) {
      this.failedRegistrations.set(key, url);
      this.scheduleRetry();
      if (this.url.getParameter('check', true) && !this.isAvailable()) {
        throw new RpcError(RpcErrorCode.REGISTRY, `Failed to register ${maskSecrets(url)} to ${maskedIdentity(this.url)}: ${(error as Error).message}`, {
          cause: error,
        });
      }
      safeLog(this.logger, 'warn', `register ${maskSecrets(url)} failed; retrying every ${this.retryPeriod} ms`, error);
    }
  }

  async unregister(url: URL): Promise<void> {
    const key = url.toString();
    this.registered.delete(key);
    this.failedRegistrations.delete(key);
    try {
      await this.doUnregister(url);
      this.failedUnregistrations.delete(key);
    } catch (error) {
      if (this.destroyed || this.closing) return;
      this.failedUnregistrations.set(key, url);
      this.scheduleRetry();
      safeLog(this.logger, 'warn', `unregister ${maskSecrets(url)} failed; retrying`, error);
    }
  }

  async subscribe(url: URL, listener: NotifyListener): Promise<void> {
    this.assertAlive();
    const key = url.toString();
    let subscription = this.subscriptions.get(key);
    if (subscription === undefined) {
      subscription = {
        url,
        listeners: new Set(),
        notified: new Map(),
        matches: matcherFor(url),
        categories: new Set(splitCommaList(url.getParameter('category') ?? RegistryCategory.PROVIDERS)),
        delivered: new Set(),
        queued: new Map(),
        quietUntil: new Map(),
        filtered: new Map(),
        timer: undefined,
        turn: undefined,
        settle: undefined,
        arrivals: 0,
        lastArrival: 0,
        gap: 0,
      };
      this.subscriptions.set(key, subscription);
    }
    subscription.listeners.add(listener);
    for (const [category, urls] of subscription.notified) this.call(listener, category, urls);
    if (subscription.notified.size > 0 && this.subscriptions.get(key) === subscription && subscription.listeners.size > 1) return;
    try {
      await this.doSubscribe(url);
      this.failedSubscriptions.delete(key);
    } catch (error) {
      this.failedSubscriptions.set(key, url);
      this.scheduleRetry();
      const cached = this.cache[cacheKey(url)];
      if (cached !== undefined && cached.length > 0) {
        safeLog(this.logger, 'warn', `subscribe to ${maskedIdentity(this.url)} failed; using ${cached.length} cached entries until it is back`, error);
        this.notifyFromCache(url, cached);
        return;
      }
      if (this.url.getParameter('check', true)) {
        throw new RpcError(
          RpcErrorCode.REGISTRY,
          `Failed to subscribe ${url.getServiceKey()} at ${maskedIdentity(this.url)} and no cached entries exist: ${(error as Error).message}. ` +
            'Start the registry, or set check=false on the registry URL to start anyway and retry in the background.',
          { cause: error },
        );
      }
      safeLog(this.logger, 'warn', `subscribe ${url.getServiceKey()} failed; retrying every ${this.retryPeriod} ms`, error);
    }
  }

  async unsubscribe(url: URL, listener: NotifyListener): Promise<void> {
    const key = url.toString();
    const subscription = this.subscriptions.get(key);
    if (subscription === undefined) return;
    subscription.listeners.delete(listener);
    if (subscription.listeners.size > 0) return;
    this.subscriptions.delete(key);
    if (subscription.turn !== undefined) clearImmediate(subscription.turn);
    if (subscription.timer !== undefined) clearTimeout(subscription.timer);
    if (subscription.settle !== undefined) clearImmediate(subscription.settle);
    this.failedSubscriptions.delete(key);
    try {
      await this.doUnsubscribe(url);
    } catch (error) {
      safeLog(this.logger, 'warn', `unsubscribe ${url.getServiceKey()} failed`, error);
    }
  }

  lookup(url: URL): readonly URL[] {
    const subscription = this.subscriptions.get(url.toString());
    if (subscription === undefined) return [];
    return [...subscription.notified.values()].flat();
  }

  /** URLs registered through this client (for tests and tools). */
  getRegistered(): readonly URL[] {
    return [...this.registered.values()];
  }

  /**
   * Delivers the full current entries of one category to the subscribers of `subscription`.
   * @param subscription - the subscription URL (as passed to `doSubscribe`).
   */
  protected notify(subscription: URL, category: RegistryCategory, urls: readonly URL[]): void {
    const entry = this.subscriptions.get(subscription.toString());
    if (entry === undefined || !entry.categories.has(category)) return;
    this.offer(entry, category, urls, true);
  }

  /**
   * Delivers a list now, or keeps it as its category's latest until its turn or window has passed (`fresh`: newly
   * notified, not a queued list offered again).
   */
  private offer(entry: Subscription, category: RegistryCategory, urls: readonly URL[], fresh: boolean): void {
    // A burst of lists of one category (thousands of rule writes) is coalesced: the first of an event-loop turn is
    // delivered at once, the latest of the others in the next turn (each list is complete, so nothing is lost). After
    // a long list, further ones wait for a quiet window proportional to its length (≤ 50 ms) — unless a whole
    // event-loop turn goes by without a new list: the burst is over, and its last list is delivered then. So a burst
    // of N writes delivered one per turn costs a few deliveries of growing lists (about 2N entries in all), not N
    // (O(N²)), and its last write is applied about a millisecond after it arrived.
    const quietUntil = entry.quietUntil.get(category) ?? 0;
    const now = performance.now();
    const waits = entry.delivered.has(category) || now < quietUntil;
    if (fresh) {
      // The pace of a burst: the time since the list before, for lists that arrive while one waits (not after a pause).
      if (waits) entry.gap += (Math.min(QUIET_MAX_WINDOW, now - entry.lastArrival) - entry.gap) / 8;
      entry.lastArrival = now;
    }
    if (waits) {
      entry.queued.set(category, urls);
      if (fresh) entry.arrivals++;
      if (!entry.delivered.has(category) && entry.timer === undefined && entry.settle === undefined) {
        const check = Math.min(quietUntil, entry.lastArrival + this.settleAfter(entry));
        entry.timer = setTimeout(() => this.endQuiet(entry), Math.max(1, Math.ceil(check - now)));
      }
      return;
    }
    // A list still waiting is older than this one (it arrived before and its window just passed): never deliver it
    // after this one.
    if (fresh) entry.queued.delete(category);
    entry.delivered.add(category);
    entry.turn ??= setImmediate(() => this.nextTurn(entry));
    if (urls.length >= QUIET_MIN_LIST) entry.quietUntil.set(category, performance.now() + Math.min(QUIET_MAX_WINDOW, urls.length * QUIET_MS_PER_ENTRY));
    this.deliver(entry, category, urls);
  }

  private nextTurn(entry: Subscription): void {
    entry.turn = undefined;
    entry.delivered.clear();
    this.flushQueued(entry);
  }

  /**
   * A window's check: the lists still waiting are delivered if none arrived for a while (see {@link QUIET_SETTLE}) nor
   * in the event-loop turn after this check, else when their window has passed (or at a later check).
   */
  private endQuiet(entry: Subscription): void {
    entry.timer = undefined;
    if (this.destroyed || this.subscriptions.get(entry.url.toString()) !== entry) return;
    const seen = entry.arrivals;
    const silent = performance.now() - entry.lastArrival >= this.settleAfter(entry);
    entry.settle = setImmediate(() => {
      entry.settle = undefined;
      if (silent && entry.arrivals === seen) for (const category of entry.queued.keys()) entry.quietUntil.delete(category);
      this.flushQueued(entry);
    });
  }

  /** How long (ms) without a new list ends a burst: {@link QUIET_SETTLE}, or more for lists that come further apart. */
  private settleAfter(entry: Subscription): number {
    return Math.max(QUIET_SETTLE, QUIET_GAPS * entry.gap);
  }

  /** Delivers the queued lists whose turn or quiet window has passed (`offer` queues the others again). */
  private flushQueued(entry: Subscription): void {
    if (this.destroyed || this.subscriptions.get(entry.url.toString()) !== entry) return;
    const queued = [...entry.queued];
    entry.queued.clear();
    for (const [category, urls] of queued) this.offer(entry, category, urls, false);
  }

  private deliver(entry: Subscription, category: RegistryCategory, urls: readonly URL[]): void {
    const subscription = entry.url;
    const last = entry.filtered.get(category);
    let matched: URL[];
    if (last !== undefined && startsWithList(urls, last.urls)) {
      matched = last.matched.slice();
      for (let i = last.urls.length; i < urls.length; i++) {
        const url = urls[i] as URL;
        if (entry.matches(categoryTagged(url, category))) matched.push(url);
      }
    } else {
      matched = urls.filter((u) => entry.matches(categoryTagged(u, category)));
    }
    entry.filtered.set(category, { urls: urls.slice(), matched: matched.slice() });
    if (matched.length === 0) {
      if (category === RegistryCategory.PROVIDERS && this.url.getParameter('enable-empty-protection', false)) return;
      matched = [subscription.withProtocol('empty').addParameter('category', category)];
    }
    entry.notified.set(category, matched);
    for (const listener of entry.listeners) this.call(listener, category, matched);
    this.saveCache(subscription, entry);
  }

  /** Re-registers every registration and re-subscribes every subscription (after a new session). */
  protected async recover(): Promise<void> {
    for (const [key, url] of this.registered) {
      try {
        await this.doRegister(url);
        this.failedRegistrations.delete(key);
      } catch (error) {
        this.failedRegistrations.set(key, url);
        this.scheduleRetry();
        safeLog(this.logger, 'warn', `re-register ${maskSecrets(url)} failed; retrying`, error);
      }
    }
    for (const [key, subscription] of this.subscriptions) {
      try {
        await this.doSubscribe(subscription.url);
        this.failedSubscriptions.delete(key);
      } catch (error) {
        this.failedSubscriptions.set(key, subscription.url);
        this.scheduleRetry();
        safeLog(this.logger, 'warn', `re-subscribe ${subscription.url.getServiceKey()} failed; retrying`, error);
      }
    }
  }

  /** The subscriptions currently held (implementations re-arm their watches from it). */
  protected subscriptionUrls(): readonly URL[] {
    return [...this.subscriptions.values()].map((s) => s.url);
  }

  private get retryPeriod(): number {
    return this.url.getParameter('retry.period', 5000);
  }

  private scheduleRetry(): void {
    if (this.retryTimer !== undefined || this.destroyed) return;
    this.retryTimer = setInterval(() => void this.retry(), this.retryPeriod);
    this.retryTimer.unref?.();
  }

  private async retry(): Promise<void> {
    if (!this.isAvailable()) return;
    for (const [key, url] of [...this.failedRegistrations]) {
      try {
        await this.doRegister(url);
        this.failedRegistrations.delete(key);
      } catch {
        // still failing: retried on the next period
      }
    }
    for (const [key, url] of [...this.failedUnregistrations]) {
      try {
        await this.doUnregister(url);
        this.failedUnregistrations.delete(key);
      } catch {
        // retried later
      }
    }
    for (const [key, url] of [...this.failedSubscriptions]) {
      try {
        await this.doSubscribe(url);
        this.failedSubscriptions.delete(key);
      } catch {
        // retried later
      }
    }
    if (this.failedRegistrations.size + this.failedUnregistrations.size + this.failedSubscriptions.size === 0 && this.retryTimer !== undefined) {
      clearInterval(this.retryTimer);
      this.retryTimer = undefined;
    }
  }

  private call(listener: NotifyListener, category: RegistryCategory, urls: readonly URL[]): void {
    try {
      listener(category, urls);
    } catch (error) {
      safeLog(this.logger, 'error', `a registry listener failed on ${category} of ${urls[0]?.getServiceKey() ?? '?'}`, error);
    }
  }

  private notifyFromCache(subscription: URL, cached: readonly string[]): void {
    const byCategory = new Map<RegistryCategory, URL[]>();
    for (const text of cached) {
      let url: URL;
      try {
        url = URL.parse(text);
      } catch {
        continue;
      }
      const category = (url.getParameter('weft.category') ?? RegistryCategory.PROVIDERS) as RegistryCategory;
      const clean = url.removeParameter('weft.category');
      let list = byCategory.get(category);
      if (list === undefined) byCategory.set(category, (list = []));
      list.push(clean);
    }
    for (const [category, urls] of byCategory) this.notify(subscription, category, urls.filter((u) => u.protocol !== 'empty'));
  }

  private saveCache(subscription: URL, entry: Subscription): void {
    if (this.cacheFile === undefined) return;
    const lines: string[] = [];
    for (const [category, urls] of entry.notified) {
      for (const url of urls) lines.push(url.addParameter('weft.category', category).toString());
    }
    this.cache[cacheKey(subscription)] = lines;
    if (this.cacheTimer !== undefined) return;
    this.cacheTimer = setTimeout(() => {
      this.cacheTimer = undefined;
      this.writeCache();
    }, 500);
    this.cacheTimer.unref?.();
  }

  private writeCache(): void {
    if (this.cacheFile === undefined) return;
    try {
      mkdirSync(dirname(this.cacheFile), { recursive: true });
      const temp = `${this.cacheFile}.${process.pid}.tmp`;
      writeFileSync(temp, JSON.stringify({ weftRegistryCache: 1, entries: this.cache }, null, 1));
      renameSync(temp, this.cacheFile);
    } catch (error) {
      safeLog(this.logger, 'warn', `cannot write the registry cache file ${this.cacheFile}`, error);
    }
  }

  private assertAlive(): void {
    if (this.destroyed) throw new RpcError(RpcErrorCode.REGISTRY, `Registry ${maskedIdentity(this.url)} is destroyed.`);
  }

  async destroy(): Promise<void> {
    if (this.destroyed || this.closing) return;
    this.closing = true;
    for (const url of [...this.registered.values()]) {
      if (url.getParameter('dynamic', true)) await this.unregister(url);
    }
    for (const subscription of [...this.subscriptions.values()]) {
      for (const listener of [...subscription.listeners]) await this.unsubscribe(subscription.url, listener);
    }
    this.destroyed = true;
    if (this.retryTimer !== undefined) clearInterval(this.retryTimer);
    if (this.cacheTimer !== undefined) {
      clearTimeout(this.cacheTimer);
      this.cacheTimer = undefined;
      this.writeCache();
    }
  }
}

function categoryTagged(url: URL, category: RegistryCategory): URL {
  if (category === RegistryCategory.PROVIDERS || url.getParameter('category') === category) return url;
  if (category === RegistryCategory.CONFIGURATORS && (url.protocol === 'override' || url.protocol === 'absent')) return url;
  return url.addParameter('category', category);
}

function cacheKey(url: URL): string {
  return url.getServiceKey() ?? url.path;
}

function cacheFilePath(url: URL): string {
  const explicit = url.getParameter('file');
  if (explicit) return explicit;
  const app = url.getParameter('application') ?? 'weft';
  return join(homedir(), '.weft', `registry-${app}-${url.host || 'local'}-${url.port}.cache`.replace(/[:/\\]/g, '-'));
}

function readCache(file: string, logger: Logger): Record<string, string[]> {
  try {
    const json = JSON.parse(readFileSync(file, 'utf8')) as { weftRegistryCache?: number; entries?: unknown };
    if (json.weftRegistryCache !== 1 || typeof json.entries !== 'object' || json.entries === null) return {};
    const out: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
    for (const [key, value] of Object.entries(json.entries as Record<string, unknown>)) {
      if (Array.isArray(value)) out[key] = value.filter((v): v is string => typeof v === 'string');
    }
    return out;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') safeLog(logger, 'warn', `ignoring unreadable registry cache ${file}`, error);
    return Object.create(null) as Record<string, string[]>;
  }
}
