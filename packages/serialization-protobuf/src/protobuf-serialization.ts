import { create, fromBinary, fromJson, toBinary, toJson, type DescMessage, type JsonValue, type Message } from '@bufbuild/protobuf';
import { type Any } from '@bufbuild/protobuf/wkt';
import { IdlSerialization, RpcError, RpcErrorCode, type IdlStatus } from '@weft/core/spi';

import { StatusSchema } from './gen/google/rpc/status_pb.js';

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function isDescMessage(schema: object): schema is DescMessage {
  return (schema as { kind?: unknown }).kind === 'message' && typeof (schema as { typeName?: unknown }).typeName === 'string';
}

function messageSchema(schema: object): DescMessage {
  if (!isDescMessage(schema)) {
    throw new RpcError(RpcErrorCode.SERIALIZATION, 'protobuf: the method carries no protobuf message schema (define the service with defineProtoService()).');
  }
  return schema;
}

/** A message of `schema`: `value` itself when it is one, else `create(schema, value)` (an init shape). */
function messageOf(schema: DescMessage, value: unknown): Message {
  if (value !== null && typeof value === 'object' && (value as { $typeName?: unknown }).$typeName === schema.typeName) return value as Message;
  if (value === undefined || value === null) return create(schema);
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new RpcError(RpcErrorCode.SERIALIZATION, `protobuf: expected a ${schema.typeName} message (an object), got ${Array.isArray(value) ? 'an array' : typeof value}.`);
  }
  const typeName = (value as { $typeName?: unknown }).$typeName;
  if (typeof typeName === 'string') {
    throw new RpcError(RpcErrorCode.SERIALIZATION, `protobuf: expected a ${schema.typeName} message, got a ${typeName}.`);
  }
  try {
    return create(schema, value as never);
  } catch (error) {
    throw failure(`build a ${schema.typeName} message from the value`, error);
  }
}

function failure(what: string, error: unknown): RpcError {
  if (error instanceof RpcError) return error;
  return new RpcError(RpcErrorCode.SERIALIZATION, `protobuf: cannot ${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
}

/**
 * Protocol Buffers as a `weft.rpc.Serialization`: binary protobuf and the protobuf JSON mapping, by the message
 * schemas of services defined with {@link defineProtoService}, on `@bufbuild/protobuf` v2.
 *
 * @remarks
 * Extension `protobuf` of `weft.rpc.Serialization` (content subtype `proto`), an `IdlSerialization`: `tri` finds it
 * by the name each IDL method carries and encodes one message per direction with it. Values may be messages or
 * init shapes (plain objects without `$typeName`); decoded values are full messages. Unknown fields survive a
 * binary round trip; the JSON mapping rejects unknown fields. Schema-less `serialize`/`deserialize` are refused
 * (protobuf needs a message type); `copy` is a structured clone (what `injvm` needs). Failures are `RpcError`s
 * with code `serialization` naming the message type.
 *
 * @example
 * ```ts
 * const protobuf = new ProtobufSerialization();
 * const bytes = protobuf.encodeMessage({ name: 'world' }, HelloRequestSchema);
 * protobuf.decodeMessage(bytes, HelloRequestSchema); // { $typeName: 'weft.example.v1.HelloRequest', name: 'world' }
 * ```
 */
export class ProtobufSerialization extends IdlSerialization {
  readonly contentSubtype = 'proto';

  serialize(_value: unknown): Uint8Array {
    throw new RpcError(
      RpcErrorCode.SERIALIZATION,
      'protobuf: serialization=protobuf encodes messages of IDL services only (define the service with defineProtoService() from a protoc-gen-es descriptor).',
    );
  }

  deserialize(_bytes: Uint8Array): unknown {
    return this.serialize(undefined);
  }

  override copy(value: unknown): unknown {
    return structuredClone(value);
  }

  encodeMessage(value: unknown, schema: object): Uint8Array {
    const desc = messageSchema(schema);
    const message = messageOf(desc, value);
    try {
      return toBinary(desc, message);
    } catch (error) {
      throw failure(`encode ${desc.typeName}`, error);
    }
  }

  decodeMessage(bytes: Uint8Array, schema: object): unknown {
    const desc = messageSchema(schema);
    try {
      // A plain Uint8Array view, so `bytes` fields decode as Uint8Array (not as slices of a Node Buffer).
      const view = Object.getPrototypeOf(bytes) === Uint8Array.prototype ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return fromBinary(desc, view);
    } catch (error) {
      throw failure(`decode ${desc.typeName}`, error);
    }
  }

  encodeJson(value: unknown, schema: object): Uint8Array {
    const desc = messageSchema(schema);
    const message = messageOf(desc, value);
    try {
      // Buffer.from: UTF-8 as TextEncoder writes it, in a buffer from Node's pool (no ArrayBuffer per message).
      return Buffer.from(JSON.stringify(toJson(desc, message)), 'utf8');
    } catch (error) {
      throw failure(`write ${desc.typeName} as JSON`, error);
    }
  }

  fromJson(json: unknown, schema: object): unknown {
    const desc = messageSchema(schema);
    try {
      return fromJson(desc, (json ?? {}) as JsonValue);
    } catch (error) {
      throw failure(`read ${desc.typeName} from JSON`, error);
    }
  }

  decodeJson(bytes: Uint8Array, schema: object): unknown {
    const desc = messageSchema(schema);
    let json: unknown;
    try {
      json = bytes.length === 0 ? {} : JSON.parse(UTF8.decode(bytes));
    } catch (error) {
      throw failure(`read ${desc.typeName} from JSON`, error);
    }
    return this.fromJson(json, desc);
  }

  encodeStatus(status: IdlStatus): Uint8Array {
    return toBinary(StatusSchema, create(StatusSchema, { code: status.code, message: status.message, details: status.details.filter(isAny) }));
  }

  decodeStatus(bytes: Uint8Array): IdlStatus {
    let status;
    try {
      status = fromBinary(StatusSchema, bytes);
    } catch (error) {
      throw failure('decode google.rpc.Status', error);
    }
    return { code: status.code, message: status.message, details: status.details };
  }
}

function isAny(value: unknown): value is Any {
  return value !== null && typeof value === 'object' && (value as { $typeName?: unknown }).$typeName === 'google.protobuf.Any';
}
