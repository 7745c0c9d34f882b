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
export class Invocation {
    /** The method being called. */
    methodName;
    /** The call's arguments. */
    args;
    /** Aborts the call. */
    signal;
    /** Absolute deadline in epoch milliseconds, if any. */
    deadline;
    /** The service called, when known. */
    service;
    attachmentMap;
    constructor(init) {
        this.methodName = init.methodName;
        this.args = init.args === undefined ? [] : [...init.args];
        this.signal = init.signal;
        this.deadline = init.deadline;
        this.service = init.service;
        const attachments = init.attachments;
        if (attachments !== undefined) {
            this.attachmentMap = new Map(attachments instanceof Map ? attachments : Object.entries(attachments));
        }
    }
    /**
     * Creates an invocation that takes ownership of `args` (no copy): the hot path of proxies and protocols.
     */
    static of(methodName, args, service) {
        const invocation = new Invocation({ methodName, service });
        invocation.args = args;
        return invocation;
    }
    /** The called method's descriptor (declared argument and return types), when the service is known. */
    get method() {
        return this.service?.getMethod(this.methodName);
    }
    /** The method being called. */
    getMethodName() {
        return this.methodName;
    }
    /** One attachment. */
    getAttachment(key) {
        return this.attachmentMap?.get(key);
    }
    /** Sets one attachment. */
    setAttachment(key, value) {
        (this.attachmentMap ??= new Map()).set(key, value);
        return this;
    }
    /** Removes one attachment. */
    removeAttachment(key) {
        this.attachmentMap?.delete(key);
        return this;
    }
    /** All attachments (a live read-only view). */
    getAttachments() {
        return (this.attachmentMap ??= new Map());
    }
    /** Milliseconds left before the deadline (negative once passed), or `undefined` without a deadline. */
    remainingTime(now = Date.now()) {
        return this.deadline === undefined ? undefined : this.deadline - now;
    }
}
//# sourceMappingURL=invocation.js.map