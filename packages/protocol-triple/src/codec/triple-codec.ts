import {
  errorFromData,
  errorToData,
  Realizer,
  RpcError,
  RpcErrorCode,
  type ErrorData,
  type IdlStatus,
  type MethodDescriptor,
  type Serialization,
  type ServiceDefinition,
  type TypeDescriptor,
} from '@weft/core';

/**
 * How the payload of one Triple message is encoded: the boundary between the protocol (framing, headers,
 * status) and the bytes of arguments, results and business errors.
 *
 * @remarks
 * The protocol calls a codec once per message and never looks inside a payload. {@link SerializationCodec} (the
 * only implementation shipped) writes the argument array, the return value and `errorToData` of a business error
 * with a `weft.rpc.Serialization` (`json` by default), and realises what it reads against the method's declared
 * types. Dubbo's non-IDL wire (§A.10: a protobuf `TripleRequestWrapper` holding one Hessian2 blob per argument plus
 * `argTypes`, a `TripleResponseWrapper` with `serializeType` echoed, a Hessian2 `Throwable` for `tri-exception-code`
 * responses) would be another implementation of this interface, chosen when the URL says `serialization=hessian2`
 * and sending `application/grpc+proto`; nothing else in the protocol would change.
 *
 * **Streaming.** A codec encodes single messages, so a server-, client- or bidi-stream method reuses it per message
 * (Dubbo sends one argument per stream message): the stream call would hand each message the
 * {@link GrpcMessageReader} completes to `decodeArguments`/`decodeResult`, one at a time.
 *
 * @example
 * ```ts
 * const codec = new SerializationCodec(serializations.getExtension('json'));
 * const bytes = codec.encodeArguments(['world'], Greeter.getMethod('sayHello'));
 * codec.decodeArguments(bytes, Greeter.getMethod('sayHello')); // ['world']
 * ```
 */
export interface TripleCodec {
  /** The codec's name, e.g. `json`. */
  readonly name: string;
  /** The content type of requests it sends, e.g. `application/grpc+json`. */
  readonly contentType: string;
  /** Whether it decodes `application/grpc[+subtype]` requests (`''` for bare `application/grpc`). */
  accepts(subtype: string): boolean;
  /** Encodes a call's arguments (one request message). */
  encodeArguments(args: readonly unknown[], method: MethodDescriptor | undefined): Uint8Array;
  /** Decodes a request message into arguments realised against the declared parameter types. */
  decodeArguments(bytes: Uint8Array, method: MethodDescriptor | undefined): unknown[];
  /** Decodes a plain-HTTP body (§A.11: the argument array, or the bare value of a one-parameter method). */
  bindArguments(body: unknown, method: MethodDescriptor | undefined): unknown[];
  /** Encodes a return value (one response message). */
  encodeResult(value: unknown, method: MethodDescriptor | undefined): Uint8Array;
  /** Decodes a response message into the value realised against the declared return type. */
  decodeResult(bytes: Uint8Array, method: MethodDescriptor | undefined): unknown;
  /** Encodes a business error (the body of a `tri-exception-code` response). */
  encodeException(error: unknown, method: MethodDescriptor | undefined): Uint8Array;
  /** Decodes a business error, rebuilt as the declared error class when it names one. */
  decodeException(bytes: Uint8Array, method: MethodDescriptor | undefined): Error;
  /**
   * Called at export and refer with the service: compiles what the codec needs per method, so a malformed
   * declaration fails there (`ERR_SPI_INVALID_PARAMETER`) rather than on the first call.
   */
  prepare?(service: ServiceDefinition): void;
  /** Encodes a `google.rpc.Status` for `grpc-status-details-bin` (IDL codecs only). */
  encodeStatus?(status: IdlStatus): Uint8Array;
  /** Decodes a `grpc-status-details-bin` value (IDL codecs only). */
  decodeStatus?(bytes: Uint8Array): IdlStatus;
}

/** Parameter types whose values travel as JSON arrays (so `[[…]]` vs `[…]` needs care for one-parameter methods). */
function isArrayLike(type: TypeDescriptor | undefined): boolean {
  return Array.isArray(type) || type === Array || type === Set || type === Map;
}

/**
 * The {@link TripleCodec} over a `weft.rpc.Serialization` (the `json` codec by default).
 *
 * @remarks
 * A request is the serialized argument array; a response the serialized return value (`null` for void); a
 * business error `errorToData(error)`, rebuilt on the consumer with `errorFromData(data, method.throws)` — or, for
 * a real `RpcError` a provider put in the result (a filter's refusal, a downstream call's timeout passed on), as
 * an `RpcError` with the same code; a business error merely named `RpcError` stays a business error. Arguments
 * and results are realised against the declared types to any depth (a {@link Realizer} compiles each method's
 * types once), so `Date`s, `Map`s, `Set`s and classes arrive as such, nested fields included; a value that does
 * not fit fails with `RpcError` `serialization` naming the field path (`greet() result .at: expected Date, got "yesterday"`).
 *
 * Argument binding follows Dubbo's plain-HTTP rules (§A.11), in gRPC mode too: a JSON array is the argument list;
 * a one-parameter method also takes the bare value (`"world"`, `{…}`), and an array that is not a one-element
 * argument list (`["a","b"]` for a `[String]` parameter) is that one argument.
 *
 * @example
 * ```ts
 * const codec = new SerializationCodec(new JsonSerialization());
 * codec.bindArguments('world', Greeter.getMethod('sayHello')); // ['world']
 * ```
 */
export class SerializationCodec implements TripleCodec {
  readonly name: string;
  readonly contentType: string;
  /** Each method's declared types, compiled once (per codec, so per protocol instance). */
  private readonly realizer = new Realizer();

  constructor(private readonly serialization: Serialization) {
    this.name = serialization.contentSubtype;
    this.contentType = `application/grpc+${serialization.contentSubtype}`;
  }

  accepts(subtype: string): boolean {
    return subtype === '' || subtype === this.serialization.contentSubtype;
  }

  prepare(service: ServiceDefinition): void {
    for (const method of service.methodDescriptors.values()) this.realizer.method(method);
  }

  encodeArguments(args: readonly unknown[], _method?: MethodDescriptor): Uint8Array {
    return this.serialization.serialize(args);
  }

  decodeArguments(bytes: Uint8Array, method: MethodDescriptor | undefined): unknown[] {
    return this.bindArguments(this.serialization.deserialize(bytes), method);
  }

  bindArguments(body: unknown, method: MethodDescriptor | undefined): unknown[] {
    const types = method?.args;
    let args: unknown[];
    if (types === undefined) {
      args = Array.isArray(body) ? body : body === undefined ? [] : [body];
      return args;
    }
    if (types.length === 1) {
      if (Array.isArray(body) && body.length === 1 && (!isArrayLike(types[0]) || Array.isArray(body[0]))) args = body;
      else if (Array.isArray(body) && body.length === 0 && !isArrayLike(types[0])) args = body;
      else args = body === undefined ? [] : [body];
    } else if (Array.isArray(body)) {
      args = body;
    } else if ((body === undefined || body === null) && types.length === 0) {
      args = [];
    } else {
      throw new RpcError(
        RpcErrorCode.SERIALIZATION,
        `${method?.name ?? 'The method'}() takes ${types.length} argument(s): send them as a JSON array, not ${describe(body)}.`,
      );
    }
    if (args.length > types.length) {
      throw new RpcError(
        RpcErrorCode.SERIALIZATION,
        `${method?.name ?? 'The method'}() takes ${types.length} argument(s) but ${args.length} were sent.`,
      );
    }
    return this.realizer.method(method as MethodDescriptor).args(args);
  }

  encodeResult(value: unknown, _method?: MethodDescriptor): Uint8Array {
    return this.serialization.serialize(value);
  }

  decodeResult(bytes: Uint8Array, method: MethodDescriptor | undefined): unknown {
    const value = this.serialization.deserialize(bytes);
    if (method === undefined) return value;
    return this.realizer.method(method).result(value);
  }

  encodeException(error: unknown, _method?: MethodDescriptor): Uint8Array {
    return this.serialization.serialize(errorToData(error));
  }

  decodeException(bytes: Uint8Array, method: MethodDescriptor | undefined): Error {
    const data = this.serialization.deserialize(bytes);
    if (data === null || typeof data !== 'object' || Array.isArray(data)) {
      return new Error(`The provider reported a business error without details (${describe(data)}).`);
    }
    const record = data as Record<string, unknown>;
    const name = typeof record['name'] === 'string' ? record['name'] : 'Error';
    const message = typeof record['message'] === 'string' ? record['message'] : '';
    // errorFromData rebuilds an RpcError only from a real one (the mark errorToData writes for `instanceof
    // RpcError`): a business error named RpcError, or carrying a code, stays a business error.
    return errorFromData({ ...record, name, message } as ErrorData, method?.throws);
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'an empty body';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a JSON ${typeof value}`;
}
