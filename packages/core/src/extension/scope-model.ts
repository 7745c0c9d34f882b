import { safeLog, type Logger } from '../common/logger.js';
import { requireSpiMetadata, type AbstractClass, type ExtensionScope } from './decorators.js';
import type { DiscoveryProblem, ManifestIndex, ManifestRecord } from './discovery.js';
import { ExtensionError, ExtensionErrorCode } from './extension-error.js';
import { ExtensionLoader, type LoaderHost } from './extension-loader.js';
import { Injector, type ServiceToken } from './injector.js';

/**
 * How long, in ms, `load()` waits for an extension module's import (its top-level await included) before it
 * fails with `ERR_SPI_LOAD_TIMEOUT` naming the module. Change it with `FrameworkModel.create({ importTimeout })`
 * or `WeftApplication.start({ importTimeout })`.
 * @example
 * ```ts
 * FrameworkModel.create({ root, importTimeout: 2 * DEFAULT_IMPORT_TIMEOUT });
 * ```
 */
export const DEFAULT_IMPORT_TIMEOUT = 10_000;

/**
 * A scope that owns extension loaders, their singleton instances and a tsyringe container.
 *
 * @remarks
 * Scopes form a chain: an {@link ApplicationModel} is a child of a {@link FrameworkModel}. An extension point
 * declared with `scope: 'framework'` has one loader in the framework, shared by its applications; one with
 * `scope: 'application'` (the default) has a loader per application. Nothing is cached at module level:
 * two frameworks — or two applications — in one process share no state.
 *
 * @example
 * ```ts
 * const framework = FrameworkModel.create({ root: process.cwd() });
 * const app = framework.newApplication('orders');
 * await app.loadExtensions(Filter);
 * const filters = app.getExtensionLoader(Filter).getSupportedExtensions();
 * await framework.destroy();
 * ```
 */
export abstract class ScopeModel implements LoaderHost {
  /** Which scope level this is. */
  abstract readonly kind: ExtensionScope;
  /** @internal */
  readonly injector: Injector;
  /** The logger of this scope (also injectable as `Logger`). */
  readonly logger: Logger;

  private readonly loaders = new Map<string, ExtensionLoader<unknown>>();
  private readonly destroyHooks: Array<() => void | Promise<void>> = [];
  private destroyed = false;
  private destroying: Promise<void> | undefined;
  private readonly ownStack: string[] = [];

  protected constructor(
    /** The parent scope, if any. */
    readonly parent: ScopeModel | undefined,
    logger: Logger,
  ) {
    this.logger = logger;
    this.injector = new Injector(parent?.injector);
  }

  /** Registers this scope and its logger as injectable services; called by subclass constructors. */
  protected registerSelf(token: ServiceToken, logger: ServiceToken): void {
    this.injector.registerValue(token, this);
    this.injector.registerValue(logger, this.logger);
  }

  /** What discovery found under the application root. */
  abstract get index(): ManifestIndex;

  /** e.g. `application "orders"`, for messages. */
  abstract get description(): string;

  /**
   * How long `load()` waits for one extension module to import, in ms (the framework's `importTimeout`).
   * @defaultValue {@link DEFAULT_IMPORT_TIMEOUT}
   */
  get importTimeout(): number {
    return this.parent?.importTimeout ?? DEFAULT_IMPORT_TIMEOUT;
  }

  /** @internal The resolution stack shared by the whole scope chain. */
  get resolutionStack(): string[] {
    return this.parent?.resolutionStack ?? this.ownStack;
  }

  /** Whether `destroy()` has run. */
  get isDestroyed(): boolean {
    return this.destroyed;
  }

  /** @internal */
  manifestRecords(pointId: string): readonly ManifestRecord[] {
    return this.index.records.get(pointId) ?? [];
  }

  /** @internal */
  discoveryProblems(pointId: string | undefined): readonly DiscoveryProblem[] {
    return this.index.problems.filter((p) => p.pointId === pointId);
  }

  /** @internal */
  warn(message: string, error?: unknown): void {
    safeLog(this.logger, 'warn', message, error);
  }

  /** @internal */
  assertAlive(): void {
    if (this.destroyed) {
      throw new ExtensionError(ExtensionErrorCode.DESTROYED, `${this.description} has been destroyed; create a new one.`);
    }
  }

  /**
   * The loader of an extension point, owned by this scope or (for framework points) by its framework.
   *
   * @throws `ERR_SPI_NOT_AN_SPI` when `spi` is not marked `@SPI`; `ERR_SPI_SCOPE_MISMATCH` when an application
   * point is asked of the framework; `ERR_SPI_NOT_SUBCLASS` when another class already claims the same id.
   */
  getExtensionLoader<T>(spi: AbstractClass<T>): ExtensionLoader<T> {
    this.assertAlive();
    const meta = requireSpiMetadata(spi, 'getExtensionLoader()');
    if (meta.scope !== this.kind) {
      if (this.parent !== undefined && meta.scope === this.parent.kind) return this.parent.getExtensionLoader(spi);
      throw new ExtensionError(
        ExtensionErrorCode.SCOPE_MISMATCH,
        `Extension point ${meta.id} has scope "${meta.scope}" and cannot be used from ${this.description}. ` +
          `Ask an ${meta.scope} scope for it (e.g. framework.newApplication().getExtensionLoader(${meta.className})).`,
      );
    }
    const existing = this.loaders.get(meta.id);
    if (existing !== undefined) {
      if (existing.spi !== spi) {
        throw new ExtensionError(
          ExtensionErrorCode.NOT_SUBCLASS,
          `Two different classes claim extension point id ${meta.id} in ${this.description}: usually two copies of the ` +
            `package that defines ${meta.className} are installed. Run "npm ls" for that package and dedupe.`,
        );
      }
      return existing as ExtensionLoader<T>;
    }
    const loader = new ExtensionLoader<T>(spi, this);
    this.loaders.set(meta.id, loader as ExtensionLoader<unknown>);
    return loader;
  }

  /**
   * Loads extension points (imports their manifest entries) so that lookups on them can be synchronous.
   * @throws the first point's load error, after every point was attempted.
   */
  async loadExtensions(...spis: AbstractClass[]): Promise<void> {
    const results = await Promise.allSettled(spis.map((spi) => this.getExtensionLoader(spi).load()));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  /** Registers a service injectable into extensions of this scope (and its children) with `@Inject(token)`. */
  registerService<S>(token: ServiceToken<S>, value: S): void {
    this.assertAlive();
    this.injector.registerValue(token, value);
  }

  /** Whether a service is registered under `token` in this scope or a parent. */
  hasService(token: ServiceToken): boolean {
    return this.injector.isRegistered(token);
  }

  /** Resolves a registered service. */
  getService<S>(token: ServiceToken<S>): S {
    return this.injector.resolveService(token);
  }

  /** Runs `hook` when this scope is destroyed (in reverse registration order). */
  onDestroy(hook: () => void | Promise<void>): void {
    this.destroyHooks.push(hook);
  }

  /**
   * Destroys children first, then runs this scope's hooks, then calls `destroy()` on its extension instances
   * (awaiting asynchronous ones). Idempotent.
   */
  destroy(): Promise<void> {
    return (this.destroying ??= this.doDestroy());
  }

  private async doDestroy(): Promise<void> {
    await this.destroyChildren();
    this.destroyed = true;
    for (const hook of this.destroyHooks.reverse()) {
      try {
        await hook();
      } catch (error) {
        this.warn(`a destroy hook of ${this.description} failed`, error);
      }
    }
    for (const loader of [...this.loaders.values()].reverse()) await loader.destroyInstances();
    this.loaders.clear();
  }

  /** Destroys child scopes. */
  protected async destroyChildren(): Promise<void> {}
}
