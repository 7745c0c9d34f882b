import {
  errorFromData,
  errorToData,
  realize,
  RpcError,
  RpcErrorCode,
  type ErrorData,
  type IdlStatus,
  type MethodDescriptor,
  type Serialization,
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
  /** Encodes a `google.rpc.Status` for `grpc-status-details-bin` (IDL codecs only). */
  encodeStatus?(status: IdlStatus): Uint8Array;
  /** Decodes a `grpc-status-details-bin` value (IDL codecs only). */
  decodeStatus?(bytes: Uint8Array): IdlStatus;
}

/** Per-method strings for realisation messages, built once. */
interface Places {
  readonly args: readonly string[];
  readonly result: string;
}

const RPC_CODES: ReadonlySet<string> = new Set(Object.values(RpcErrorCode));

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
 * an `RpcError` a provider filter put in the result, as an `RpcError` with the same code. Arguments and results are
 * realised against the declared types (`realize`), so `Date`s, `Map`s and classes arrive as such.
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
  private readonly places = new WeakMap<MethodDescriptor, Places>();

  constructor(private readonly serialization: Serialization) {
    this.name = serialization.contentSubtype;
    this.contentType = `application/grpc+${serialization.contentSubtype}`;
  }

  accepts(subtype: string): boolean {
    return subtype === '' || subtype === this.serialization.contentSubtype;
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
    const places = this.placesOf(method as MethodDescriptor);
    for (let i = 0; i < args.length; i++) args[i] = realize(args[i], types[i], places.args[i]);
    return args;
  }

  encodeResult(value: unknown, _method?: MethodDescriptor): Uint8Array {
    return this.serialization.serialize(value);
  }

  decodeResult(bytes: Uint8Array, method: MethodDescriptor | undefined): unknown {
    const value = this.serialization.deserialize(bytes);
    if (method === undefined) return value;
    return realize(value, method.returns, this.placesOf(method).result);
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
    if (name === 'RpcError' && typeof record['code'] === 'string' && RPC_CODES.has(record['code'])) {
      return new RpcError(record['code'] as RpcErrorCode, message);
    }
    return errorFromData({ ...record, name, message } as ErrorData, method?.throws);
  }

  private placesOf(method: MethodDescriptor): Places {
    let places = this.places.get(method);
    if (places === undefined) {
      places = {
        args: (method.args ?? []).map((_, i) => `argument ${i} of ${method.name}`),
        result: `result of ${method.name}`,
      };
      this.places.set(method, places);
    }
    return places;
  }
}

function describe(value: unknown): string {
  if (value === undefined) return 'an empty body';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a JSON ${typeof value}`;
}
