import { type AttachmentValue } from '../rpc/invocation.js';
import type { Invoker } from '../rpc/invoker.js';
import { RpcError } from '../rpc/rpc-error.js';
import type { MethodSpec, ServiceDefinition, ServiceProxy } from './service-definition.js';
/** Per-call options for {@link CallableProxy.$call}. */
export interface CallOptions {
    /** Aborts the call. */
    readonly signal?: AbortSignal;
    /** Timeout for this call in ms (sets the invocation's deadline). */
    readonly timeout?: number;
    /** Attachments sent with the call. */
    readonly attachments?: Readonly<Record<string, AttachmentValue>>;
}
/** Counts calls in flight and refuses new ones once closed (graceful shutdown). */
export interface CallGate {
    /** Counts a call in; returns an error to reject it with instead, when closed. */
    enter(): RpcError | undefined;
    /** Counts a call out. */
    exit(): void;
}
/** A service proxy, plus `$call` for per-call options. */
export type CallableProxy<M extends Record<string, MethodSpec>> = ServiceProxy<M> & {
    /** Calls `method` with per-call options (signal, timeout, attachments). */
    $call<K extends keyof M & string>(method: K, args: Parameters<ServiceProxy<M>[K]>, options?: CallOptions): ReturnType<ServiceProxy<M>[K]>;
    /** The service definition behind the proxy. */
    readonly $service: ServiceDefinition<M>;
};
/**
 * Creates the consumer-side proxy of a service: one method per declared method, each returning a promise.
 *
 * @remarks
 * A call builds one `Invocation` and hands it to the invoker (the cluster, with its mock wrapper); the result
 * is unwrapped: its value returned, or the business error thrown as the implementation threw it. Framework
 * failures reject with `RpcError`. The methods are built once, at refer time.
 *
 * @example
 * ```ts
 * const greeter = createServiceProxy(Greeter, clusterInvoker);
 * await greeter.sayHello('ann');
 * await greeter.$call('sayHello', ['bo'], { timeout: 200, attachments: { traceId: 't1' } });
 * ```
 */
export declare function createServiceProxy<M extends Record<string, MethodSpec>>(service: ServiceDefinition<M>, invoker: Invoker, gate?: CallGate): CallableProxy<M>;
//# sourceMappingURL=service-proxy.d.ts.map