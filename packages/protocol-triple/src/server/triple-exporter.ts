import { Exporter, type Invoker, type MethodDescriptor, type ServiceDefinition } from '@weft/core';

import type { TripleCodec } from '../codec/triple-codec.js';

/**
 * A method a Triple server answers: its name and, when the service definition is known, its descriptor.
 *
 * @example
 * ```ts
 * const method: ServerMethod = { name: 'sayHello', descriptor: Greeter.getMethod('sayHello') };
 * ```
 */
export interface ServerMethod {
  readonly name: string;
  readonly descriptor: MethodDescriptor | undefined;
}

/**
 * Counts calls in flight and tells when none is left (graceful unexport and shutdown).
 *
 * @example
 * ```ts
 * counter.enter();
 * pending.finally(() => counter.exit());
 * await counter.whenIdle(10_000);
 * ```
 */
export class InflightCounter {
  /** Calls in flight. */
  count = 0;
  private waiters: (() => void)[] | undefined;

  enter(): void {
    this.count++;
  }

  exit(): void {
    if (--this.count === 0 && this.waiters !== undefined) {
      const waiters = this.waiters;
      this.waiters = undefined;
      for (const wake of waiters) wake();
    }
  }

  /** Resolves `true` once no call is in flight, or `false` after `timeoutMs`. */
  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      timer.unref?.();
      (this.waiters ??= []).push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

/** What a {@link TripleExporter} needs from its protocol. */
export interface TripleExporterInit {
  readonly invoker: Invoker;
  /** `[group/]path[:version]`. */
  readonly key: string;
  readonly path: string;
  readonly service: ServiceDefinition | undefined;
  readonly methods: ReadonlyMap<string, ServerMethod>;
  /** The codecs the service answers with: the first is its default (bare `application/grpc`). */
  readonly codecs: readonly TripleCodec[];
  /** The codec of plain-HTTP JSON calls, when not the server's (the protobuf JSON mapping for IDL services). */
  readonly plainCodec?: TripleCodec | undefined;
  /** Performs the unexport (unregisters, drains, destroys the invoker, closes an empty server). */
  readonly unexport: (exporter: TripleExporter) => Promise<void>;
}

/**
 * A service exported over `tri`: its entry in the server's service registry, and the handle that unexports it.
 *
 * @remarks `unexport()` removes the service from its server at once (new calls get UNIMPLEMENTED), waits for its
 * in-flight calls (up to the server's `shutdown-timeout`), destroys the invoker and, when it was the last service
 * on its port, shuts the server down gracefully. Idempotent.
 * @example
 * ```ts
 * const exporter = await protocol.export(invoker);
 * await exporter.unexport();
 * ```
 */
export class TripleExporter extends Exporter {
  readonly invoker: Invoker;
  readonly key: string;
  readonly path: string;
  readonly service: ServiceDefinition | undefined;
  readonly methods: ReadonlyMap<string, ServerMethod>;
  /** The default codec (the first of {@link TripleExporterInit.codecs}). */
  readonly codec: TripleCodec;
  readonly codecs: readonly TripleCodec[];
  /** The codec of plain-HTTP calls, when not the server's. */
  readonly plainCodec: TripleCodec | undefined;
  /** Calls of this service in flight. */
  readonly inflight = new InflightCounter();
  /** Response headers for `application/grpc` requests, and for `application/grpc+<codec>` ones (built once). */
  readonly bareResponseHeaders: Readonly<Record<string, string | number>>;
  readonly typedResponseHeaders: Readonly<Record<string, string | number>>;
  private readonly typedHeadersByCodec: ReadonlyMap<TripleCodec, Readonly<Record<string, string | number>>>;
  private readonly doUnexport: (exporter: TripleExporter) => Promise<void>;
  private unexported: Promise<void> | undefined;

  constructor(init: TripleExporterInit) {
    super();
    this.invoker = init.invoker;
    this.key = init.key;
    this.path = init.path;
    this.service = init.service;
    this.methods = init.methods;
    const codecs = init.codecs;
    if (codecs.length === 0) throw new TypeError('TripleExporter: at least one codec is needed.');
    this.codecs = codecs;
    this.codec = codecs[0] as TripleCodec;
    this.plainCodec = init.plainCodec;
    this.doUnexport = init.unexport;
    this.bareResponseHeaders = Object.freeze({ ':status': 200, 'content-type': 'application/grpc' });
    this.typedHeadersByCodec = new Map(codecs.map((c) => [c, Object.freeze({ ':status': 200, 'content-type': c.contentType })]));
    this.typedResponseHeaders = this.typedHeadersByCodec.get(this.codec) as Readonly<Record<string, string | number>>;
  }

  /** The codec for a request's `application/grpc[+subtype]`, if the service accepts it. */
  codecFor(subtype: string): TripleCodec | undefined {
    const first = this.codec;
    if (first.accepts(subtype)) return first;
    for (let i = 1; i < this.codecs.length; i++) {
      const codec = this.codecs[i] as TripleCodec;
      if (codec.accepts(subtype)) return codec;
    }
    return undefined;
  }

  /** The response headers of a call decoded by `codec` (`typed`: echo its content type, else `application/grpc`). */
  responseHeaders(codec: TripleCodec, typed: boolean): Readonly<Record<string, string | number>> {
    if (!typed) return this.bareResponseHeaders;
    return this.typedHeadersByCodec.get(codec) ?? this.typedResponseHeaders;
  }

  getInvoker(): Invoker {
    return this.invoker;
  }

  /** Whether `unexport()` was called. */
  get isUnexported(): boolean {
    return this.unexported !== undefined;
  }

  unexport(): Promise<void> {
    return (this.unexported ??= this.doUnexport(this));
  }

  /**
   * The method a call names: the exact name, else the name with its first letter lower-cased (`SayHello` reaches
   * `sayHello`, as in Dubbo).
   */
  findMethod(name: string): ServerMethod | undefined {
    const exact = this.methods.get(name);
    if (exact !== undefined || name.length === 0) return exact;
    const first = name.charAt(0);
    const lower = first.toLowerCase();
    return lower === first ? undefined : this.methods.get(lower + name.slice(1));
  }
}
