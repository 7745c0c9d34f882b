import type { DescService } from '@bufbuild/protobuf';
import { defineService } from '@weft/core';
import { Invoker, Result, RpcError, RpcErrorCode, URL, type Invocation, type IdlMethod, type ServiceDefinition } from '@weft/core/spi';

import { GrpcStatus } from '../codec/grpc-status.js';
import { TripleExporter, type ServerMethod } from '../server/triple-exporter.js';
import { BuiltinCodec } from './builtin-codec.js';
import { Health } from './gen/grpc/health/v1/health_pb.js';
import { ServerReflection as ServerReflectionV1 } from './gen/grpc/reflection/v1/reflection_pb.js';
import { ServerReflection as ServerReflectionV1Alpha } from './gen/grpc/reflection/v1alpha/reflection_pb.js';
import { HealthStatus, ServingStatus } from './health-status.js';
import { ReflectionIndex } from './reflection-index.js';
import { answerReflection, quoted, type ReflectionRequest } from './reflection-service.js';

/** Which built-in services a server answers (URL keys `health` and `reflection`). */
export interface BuiltinOptions {
  readonly health: boolean;
  readonly reflection: boolean;
}

/** A built-in method: the request message (or the request stream) in; a value, a promise or an async iterable out. */
type Handler = (request: never, invocation: Invocation) => unknown;

/** gRPC's limit of `Health/List`. */
const LIST_LIMIT = 100;

const KINDS = { unary: 'unary', server_streaming: 'server-streaming', client_streaming: 'client-streaming', bidi_streaming: 'bidi-streaming' } as const;

/**
 * The built-in gRPC services of one Triple server: `grpc.health.v1.Health` (`Check`, `List`, `Watch`) and server
 * reflection `grpc.reflection.v1.ServerReflection` and `grpc.reflection.v1alpha.ServerReflection`.
 *
 * @remarks
 * They answer calls no exported service matches (an exported service of the same name wins), never pass the provider
 * filter chain (no `token`/`tps` on health checks), are never registered, and ignore group/version headers. The
 * server reports its exports ({@link BuiltinServices.added}/{@link BuiltinServices.removed}): health sets the service
 * key and the interface name SERVING, and NOT_SERVING on unexport (the interface name only once no export of it is
 * left); reflection describes the exported services defined from a `.proto` (their files and every dependency).
 * {@link BuiltinServices.shutdown} (graceful shutdown) turns every status NOT_SERVING and ends the Watch streams.
 *
 * @example
 * ```ts
 * const exported = new Map<string, TripleExporter>(); // the server's services by key
 * const builtins = new BuiltinServices('127.0.0.1', 50051, '127.0.0.1:50051', { health: true, reflection: true }, () => exported.values());
 * builtins.find('grpc.health.v1.Health'); // the exporter answering health checks
 * ```
 */
export class BuiltinServices {
  /** The health statuses (present when `health` is on). */
  readonly health: HealthStatus | undefined;
  private readonly byPath = new Map<string, TripleExporter>();
  private readonly builtinDescs: DescService[] = [];
  private index: ReflectionIndex | undefined;

  constructor(
    host: string,
    port: number,
    private readonly address: string,
    options: BuiltinOptions,
    private readonly exporters: () => Iterable<TripleExporter>,
  ) {
    const codec = new BuiltinCodec();
    const url = (path: string) => new URL({ protocol: 'tri', host, port, path });
    const add = (desc: DescService, handlers: Record<string, Handler>) => {
      const service = defineBuiltin(desc);
      const methods = new Map<string, ServerMethod>();
      for (const [name, descriptor] of service.methodDescriptors) methods.set(name, { name, descriptor });
      const invoker = new BuiltinInvoker(url(desc.typeName), service, handlers);
      const exporter = new TripleExporter({ invoker, key: desc.typeName, path: desc.typeName, service, methods, codecs: [codec], unexport: async () => {} });
      this.byPath.set(desc.typeName, exporter);
      this.builtinDescs.push(desc);
    };
    if (options.health) {
      const health = new HealthStatus(address);
      this.health = health;
      add(Health as unknown as DescService, {
        check: (request: { service: string }) => this.check(request.service),
        list: () => this.list(),
        watch: (request: { service: string }, invocation: Invocation) => health.watch(request.service, invocation.signal),
      });
    }
    if (options.reflection) {
      const index = () => (this.index ??= this.buildIndex());
      const reflect = (requests: AsyncIterable<ReflectionRequest>) => answerReflection(requests, index);
      add(ServerReflectionV1 as unknown as DescService, { serverReflectionInfo: reflect });
      add(ServerReflectionV1Alpha as unknown as DescService, { serverReflectionInfo: reflect });
    }
  }

  /** The built-in service answering `path`, if it is one and turned on. */
  find(path: string): TripleExporter | undefined {
    return this.byPath.get(path);
  }

  /** A service was exported: its key, its interface name and the server are SERVING; reflection describes it. */
  added(exporter: TripleExporter): void {
    this.index = undefined;
    const health = this.health;
    if (health === undefined) return;
    health.set(exporter.key, ServingStatus.SERVING);
    health.set(exporter.path, ServingStatus.SERVING);
    health.set('', ServingStatus.SERVING);
  }

  /**
   * A service was unexported: its key is NOT_SERVING, its interface name too unless `pathStillServed`, and the
   * server too when it was the last one (the server closes once its calls drained, unless something is exported
   * meanwhile).
   */
  removed(exporter: TripleExporter, pathStillServed: boolean, last: boolean): void {
    this.index = undefined;
    const health = this.health;
    if (health === undefined) return;
    health.set(exporter.key, ServingStatus.NOT_SERVING);
    if (!pathStillServed) health.set(exporter.path, ServingStatus.NOT_SERVING);
    if (last) health.set('', ServingStatus.NOT_SERVING);
  }

  /** Graceful shutdown started: every status NOT_SERVING, every Watch stream ends (UNAVAILABLE) after it. */
  shutdown(): void {
    this.health?.shutdown();
  }

  private check(service: string): { status: ServingStatus } {
    const status = this.health?.get(service);
    if (status === undefined) {
      const known = [...(this.health?.entries() ?? [])].map(([name]) => (name === '' ? '"" (the server)' : name));
      throw new RpcError(
        RpcErrorCode.BIZ,
        `Unknown service ${quoted(service)}: nothing is exported under that name on the tri server ${this.address} (known: ${known.slice(0, 10).join(', ')}${known.length > 10 ? ', …' : ''}).`,
        { grpcStatus: GrpcStatus.NOT_FOUND },
      );
    }
    return { status };
  }

  private list(): { statuses: Record<string, { status: ServingStatus }> } {
    const statuses: Record<string, { status: ServingStatus }> = Object.create(null) as Record<string, { status: ServingStatus }>;
    let count = 0;
    for (const [name, status] of this.health?.entries() ?? []) {
      if (++count > LIST_LIMIT) {
        throw new RpcError(RpcErrorCode.LIMIT_EXCEEDED, `Health/List: more than ${LIST_LIMIT} services on ${this.address}; use Check or Watch per service.`, {
          grpcStatus: GrpcStatus.RESOURCE_EXHAUSTED,
        });
      }
      statuses[name] = { status };
    }
    return { statuses };
  }

  private buildIndex(): ReflectionIndex {
    const services = new Map<string, DescService>();
    for (const exporter of this.exporters()) {
      for (const method of exporter.service?.methodDescriptors.values() ?? []) {
        const service = protoServiceOf(method.idl);
        if (service !== undefined) services.set(service.typeName, service);
      }
    }
    for (const desc of this.builtinDescs) if (!services.has(desc.typeName)) services.set(desc.typeName, desc);
    return new ReflectionIndex(services.values());
  }
}

/** The protobuf service of an IDL method that kept its `DescMethod` (`defineProtoService` does). */
function protoServiceOf(idl: IdlMethod | undefined): DescService | undefined {
  const method = idl?.descriptor as { kind?: unknown; parent?: { kind?: unknown; file?: { proto?: unknown } } } | undefined;
  if (method?.kind !== 'rpc' || method.parent?.kind !== 'service' || method.parent.file?.proto === undefined) return undefined;
  return method.parent as unknown as DescService;
}

/** A Weft service definition of a built-in, from its generated descriptor (messages by our generated schemas). */
function defineBuiltin(desc: DescService): ServiceDefinition {
  const methods: Record<string, { readonly idl: IdlMethod }> = {};
  for (const method of desc.methods) {
    methods[method.localName] = {
      idl: { serialization: 'protobuf', input: method.input, output: method.output, name: method.name, kind: KINDS[method.methodKind], descriptor: method },
    };
  }
  return defineService(desc.typeName, methods);
}

/**
 * The invoker of a built-in service: calls its handler directly (no filter chain), the request stream or message
 * as the argument.
 */
class BuiltinInvoker extends Invoker {
  constructor(
    private readonly url: URL,
    private readonly service: ServiceDefinition,
    private readonly handlers: Record<string, Handler>,
  ) {
    super();
  }

  getUrl(): URL {
    return this.url;
  }

  override getService(): ServiceDefinition {
    return this.service;
  }

  invoke(invocation: Invocation): Result | Promise<Result> {
    const handler = this.handlers[invocation.methodName];
    if (handler === undefined) {
      return Result.ofException(new RpcError(RpcErrorCode.METHOD_NOT_FOUND, `${this.service.name} has no method ${invocation.methodName}.`, { grpcStatus: GrpcStatus.UNIMPLEMENTED }));
    }
    try {
      const value = handler(invocation.args[0] as never, invocation);
      if (value instanceof Promise) return value.then((v: unknown) => Result.of(v), (e: unknown) => Result.ofException(e));
      return Result.of(value);
    } catch (error) {
      return Result.ofException(error);
    }
  }
}
