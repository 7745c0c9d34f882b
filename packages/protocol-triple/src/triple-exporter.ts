import { Exporter, type Invoker, type MethodDescriptor, type ServiceDefinition } from '@weft/core';

import type { TripleCodec } from './triple-codec.js';

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
  readonly codec: TripleCodec;
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
  readonly codec: TripleCodec;
  /** Calls of this service in flight. */
  readonly inflight = new InflightCounter();
  /** Response headers for `application/grpc` requests, and for `application/grpc+<codec>` ones (built once). */
  readonly bareResponseHeaders: Readonly<Record<string, string | number>>;
  readonly typedResponseHeaders: Readonly<Record<string, string | number>>;
  private readonly doUnexport: (exporter: TripleExporter) => Promise<void>;
  private unexported: Promise<void> | undefined;

  constructor(init: TripleExporterInit) {
    super();
    this.invoker = init.invoker;
    this.key = init.key;
    this.path = init.path;
    this.service = init.service;
    this.methods = init.methods;
    this.codec = init.codec;
    this.doUnexport = init.unexport;
    this.bareResponseHeaders = Object.freeze({ ':status': 200, 'content-type': 'application/grpc' });
    this.typedResponseHeaders = Object.freeze({ ':status': 200, 'content-type': init.codec.contentType });
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
