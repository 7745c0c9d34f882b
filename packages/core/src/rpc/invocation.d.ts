import type { MethodDescriptor, ServiceDefinition } from '../service/service-definition.js';
/** A value carried as an attachment: travels with the call, in both directions. */
export type AttachmentValue = string | number | boolean;
/** Initial state of an {@link Invocation}. */
export interface InvocationInit {
    /** The method being called. */
    readonly methodName: string;
    /** The call's arguments. */
    readonly args?: readonly unknown[];
    /** Attachments sent with the call. */
    readonly attachments?: Readonly<Record<string, AttachmentValue>> | ReadonlyMap<string, AttachmentValue>;
    /** Aborts the call (the consumer gave up, or a deadline passed). */
    readonly signal?: AbortSignal;
    /** Absolute deadline, in epoch milliseconds. */
    readonly deadline?: number;
    /** The service called, when known (proxies and exporters set it). */
    readonly service?: ServiceDefinition;
}
/**
 * One call in flight: method, arguments, attachments, and its cancellation signal and deadline.
 *
 * @remarks
 * Created once per call by the proxy (consumer) or the protocol (provider) and passed down the chain. Filters
 * may read and write attachments; arguments are owned by the call. `getMethodName()` lets adaptive extensions
 * read method-level URL keys (`<method>.<key>`). The deadline is absolute so it survives hops: the Triple
 * protocol sends the remaining time as `grpc-timeout` and the provider rebuilds the deadline.
 *
 * @example
 * ```ts
 * const invocation = new Invocation({ methodName: 'sayHello', args: ['world'], attachments: { traceId: 't-1' } });
 * invocation.setAttachment('token', 'secret');
 * ```
 */
export declare class Invocation {
    /** The method being called. */
    readonly methodName: string;
    /** The call's arguments. */
    args: unknown[];
    /** Aborts the call. */
    signal: AbortSignal | undefined;
    /** Absolute deadline in epoch milliseconds, if any. */
    deadline: number | undefined;
    /** The service called, when known. */
    service: ServiceDefinition | undefined;
    private attachmentMap;
    constructor(init: InvocationInit);
    /**
     * Creates an invocation that takes ownership of `args` (no copy): the hot path of proxies and protocols.
     */
    static of(methodName: string, args: unknown[], service?: ServiceDefinition): Invocation;
    /** The called method's descriptor (declared argument and return types), when the service is known. */
    get method(): MethodDescriptor | undefined;
    /** The method being called. */
    getMethodName(): string;
    /** One attachment. */
    getAttachment(key: string): AttachmentValue | undefined;
    /** Sets one attachment. */
    setAttachment(key: string, value: AttachmentValue): this;
    /** Removes one attachment. */
    removeAttachment(key: string): this;
    /** All attachments (a live read-only view). */
    getAttachments(): ReadonlyMap<string, AttachmentValue>;
    /** Milliseconds left before the deadline (negative once passed), or `undefined` without a deadline. */
    remainingTime(now?: number): number | undefined;
}
//# sourceMappingURL=invocation.d.ts.map