import type { Invocation } from '../rpc/invocation.js';
import type { Invoker } from '../rpc/invoker.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
/**
 * The list of provider invokers a reference can call, and the consumer URL that configures the calls.
 *
 * @remarks
 * `getUrl()` is the consumer URL **as overridden by configurators** (a registry directory merges `override://`
 * rules into it): the mock cluster invoker reads `mock` from it on every call, and clusters read `retries`,
 * `loadbalance`, `sticky`… from it. `list(invocation)` returns the invokers to choose from for this call (a
 * static directory returns its fixed list; a registry directory the current providers, routed). A directory
 * whose provider list changes calls its listeners, so clusters can drop per-invoker state.
 *
 * Providers registered with the `mock` protocol (`mock://…`) are never part of `list()`: normal calls never
 * reach them. `listMockInvokers()` returns them for the mock cluster invoker, which prefers them over the
 * consumer's own mock setting (Dubbo's `MockInvokersSelector` routing, without its sticky attachment).
 *
 * @example
 * ```ts
 * const directory = new StaticDirectory(Greeter, consumerUrl, [invokerA, invokerB]);
 * const invoker = cluster.join(directory);
 * ```
 */
export declare abstract class Directory {
    /** The service this directory lists providers of. */
    abstract readonly service: ServiceDefinition;
    /** The consumer URL, with configurators applied. */
    abstract getUrl(): URL;
    /** The consumer URL as configured, without configurators. */
    abstract getConsumerUrl(): URL;
    /** The invokers to choose from for this invocation. */
    abstract list(invocation: Invocation): readonly Invoker[];
    /** Every invoker, available or not (mock providers included). */
    abstract getAllInvokers(): readonly Invoker[];
    /** The `mock://` provider invokers, in directory order. */
    listMockInvokers(_invocation: Invocation): readonly Invoker[];
    /** Whether any invoker is available. */
    isAvailable(): boolean;
    /** Whether `destroy()` ran. */
    abstract isDestroyed(): boolean;
    /** Destroys the directory and its invokers. */
    abstract destroy(): Promise<void>;
}
//# sourceMappingURL=directory.d.ts.map