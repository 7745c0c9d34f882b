import type { Invocation } from '../rpc/invocation.js';
import type { Invoker } from '../rpc/invoker.js';
import type { URL } from '../rpc/url.js';
/**
 * Chooses one provider among several: the `weft.rpc.LoadBalance` extension point.
 *
 * @remarks
 * Extension point `weft.rpc.LoadBalance`, default `random`, application scope (state such as round-robin
 * counters lives in the instance, so two applications never share it), `select` adaptive on the method-level
 * URL key `loadbalance`. Called with a non-empty list; returns one of its elements.
 *
 * @example
 * ```ts
 * const chosen = app.getExtensionLoader(LoadBalance).getExtension('roundrobin').select(invokers, url, invocation);
 * ```
 */
export declare abstract class LoadBalance {
    /** Picks one invoker from a non-empty list. */
    abstract select(invokers: readonly Invoker[], url: URL, invocation: Invocation): Invoker;
}
//# sourceMappingURL=load-balance.d.ts.map