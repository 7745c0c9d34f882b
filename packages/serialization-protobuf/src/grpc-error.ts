import { GrpcStatus, RpcError, RpcErrorCode } from '@weft/core';

/**
 * The gRPC status codes (`google.rpc.Code`), as an implementation raises them with {@link grpcError}: core's
 * `GrpcStatus` table under the name protobuf users know.
 *
 * @example
 * ```ts
 * throw grpcError(Code.NOT_FOUND, 'no user 42');
 * ```
 */
export const Code = GrpcStatus;

/** One of the {@link Code} values. */
export type Code = GrpcStatus;

/** The `RpcError` code an implementation-raised status gets (what Weft's filters and clusters read). */
function rpcCodeOf(code: Code): RpcErrorCode {
  switch (code) {
    case Code.CANCELLED:
      return RpcErrorCode.CANCELLED;
    case Code.DEADLINE_EXCEEDED:
      return RpcErrorCode.TIMEOUT;
    case Code.PERMISSION_DENIED:
      return RpcErrorCode.FORBIDDEN;
    case Code.UNAUTHENTICATED:
      return RpcErrorCode.AUTHORIZATION;
    case Code.RESOURCE_EXHAUSTED:
      return RpcErrorCode.LIMIT_EXCEEDED;
    case Code.UNAVAILABLE:
      return RpcErrorCode.NETWORK;
    case Code.UNIMPLEMENTED:
      return RpcErrorCode.METHOD_NOT_FOUND;
    default:
      return RpcErrorCode.BIZ;
  }
}

/**
 * An `RpcError` carrying an exact gRPC status, for an IDL implementation to throw (or return in a `Result`).
 *
 * @remarks
 * `tri` answers it with that `grpc-status`, the message as `grpc-message` and a `google.rpc.Status` with `details`
 * (protobuf `Any` messages, e.g. `anyPack(ErrorInfoSchema, info)`) in `grpc-status-details-bin`; a Weft consumer
 * raises an `RpcError` with the same `grpcStatus` and `details`. The `RpcError` code follows the status
 * (`PERMISSION_DENIED` → `forbidden`, `UNAVAILABLE` → `network`, …, the rest `biz`), and only `UNAVAILABLE` is
 * retryable on another provider.
 *
 * @example
 * ```ts
 * sayHello(req) {
 *   if (req.name === '') throw grpcError(Code.INVALID_ARGUMENT, 'name is required');
 *   return { message: `Hello, ${req.name}!` };
 * }
 * ```
 */
export function grpcError(code: Code, message: string, options: { readonly details?: readonly unknown[]; readonly cause?: unknown } = {}): RpcError {
  return new RpcError(rpcCodeOf(code), message, {
    grpcStatus: code,
    details: options.details ?? [],
    retryable: code === Code.UNAVAILABLE,
    cause: options.cause,
  });
}
