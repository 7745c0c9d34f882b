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
export class Result {
  // Declared, then assigned once each by the constructor: one hidden class, no field-initialiser pass.
  /** The returned value (undefined when there is an exception). */
  declare readonly value: unknown;
  /** The business error, when `hasException()`. */
  declare readonly exception: unknown;
  private declare readonly failed: boolean;
  private declare attachmentMap: Map<string, AttachmentValue> | undefined;

  private constructor(value: unknown, exception: unknown, failed: boolean) {
    this.value = value;
    this.exception = exception;
    this.failed = failed;
    this.attachmentMap = undefined;
  }

  /** A successful result. */
  static of(value: unknown): Result {
    return new Result(value, undefined, false);
  }

  /** A result carrying the business error the implementation threw. */
  static ofException(exception: unknown): Result {
    return new Result(undefined, exception, true);
  }

  /** Whether the implementation threw. */
  hasException(): boolean {
    return this.failed;
  }

  /** The value, or throws the business error. */
  recreate(): unknown {
    if (this.failed) throw this.exception;
    return this.value;
  }

  /** One attachment sent back by the provider. */
  getAttachment(key: string): AttachmentValue | undefined {
    return this.attachmentMap?.get(key);
  }

  /** Sets an attachment to send back. */
  setAttachment(key: string, value: AttachmentValue): this {
    (this.attachmentMap ??= new Map()).set(key, value);
    return this;
  }

  /** Whether any attachment is set (without creating the attachment map). */
  hasAttachments(): boolean {
    return this.attachmentMap !== undefined && this.attachmentMap.size > 0;
  }

  /** All attachments (a live read-only view). */
  getAttachments(): ReadonlyMap<string, AttachmentValue> {
    return (this.attachmentMap ??= new Map());
  }
}
