import type { Invocation } from '../rpc/invocation.js';
import { Invoker } from '../rpc/invoker.js';
import type { Result } from '../rpc/result.js';
import type { URL } from '../rpc/url.js';
/** Dubbo's default consumer timeout, in ms. */
export declare const DEFAULT_TIMEOUT = 1000;
/**
 * Base of consumer-side protocol invokers: enforces the call's timeout, deadline and cancellation.
 *
 * @remarks
 * Per call, the effective timeout is the method-level `timeout` URL key (default 1000 ms; 0 disables),
 * shortened by the invocation's absolute `deadline` when one was propagated from upstream. The deadline is
 * written back on the invocation so the protocol can send it (Triple's `grpc-timeout`). When it passes, the
 * call rejects with `RpcError` `timeout`; when the invocation's `signal` aborts, with `cancelled`. Subclasses
 * implement `doInvoke`. A call with no timeout and no signal pays nothing for this.
 *
 * @example
 * ```ts
 * class LoopbackInvoker extends AbstractInvoker {
 *   protected doInvoke(invocation: Invocation) { return target.invoke(invocation); }
 * }
 * ```
 */
export declare abstract class AbstractInvoker extends Invoker {
    protected readonly url: URL;
    private destroyed;
    private readonly timeouts;
    constructor(url: URL);
    getUrl(): URL;
    isAvailable(): boolean;
    /** Whether `destroy()` ran. */
    isDestroyed(): boolean;
    destroy(): void | Promise<void>;
    /** The configured timeout of a method in ms (0: none). */
    protected timeoutOf(method: string): number;
    invoke(invocation: Invocation): Promise<Result>;
    private call;
    private timeoutError;
    private cancelledError;
    /** Performs the call (no timeout handling needed). */
    protected abstract doInvoke(invocation: Invocation): Promise<Result>;
}
//# sourceMappingURL=abstract-invoker.d.ts.map