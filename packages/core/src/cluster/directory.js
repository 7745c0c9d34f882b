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
export class Directory {
    /** The `mock://` provider invokers, in directory order. */
    listMockInvokers(_invocation) {
        return this.getAllInvokers().filter((i) => i.getUrl().protocol === 'mock');
    }
    /** Whether any invoker is available. */
    isAvailable() {
        return this.getAllInvokers().some((i) => i.isAvailable());
    }
}
//# sourceMappingURL=directory.js.map