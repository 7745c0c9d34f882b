import type { IncomingHttpHeaders } from 'node:http2';

import { RpcError } from '@weft/core/spi';

import { decodeGrpcMessage, GrpcStatus, rpcErrorCodeFromWire } from '../codec/grpc-status.js';
import type { TripleCodec } from '../codec/triple-codec.js';
import { TripleHeaders } from '../triple-keys.js';

/** One header's value (the first, when repeated). */
export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? value[0] : undefined;
}

/**
 * The error of a non-OK `grpc-status`: the exact status on `grpcStatus`, the message, the `google.rpc.Status` of
 * `grpc-status-details-bin` when the codec reads it (its code and message win, as in Dubbo's Java client), and
 * `retryable: true` only for `UNAVAILABLE`: every other status came from a provider that received and judged the
 * call, so failover does not send it again (connection failures are retried elsewhere; streams never are, since
 * their requests cannot be sent again).
 */
export function statusError(codec: TripleCodec, where: string, wireStatus: number, trailers: IncomingHttpHeaders, stream = false): RpcError {
  let status = Number.isInteger(wireStatus) ? wireStatus : GrpcStatus.UNKNOWN;
  let message = decodeGrpcMessage(header(trailers, TripleHeaders.GRPC_MESSAGE));
  let details: readonly unknown[] = [];
  const detailsBin = header(trailers, TripleHeaders.GRPC_STATUS_DETAILS);
  if (detailsBin !== undefined && codec.decodeStatus !== undefined) {
    try {
      const decoded = codec.decodeStatus(Buffer.from(detailsBin, 'base64'));
      status = decoded.code;
      if (decoded.message !== '') message = decoded.message;
      details = decoded.details;
    } catch {
      // Unreadable details: the grpc-status and grpc-message stand.
    }
  }
  return new RpcError(rpcErrorCodeFromWire(status, header(trailers, TripleHeaders.ERROR_CODE)), message || `${where} failed with grpc-status ${status}.`, {
    grpcStatus: status,
    details,
    retryable: !stream && status === GrpcStatus.UNAVAILABLE,
  });
}
