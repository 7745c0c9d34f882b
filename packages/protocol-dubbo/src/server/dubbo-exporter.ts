import { Exporter, type Invoker, type ServiceDefinition } from '@weft/core/spi';

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

/**
 * Normalises a service version for lookup: `""`, `"0.0.0"` and `"*"` all mean "no version", as in Dubbo.
 *
 * @example
 * ```ts
 * exporterKey(undefined, 'org.acme.Greeter', '0.0.0'); // 'org.acme.Greeter'
 * ```
 */
export function exporterKey(group: string | undefined, path: string, version: string | undefined): string {
  const v = version === undefined || version === '' || version === '0.0.0' || version === '*' ? '' : `:${version}`;
  return `${group ? `${group}/` : ''}${path}${v}`;
}

/** What a {@link DubboExporter} is made of. */
export interface DubboExporterInit {
  readonly invoker: Invoker;
  readonly path: string;
  readonly group: string | undefined;
  readonly version: string | undefined;
  readonly service: ServiceDefinition | undefined;
  readonly unexport: (exporter: DubboExporter) => Promise<void>;
}

/**
 * A service exported over `dubbo`: its entry in the server (by `group/path:version`), and the handle that unexports it.
 *
 * @remarks `unexport()` removes the service from its server at once (new calls get status 70), waits for its in-flight
 * calls (up to `shutdown-timeout`), destroys the invoker and, when it was the last service on its port, shuts the
 * server down gracefully (the `readonly` event first). Idempotent.
 *
 * @example
 * ```ts
 * const exporter = await protocol.export(invoker);
 * await exporter.unexport();
 * ```
 */
export class DubboExporter extends Exporter {
  readonly invoker: Invoker;
  readonly path: string;
  readonly key: string;
  readonly service: ServiceDefinition | undefined;
  readonly inflight = new InflightCounter();
  private readonly doUnexport: (exporter: DubboExporter) => Promise<void>;
  private unexported: Promise<void> | undefined;

  constructor(init: DubboExporterInit) {
    super();
    this.invoker = init.invoker;
    this.path = init.path;
    this.key = exporterKey(init.group, init.path, init.version);
    this.service = init.service;
    this.doUnexport = init.unexport;
  }

  getInvoker(): Invoker {
    return this.invoker;
  }

  unexport(): Promise<void> {
    return (this.unexported ??= this.doUnexport(this));
  }
}
