import { RpcError, RpcErrorCode, type IdlSerialization, type IdlStatus, type MethodDescriptor } from '@weft/core/spi';

import type { TripleCodec } from './triple-codec.js';

/** The two encodings of IDL messages on `tri`. */
export type IdlFormat = 'binary' | 'json';

/**
 * The {@link TripleCodec} of IDL (protobuf) services: one message per direction, by the schemas the method
 * descriptors carry, encoded by the `IdlSerialization` the methods name (the `protobuf` extension of
 * `@weft/serialization-protobuf`, found through the extension loader — never imported).
 *
 * @remarks
 * Format `binary` sends `application/grpc+proto` and accepts `application/grpc` and `application/grpc+proto`;
 * format `json` (the protobuf JSON mapping) sends and accepts `application/grpc+json`, and is also what plain-HTTP
 * JSON calls bind to. A method without IDL messages (the built-in `$echo`) goes to `fallback`. A call's arguments
 * must be exactly one message (or init shape). Business errors of IDL methods are not message bodies: the server
 * answers them with a non-OK `grpc-status` and a `google.rpc.Status` in `grpc-status-details-bin`, which
 * {@link IdlCodec.encodeStatus}/{@link IdlCodec.decodeStatus} write and read.
 *
 * @example
 * ```ts
 * const codec = new IdlCodec('protobuf', protobuf, 'binary', jsonCodec);
 * codec.encodeArguments([{ name: 'world' }], GreeterService.getMethod('sayHello'));
 * ```
 */
export class IdlCodec implements TripleCodec {
  readonly name: string;
  readonly contentType: string;

  constructor(
    /** The name of the serialization extension, e.g. `protobuf`. */
    extensionName: string,
    readonly serialization: IdlSerialization,
    readonly format: IdlFormat,
    private readonly fallback: TripleCodec,
  ) {
    this.name = format === 'json' ? `${extensionName}+json` : extensionName;
    this.contentType = format === 'json' ? 'application/grpc+json' : `application/grpc+${serialization.contentSubtype}`;
  }

  accepts(subtype: string): boolean {
    return this.format === 'json' ? subtype === 'json' : subtype === '' || subtype === this.serialization.contentSubtype;
  }

  encodeArguments(args: readonly unknown[], method: MethodDescriptor | undefined): Uint8Array {
    const idl = method?.idl;
    if (idl === undefined) return this.fallback.encodeArguments(args, method);
    if (args.length !== 1) {
      throw new RpcError(
        RpcErrorCode.SERIALIZATION,
        `${method?.name ?? 'The method'}() is an IDL method: it takes exactly one request message, but ${args.length} arguments were passed.`,
      );
    }
    return this.encode(args[0], idl.input);
  }

  decodeArguments(bytes: Uint8Array, method: MethodDescriptor | undefined): unknown[] {
    const idl = method?.idl;
    if (idl === undefined) return this.fallback.decodeArguments(bytes, method);
    return [this.decode(bytes, idl.input)];
  }

  bindArguments(body: unknown, method: MethodDescriptor | undefined): unknown[] {
    const idl = method?.idl;
    if (idl === undefined) return this.fallback.bindArguments(body, method);
    return [this.serialization.fromJson(body, idl.input)];
  }

  encodeResult(value: unknown, method: MethodDescriptor | undefined): Uint8Array {
    const idl = method?.idl;
    if (idl === undefined) return this.fallback.encodeResult(value, method);
    return this.encode(value, idl.output);
  }

  decodeResult(bytes: Uint8Array, method: MethodDescriptor | undefined): unknown {
    const idl = method?.idl;
    if (idl === undefined) return this.fallback.decodeResult(bytes, method);
    return this.decode(bytes, idl.output);
  }

  encodeException(error: unknown, method: MethodDescriptor | undefined): Uint8Array {
    return this.fallback.encodeException(error, method);
  }

  decodeException(bytes: Uint8Array, method: MethodDescriptor | undefined): Error {
    return this.fallback.decodeException(bytes, method);
  }

  /** Encodes a `google.rpc.Status` (the `grpc-status-details-bin` value, before base64). */
  encodeStatus(status: IdlStatus): Uint8Array {
    return this.serialization.encodeStatus(status);
  }

  /** Decodes a `google.rpc.Status`. */
  decodeStatus(bytes: Uint8Array): IdlStatus {
    return this.serialization.decodeStatus(bytes);
  }

  private encode(value: unknown, schema: object): Uint8Array {
    return this.format === 'json' ? this.serialization.encodeJson(value, schema) : this.serialization.encodeMessage(value, schema);
  }

  private decode(bytes: Uint8Array, schema: object): unknown {
    return this.format === 'json' ? this.serialization.decodeJson(bytes, schema) : this.serialization.decodeMessage(bytes, schema);
  }
}
