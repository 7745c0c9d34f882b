import { hostname } from 'node:os';

import {
  Invoker,
  RandomSource,
  RpcError,
  RpcErrorCode,
  type Directory,
  type ExtensionLoader,
  type Invocation,
  type LoadBalance,
  type Logger,
  Result,
  type RpcStatusRegistry,
  type URL,
} from '@weft/core';

import { ClusterDefaults, ClusterKeys } from './cluster-keys.js';
import { safeLog } from '@weft/core/spi';

/**
 * What a provider URL configures for one method, as {@link AbstractClusterInvoker.settingsOf} reads it.
 *
 * @remarks
 * Cached per URL object and method name: URLs are immutable, so an override (a new URL object) means fresh
 * settings. `loadBalance` is the extension `loadBalanceName` names, already resolved.
 *
 * @example
 * ```ts
 * const { loadBalance, sticky } = this.settingsOf(invokers[0].getUrl(), invocation.methodName);
 * ```
 */
export interface ProviderSettings {
  /** The method-level `loadbalance` key (default `random`). */
  readonly loadBalanceName: string;
  /** The load balance extension it names. */
  readonly loadBalance: LoadBalance;
  /** The method-level `sticky` key (default `false`). */
  readonly sticky: boolean;
}

/** A load balance that reads call counters opts in to consumer-side counting with this property. */
interface RpcStatusAware {
  readonly usesRpcStatus?: boolean;
}

/**
 * The base of every cluster invoker: lists providers, picks the load balance, selects with sticky, reselection
 * and availability checks, and counts attempts for load balances that read call counters.
 *
 * @remarks
 * One instance per `Cluster.join(directory)`. Subclasses implement {@link AbstractClusterInvoker.doInvoke} — the
 * fault-tolerance strategy — and call {@link AbstractClusterInvoker.select} and
 * {@link AbstractClusterInvoker.invokeProvider}. Per call, `invoke`:
 *
 * 1. rejects with `RpcError` `unknown` when the invoker (or its directory) was destroyed;
 * 2. lists the providers with `directory.list(invocation)`; none → `RpcError` `no-invoker`;
 * 3. takes the `LoadBalance` extension named by the first provider's method-level `loadbalance`
 *    (default `random`);
 * 4. runs `doInvoke`.
 *
 * `getUrl()` is read from the directory on every call (registry directories replace it when configurators
 * change), so every key is read per call, never cached at construction.
 *
 * Selection (Dubbo's `select`/`doSelect`/`reselect`): with method-level `sticky=true` the last chosen provider is
 * reused while it is still listed, was not already tried in this call and (when `cluster.availablecheck` is on)
 * is available. A single provider is returned as is. Otherwise the load balance chooses; a choice already tried,
 * or unavailable while `cluster.availablecheck` (default `true`) is on, is replaced by the load balance's choice
 * among the untried available providers (all of them when there are at most `reselect.count`, default 10, else
 * that many random picks), then among the tried ones that are still listed and available, and finally by the
 * provider after it in the list.
 *
 * Consumer-side counters: Dubbo only counts calls in `ActiveLimitFilter`, so `leastactive` and
 * `shortestresponse` see zeros unless `actives` is configured. Here, when the chosen load balance has
 * `usesRpcStatus === true`, every provider attempt is counted with `RpcStatusRegistry.beginCount`/`endCount`
 * exactly once, whether it resolves, rejects or throws synchronously. Other load balances pay nothing. When the
 * provider URL sets `actives` for the method, the consumer `active-limit` filter (which Dubbo activates on that
 * key) counts the attempt instead, so it is never counted twice.
 *
 * Answers: a provider that completed synchronously answers with its `Result` (no promise), and so do
 * {@link AbstractClusterInvoker.invokeProvider} and `invoke` — a strategy must pass a completed `Result` through
 * without a promise hop, and only chain on a pending answer. Failures: a provider may reject or throw
 * synchronously; both arrive as a rejection of {@link AbstractClusterInvoker.invokeProvider}. `invoke` itself
 * never throws: it returns a rejected promise carrying an `RpcError`.
 *
 * @example
 * ```ts
 * class FirstClusterInvoker extends AbstractClusterInvoker {
 *   protected doInvoke(invocation: Invocation, invokers: readonly Invoker[], loadBalance: LoadBalance) {
 *     const invoker = this.select(loadBalance, invocation, invokers, undefined);
 *     return this.invokeProvider(invoker, invocation, this.countsRpcStatus(loadBalance));
 *   }
 * }
 * ```
 */
export abstract class AbstractClusterInvoker extends Invoker {
  private destroyed = false;
  private stickyInvoker: Invoker | undefined;

  constructor(
    /** The providers, and the consumer URL that configures the calls. */
    protected readonly directory: Directory,
    /** The application's load balances, looked up by name per call. */
    protected readonly loadBalances: ExtensionLoader<LoadBalance>,
    /** Where failures and retries are reported. */
    protected readonly logger: Logger,
    /** The application's call counters. */
    protected readonly statuses: RpcStatusRegistry,
    /** Randomness for reselection among many providers. */
    protected readonly random: RandomSource = new RandomSource()
  ) {
    super();
  }

  /** The directory's URL (the consumer URL with configurators applied), read on every call. */
  getUrl(): URL {
    return this.directory.getUrl();
  }

  /** The directory this invoker was joined from. */
  getDirectory(): Directory {
    return this.directory;
  }

  /** The sticky provider's availability when there is one, else whether any provider is available. */
  override isAvailable(): boolean {
    const sticky = this.stickyInvoker;
    return sticky !== undefined ? sticky.isAvailable() : this.directory.isAvailable();
  }

  /** Whether `destroy()` ran here or on the directory. */
  isDestroyed(): boolean {
    return this.destroyed || this.directory.isDestroyed();
  }

  /** Destroys the directory (and so its providers). Idempotent. */
  override destroy(): Promise<void> {
    if (this.destroyed) return Promise.resolve();
    this.destroyed = true;
    this.stickyInvoker = undefined;
    return this.directory.destroy();
  }

  private providerSettings = new WeakMap<URL, Map<string, ProviderSettings>>();
  private consumerSettings = new WeakMap<URL, { readonly availableCheck: boolean; readonly reselectCount: number }>();
  private lastSettingsUrl: URL | undefined;
  private lastSettingsMethod: string | undefined;
  private lastSettings: ProviderSettings | undefined;
  private lastSelectionUrl: URL | undefined;
  private lastSelection: { readonly availableCheck: boolean; readonly reselectCount: number } | undefined;

  /**
   * The method-level settings a provider URL gives (`loadbalance` — resolved to its extension — and `sticky`),
   * read once per URL object and method: URLs are immutable, and an override produces a new URL object, so the
   * cache never goes stale.
   *
   * @throws ExtensionError when the `loadbalance` it names is not a known extension.
   */
  protected settingsOf(url: URL, method: string): ProviderSettings {
    // One-entry inline cache in front of the WeakMap: consecutive calls usually see the same provider and method.
    if (url === this.lastSettingsUrl && method === this.lastSettingsMethod) return this.lastSettings as ProviderSettings;
    return this.loadSettings(url, method);
  }

  private loadSettings(url: URL, method: string): ProviderSettings {
    let perMethod = this.providerSettings.get(url);
    if (perMethod === undefined) this.providerSettings.set(url, (perMethod = new Map()));
    let settings = perMethod.get(method);
    if (settings === undefined) {
      const name = url.getMethodParameter(method, ClusterKeys.LOADBALANCE, ClusterDefaults.LOADBALANCE);
      settings = {
        loadBalanceName: name,
        loadBalance: this.loadBalances.getExtension(name),
        sticky: url.getMethodParameter(method, ClusterKeys.STICKY, ClusterDefaults.STICKY),
      };
      perMethod.set(method, settings);
    }
    this.lastSettingsUrl = url;
    this.lastSettingsMethod = method;
    this.lastSettings = settings;
    return settings;
  }

  /** The consumer URL's selection settings (`cluster.availablecheck`, `reselect.count`), once per URL object. */
  protected selectionOf(url: URL): { readonly availableCheck: boolean; readonly reselectCount: number } {
    if (url === this.lastSelectionUrl && this.lastSelection !== undefined) return this.lastSelection;
    return this.loadSelection(url);
  }

  private loadSelection(url: URL): { readonly availableCheck: boolean; readonly reselectCount: number } {
    let settings = this.consumerSettings.get(url);
    if (settings === undefined) {
      settings = {
        availableCheck: url.getParameter(ClusterKeys.AVAILABLE_CHECK, ClusterDefaults.AVAILABLE_CHECK),
        reselectCount: url.getParameter(ClusterKeys.RESELECT_COUNT, ClusterDefaults.RESELECT_COUNT),
      };
      this.consumerSettings.set(url, settings);
    }
    this.lastSelectionUrl = url;
    this.lastSelection = settings;
    return settings;
  }

  /** Lists, picks the load balance and runs the strategy; rejects (never throws) with an `RpcError`. */
  invoke(invocation: Invocation): Result | Promise<Result> {
    try {
      this.checkWhetherDestroyed();
      const invokers = this.list(invocation);
      this.checkInvokers(invokers, invocation);
      return this.doInvoke(invocation, invokers, this.initLoadBalance(invokers, invocation));
    } catch (error) {
      return rejection(error);
    }
  }

  /**
   * The fault-tolerance strategy: called with a non-empty provider list and the load balance for this call.
   * It may throw synchronously; `invoke` turns that into a rejection.
   */
  protected abstract doInvoke(invocation: Invocation, invokers: readonly Invoker[], loadBalance: LoadBalance): Result | Promise<Result>;

  /** The providers for this call (the directory's list). */
  protected list(invocation: Invocation): readonly Invoker[] {
    return this.directory.list(invocation);
  }

  /** The load balance named by the first provider's method-level `loadbalance` (default `random`). */
  protected initLoadBalance(invokers: readonly Invoker[], invocation: Invocation): LoadBalance {
    const first = invokers[0];
    return first === undefined ? this.defaultLoadBalance() : this.settingsOf(first.getUrl(), invocation.methodName).loadBalance;
  }

  private defaultLoadBalance(): LoadBalance {
    return this.loadBalances.getExtension(ClusterDefaults.LOADBALANCE);
  }

  /** Whether attempts must be counted for this load balance (it reads `RpcStatus` counters). */
  protected countsRpcStatus(loadBalance: LoadBalance): boolean {
    return (loadBalance as RpcStatusAware).usesRpcStatus === true;
  }

  /** @throws RpcError `unknown` when this invoker or its directory was destroyed. */
  protected checkWhetherDestroyed(): void {
    // Cold paths live in their own methods throughout the per-call code: what is never run stays out of the
    // engine's inlining budget, which the hot path needs.
    if (this.isDestroyed()) throw this.destroyedError();
  }

  private destroyedError(): RpcError {
    return new RpcError(
      RpcErrorCode.UNKNOWN,
      `Rpc cluster invoker for ${this.serviceName()} on consumer ${this.consumerHost()} is now destroyed! Can not invoke any more.`
    );
  }

  /** @throws RpcError `no-invoker` when the list is empty. */
  protected checkInvokers(invokers: readonly Invoker[], invocation: Invocation): void {
    if (invokers.length === 0) throw this.noInvokerError(invocation);
  }

  private noInvokerError(invocation: Invocation): RpcError {
    return new RpcError(
      RpcErrorCode.NO_INVOKER,
      `Failed to invoke the method ${invocation.getMethodName()} in the service ${this.serviceName()}. ` +
        `No provider available for the service ${this.directory.getConsumerUrl().getServiceKey() ?? this.serviceName()} ` +
        `from registry ${this.registryAddress()} on the consumer ${this.consumerHost()}. ` +
        `Please check if the providers have been started and registered.`
    );
  }

  /**
   * Chooses one provider of a non-empty list, avoiding those in `selected` (already tried in this call) and,
   * with `cluster.availablecheck` on, unavailable ones; honours `sticky`.
   */
  protected select(
    loadBalance: LoadBalance,
    invocation: Invocation,
    invokers: readonly Invoker[],
    selected: readonly Invoker[] | undefined
  ): Invoker {
    const first = invokers[0] as Invoker;
    const sticky = this.settingsOf(first.getUrl(), invocation.methodName).sticky;
    // The common case — one provider, not sticky, nothing tried yet — needs no further setting.
    return invokers.length === 1 && !sticky && selected === undefined && this.stickyInvoker === undefined
      ? first
      : this.selectAmong(loadBalance, invocation, invokers, selected, sticky);
  }

  private selectAmong(
    loadBalance: LoadBalance,
    invocation: Invocation,
    invokers: readonly Invoker[],
    selected: readonly Invoker[] | undefined,
    sticky: boolean
  ): Invoker {
    const availableCheck = this.selectionOf(this.getUrl()).availableCheck;
    let stickyInvoker = this.stickyInvoker;
    if (stickyInvoker !== undefined && !invokers.includes(stickyInvoker)) {
      this.stickyInvoker = stickyInvoker = undefined;
    }
    if (
      sticky &&
      stickyInvoker !== undefined &&
      (selected === undefined || !selected.includes(stickyInvoker)) &&
      (!availableCheck || stickyInvoker.isAvailable())
    ) {
      return stickyInvoker;
    }
    const invoker = this.doSelect(loadBalance, invocation, invokers, selected, availableCheck);
    if (sticky) this.stickyInvoker = invoker;
    return invoker;
  }

  private doSelect(
    loadBalance: LoadBalance,
    invocation: Invocation,
    invokers: readonly Invoker[],
    selected: readonly Invoker[] | undefined,
    availableCheck: boolean
  ): Invoker {
    if (invokers.length === 1) return invokers[0] as Invoker;
    let invoker = loadBalance.select(invokers, this.getUrl(), invocation);
    const isSelected = selected !== undefined && selected.includes(invoker);
    if (isSelected || (availableCheck && !invoker.isAvailable())) {
      try {
        const reselected = this.reselect(loadBalance, invocation, invokers, selected, availableCheck);
        if (reselected !== undefined) {
          invoker = reselected;
        } else {
          const index = invokers.indexOf(invoker);
          invoker = invokers[(index + 1) % invokers.length] as Invoker;
        }
      } catch (error) {
        safeLog(
          this.logger,
          'error',
          `cluster reselect failed, keeping the load balance's choice: ${RpcError.from(error).message}`,
          error
        );
      }
    }
    return invoker;
  }

  private reselect(
    loadBalance: LoadBalance,
    invocation: Invocation,
    invokers: readonly Invoker[],
    selected: readonly Invoker[] | undefined,
    availableCheck: boolean
  ): Invoker | undefined {
    const reselectCount = this.selectionOf(this.getUrl()).reselectCount;
    const candidates: Invoker[] = [];
    // 1. Untried providers (available ones, when checking): all of them, or reselectCount random picks.
    if (reselectCount >= invokers.length) {
      for (const invoker of invokers) {
        if (availableCheck && !invoker.isAvailable()) continue;
        if (selected === undefined || !selected.includes(invoker)) candidates.push(invoker);
      }
    } else {
      for (let i = 0; i < reselectCount; i++) {
        const invoker = invokers[this.random.nextInt(invokers.length)] as Invoker;
        if (availableCheck && !invoker.isAvailable()) continue;
        if ((selected === undefined || !selected.includes(invoker)) && !candidates.includes(invoker)) candidates.push(invoker);
      }
    }
    if (candidates.length > 0) return loadBalance.select(candidates, this.getUrl(), invocation);
    // 2. Already tried providers that are still listed and available.
    if (selected !== undefined) {
      for (const invoker of selected) {
        if (invoker.isAvailable() && invokers.includes(invoker) && !candidates.includes(invoker)) candidates.push(invoker);
      }
    }
    return candidates.length > 0 ? loadBalance.select(candidates, this.getUrl(), invocation) : undefined;
  }

  /**
   * Calls one provider: its completed `Result`, or a promise of it. A synchronous throw becomes a rejection
   * (mapped with `RpcError.from`); with `counted`,
   * the attempt is counted in with `beginCount` and out with `endCount` exactly once, however it ends — unless
   * the provider URL sets `actives` for the method, in which case the `active-limit` filter counts it.
   */
  protected invokeProvider(invoker: Invoker, invocation: Invocation, counted: boolean): Result | Promise<Result> {
    return counted ? this.invokeCounted(invoker, invocation) : invokeSafely(invoker, invocation);
  }

  private invokeCounted(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const statuses = this.statuses;
    const url = invoker.getUrl();
    const method = invocation.getMethodName();
    if (url.getMethodParameter(method, ClusterKeys.ACTIVES, 0) > 0) {
      // The active-limit filter (activated by `actives`) counts this attempt itself: counting here too would
      // double every count and halve the limit.
      return this.invokeProvider(invoker, invocation, false);
    }
    statuses.beginCount(url, method);
    const start = performance.now();
    let answer: Result | Promise<Result>;
    try {
      answer = invoker.invoke(invocation);
    } catch (error) {
      statuses.endCount(url, method, performance.now() - start, false);
      return Promise.reject(RpcError.from(error));
    }
    if (answer instanceof Result) {
      statuses.endCount(url, method, performance.now() - start, true);
      return answer;
    }
    return answer.then(
      (result) => {
        statuses.endCount(url, method, performance.now() - start, true);
        return result;
      },
      (error: unknown) => {
        statuses.endCount(url, method, performance.now() - start, false);
        throw error;
      }
    );
  }

  /** The service interface name, for messages. */
  protected serviceName(): string {
    return this.directory.service.name;
  }

  /** The consumer host (from the consumer URL, else the machine's host name), for messages. */
  protected consumerHost(): string {
    return this.directory.getConsumerUrl().host || hostname();
  }

  /** The directory URL's address, for messages. */
  protected registryAddress(): string {
    return this.directory.getUrl().getAddress();
  }

  /** `[addr1, addr2]`: the providers' addresses, for messages. */
  protected describeInvokers(invokers: Iterable<Invoker>): string {
    const addresses: string[] = [];
    for (const invoker of invokers) addresses.push(invoker.getUrl().getAddress());
    return `[${addresses.join(', ')}]`;
  }

  /** Logs without ever throwing. */
  protected log(level: 'debug' | 'info' | 'warn' | 'error', message: string, error?: unknown): void {
    safeLog(this.logger, level, message, error);
  }
}

/**
 * The provider's answer; a synchronous throw becomes a rejection (`RpcError.from`). Deliberately not shared with
 * core's proxy: each copy's `invoker.invoke` call site sees one kind of invoker and stays monomorphic.
 */
function invokeSafely(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
  try {
    return invoker.invoke(invocation);
  } catch (error) {
    return rejection(error);
  }
}

function rejection(error: unknown): Promise<never> {
  return Promise.reject(RpcError.from(error));
}
