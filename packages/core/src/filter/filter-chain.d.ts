import { type Logger } from '../common/logger.js';
import { Invoker } from '../rpc/invoker.js';
import type { Filter } from './filter.js';
/**
 * Builds a filter chain around an invoker, once: the first filter is outermost.
 *
 * @remarks
 * Built at export/refer time; the per-call path is one `filter.invoke(next, invocation)` per filter — no
 * activation lookups, no closures, no array walks. Listener hooks cost nothing when no filter has them. When
 * some do, the call's settlement is observed once: `onResponse` (the promise resolved, possibly with a business
 * error in the result) or `onError` (it rejected), innermost filter first, each hook at most once per call. A
 * synchronous throw that escapes the chain reaches the `onError` of the filter that threw and of every outer
 * filter, innermost first (Dubbo's rule); one that an outer (async) filter turns into a rejection is reported
 * as that rejection. Unlike Dubbo, a throwing hook is logged and does not change the outcome seen by the caller
 * or the other hooks. Each filter's answer is checked: a bare `Result` is accepted, anything else that is not a
 * promise rejects with `RpcError` `unknown` naming the filter.
 *
 * @example
 * ```ts
 * const filters = app.getExtensionLoader(Filter).getActivateExtensions(url, 'service.filter', 'provider');
 * const chained = buildFilterChain(invoker, filters, (f) => loader.getExtensionName(f) ?? '?', app.logger);
 * ```
 */
export declare function buildFilterChain(invoker: Invoker, filters: readonly Filter[], nameOf: (filter: Filter) => string, logger: Logger): Invoker;
//# sourceMappingURL=filter-chain.d.ts.map