import { RpcErrorCode } from './rpc-error.js';

/**
 * The gRPC status codes (`google.rpc.Code`, the `grpc-status` trailer), shared by every package that speaks gRPC.
 *
 * @remarks `RpcError.grpcStatus` holds one of these when a failure came with (or is to be sent as) a gRPC
 * status. Protocol and codec packages re-export it under their own names (`GrpcStatus` in
 * `@weft/protocol-triple`, `Code` in `@weft/serialization-protobuf`); it is one table.
 * @example
 * ```ts
 * if (error instanceof RpcError && error.grpcStatus === GrpcStatus.NOT_FOUND) return undefined;
 * ```
 */
export const GrpcStatus = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
} as const;

/** One of the {@link GrpcStatus} values. */
export type GrpcStatus = (typeof GrpcStatus)[keyof typeof GrpcStatus];

/**
 * The `grpc-status` a provider sends for a framework failure with this code (Dubbo's `TriRpcStatus.getStatus`).
 *
 * @remarks `timeout`/`timeout-terminate` → 4, `forbidden` → 7, `authorization` → 16, `network`/`limit-exceeded` →
 * 14, `method-not-found` → 5, `serialization` → 13, `cancelled` → 1 (Weft's own code), anything else → 2.
 * @example
 * ```ts
 * grpcStatusOf(RpcErrorCode.LIMIT_EXCEEDED); // 14
 * ```
 */
export function grpcStatusOf(code: RpcErrorCode): GrpcStatus {
  switch (code) {
    case RpcErrorCode.TIMEOUT:
    case RpcErrorCode.TIMEOUT_TERMINATE:
      return GrpcStatus.DEADLINE_EXCEEDED;
    case RpcErrorCode.FORBIDDEN:
      return GrpcStatus.PERMISSION_DENIED;
    case RpcErrorCode.AUTHORIZATION:
      return GrpcStatus.UNAUTHENTICATED;
    case RpcErrorCode.NETWORK:
    case RpcErrorCode.LIMIT_EXCEEDED:
      return GrpcStatus.UNAVAILABLE;
    case RpcErrorCode.METHOD_NOT_FOUND:
      return GrpcStatus.NOT_FOUND;
    case RpcErrorCode.SERIALIZATION:
      return GrpcStatus.INTERNAL;
    case RpcErrorCode.CANCELLED:
      return GrpcStatus.CANCELLED;
    default:
      return GrpcStatus.UNKNOWN;
  }
}
