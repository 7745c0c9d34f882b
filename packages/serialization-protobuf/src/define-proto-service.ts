import type { DescMessage, DescMethod, DescService, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { MethodOptions_IdempotencyLevel } from '@bufbuild/protobuf/wkt';
import { defineService, ExtensionError, ExtensionErrorCode, type IdlMethod, type ServiceDefinition } from '@weft/core';

/** The `weft.rpc.Serialization` extension that encodes the messages of proto services. */
export const PROTOBUF_SERIALIZATION = 'protobuf';

/**
 * Weft's name of a protobuf `methodKind` (`server_streaming` → `server-streaming`).
 *
 * @example
 * ```ts
 * type K = ProtoMethodKind<'bidi_streaming'>; // 'bidi-streaming'
 * ```
 */
export type ProtoMethodKind<K extends DescMethod['methodKind']> = K extends 'server_streaming'
  ? 'server-streaming'
  : K extends 'client_streaming'
    ? 'client-streaming'
    : K extends 'bidi_streaming'
      ? 'bidi-streaming'
      : 'unary';

/**
 * The method spec `defineProtoService` makes of one RPC: its IDL messages and its kind, typed.
 *
 * @example
 * ```ts
 * type SayHello = ProtoMethodSpec<typeof HelloRequestSchema, typeof HelloReplySchema>;
 * ```
 */
export interface ProtoMethodSpec<I extends DescMessage, O extends DescMessage, K extends DescMethod['methodKind'] = 'unary'> {
  readonly idl: IdlMethod<MessageShape<I>, MessageShape<O>, MessageInitShape<I>, MessageInitShape<O>> & { readonly kind: ProtoMethodKind<K> };
}

/** The method specs of a generated service, by the methods' local names (`sayHello` for `SayHello`). */
export type ProtoMethods<S extends GenServiceMethods> = {
  readonly [K in keyof S]: ProtoMethodSpec<S[K]['input'], S[K]['output'], S[K]['methodKind']>;
};

const KINDS = Object.freeze({
  unary: 'unary',
  server_streaming: 'server-streaming',
  client_streaming: 'client-streaming',
  bidi_streaming: 'bidi-streaming',
} as const);

/**
 * Defines a Weft service from a protobuf service descriptor — the `GenService` `protoc-gen-es` v2 generates from
 * a `.proto` — so the proxy and the implementation are typed by its messages.
 *
 * @remarks
 * The service name is the protobuf one (`weft.example.v1.Greeter`, the gRPC path), the methods are the RPCs by
 * their local names (`sayHello`; the wire uses `SayHello`). Each method takes exactly one request message and
 * answers one response message — no argument array. A consumer passes a message or an init shape
 * (`{ name: 'world' }`) and receives a full message; an implementation receives the decoded message and may return
 * an init shape. The messages travel with the `protobuf` serialization of this package (binary on
 * `application/grpc`/`application/grpc+proto`, the protobuf JSON mapping on `application/grpc+json` and on plain
 * HTTP). Streaming RPCs stream: a server-streaming method returns an async iterable to the consumer (`for await`)
 * and is implemented by an async generator; a client-streaming one takes an iterable of requests and answers one
 * message; a bidi one takes an iterable and returns an async iterable (see the `@weft/protocol-triple` README).
 *
 * @example
 * ```ts
 * import { Greeter } from './gen/weft/example/v1/greeter_pb.js';
 * const GreeterService = defineProtoService(Greeter);
 * await app.export(GreeterService, { sayHello: (req) => ({ message: `Hello, ${req.name}!` }) }, { protocol: 'tri' });
 * const greeter = await app.refer(GreeterService, { url: 'tri://127.0.0.1:50051' });
 * (await greeter.sayHello({ name: 'world' })).message; // 'Hello, world!'
 * ```
 * @throws `ERR_SPI_INVALID_PARAMETER` for a value that is not a service descriptor.
 */
export function defineProtoService<S extends GenServiceMethods>(service: GenService<S>): ServiceDefinition<ProtoMethods<S>> {
  const desc = service as unknown as DescService;
  if (desc === null || typeof desc !== 'object' || desc.kind !== 'service' || !Array.isArray(desc.methods)) {
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      'defineProtoService(): expected a protobuf service descriptor (the GenService protoc-gen-es generates, e.g. `Greeter` from greeter_pb.ts).',
    );
  }
  const methods: Record<string, { readonly idl: IdlMethod; readonly safe: boolean }> = {};
  for (const method of desc.methods) {
    const idl: IdlMethod = Object.freeze({
      serialization: PROTOBUF_SERIALIZATION,
      input: method.input,
      output: method.output,
      name: method.name,
      kind: KINDS[method.methodKind],
      descriptor: method,
    });
    // `option idempotency_level = NO_SIDE_EFFECTS` declares the method safe (plain-HTTP GET may invoke it).
    methods[method.localName] = Object.freeze({ idl, safe: method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS });
  }
  return defineService(desc.typeName, methods) as unknown as ServiceDefinition<ProtoMethods<S>>;
}
