import { safeLog, type Logger } from '../common/logger.js';
import type { Invocation } from '../rpc/invocation.js';
import { Invoker } from '../rpc/invoker.js';
import { Result } from '../rpc/result.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import type { URL } from '../rpc/url.js';
import type { Filter } from './filter.js';

/** A link of the chain: calls its filter with the next link. */
class FilterNode extends Invoker {
  constructor(
    protected readonly filter: Filter,
    protected readonly next: Invoker,
    protected readonly origin: Invoker,
  ) {
    super();
  }

  getUrl(): URL {
    return this.origin.getUrl();
  }

  override isAvailable(): boolean {
    return this.origin.isAvailable();
  }

  override destroy(): void | Promise<void> {
    return this.origin.destroy();
  }

  invoke(invocation: Invocation): Promise<Result> {
    return this.filter.invoke(this.next, invocation);
  }
}

/** A link whose filter has `onError`: a synchronous throw reaches it (and every outer listener) as it bubbles. */
class ListeningFilterNode extends FilterNode {
  constructor(
    filter: Filter,
    next: Invoker,
    origin: Invoker,
    private readonly logger: Logger,
    private readonly name: string,
  ) {
    super(filter, next, origin);
  }

  override invoke(invocation: Invocation): Promise<Result> {
    try {
      return this.filter.invoke(this.next, invocation);
    } catch (error) {
      callHook(this.logger, this.name, 'onError', () => this.filter.onError?.(error, this.origin, invocation));
      throw error;
    }
  }
}

/**
 * The head of a chain with listeners: once the call settles, calls `onResponse`/`onError` of every filter
 * that has them, innermost first, exactly once per call.
 */
class ListenerInvoker extends Invoker {
  private readonly responders: readonly { readonly filter: Filter; readonly name: string }[];
  private readonly errorers: readonly { readonly filter: Filter; readonly name: string }[];

  constructor(
    private readonly head: Invoker,
    private readonly origin: Invoker,
    listeners: readonly { readonly filter: Filter; readonly name: string }[],
    private readonly logger: Logger,
  ) {
    super();
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

  override destroy(): void | Promise<void> {
    return this.origin.destroy();
  }

  invoke(invocation: Invocation): Promise<Result> {
    const pending = checkPromise(this.head.invoke(invocation));
    return pending.then(
      (result) => {
        for (const { filter, name } of this.responders) {
          callHook(this.logger, name, 'onResponse', () => filter.onResponse?.(result, this.origin, invocation));
        }
        return result;
      },
      (error: unknown) => {
        for (const { filter, name } of this.errorers) {
          callHook(this.logger, name, 'onError', () => filter.onError?.(error, this.origin, invocation));
        }
        throw error;
      },
    );
  }
}

/** The head of a chain without listeners: only checks that the chain answered with a promise. */
class CheckedHead extends Invoker {
  constructor(
    private readonly head: Invoker,
    private readonly origin: Invoker,
  ) {
    super();
  }

  getUrl(): URL {
    return this.origin.getUrl();
  }

  override isAvailable(): boolean {
    return this.origin.isAvailable();
  }

  override destroy(): void | Promise<void> {
    return this.origin.destroy();
  }

  invoke(invocation: Invocation): Promise<Result> {
    return checkPromise(this.head.invoke(invocation));
  }
}

function checkPromise(value: unknown): Promise<Result> {
  if (value instanceof Promise) return value as Promise<Result>;
  if (value instanceof Result) return Promise.resolve(value);
  return Promise.reject(
    new RpcError(
      RpcErrorCode.UNKNOWN,
      `A filter returned ${value === null ? 'null' : typeof value} instead of a Promise<Result>: Filter.invoke must return ` +
        'invoker.invoke(invocation) (or a promise of a Result).',
    ),
  );
}

function callHook(logger: Logger, name: string, hook: 'onResponse' | 'onError', call: () => void): void {
  try {
    call();
  } catch (error) {
    safeLog(logger, 'error', `Filter "${name}" ${hook}() threw; the call's outcome is unchanged.`, error);
  }
}

/**
 * Builds a filter chain around an invoker, once: the first filter is outermost.
 *
 * @remarks
 * Built at export/refer time; the per-call path is one `filter.invoke(next, invocation)` per filter — no
 * activation lookups, no closures, no array walks. Listener hooks cost nothing when no filter has them. When
 * some do, the call's settlement is observed once: `onResponse` (the promise resolved, possibly with a business
 * error in the result) or `onError` (it rejected), innermost filter first. A filter that throws synchronously
 * reaches its own `onError` and every outer filter's, innermost first (Dubbo's rule). Unlike Dubbo, a throwing
 * hook is logged and does not change the outcome seen by the caller or the other hooks.
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
  let next: Invoker = invoker;
  const listeners: { filter: Filter; name: string }[] = [];
  for (let i = filters.length - 1; i >= 0; i--) {
    const filter = filters[i] as Filter;
    const name = nameOf(filter);
    const hasHooks = typeof filter.onResponse === 'function' || typeof filter.onError === 'function';
    if (hasHooks) listeners.unshift({ filter, name });
    next =
      typeof filter.onError === 'function'
        ? new ListeningFilterNode(filter, next, invoker, logger, name)
        : new FilterNode(filter, next, invoker);
  }
  return listeners.length > 0 ? new ListenerInvoker(next, invoker, listeners, logger) : new CheckedHead(next, invoker);
}
