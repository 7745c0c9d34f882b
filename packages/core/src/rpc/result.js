/**
 * The outcome of a call that reached the service: a value, or the business error the implementation threw,
 * plus attachments sent back.
 *
 * @remarks
 * Weft keeps Dubbo's two failure channels apart: a business error is a *normal* completion carrying
 * `exception` (filters see it in `onResponse`; clusters do not retry it; fail-mock does not degrade it),
 * while a framework failure rejects the call's promise with an `RpcError`. `recreate()` turns a result back
 * into what the caller sees: the value, or the business error thrown.
 *
 * @example
 * ```ts
 * const ok = Result.of('hello');
 * const failed = Result.ofException(new InsufficientFunds());
 * failed.recreate(); // throws InsufficientFunds
 * ```
 */
export class Result {
    value;
    exception;
    failed;
    attachmentMap;
    constructor(
    /** The returned value (undefined when there is an exception). */
    value, 
    /** The business error, when `hasException()`. */
    exception, failed) {
        this.value = value;
        this.exception = exception;
        this.failed = failed;
    }
    /** A successful result. */
    static of(value) {
        return new Result(value, undefined, false);
    }
    /** A result carrying the business error the implementation threw. */
    static ofException(exception) {
        return new Result(undefined, exception, true);
    }
    /** Whether the implementation threw. */
    hasException() {
        return this.failed;
    }
    /** The value, or throws the business error. */
    recreate() {
        if (this.failed)
            throw this.exception;
        return this.value;
    }
    /** One attachment sent back by the provider. */
    getAttachment(key) {
        return this.attachmentMap?.get(key);
    }
    /** Sets an attachment to send back. */
    setAttachment(key, value) {
        (this.attachmentMap ??= new Map()).set(key, value);
        return this;
    }
    /** All attachments (a live read-only view). */
    getAttachments() {
        return (this.attachmentMap ??= new Map());
    }
}
//# sourceMappingURL=result.js.map