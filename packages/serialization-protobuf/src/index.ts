/**
 * `@weft/serialization-protobuf`: Protocol Buffers for Weft — services defined from `protoc-gen-es` v2 service
 * descriptors, their messages carried as gRPC protobuf (or the protobuf JSON mapping) over `tri`.
 *
 * @packageDocumentation
 */
export { defineProtoService, PROTOBUF_SERIALIZATION, type ProtoMethodKind, type ProtoMethods, type ProtoMethodSpec } from './define-proto-service.js';
export { ProtobufSerialization } from './protobuf-serialization.js';
export { Code, grpcError } from './grpc-error.js';
