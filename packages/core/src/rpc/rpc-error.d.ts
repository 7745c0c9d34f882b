/**
 * Codes carried by {@link RpcError}: Dubbo's `RpcException` codes, plus `cancelled`.
 *
 * @remarks A closed set, documented in `docs/reference/errors.md` (a test keeps the two in sync).
 * `dubboCode` gives Dubbo's numeric code for interoperability.
 *
 * @example
 * ```ts
 * if (error instanceof RpcError && error.code === RpcErrorCode.TIMEOUT) retryLater();
 * ```
 */
export declare const RpcErrorCode: {
    /** Anything not covered by another code (Dubbo 0). */
    readonly UNKNOWN: "unknown";
    /** The connection failed or broke (Dubbo 1). */
    readonly NETWORK: "network";
    /** The call did not complete before its deadline (Dubbo 2). */
    readonly TIMEOUT: "timeout";
    /** The service implementation threw: a business error, never retried (Dubbo 3). */
    readonly BIZ: "biz";
    /** Refused by policy, e.g. a wrong token (Dubbo 4). */
    readonly FORBIDDEN: "forbidden";
    /** Arguments or result could not be (de)serialized (Dubbo 5). */
    readonly SERIALIZATION: "serialization";
    /** No provider is available for the call (Dubbo 6). */
    readonly NO_INVOKER: "no-invoker";
    /** A limit (tps, executes, actives) refused the call (Dubbo 7). */
    readonly LIMIT_EXCEEDED: "limit-exceeded";
    /** The provider gave up on a call whose deadline had passed (Dubbo 8). */
    readonly TIMEOUT_TERMINATE: "timeout-terminate";
    /** A registry operation failed (Dubbo 9). */
    readonly REGISTRY: "registry";
    /** The service has no such method (Dubbo 11). */
    readonly METHOD_NOT_FOUND: "method-not-found";
    /** Argument validation failed (Dubbo 12). */
    readonly VALIDATION: "validation";
    /** Authentication or authorization failed (Dubbo 13). */
    readonly AUTHORIZATION: "authorization";
    /** The caller aborted the call through its AbortSignal (no Dubbo equivalent). */
    readonly CANCELLED: "cancelled";
};
/** One of the {@link RpcErrorCode} values. */
export type RpcErrorCode = (typeof RpcErrorCode)[keyof typeof RpcErrorCode];
/** Options of the {@link RpcError} constructor. */
export interface RpcErrorOptions {
    /** The underlying error (for `biz`, the error the implementation threw). */
    readonly cause?: unknown;
    /** Set by the mock package on errors produced by a `throw` mock expression. */
    readonly mocked?: boolean;
}
/**
 * The one error class that crosses a call boundary.
 *
 * @remarks
 * Framework failures (network, timeout, limits, no provider…) are `RpcError`s with their code. An error thrown
 * by the service implementation is a business error: it travels in the `Result`, and when it must be thrown
 * as an `RpcError` it has code `biz` and the original as `cause`. Clusters never retry business errors and
 * fail-mock never degrades them. Plugins map foreign errors into an `RpcError` with {@link RpcError.from}.
 *
 * @example
 * ```ts
 * throw new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'tps limit 10/60000ms exceeded for org.acme.Greeter');
 * ```
 */
export declare class RpcError extends Error {
    /** The machine-readable code. */
    readonly code: RpcErrorCode;
    /** Whether a mock `throw` expression produced this error. */
    readonly mocked: boolean;
    constructor(code: RpcErrorCode, message: string, options?: RpcErrorOptions);
    /** Whether this is a business error (thrown by the service implementation). */
    get isBiz(): boolean;
    /** Whether the call timed out (either side). */
    get isTimeout(): boolean;
    /** Whether a limit refused the call. */
    get isLimitExceeded(): boolean;
    /** Dubbo's numeric `RpcException` code. */
    get dubboCode(): number;
    /**
     * Maps any thrown value into an `RpcError`: an `RpcError` is returned as is, an `AbortError` becomes
     * `cancelled` (or `timeout` for a `TimeoutError`), anything else gets `fallback` (default `unknown`).
     */
    static from(error: unknown, fallback?: RpcErrorCode): RpcError;
}
//# sourceMappingURL=rpc-error.d.ts.map