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
