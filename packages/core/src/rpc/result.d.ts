import type { AttachmentValue } from './invocation.js';
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
export declare class Result {
    /** The returned value (undefined when there is an exception). */
    readonly value: unknown;
    /** The business error, when `hasException()`. */
    readonly exception: unknown;
    private readonly failed;
    private attachmentMap;
    private constructor();
    /** A successful result. */
    static of(value: unknown): Result;
    /** A result carrying the business error the implementation threw. */
    static ofException(exception: unknown): Result;
    /** Whether the implementation threw. */
    hasException(): boolean;
    /** The value, or throws the business error. */
    recreate(): unknown;
    /** One attachment sent back by the provider. */
    getAttachment(key: string): AttachmentValue | undefined;
    /** Sets an attachment to send back. */
    setAttachment(key: string, value: AttachmentValue): this;
    /** All attachments (a live read-only view). */
    getAttachments(): ReadonlyMap<string, AttachmentValue>;
}
//# sourceMappingURL=result.d.ts.map