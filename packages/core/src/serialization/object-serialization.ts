import type { TypeDescriptor } from '../service/service-definition.js';
import { Serialization } from './serialization.js';

/**
 * Writes a sequence of values into one body, sharing one reference and class-definition table (Dubbo's
 * `ObjectOutput`); made by {@link ObjectSerialization.createOutput}.
 *
 * @remarks
 * A body is written front to back and finished once. `writeObject` writes a value as its declared type — the type
 * decides the Java kind (`int` vs `long`, `List` vs `Set`, a POJO's class name) — or by its runtime shape when no type
 * is given (a plain object is a `java.util.HashMap`). Failures throw an `RpcError` with code `serialization` naming
 * the value's path.
 *
 * @example
 * ```ts
 * const out = codec.createOutput();
 * out.writeString('2.0.2');
 * out.writeObject(user, User);
 * const body = out.finish();
 * ```
 */
export abstract class ObjectOutput {
  /** Writes a 32-bit integer (Java `int`). */
  abstract writeInt(value: number): void;
  /** Writes a string, or null. */
  abstract writeString(value: string | null): void;
  /** Writes a value as the declared type, or by its runtime shape. */
  abstract writeObject(value: unknown, type?: TypeDescriptor): void;
  /** Writes an error as a Java `Throwable` the peer can instantiate (class from the error, else `java.lang.RuntimeException`). */
  abstract writeThrowable(error: Error): void;
  /** The bytes written so far; the output is unusable afterwards. */
  abstract finish(): Uint8Array;
}

/**
 * Reads the values of one body in order (Dubbo's `ObjectInput`); made by {@link ObjectSerialization.createInput}.
 *
 * @remarks
 * Reads follow the writer's order. `readObject(type)` returns the value realised to the declared type (the declared
 * type wins over the wire's class name, fields matched by name); without a type it returns plain data (`Map`s for
 * typed maps, arrays for lists, `Date`s, numbers or `bigint`s for longs beyond 2⁵³). A Java `Throwable` reads as an
 * `Error` whose `name` is the Java class name and `message` its `detailMessage`. Malformed or hostile input throws an
 * `RpcError` with code `serialization` naming the offset; reading is bounded (depth, sizes) whatever the input says.
 *
 * @example
 * ```ts
 * const input = codec.createInput(body);
 * const version = input.readString();
 * const user = input.readObject(User);
 * ```
 */
export abstract class ObjectInput {
  /** Reads a 32-bit integer. */
  abstract readInt(): number;
  /** Reads a string or null. */
  abstract readString(): string | null;
  /** Reads one value, realised to `type` when given. */
  abstract readObject(type?: TypeDescriptor): unknown;
  /** Reads a Java `Throwable` as an `Error` (name: the Java class; message: `detailMessage`; `cause` when real). */
  abstract readThrowable(): Error;
  /** Whether bytes remain (optional trailing values, such as a response's attachments). */
  abstract hasMore(): boolean;
}

/**
 * A `weft.rpc.Serialization` whose bodies are sequences of typed values (Hessian2): the body codec of `dubbo://` and of
 * the Triple wrapper.
 *
 * @remarks
 * Registered as a `weft.rpc.Serialization` extension (`hessian2` from `@weft/serialization-hessian2`). A protocol finds
 * it by the `serialization` key (or by `dubboSerializationId` from a frame header), checks it is an
 * `ObjectSerialization`, and never imports the package. The Java type names it reports come from the service
 * definition's declared types.
 *
 * @example
 * ```ts
 * const codec = loader.getExtension('hessian2');
 * if (codec instanceof ObjectSerialization) codec.parameterDescriptor([String, Number]); // 'Ljava/lang/String;I' or as declared
 * ```
 */
export abstract class ObjectSerialization extends Serialization {
  /** The serialization id in a Dubbo 2 frame header's flag byte (hessian2: 2). */
  abstract readonly dubboSerializationId: number;
  /** Starts a body. */
  abstract createOutput(): ObjectOutput;
  /** Reads a body a peer wrote. */
  abstract createInput(bytes: Uint8Array): ObjectInput;
  /** The `dubbo://` parameter-types descriptor of declared argument types (`Ljava/lang/String;IJ`). */
  abstract parameterDescriptor(types: readonly TypeDescriptor[]): string;
  /** The Java class names (`Class.getName()`: `java.lang.String`, `int`, `[I`) of declared types, for Triple's `argTypes`. */
  abstract javaTypeNames(types: readonly TypeDescriptor[]): string[];
}
