import type { StreamKind } from '../rpc/stream-port.js';
import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import { checkDescriptor } from './realizer.js';
import type { MapType, SetType } from './type-descriptors.js';
import type { JavaType } from './java-types.js';

/**
 * A runtime type descriptor: `String`, `Number`, `Boolean`, `Object`, `Date`, `Map`, `Set`, a class, `[T]` for
 * an array of `T`, `mapOf(K, V)`, `setOf(T)`, or `null` for "no value" (void).
 *
 * @remarks
 * A class declares the types of its fields with a static `fields` map (`static readonly fields = { at: Date,
 * replies: [Greeting] }`); values are then realised field by field, to any depth, and fields it does not name are
 * copied as they arrive. A class may name itself or a class declared later (use a `static get fields()` for a
 * forward reference). See the types guide (`docs/guide/types.md`) for the rules.
 *
 * @example
 * ```ts
 * class Greeting {
 *   text = '';
 *   at = new Date(0);
 *   static readonly fields = { at: Date };
 * }
 * defineService('org.acme.Greeter', { greet: { args: [String], returns: Greeting } });
 * ```
 */
export type TypeDescriptor =
  | StringConstructor
  | NumberConstructor
  | BooleanConstructor
  | ObjectConstructor
  | DateConstructor
  | MapConstructor
  | SetConstructor
  | ArrayConstructor
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  | (new (...args: any[]) => unknown)
  | readonly [TypeDescriptor]
  | MapType
  | SetType
  | JavaType
  | null;

/** The TypeScript type a {@link TypeDescriptor} stands for. */
export type TypeOf<D> = D extends null
  ? void
  : D extends StringConstructor
    ? string
    : D extends NumberConstructor
      ? number
      : D extends BooleanConstructor
        ? boolean
        : D extends DateConstructor
          ? Date
          : D extends MapConstructor
            ? Map<unknown, unknown>
            : D extends SetConstructor
              ? Set<unknown>
              : D extends ArrayConstructor
                ? unknown[]
                : D extends ObjectConstructor
                  ? Record<string, unknown>
                  : D extends readonly [infer E]
                    ? TypeOf<E>[]
                    : D extends MapType<infer K, infer V>
                      ? Map<TypeOf<K>, TypeOf<V>>
                      : D extends SetType<infer E>
                        ? Set<TypeOf<E>>
                        : D extends JavaType<infer J>
                          ? J
                        : D extends new (...args: never[]) => infer I
                          ? I
                          : unknown;

/**
 * The IDL side of a method (a protobuf RPC): the messages it carries, opaque to core and protocols.
 *
 * @remarks
 * Set by IDL packages (`defineProtoService` of `@weft/serialization-protobuf`), never by hand. A protocol asks the
 * `weft.rpc.Serialization` named by `serialization` for an `IdlSerialization` and hands it `input`/`output` to
 * encode one message per direction (no argument array). `I`/`O` are the message types, `II`/`OI` the shapes a
 * caller or an implementation may pass instead (protobuf init shapes); type-level only.
 *
 * @example
 * ```ts
 * const rpc = Greeter.getMethod('sayHello')?.idl; // { serialization: 'protobuf', input: HelloRequestSchema, … }
 * ```
 */
export interface IdlMethod<I = unknown, O = unknown, II = I, OI = O> {
  /** The `weft.rpc.Serialization` (an `IdlSerialization`) that encodes the messages, e.g. `protobuf`. */
  readonly serialization: string;
  /** The request message schema (for protobuf: a `DescMessage`). */
  readonly input: object;
  /** The response message schema. */
  readonly output: object;
  /** The method's name in the IDL, e.g. `SayHello`: the last segment of its gRPC path. */
  readonly name: string;
  /** Whether the method streams (the protobuf `methodKind`). */
  readonly kind: 'unary' | 'server-streaming' | 'client-streaming' | 'bidi-streaming';
  /**
   * The IDL's own descriptor of the method, when the IDL package keeps one (for protobuf: the `DescMethod`, whose
   * service and file `tri`'s server reflection describes). Opaque to core.
   */
  readonly descriptor?: object;
  /** Type-level only (never set): the message types. */
  readonly types?: { readonly request: I; readonly response: O; readonly requestInit: II; readonly responseInit: OI };
}

/** Declaration of one method: its parameter types and return type. */
export interface MethodSpec {
  readonly args?: readonly TypeDescriptor[];
  /** The declared return type (mock `return empty` and value realisation read it). @defaultValue `null` (void) */
  readonly returns?: TypeDescriptor;
  /** Business errors the method declares (the exception filter lets these through unwrapped). */
  readonly throws?: readonly (abstract new (...args: never[]) => Error)[];
  /** The IDL messages of an IDL (protobuf) method: one request message, one response message. */
  readonly idl?: IdlMethod;
  /**
   * A streaming method: `server` (the arguments as usual, many results: `returns` types each), `client` (an async
   * iterable of requests — `args` has one entry, the type of each — and one result) or `bidi` (both). IDL methods
   * take it from their `kind`.
   */
  readonly stream?: StreamKind;
  /**
   * The method has no side effects (it only reads), so protocols may let it be invoked by requests that browsers
   * send cross-origin without asking (plain-HTTP `GET` over `tri`). Declare it only for methods that change nothing.
   * IDL methods take it from `idempotency_level = NO_SIDE_EFFECTS`. @defaultValue false
   */
  readonly safe?: boolean;
  /**
   * `false` when running the method twice is harmful (a payment): clusters then retry it only after failures known
   * to happen before the request was sent (see the cluster README, "Which failures are retried").
   * @defaultValue `true`
   */
  readonly idempotent?: boolean;
}

/**
 * How a method spec streams (`undefined` for unary).
 *
 * @example
 * ```ts
 * type K = StreamOf<{ args: [Number]; stream: 'server' }>; // 'server'
 * ```
 */
export type StreamOf<M extends MethodSpec> = M extends { readonly idl: { readonly kind: infer K } }
  ? K extends 'server-streaming'
    ? 'server'
    : K extends 'client-streaming'
      ? 'client'
      : K extends 'bidi-streaming'
        ? 'bidi'
        : undefined
  : M extends { readonly stream: infer S extends StreamKind }
    ? S
    : undefined;

/**
 * One request of a client- or bidi-streaming method (what the consumer's iterable yields).
 *
 * @example
 * ```ts
 * type R = RequestOf<typeof Ticker.methods.sum>; // number
 * ```
 */
export type RequestOf<M extends MethodSpec> = ArgsOf<M> extends readonly [infer R, ...unknown[]] ? R : unknown;

/**
 * One request as an implementation of a client- or bidi-streaming method receives it.
 *
 * @example
 * ```ts
 * type R = ImplRequestOf<typeof Ticker.methods.sum>; // number
 * ```
 */
export type ImplRequestOf<M extends MethodSpec> = ImplArgsOf<M> extends readonly [infer R, ...unknown[]] ? R : unknown;

/**
 * What the consumer passes as the requests of a client- or bidi-streaming call.
 *
 * @example
 * ```ts
 * const requests: RequestStream<number> = [1, 2, 3];
 * ```
 */
export type RequestStream<T> = AsyncIterable<T> | Iterable<T>;

/**
 * The consumer-side signature of one method: a promise for unary and client-streaming, an async iterable else.
 *
 * @example
 * ```ts
 * type Countdown = ProxyMethodOf<typeof Ticker.methods.countdown>; // (from: number) => AsyncIterable<Tick>
 * ```
 */
export type ProxyMethodOf<M extends MethodSpec> = StreamOf<M> extends 'server'
  ? (...args: ArgsOf<M>) => AsyncIterable<ReturnOf<M>>
  : StreamOf<M> extends 'client'
    ? (requests: RequestStream<RequestOf<M>>) => Promise<ReturnOf<M>>
    : StreamOf<M> extends 'bidi'
      ? (requests: RequestStream<RequestOf<M>>) => AsyncIterable<ReturnOf<M>>
      : (...args: ArgsOf<M>) => Promise<ReturnOf<M>>;

/**
 * The provider-side signature of one method: async generators (or iterables) for streamed results.
 *
 * @example
 * ```ts
 * type Countdown = ImplMethodOf<typeof Ticker.methods.countdown>; // (from: number) => AsyncIterable<Tick> | Iterable<Tick>
 * ```
 */
export type ImplMethodOf<M extends MethodSpec> = StreamOf<M> extends 'server'
  ? (...args: ImplArgsOf<M>) => AsyncIterable<ImplReturnOf<M>> | Iterable<ImplReturnOf<M>>
  : StreamOf<M> extends 'client'
    ? (requests: AsyncIterable<ImplRequestOf<M>>) => ImplReturnOf<M> | Promise<ImplReturnOf<M>>
    : StreamOf<M> extends 'bidi'
      ? (requests: AsyncIterable<ImplRequestOf<M>>) => AsyncIterable<ImplReturnOf<M>> | Iterable<ImplReturnOf<M>>
      : (...args: ImplArgsOf<M>) => ImplReturnOf<M> | Promise<ImplReturnOf<M>>;

/** Argument tuple of a method spec. */
export type ArgsOf<M extends MethodSpec> = M extends { readonly idl: IdlMethod<unknown, unknown, infer II, unknown> }
  ? [request: II]
  : M['args'] extends infer A extends readonly TypeDescriptor[] ? TypesOf<A> : unknown[];

/** Maps a tuple of descriptors to a tuple of types. */
export type TypesOf<A extends readonly unknown[]> = { -readonly [I in keyof A]: TypeOf<A[I]> };

/** Return type of a method spec. */
export type ReturnOf<M extends MethodSpec> = M extends { readonly idl: IdlMethod<unknown, infer O, unknown, unknown> }
  ? O
  : M extends { returns: infer R }
    ? TypeOf<R>
    : void;

/** What an implementation receives (the decoded request message for IDL methods, else {@link ArgsOf}). */
export type ImplArgsOf<M extends MethodSpec> = M extends { readonly idl: IdlMethod<infer I, unknown, unknown, unknown> } ? [request: I] : ArgsOf<M>;

/** What an implementation may return (a response init shape for IDL methods, else {@link ReturnOf}). */
export type ImplReturnOf<M extends MethodSpec> = M extends { readonly idl: IdlMethod<unknown, unknown, unknown, infer OI> } ? OI : ReturnOf<M>;

/** Resolved descriptor of one method. */
export interface MethodDescriptor {
  readonly name: string;
  readonly args: readonly TypeDescriptor[] | undefined;
  readonly returns: TypeDescriptor;
  readonly throws: readonly (abstract new (...args: never[]) => Error)[];
  /** The IDL messages, for an IDL method. */
  readonly idl: IdlMethod | undefined;
  /** How the method streams; `undefined` for unary. */
  readonly stream: StreamKind | undefined;
  /** Whether the method is declared free of side effects ({@link MethodSpec.safe}). */
  readonly safe: boolean;
  /** `false` when the spec declared the method non-idempotent (it must not run twice); otherwise as declared or `undefined` (idempotent). */
  readonly idempotent: boolean | undefined;
}

/** The consumer-side type of a service: every method returns a promise. */
export type ServiceProxy<M extends Record<string, MethodSpec>> = {
  readonly [K in keyof M]: ProxyMethodOf<M[K]>;
};

/** The provider-side type of a service: methods may answer synchronously or with a promise. */
export type ServiceImplementation<M extends Record<string, MethodSpec>> = {
  [K in keyof M]: ImplMethodOf<M[K]>;
};

const METHOD_NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * A typed service definition: the interface name and its methods, known at runtime.
 *
 * @remarks
 * Created with {@link defineService}. TypeScript infers the proxy type ({@link ServiceProxy}) and the
 * implementation type ({@link ServiceImplementation}) from it, so call sites need no casts. Return types are
 * known at runtime: the mock package realises `return` values against them.
 *
 * @example
 * ```ts
 * const Greeter = defineService('org.acme.Greeter', {
 *   sayHello: { args: [String], returns: String },
 *   count: { returns: Number },
 * });
 * type GreeterProxy = ServiceProxy<typeof Greeter.methods>;
 * ```
 */
export class ServiceDefinition<M extends Record<string, MethodSpec> = Record<string, MethodSpec>> {
  /** Method descriptors by name. */
  readonly methodDescriptors: ReadonlyMap<string, MethodDescriptor>;

  constructor(
    /** The interface name, e.g. `org.acme.Greeter` (the URL path and `interface` parameter). */
    readonly name: string,
    /** The method specs as declared. */
    readonly methods: M,
  ) {
    if (typeof name !== 'string' || !/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/.test(name)) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `defineService(): ${JSON.stringify(name)} is not a valid interface name (dotted identifiers, e.g. "org.acme.Greeter").`,
      );
    }
    const descriptors = new Map<string, MethodDescriptor>();
    for (const method of Object.keys(methods)) {
      if (!METHOD_NAME.test(method) || method.startsWith('$')) {
        throw new ExtensionError(
          ExtensionErrorCode.INVALID_PARAMETER,
          `defineService("${name}"): method name ${JSON.stringify(method)} is not an identifier (names starting with "$" are reserved).`,
        );
      }
      const spec = methods[method] as MethodSpec;
      spec.args?.forEach((type, i) => checkDescriptor(type, `defineService("${name}"): ${method}() argument ${i}`));
      if (spec.returns !== undefined) checkDescriptor(spec.returns, `defineService("${name}"): ${method}() result`);
      const stream = streamKindOf(spec, `defineService("${name}"): ${method}()`);
      if (spec.safe !== undefined && typeof spec.safe !== 'boolean') {
        throw new ExtensionError(
          ExtensionErrorCode.INVALID_PARAMETER,
          `defineService("${name}"): ${method}() safe ${JSON.stringify(spec.safe)} is not a boolean (declare safe: true for a method without side effects).`,
        );
      }
      const safe = spec.safe === true;
      const idempotent = idempotentOf(spec, `defineService("${name}"): ${method}()`);
      descriptors.set(
        method,
        Object.freeze({ name: method, args: spec.args, returns: spec.returns ?? null, throws: spec.throws ?? [], idl: spec.idl, stream, safe, idempotent }),
      );
    }
    this.methodDescriptors = descriptors;
    Object.freeze(this);
  }

  /** The method names, in declaration order. */
  get methodNames(): readonly string[] {
    return [...this.methodDescriptors.keys()];
  }

  /** One method's descriptor. */
  getMethod(name: string): MethodDescriptor | undefined {
    return this.methodDescriptors.get(name);
  }
}

const IDL_STREAM_KINDS: Readonly<Record<string, StreamKind | undefined>> = Object.freeze({
  unary: undefined,
  'server-streaming': 'server',
  'client-streaming': 'client',
  'bidi-streaming': 'bidi',
});

/** The `idempotent` flag of a method spec, checked (`undefined` when not declared: idempotent). */
function idempotentOf(spec: MethodSpec, where: string): boolean | undefined {
  const declared: unknown = spec.idempotent;
  if (declared === undefined) return undefined;
  if (typeof declared !== 'boolean') {
    throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: idempotent must be true or false, got ${JSON.stringify(declared)}.`);
  }
  return declared;
}

/** The stream kind of a method spec, checked. */
function streamKindOf(spec: MethodSpec, where: string): StreamKind | undefined {
  const declared = spec.stream;
  if (declared !== undefined && declared !== 'server' && declared !== 'client' && declared !== 'bidi') {
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `${where}: stream ${JSON.stringify(declared)} is not a stream kind (expected "server", "client" or "bidi").`,
    );
  }
  const stream = declared ?? (spec.idl === undefined ? undefined : IDL_STREAM_KINDS[spec.idl.kind]);
  if ((stream === 'client' || stream === 'bidi') && spec.idl === undefined && spec.args !== undefined && spec.args.length !== 1) {
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `${where}: a ${stream}-streaming method takes one argument, the stream of requests; declare the type of each request as args: [Type].`,
    );
  }
  return stream;
}

/**
 * Defines a service interface: its name and methods with runtime types.
 *
 * @example
 * ```ts
 * export const Greeter = defineService('org.acme.Greeter', {
 *   sayHello: { args: [String], returns: String },
 * });
 * ```
 * @throws `ERR_SPI_INVALID_PARAMETER` for a malformed interface or method name, or an argument or return type that
 * is not a {@link TypeDescriptor} (a class's `fields` are checked when its values are first realised).
 */
export function defineService<const M extends Record<string, MethodSpec>>(name: string, methods: M): ServiceDefinition<M> {
  return new ServiceDefinition(name, methods);
}
