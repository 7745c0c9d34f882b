/**
 * `@weft/protocol-triple`: Dubbo 3's Triple protocol (`tri`) for Weft — gRPC-compatible unary and streaming RPC over HTTP/2 with
 * deadlines, cancellation, limits and reconnect, plus plain JSON POSTs over HTTP/1.1 and HTTP/2, on one port.
 *
 * @packageDocumentation
 */
export { TripleProtocol } from './triple-protocol.js';
export { TripleInvoker, type TripleInvokerInit } from './client/triple-invoker.js';
export { TripleServer, type TripleServerOptions } from './server/triple-server.js';
export { CorsPolicy } from './server/cors-policy.js';
export { TripleExporter, InflightCounter, type ServerMethod, type TripleExporterInit } from './server/triple-exporter.js';
export { TripleConnectionPool, SessionHandle, backoffDelay, type ConnectionOptions } from './client/connection-pool.js';
export { SerializationCodec, type TripleCodec } from './codec/triple-codec.js';
export { WrapperCodec } from './codec/wrapper-codec.js';
export {
  decodeRequestWrapper,
  decodeResponseWrapper,
  encodeRequestWrapper,
  encodeResponseWrapper,
  type RequestWrapper,
  type ResponseWrapper,
} from './codec/wrapper-messages.js';
export {
  ACCEPT_ENCODING,
  decompress,
  encodeFrame,
  FRAME_HEADER_LENGTH,
  FrameError,
  frameOf,
  GrpcMessageReader,
  isSupportedEncoding,
  SUPPORTED_ENCODINGS,
  writeFrameAndEnd,
  type Frame,
} from './codec/grpc-frame.js';
export {
  BIZ_EXCEPTION_CODE,
  decodeGrpcMessage,
  encodeGrpcMessage,
  formatGrpcTimeout,
  GrpcStatus,
  grpcStatusOf,
  grpcToHttpStatus,
  httpStatusToGrpc,
  parseGrpcTimeout,
  rpcErrorCodeFromWire,
  rpcErrorCodeOf,
} from './codec/grpc-status.js';
export {
  EXCLUDED_ATTACHMENT_KEYS,
  readAttachmentHeaders,
  writeAttachmentHeaders,
  type AttachmentSink,
  type InboundHeaders,
} from './codec/attachment-headers.js';
export { TripleDefaults, TripleHeaders, TripleKeys } from './triple-keys.js';
export { accepts, encodeCompressedFrame, type InflateBudget } from './codec/compression.js';
export { BufferBudget, CallBuffer, TaskGate } from './server/buffer-budget.js';
export { UploadWatch, type Upload } from './server/upload-watch.js';
export type { MessageBudget } from './stream/inbound-messages.js';
