/**
 * Codes carried by {@link RpcError}: Dubbo's `RpcException` codes, plus `cancelled` and `circuit-open`.
 *
 * @remarks A closed set, documented in `docs/reference/errors.md` (a test keeps the two in sync).
 * `dubboCode` gives Dubbo's numeric code for interoperability.
 *
 * @example
 * ```ts
 * if (error instanceof RpcError && error.code === RpcErrorCode.TIMEOUT) retryLater();
 * ```
 */
export const RpcErrorCode = {
  /** Anything not covered by another code (Dubbo 0). */
  UNKNOWN: 'unknown',
  /** The connection failed or broke (Dubbo 1). */
  NETWORK: 'network',
  /** The call did not complete before its deadline (Dubbo 2). */
  TIMEOUT: 'timeout',
  /** The service implementation threw: a business error, never retried (Dubbo 3). */
  BIZ: 'biz',
  /** Refused by policy, e.g. a wrong token (Dubbo 4). */
  FORBIDDEN: 'forbidden',
  /** Arguments or result could not be (de)serialized (Dubbo 5). */
  SERIALIZATION: 'serialization',
  /** No provider is available for the call (Dubbo 6). */
  NO_INVOKER: 'no-invoker',
  /** A limit (tps, executes, actives) refused the call (Dubbo 7). */
  LIMIT_EXCEEDED: 'limit-exceeded',
  /** The provider gave up on a call whose deadline had passed (Dubbo 8). */
  TIMEOUT_TERMINATE: 'timeout-terminate',
  /** A registry operation failed (Dubbo 9). */
  REGISTRY: 'registry',
  /** The service has no such method (Dubbo 11). */
  METHOD_NOT_FOUND: 'method-not-found',
  /** Argument validation failed (Dubbo 12). */
  VALIDATION: 'validation',
  /** Authentication or authorization failed (Dubbo 13). */
  AUTHORIZATION: 'authorization',
  /** The caller aborted the call through its AbortSignal (no Dubbo equivalent). */
  CANCELLED: 'cancelled',
  /** A consumer circuit breaker refused the call without sending it; fail mock degrades it (no Dubbo equivalent). */
  CIRCUIT_OPEN: 'circuit-open',
} as const;

/** One of the {@link RpcErrorCode} values. */
export type RpcErrorCode = (typeof RpcErrorCode)[keyof typeof RpcErrorCode];

const DUBBO_CODES: Readonly<Record<RpcErrorCode, number>> = {
  unknown: 0,
  network: 1,
  timeout: 2,
  biz: 3,
  forbidden: 4,
  serialization: 5,
  'no-invoker': 6,
  'limit-exceeded': 7,
  'timeout-terminate': 8,
  registry: 9,
  'method-not-found': 11,
  validation: 12,
  authorization: 13,
  cancelled: 0,
  'circuit-open': 0,
};

const CODES: ReadonlySet<string> = new Set(Object.values(RpcErrorCode));

/** Options of the {@link RpcError} constructor. */
export interface RpcErrorOptions {
  /** The underlying error (for `biz`, the error the implementation threw). */
  readonly cause?: unknown;
  /** Set by the mock package on errors produced by a `throw` mock expression. */
  readonly mocked?: boolean;
  /** The exact gRPC status (`google.rpc.Code`, 0–16) a gRPC peer sent, or one an implementation wants sent. */
  readonly grpcStatus?: number;
  /** Structured details of the status (for gRPC: the `google.rpc.Status` details, as protobuf `Any` messages). */
  readonly details?: readonly unknown[];
  /** Whether another provider could answer differently. @defaultValue `true`, except for `biz` */
  readonly retryable?: boolean;
  /** The request was never written to the wire, so no provider saw it (see {@link RpcError.unsent}). @defaultValue `false` */
  readonly unsent?: boolean;
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
export class RpcError extends Error {
  /** The machine-readable code. */
  readonly code: RpcErrorCode;
  /** Whether a mock `throw` expression produced this error. */
  readonly mocked: boolean;
  /** The exact gRPC status, when the error came from a gRPC peer or is meant for one (see {@link RpcErrorOptions}). */
  readonly grpcStatus: number | undefined;
  /** Structured status details (gRPC: `google.rpc.Status` details); empty when none. */
  readonly details: readonly unknown[];
  /**
   * Whether a cluster may retry the call on another provider: `false` for business errors and for final answers
   * of a provider (a protocol marks them, e.g. gRPC `NOT_FOUND` or `INVALID_ARGUMENT` from a decoded response).
   */
  readonly retryable: boolean;
  /**
   * Whether the consumer knows the request never left it (no connection, refused before write, an open breaker,
   * no provider): even a non-idempotent method may then be retried. `false` means "may have reached a provider".
   */
  readonly unsent: boolean;

  constructor(code: RpcErrorCode, message: string, options: RpcErrorOptions = {}) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    if (!CODES.has(code)) throw new TypeError(`Unknown RpcError code ${JSON.stringify(code)}`);
    this.name = 'RpcError';
    this.code = code;
    this.mocked = options.mocked ?? false;
    this.grpcStatus = options.grpcStatus;
    this.details = options.details ?? [];
    this.retryable = options.retryable ?? code !== RpcErrorCode.BIZ;
    this.unsent = options.unsent ?? false;
  }

  /** Whether this is a business error (thrown by the service implementation). */
  get isBiz(): boolean {
    return this.code === RpcErrorCode.BIZ;
  }

  /** Whether the call timed out (either side). */
  get isTimeout(): boolean {
    return this.code === RpcErrorCode.TIMEOUT || this.code === RpcErrorCode.TIMEOUT_TERMINATE;
  }

  /** Whether a limit refused the call. */
  get isLimitExceeded(): boolean {
    return this.code === RpcErrorCode.LIMIT_EXCEEDED;
  }

  /** Dubbo's numeric `RpcException` code. */
  get dubboCode(): number {
    return DUBBO_CODES[this.code];
  }

  /**
   * Maps any thrown value into an `RpcError`: an `RpcError` is returned as is, an `AbortError` becomes
   * `cancelled` (or `timeout` for a `TimeoutError`), anything else gets `fallback` (default `unknown`).
   */
  static from(error: unknown, fallback: RpcErrorCode = RpcErrorCode.UNKNOWN): RpcError {
    if (error instanceof RpcError) return error;
    if (error instanceof Error) {
      if (error.name === 'TimeoutError') return new RpcError(RpcErrorCode.TIMEOUT, error.message, { cause: error });
      if (error.name === 'AbortError') return new RpcError(RpcErrorCode.CANCELLED, error.message, { cause: error });
      return new RpcError(fallback, `${error.name}: ${error.message}`, { cause: error });
    }
    return new RpcError(fallback, String(error), { cause: error });
  }
}
