/**
 * Something that can be invoked: a remote provider, a local implementation, a filter chain, a cluster.
 *
 * @remarks
 * `invoke` resolves with a {@link Result} when the call reached the service (carrying its value or its
 * business error) and rejects with an `RpcError` on framework failure. `isAvailable()` tells clusters and
 * mock whether calling it makes sense now (e.g. its connection is up). `destroy()` releases resources; a
 * destroyed invoker is unavailable.
 *
 * @example
 * ```ts
 * class EchoInvoker extends Invoker {
 *   constructor(private readonly url: URL) { super(); }
 *   getUrl() { return this.url; }
 *   async invoke(invocation: Invocation) { return Result.of(invocation.args[0]); }
 * }
 * ```
 */
export class Invoker {
    /** Whether calls can be made now. @defaultValue true */
    isAvailable() {
        return true;
    }
    /** Releases resources. @defaultValue no-op */
    destroy() { }
}
//# sourceMappingURL=invoker.js.map