import { safeLog, type Logger } from '../common/logger.js';
import type { Invocation } from '../rpc/invocation.js';
import { Invoker } from '../rpc/invoker.js';
import { Result } from '../rpc/result.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import type { Filter } from './filter.js';
import { badAnswer, FilterNode, filterNode, isAnswer } from './filter-nodes.js';

/**
 * State shared by the head of a chain with listeners and its listening links: while the head's `invoke` runs
 * synchronously the window is open, and the links record the synchronous throws that pass through them.
 */
interface SyncWindow {
  open: boolean;
  thrown: ThrownAt[] | undefined;
}

/** A synchronous throw seen by a listening link (the link's filter gets `onError` if it escapes the chain). */
interface ThrownAt {
  readonly node: ListeningFilterNode;
  readonly error: unknown;
  readonly invocation: Invocation;
}

/**
 * A link whose filter has `onError`: records a synchronous throw passing through it, so that the head can call
 * `onError` on it (and every outer listening link) if the throw escapes the chain synchronously.
 */
class ListeningFilterNode extends FilterNode {
  constructor(filter: Filter, name: string, next: Invoker, origin: Invoker, private readonly window: SyncWindow) {
    super(filter, name, next, origin);
  }

  invoke(invocation: Invocation): Result | Promise<Result> {
    try {
      const answer: unknown = this.filter.invoke(this.next, invocation);
      return isAnswer(answer) ? answer : badAnswer(answer, this.name);
    } catch (error) {
      // Outside the window (after an await in an outer filter) the throw becomes a rejection of the head's
      // promise, which the head reports to every listener: nothing to record.
      const window = this.window;
      if (window.open) {
        const thrown = (window.thrown ??= []);
        // A filter that retried inside its invoke may see several throws: it is notified once, of the last.
        const at = thrown.findIndex((t) => t.node === this);
        if (at >= 0) thrown.splice(at, 1);
        thrown.push({ node: this, error, invocation });
      }
      throw error;
    }
  }
}

/**
 * The head of a chain with listeners: calls `onResponse`/`onError` of every filter that has them, exactly once
 * per call, innermost first.
 *
 * @remarks
 * When the call answers with a promise, the hooks fire once it settles (`onResponse` when it resolved,
 * `onError` when it rejected), even if a filter threw synchronously on the way and an outer (async) filter
 * turned the throw into a rejection or recovered from it. When a synchronous throw escapes the chain, the
 * filter that threw (or, for a throw of the invoker, the innermost listening one) and every outer filter with
 * `onError` get it, innermost first, before it propagates to the caller (Dubbo's rule).
 */
class ListenerInvoker extends Invoker {
  private readonly responders: readonly { readonly filter: Filter; readonly name: string }[];
  private readonly errorers: readonly { readonly filter: Filter; readonly name: string }[];
  /** As {@link FilterNode.release}. */
  declare release: (() => void) | undefined;

  constructor(
    private readonly head: Invoker,
    private readonly origin: Invoker,
    listeners: readonly { readonly filter: Filter; readonly name: string }[],
    private readonly logger: Logger,
    private readonly window: SyncWindow,
  ) {
    super();
    this.release = undefined;
    // Innermost first, only the filters that have each hook.
    this.responders = listeners.filter((l) => typeof l.filter.onResponse === 'function').reverse();
    this.errorers = listeners.filter((l) => typeof l.filter.onError === 'function').reverse();
  }

  getUrl(): URL {
    return this.origin.getUrl();
  }

  override isAvailable(): boolean {
    return this.origin.isAvailable();
  }

  override getService(): ServiceDefinition | undefined {
    return this.origin.getService();
  }

  override destroy(): void | Promise<void> {
    this.release?.();
    return this.origin.destroy();
  }

  invoke(invocation: Invocation): Result | Promise<Result> {
    const window = this.window;
    // Saved for a re-entrant call of this chain from inside one of its filters.
    const wasOpen = window.open;
    const outerThrown = window.thrown;
    window.open = true;
    window.thrown = undefined;
    let pending: Result | Promise<Result>;
    try {
      pending = this.head.invoke(invocation);
    } catch (error) {
      const thrown = window.thrown as ThrownAt[] | undefined;
      window.open = wasOpen;
      window.thrown = outerThrown;
      if (thrown !== undefined) {
        this.reportThrown(thrown);
      }
      throw error;
    }
    window.open = wasOpen;
    window.thrown = outerThrown;
    if (pending instanceof Result) return this.responded(pending, invocation);
    return this.whenResponded(pending, invocation);
  }

  private reportThrown(thrown: readonly ThrownAt[]): void {
    for (const { node, error: seen, invocation: at } of thrown) {
      callHook(this.logger, node.name, 'onError', () => node.filter.onError?.(seen, this.origin, at));
    }
  }

  // Closures only here, off the synchronous path: a closure in `invoke` would cost a context allocation per call.
  private whenResponded(pending: Promise<Result>, invocation: Invocation): Promise<Result> {
    return pending.then(
      (result) => this.responded(result, invocation),
      (error: unknown) => {
        for (const { filter, name } of this.errorers) {
          callHook(this.logger, name, 'onError', () => filter.onError?.(error, this.origin, invocation));
        }
        throw error;
      },
    );
  }

  private responded(result: Result, invocation: Invocation): Result {
    const responders = this.responders;
    for (let i = 0; i < responders.length; i++) {
      const { filter, name } = responders[i] as { readonly filter: Filter; readonly name: string };
      try {
        filter.onResponse?.(result, this.origin, invocation);
      } catch (error) {
        hookThrew(this.logger, name, 'onResponse', error);
      }
    }
    return result;
  }
}

function callHook(logger: Logger, name: string, hook: 'onResponse' | 'onError', call: () => void): void {
  try {
    call();
  } catch (error) {
    hookThrew(logger, name, hook, error);
  }
}

function hookThrew(logger: Logger, name: string, hook: 'onResponse' | 'onError' | 'onChainBuilt' | 'onChainReleased', error: unknown): void {
  safeLog(logger, 'error', `Filter "${name}" ${hook}() threw; the call's outcome is unchanged.`, error);
}

/**
 * Builds a filter chain around an invoker, once: the first filter is outermost.
 *
 * @remarks
 * Built at export/refer time; the per-call path is one `filter.invoke(next, invocation)` per filter — no
 * activation lookups, no closures, no array walks. Listener hooks cost nothing when no filter has them. When
 * some do, the call's settlement is observed once: `onResponse` (the call answered — synchronously, or by its
 * promise resolving — possibly with a business error in the result) or `onError` (it rejected), innermost
 * filter first, each hook at most once per call. A
 * synchronous throw that escapes the chain reaches the `onError` of the filter that threw and of every outer
 * filter, innermost first (Dubbo's rule); one that an outer (async) filter turns into a rejection is reported
 * as that rejection. Unlike Dubbo, a throwing hook is logged and does not change the outcome seen by the caller
 * or the other hooks. A chain that completes synchronously answers synchronously (no promise is created on
 * the way). Each filter's answer is checked: undefined, null or a primitive rejects with `RpcError` `unknown`
 * naming the filter; another object that is neither a `Result` nor a thenable is caught at the outermost filter,
 * whose message says it may come from a filter inside it. Each distinct filter class gets its own link class
 * (one `invoke` literal each), so the chain's call sites stay monomorphic. Filters with `onChainBuilt` hear of the
 * chain now; those with `onChainReleased` hear once when the returned invoker is destroyed (or, for an export, when
 * the service is unexported).
 *
 * @example
 * ```ts
 * const filters = app.getExtensionLoader(Filter).getActivateExtensions(url, 'service.filter', 'provider');
 * const chained = buildFilterChain(invoker, filters, (f) => loader.getExtensionName(f) ?? '?', app.logger);
 * ```
 */
export function buildFilterChain(
  invoker: Invoker,
  filters: readonly Filter[],
  nameOf: (filter: Filter) => string,
  logger: Logger,
): Invoker {
  if (filters.length === 0) return invoker;
  const window: SyncWindow = { open: false, thrown: undefined };
  // The link class of each filter: the k-th distinct filter class of the chain (outermost first) takes the k-th
  // class, so every call site sees one filter class and one next-link class (see FilterNode).
  const classes: unknown[] = [];
  const positions = filters.map((filter) => {
    const at = classes.indexOf(filter.constructor);
    return at >= 0 ? at : classes.push(filter.constructor) - 1;
  });
  let next: Invoker = invoker;
  const listeners: { filter: Filter; name: string }[] = [];
  for (let i = filters.length - 1; i >= 0; i--) {
    const filter = filters[i] as Filter;
    const name = nameOf(filter);
    const hasHooks = typeof filter.onResponse === 'function' || typeof filter.onError === 'function';
    if (hasHooks) listeners.unshift({ filter, name });
    next =
      typeof filter.onError === 'function'
        ? new ListeningFilterNode(filter, name, next, invoker, window)
        : filterNode(positions[i] as number, filter, name, next, invoker);
  }
  const head = listeners.length > 0 ? new ListenerInvoker(next, invoker, listeners, logger, window) : (next as FilterNode);
  head.release = lifecycle(filters, nameOf, invoker, logger);
  return head;
}

/**
 * Calls `onChainBuilt` of the filters that have it, and returns what calls their `onChainReleased` once (undefined
 * when none has it).
 */
function lifecycle(filters: readonly Filter[], nameOf: (filter: Filter) => string, invoker: Invoker, logger: Logger): (() => void) | undefined {
  const releasing: Filter[] = [];
  for (const filter of filters) {
    if (typeof filter.onChainBuilt === 'function') {
      try {
        filter.onChainBuilt(invoker);
      } catch (error) {
        hookThrew(logger, nameOf(filter), 'onChainBuilt', error);
      }
    }
    if (typeof filter.onChainReleased === 'function' && !releasing.includes(filter)) releasing.push(filter);
  }
  if (releasing.length === 0) return undefined;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const filter of releasing) {
      try {
        filter.onChainReleased?.(invoker);
      } catch (error) {
        hookThrew(logger, nameOf(filter), 'onChainReleased', error);
      }
    }
  };
}

/**
 * Calls the `onChainReleased` hooks of a chain built by {@link buildFilterChain} (once; nothing for another
 * invoker) without destroying the invoker it wraps: for an unexported service.
 *
 * @internal
 */
export function releaseFilterChain(chain: Invoker): void {
  if (chain instanceof FilterNode || chain instanceof ListenerInvoker) chain.release?.();
}
