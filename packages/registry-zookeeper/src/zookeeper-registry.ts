import { AbstractRegistry, RegistryCategory, registryCategoryOf, RpcError, RpcErrorCode, URL, type Logger } from '@weft/core';
import {
  configCentreRouteUrl,
  configuratorForSubscriber,
  parseConfiguratorRules,
  providerApplicationDocuments,
  ruleLimitsOf,
  safeLog,
  subscriptionDocuments,
  type RuleLimits,
} from '@weft/core/spi';

import { isZkCode, ZookeeperClient, type ZookeeperConnectionState, type ZookeeperSession } from './zookeeper-client.js';

/** Categories a subscription may name, in the order they are read. */
const CATEGORIES: readonly RegistryCategory[] = [
  RegistryCategory.CONFIGURATORS,
  RegistryCategory.ROUTERS,
  RegistryCategory.PROVIDERS,
  RegistryCategory.CONSUMERS,
];

/** What a watch needs from its registry. */
interface WatchHost {
  /** The client of the current session. */
  client(): ZookeeperClient;
  /** A watch was read: notify its subscribers. */
  changed(watch: ChildWatch | RuleWatch | RouteRuleWatch): void;
  log(level: 'debug' | 'info' | 'warn' | 'error', message: string, error?: unknown): void;
  /** The rule limits of the registry URL (`rule.yaml.max-bytes`, …). */
  readonly limits: RuleLimits;
}

/**
 * Re-reads a ZooKeeper node after each watch event, one read at a time: an event during a read schedules one
 * more read, so the last read always reflects the last event.
 */
abstract class Watch {
  /** Subscription keys interested in this node. */
  readonly subscribers = new Set<string>();
  /** Whether the node has been read at least once. */
  loaded = false;
  private running: Promise<void> | undefined;
  private dirty = false;
  /** The one-shot watcher handed to ZooKeeper; the same function every time, so the library keeps one per path. */
  readonly watcher = (): void => this.onEvent(this);

  constructor(
    readonly path: string,
    protected readonly host: WatchHost,
    private readonly onEvent: (watch: Watch) => void,
  ) {}

  /** Reads the node (re-arming the watch); resolves after a read that started after this call. */
  refresh(): Promise<void> {
    this.dirty = true;
    this.running ??= this.loop().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async loop(): Promise<void> {
    while (this.dirty) {
      this.dirty = false;
      await this.read();
    }
  }

  protected abstract read(): Promise<void>;
}

/** The children of one category node: the registry's entries. */
class ChildWatch extends Watch {
  /** The entries last read (kept while disconnected). */
  urls: readonly URL[] = [];
  /** Child names already reported as unparsable (reported once). */
  private readonly reported = new Set<string>();

  constructor(
    path: string,
    readonly category: RegistryCategory,
    host: WatchHost,
    onEvent: (watch: Watch) => void,
  ) {
    super(path, host, onEvent);
  }

  protected async read(): Promise<void> {
    const client = this.host.client();
    let children: string[];
    try {
      children = await client.getChildren(this.path, this.watcher);
    } catch (error) {
      if (!isZkCode(error, 'NO_NODE')) throw error;
      // Not created yet (e.g. nobody registered a consumer): empty until it appears.
      children = (await client.exists(this.path, this.watcher)) === undefined ? [] : await client.getChildren(this.path, this.watcher);
    }
    const urls: URL[] = [];
    for (const name of children.sort()) {
      try {
        urls.push(URL.parse(URL.decode(name), { decoded: true }));
      } catch (error) {
        if (!this.reported.has(name)) {
          this.reported.add(name);
          this.host.log('warn', `ignoring the node ${this.path}/${name}: not a URL once decoded (${(error as Error).message})`);
        }
      }
    }
    this.urls = urls;
    this.loaded = true;
    this.host.changed(this);
  }
}

/** A config-centre rule node (`…/{key}.configurators`): its data, translated to override URLs. */
class RuleWatch extends Watch {
  /** The override URLs of the last valid rule (kept when a new version fails to parse). */
  urls: readonly URL[] = [];
  private lastText: string | undefined;

  protected async read(): Promise<void> {
    const data = await this.host.client().getData(this.path, this.watcher);
    const text = data === undefined ? undefined : data.toString('utf8');
    if (text !== this.lastText || !this.loaded) {
      this.lastText = text;
      if (text === undefined || text.trim() === '') {
        this.urls = [];
      } else {
        try {
          this.urls = parseConfiguratorRules(text, this.host.limits);
        } catch (error) {
          this.host.log(
            'error',
            `Rejected the configurator rule at ${this.path}: ${(error as Error).message} The previous rules of this source stay (${this.urls.length} override URL(s)).`,
            error,
          );
        }
      }
    }
    this.loaded = true;
    this.host.changed(this);
  }
}

/**
 * A config-centre routing rule node (`…/{key}.condition-router`, `…/{app}.tag-router`): its text, delivered as is
 * (the routers parse and validate it, and keep the previous rule when a new text is refused).
 */
class RouteRuleWatch extends Watch {
  /** The node's text (`''` when absent or empty). */
  text = '';

  constructor(
    path: string,
    /** Which router reads it. */
    readonly router: 'condition' | 'tag',
    /** `service`, `application` (the consumer's) or `provider-application`. */
    readonly scope: string,
    host: WatchHost,
    onEvent: (watch: Watch) => void,
  ) {
    super(path, host, onEvent);
  }

  protected async read(): Promise<void> {
    const data = await this.host.client().getData(this.path, this.watcher);
    this.text = data === undefined ? '' : data.toString('utf8');
    this.loaded = true;
    this.host.changed(this);
  }

  /** The rule as a `routers` URL of `subscription`'s service, or `undefined` when the node is empty. */
  toUrl(subscription: URL): URL | undefined {
    return configCentreRouteUrl(subscription, this.router, this.scope, this.path, this.text);
  }
}

/** What one subscription watches. */
interface SubscriptionWatches {
  readonly url: URL;
  readonly children: Map<RegistryCategory, ChildWatch>;
  /** Config-centre rule nodes, application scope first (applied in this order). */
  readonly rules: RuleWatch[];
  /** Config-centre routing rule nodes (consumer application, service, and each provider application's). */
  readonly routeRules: RouteRuleWatch[];
  /** False until the first full read is done: events before that do not notify this subscription. */
  ready: boolean;
}

/**
 * Dubbo's interface-level ZooKeeper registry: providers, consumers, override rules and config-centre YAML rules,
 * watched live.
 *
 * @remarks
 * Registry URL `zookeeper://host:port[?backup=host2:port2,…]`; created by {@link ZookeeperRegistryFactory}.
 * - **Layout** (spec §B.1): root `/{group}` (default `/dubbo`; a group starting with `/` is used as is), then
 *   `/{root}/{URL.encode(interface)}/{providers|consumers|configurators|routers}/{URL.encode(url.toDecodedString(true))}`
 *   — the node name Java writes, upper-case hex. Intermediate nodes are persistent and created on demand; a leaf
 *   is ephemeral when the URL's `dynamic` is true (the default), persistent otherwise; node data is empty. An
 *   ephemeral leaf left by an older session is deleted and created again.
 * - **Subscriptions**: one child watch per category, re-armed on every event; each event notifies the full,
 *   current list of that category. Children are form-decoded once (either case of hex, so operators' lower-case
 *   `override%3a%2f%2f…` works) and parsed without decoding again; a child that does not parse is logged once
 *   and skipped.
 * - **Config centre** (spec §B.7): for subscriptions to `configurators`, the data of
 *   `/{config.namespace}/config/{config.group}/{application}.configurators` and
 *   `…/{interface}:{version}:{group}.configurators` is watched too; the rules (YAML, JSON, or a JSON list of
 *   override URLs) are translated to override URLs and delivered with the `configurators` notification, after the
 *   registry's own override nodes (application rules, then service rules), so they take effect like override
 *   URLs. A rule that fails to parse or validate is logged and the previous rules of that node stay; deleting the
 *   node clears them.
 * - **Routing rules** (governance spec §3.1): for subscriptions to `routers`, the data of
 *   `/{config.namespace}/config/{config.group}/{application}.condition-router`, `…/{interface}:{version}:{group}.condition-router`
 *   and, for each provider application seen among the providers, `…/{providerApp}.tag-router` and
 *   `…/{providerApp}.condition-router` is watched too; each non-empty node is delivered with the `routers`
 *   notification as `route://0.0.0.0/{interface}?category=routers&router=condition|tag&rule.scope=…&rule.source={path}&rule.yaml={text}`
 *   (the routers of `@weft/routers` parse it; deleting the node removes it).
 * - **Sessions** (spec §B.9): `timeout` bounds the first connection and each operation; `session` is the session
 *   timeout asked from the server. While disconnected the last lists stay (consumers keep calling the last known
 *   providers; nothing is notified); after reconnecting with the same session every watched node is read again;
 *   when the session has expired, a new session is opened and everything is re-registered and re-subscribed
 *   (`recover()`). `isAvailable()` tells whether the client is connected now.
 * Failback retries and the local cache file come from `AbstractRegistry`.
 *
 * @example
 * ```ts
 * const app = await WeftApplication.start({ root, name: 'shop', registry: 'zookeeper://127.0.0.1:2181?session=30000' });
 * ```
 */
export class ZookeeperRegistry extends AbstractRegistry {
  private client: ZookeeperClient;
  private readonly root: string;
  private readonly configRoot: string | undefined;
  private readonly children = new Map<string, ChildWatch>();
  private readonly rules = new Map<string, RuleWatch>();
  private readonly routeRules = new Map<string, RouteRuleWatch>();
  private readonly watches = new Map<string, SubscriptionWatches>();
  private sessionId: string | undefined;
  private everConnected = false;
  private missedWhileDown = false;
  private recovering: Promise<void> | undefined;
  private readonly host: WatchHost = {
    client: () => this.client,
    changed: (watch) => this.changed(watch),
    log: (level, message, error) => this.log(level, message, error),
    limits: ruleLimitsOf(this.url),
  };

  constructor(url: URL, logger: Logger) {
    super(url, logger);
    const group = url.getParameter('group', 'dubbo');
    const root = group.startsWith('/') ? group : `/${group}`;
    this.root = root === '/' ? '' : root.replace(/\/+$/, '');
    this.configRoot = url.getParameter('config-center', true)
      ? `/${url.getParameter('config.namespace', 'dubbo')}/config/${url.getParameter('config.group', 'dubbo')}`
      : undefined;
    this.client = this.newClient();
  }

  /** The servers this registry talks to (`host:port[,host:port…]`). */
  get connectString(): string {
    const address = `${this.url.host || '127.0.0.1'}:${this.url.port || 2181}`;
    const backup = this.url.getParameter('backup');
    return backup ? `${address},${backup}` : address;
  }

  isAvailable(): boolean {
    return !this.destroyed && this.client.connected;
  }

  /** The current session's id and password (for diagnostics, and tools that match ephemeral owners to sessions). */
  getSession(): ZookeeperSession {
    return this.client.getSession();
  }

  /** The node path a registered URL lives at. */
  toUrlPath(url: URL): string {
    return `${this.categoryPath(url, registryCategoryOf(url))}/${URL.encode(url.toDecodedString(true))}`;
  }

  protected async doRegister(url: URL): Promise<void> {
    await this.tracked(this.register0(url));
  }

  protected async doUnregister(url: URL): Promise<void> {
    await this.tracked(this.client.delete(this.toUrlPath(url)));
  }

  protected async doSubscribe(url: URL): Promise<void> {
    await this.tracked(this.subscribe0(url));
  }

  /** Remembers that an operation failed while disconnected, so the next connection recovers at once. */
  private async tracked<T>(operation: Promise<T>): Promise<T> {
    try {
      return await operation;
    } catch (error) {
      if (!this.client.connected) this.missedWhileDown = true;
      throw error;
    }
  }

  private async register0(url: URL): Promise<void> {
    const client = this.client;
    const path = this.toUrlPath(url);
    const ephemeral = url.getParameter('dynamic', true);
    for (let attempt = 0; ; attempt++) {
      try {
        await client.create(path, { ephemeral });
        return;
      } catch (error) {
        if (isZkCode(error, 'NO_NODE') && attempt < 3) {
          // First registration of this service (or category): create the persistent parents, then the leaf.
          await client.mkdirp(path.slice(0, path.lastIndexOf('/')));
          continue;
        }
        if (!isZkCode(error, 'NODE_EXISTS')) throw error;
        break;
      }
    }
    if (!ephemeral) return;
    // Ours already (a retry, or a reconnect): keep it. Another session's (not reaped yet): replace it.
    const stat = await client.exists(path);
    if (stat !== undefined && stat.ephemeralOwner !== undefined && stat.ephemeralOwner === client.getSessionId()) return;
    await client.delete(path);
    await client.create(path, { ephemeral: true });
  }

  override configPath(key: string): string | undefined {
    return this.configRoot === undefined ? undefined : `${this.configRoot}/${key}`;
  }

  /** Writes (or deletes, with `undefined`) `/{config.namespace}/config/{config.group}/{key}`. */
  override async publishConfig(key: string, content: string | undefined): Promise<void> {
    const path = this.configPath(key);
    if (path === undefined) throw new RpcError(RpcErrorCode.REGISTRY, `the config centre is off on ${this.url.toIdentityString()} (config-center=false): cannot write ${key}`);
    if (content === undefined) {
      if ((await this.client.exists(path)) !== undefined) await this.client.delete(path);
      return;
    }
    await this.client.writeData(path, content);
  }

  override async getConfig(key: string): Promise<string | undefined> {
    const path = this.configPath(key);
    if (path === undefined) return undefined;
    const data = await this.client.getData(path);
    return data === undefined ? undefined : data.toString('utf8');
  }

  /** The services that have a node under the registry's root (`/dubbo/<interface>`). */
  override async listServices(): Promise<readonly string[]> {
    const root = this.root === '' ? '/' : this.root;
    const children = (await this.client.exists(root)) === undefined ? [] : await this.client.getChildren(root);
    return children.filter((c) => c !== 'config' && c !== 'metadata' && c !== 'mapping').map((c) => URL.decode(c));
  }

  private async subscribe0(url: URL): Promise<void> {
    const key = url.toString();
    const wanted = (url.getParameter('category') ?? RegistryCategory.PROVIDERS).split(',').map((c) => c.trim());
    const categories = CATEGORIES.filter((c) => wanted.includes(c));
    const iface = url.getServiceInterface();
    if (iface === undefined || iface === '*') {
      throw new RpcError(RpcErrorCode.REGISTRY, `The ZooKeeper registry cannot subscribe to every service ("${iface ?? ''}"); subscribe per interface.`);
    }
    let state = this.watches.get(key);
    if (state === undefined) {
      state = { url, children: new Map(), rules: [], routeRules: [], ready: false };
      this.watches.set(key, state);
      for (const category of categories) {
        const path = this.categoryPath(url, category);
        const watch = this.childWatch(path, category);
        watch.subscribers.add(key);
        state.children.set(category, watch);
      }
      if (this.configRoot !== undefined && categories.includes(RegistryCategory.CONFIGURATORS)) {
        for (const document of subscriptionDocuments(url, RegistryCategory.CONFIGURATORS)) {
          const watch = this.ruleWatch(`${this.configRoot}/${document.key}`);
          watch.subscribers.add(key);
          state.rules.push(watch);
        }
      }
      if (this.configRoot !== undefined && categories.includes(RegistryCategory.ROUTERS)) {
        for (const document of subscriptionDocuments(url, RegistryCategory.ROUTERS)) this.addRouteRule(state, key, document.key, 'condition', document.scope);
      }
    }
    const client = this.client;
    for (const watch of state.children.values()) {
      if (watch.category !== RegistryCategory.CONSUMERS) await client.mkdirp(watch.path);
    }
    await Promise.all([...state.children.values(), ...state.rules, ...state.routeRules].map((w) => w.refresh()));
    // The provider applications' rules (tag routes, provider-app conditions), once the providers are known.
    await Promise.all(this.watchProviderApplications(state, key).map((w) => w.refresh()));
    if (this.watches.get(key) !== state) return;
    state.ready = true;
    for (const category of state.children.keys()) this.notifyCategory(state, category);
  }

  protected async doUnsubscribe(url: URL): Promise<void> {
    const key = url.toString();
    const state = this.watches.get(key);
    if (state === undefined) return;
    this.watches.delete(key);
    for (const watch of state.children.values()) {
      watch.subscribers.delete(key);
      if (watch.subscribers.size === 0 && this.children.get(watch.path) === watch) this.children.delete(watch.path);
    }
    for (const watch of state.rules) {
      watch.subscribers.delete(key);
      if (watch.subscribers.size === 0 && this.rules.get(watch.path) === watch) this.rules.delete(watch.path);
    }
    for (const watch of state.routeRules) {
      watch.subscribers.delete(key);
      if (watch.subscribers.size === 0 && this.routeRules.get(watch.path) === watch) this.routeRules.delete(watch.path);
    }
  }

  /** Adds a routing rule node to a subscription (once). */
  private addRouteRule(state: SubscriptionWatches, key: string, node: string, router: 'condition' | 'tag', scope: string): RouteRuleWatch | undefined {
    const path = `${this.configRoot}/${node}`;
    if (state.routeRules.some((w) => w.path === path)) return undefined;
    let watch = this.routeRules.get(path);
    if (watch === undefined) {
      watch = new RouteRuleWatch(path, router, scope, this.host, (w) => this.onWatchEvent(w));
      this.routeRules.set(path, watch);
    }
    watch.subscribers.add(key);
    state.routeRules.push(watch);
    return watch;
  }

  /** Watches `{app}.tag-router` and `{app}.condition-router` of every provider application not watched yet; returns the new watches. */
  private watchProviderApplications(state: SubscriptionWatches, key: string): RouteRuleWatch[] {
    const providers = state.children.get(RegistryCategory.PROVIDERS);
    if (this.configRoot === undefined || providers === undefined || !state.children.has(RegistryCategory.ROUTERS)) return [];
    const added: RouteRuleWatch[] = [];
    const consumerApp = state.url.getApplication();
    for (const app of new Set(providers.urls.map((u) => u.getApplication()).filter((a): a is string => !!a))) {
      for (const document of providerApplicationDocuments(app, consumerApp)) {
        const watch = this.addRouteRule(state, key, document.key, document.kind as 'condition' | 'tag', document.scope);
        if (watch !== undefined) added.push(watch);
      }
    }
    return added;
  }

  /** Unregisters the dynamic registrations, stops watching, and closes the session (idempotent). */
  override async destroy(): Promise<void> {
    if (this.destroyed) return;
    await super.destroy();
    this.children.clear();
    this.rules.clear();
    this.routeRules.clear();
    this.watches.clear();
    await this.client.close();
  }

  private log(level: 'debug' | 'info' | 'warn' | 'error', message: string, error?: unknown): void {
    safeLog(this.logger, level, `[zookeeper ${this.connectString}] ${message}`, error);
  }

  private notifyCategory(state: SubscriptionWatches, category: RegistryCategory): void {
    const watch = state.children.get(category);
    if (watch === undefined || !watch.loaded || this.destroyed) return;
    let urls = watch.urls;
    if (category === RegistryCategory.CONFIGURATORS && state.rules.length > 0) {
      urls = [...urls, ...state.rules.flatMap((rule) => rule.urls.map((u) => configuratorForSubscriber(u, state.url)))];
    }
    if (category === RegistryCategory.ROUTERS && state.routeRules.length > 0) {
      const ruleUrls = state.routeRules.map((rule) => rule.toUrl(state.url)).filter((u): u is URL => u !== undefined);
      if (ruleUrls.length > 0) urls = [...urls.filter((u) => u.protocol !== 'empty'), ...ruleUrls];
    }
    this.notify(state.url, category, urls);
  }

  private childWatch(path: string, category: RegistryCategory): ChildWatch {
    let watch = this.children.get(path);
    if (watch === undefined) {
      watch = new ChildWatch(path, category, this.host, (w) => this.onWatchEvent(w));
      this.children.set(path, watch);
    }
    return watch;
  }

  private ruleWatch(path: string): RuleWatch {
    let watch = this.rules.get(path);
    if (watch === undefined) {
      watch = new RuleWatch(path, this.host, (w) => this.onWatchEvent(w));
      this.rules.set(path, watch);
    }
    return watch;
  }

  /** A watch fired (or the connection is back): read the node again, unless nobody watches it any more. */
  private onWatchEvent(watch: Watch): void {
    const current =
      watch instanceof ChildWatch ? this.children.get(watch.path) : watch instanceof RouteRuleWatch ? this.routeRules.get(watch.path) : this.rules.get(watch.path);
    if (this.destroyed || current !== watch) return;
    watch.refresh().catch((error: unknown) => {
      // While disconnected this is expected (every watched node is read again on reconnect); connected, it is not.
      if (this.client.connected) this.log('warn', `re-reading ${watch.path} failed; it is read again on the next event or reconnect`, error);
      else this.log('debug', `re-reading ${watch.path} failed while disconnected (read again on reconnect)`, error);
    });
  }

  /** A watch was read: notify the subscribers that are past their first read. */
  private changed(watch: ChildWatch | RuleWatch | RouteRuleWatch): void {
    const category = watch instanceof ChildWatch ? watch.category : watch instanceof RouteRuleWatch ? RegistryCategory.ROUTERS : RegistryCategory.CONFIGURATORS;
    for (const key of watch.subscribers) {
      const state = this.watches.get(key);
      if (state === undefined || !state.ready) continue;
      this.notifyCategory(state, category);
      if (category === RegistryCategory.PROVIDERS) {
        // A new provider application: watch its routing rules (they are notified once read).
        for (const added of this.watchProviderApplications(state, key)) this.onWatchEvent(added);
      }
    }
  }

  private categoryPath(url: URL, category: string): string {
    return `${this.root}/${URL.encode(url.getServiceInterface() ?? url.path)}/${category}`;
  }

  private newClient(): ZookeeperClient {
    const client = new ZookeeperClient({
      connectString: this.connectString,
      connectionTimeout: this.url.getPositiveParameter('timeout', 30_000),
      sessionTimeout: this.url.getPositiveParameter('session', 60_000),
      ...(this.url.username ? { auth: `${this.url.username}:${this.url.password}` } : {}),
    });
    client.onStateChange((state) => this.onConnectionState(client, state));
    return client;
  }

  private onConnectionState(client: ZookeeperClient, state: ZookeeperConnectionState): void {
    if (client !== this.client || this.destroyed) return;
    switch (state) {
      case 'connected': {
        const session = client.getSessionId();
        const newSession = session !== this.sessionId;
        const first = !this.everConnected;
        this.sessionId = session;
        this.everConnected = true;
        if (first) this.log('info', `connected (session 0x${session ?? '?'})`);
        if ((newSession && !first) || this.missedWhileDown) {
          this.log('info', `${newSession && !first ? 'new session' : 'reconnected'} 0x${session ?? '?'}: re-registering and re-subscribing`);
          this.missedWhileDown = false;
          this.startRecovery();
        } else if (!first) {
          this.log('info', `reconnected (session 0x${session ?? '?'}): reading every watched node again`);
          for (const watch of [...this.children.values(), ...this.rules.values(), ...this.routeRules.values()]) this.onWatchEvent(watch);
        }
        break;
      }
      case 'disconnected':
        this.log('warn', 'disconnected; keeping the last known providers and rules until the connection is back');
        break;
      case 'connecting':
        break;
      case 'expired':
        this.log('warn', `session 0x${this.sessionId ?? '?'} expired: its ephemeral nodes are gone; opening a new session`);
        void client.close();
        this.client = this.newClient();
        break;
      case 'auth-failed':
        this.log('error', `authentication failed for user "${this.url.username}"`);
        break;
      case 'closed':
        break;
    }
  }

  private startRecovery(): void {
    const run = async (): Promise<void> => {
      try {
        await this.recover();
      } catch (error) {
        this.log('warn', 'recovery after reconnect failed; failed operations are retried', error);
      }
    };
    this.recovering = (this.recovering ?? Promise.resolve()).then(run);
  }
}
