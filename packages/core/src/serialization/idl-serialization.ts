import { Serialization } from './serialization.js';

/**
 * A status as IDL peers carry it (gRPC's `google.rpc.Status`): a code, a message and typed details.
 *
 * @example
 * ```ts
 * const status: IdlStatus = { code: 5, message: 'no user 42', details: [] };
 * ```
 */
export interface IdlStatus {
  /** The `google.rpc.Code` (0–16). */
  readonly code: number;
  readonly message: string;
  /** The details, as the serialization's `Any` messages. */
  readonly details: readonly unknown[];
}

/**
 * A `weft.rpc.Serialization` that encodes IDL messages (protobuf) by the schema an IDL method carries.
 *
 * @remarks
 * Registered as a `weft.rpc.Serialization` extension (for example `protobuf` from `@weft/serialization-protobuf`).
 * A protocol finds it by the name in a method's {@link IdlMethod} (`method.idl.serialization`), checks it is an
 * `IdlSerialization`, and calls it once per message with `method.idl.input` or `.output`; it never imports the
 * package. Schemas are opaque here. Failures throw an `RpcError` with code `serialization` naming the message
 * type. `encodeStatus`/`decodeStatus` carry `google.rpc.Status` (gRPC's `grpc-status-details-bin`).
 *
 * @example
 * ```ts
 * const codec = loader.getExtension(method.idl.serialization);
 * if (codec instanceof IdlSerialization) codec.encodeMessage({ name: 'world' }, method.idl.input);
 * ```
 */
export abstract class IdlSerialization extends Serialization {
  /** Encodes one message (binary); `value` may be an init shape (fields left out take their defaults). */
  abstract encodeMessage(value: unknown, schema: object): Uint8Array;
  /** Decodes one message (binary). */
  abstract decodeMessage(bytes: Uint8Array, schema: object): unknown;
  /** Encodes one message with the IDL's JSON mapping, as UTF-8 JSON text. */
  abstract encodeJson(value: unknown, schema: object): Uint8Array;
  /** Decodes one message from its JSON mapping (already parsed JSON, e.g. a plain-HTTP body). */
  abstract fromJson(json: unknown, schema: object): unknown;
  /** Decodes one message from UTF-8 JSON text. */
  abstract decodeJson(bytes: Uint8Array, schema: object): unknown;
  /** Encodes a status (`google.rpc.Status`). */
  abstract encodeStatus(status: IdlStatus): Uint8Array;
  /** Decodes a status (`google.rpc.Status`). */
  abstract decodeStatus(bytes: Uint8Array): IdlStatus;
}
