/**
 * `@weft/protocol-dubbo`: the Dubbo 2 protocol (`dubbo://`) for Weft — the binary frame Java Dubbo 2.7/3.x and
 * apache-dubbo-js speak, with heartbeats, one-way calls, the `readonly` shutdown notice, a shared multiplexed
 * connection per provider, and the payload limit checked from the header.
 *
 * @packageDocumentation
 */
export { DubboProtocol } from './dubbo-protocol.js';
export { DubboDefaults, DubboKeys } from './dubbo-keys.js';
export { DubboInvoker, type DubboInvokerInit } from './client/dubbo-invoker.js';
export { DubboConnection, idHalves, type ConnectionOptions, type PendingCall } from './client/dubbo-connection.js';
export { DubboServer, type DubboServerOptions } from './server/dubbo-server.js';
export { DubboExporter, exporterKey, InflightCounter, type DubboExporterInit } from './server/dubbo-exporter.js';
export { ServerConnection } from './server/server-connection.js';
export { BodyCodecs } from './frame/body-codecs.js';
export { encodeFrame, Flag, HEADER_LENGTH, MAGIC_HIGH, MAGIC_LOW, requestId, type Frame } from './frame/header.js';
export { FrameDecoder, type FrameSink } from './frame/frame-decoder.js';
export {
  DubboStatus,
  failureMessage,
  intVersion,
  ResponseFlag,
  RPC_EXCEPTION_CLASS,
  splitDescriptor,
  statusError,
  supportsResponseAttachments,
  WEFT_CODE_LINE,
} from './frame/status.js';
export {
  attachmentObject,
  readAttachments,
  readResponseBody,
  ROUTING_ATTACHMENTS,
  writeExceptionBody,
  writeRequestBody,
  writeStringBody,
  writeValueBody,
  type RequestHead,
  type ResponseBody,
} from './frame/bodies.js';
export { FrameWriter } from './frame/frame-writer.js';
