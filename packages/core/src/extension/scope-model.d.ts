import { type Logger } from '../common/logger.js';
import { type AbstractClass, type ExtensionScope } from './decorators.js';
import type { DiscoveryProblem, ManifestIndex, ManifestRecord } from './discovery.js';
import { ExtensionLoader, type LoaderHost } from './extension-loader.js';
import { Injector, type ServiceToken } from './injector.js';
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
export declare abstract class ScopeModel implements LoaderHost {
    /** The parent scope, if any. */
    readonly parent: ScopeModel | undefined;
    /** Which scope level this is. */
    abstract readonly kind: ExtensionScope;
    /** @internal */
    readonly injector: Injector;
    /** The logger of this scope (also injectable as `Logger`). */
    readonly logger: Logger;
    private readonly loaders;
    private readonly destroyHooks;
    private destroyed;
    private readonly ownStack;
    protected constructor(
    /** The parent scope, if any. */
    parent: ScopeModel | undefined, logger: Logger);
    /** Registers this scope and its logger as injectable services; called by subclass constructors. */
    protected registerSelf(token: ServiceToken, logger: ServiceToken): void;
    /** What discovery found under the application root. */
    abstract get index(): ManifestIndex;
    /** e.g. `application "orders"`, for messages. */
    abstract get description(): string;
    /** @internal The resolution stack shared by the whole scope chain. */
    get resolutionStack(): string[];
    /** Whether `destroy()` has run. */
    get isDestroyed(): boolean;
    /** @internal */
    manifestRecords(pointId: string): readonly ManifestRecord[];
    /** @internal */
    discoveryProblems(pointId: string | undefined): readonly DiscoveryProblem[];
    /** @internal */
    warn(message: string, error?: unknown): void;
    /** @internal */
    assertAlive(): void;
    /**
     * The loader of an extension point, owned by this scope or (for framework points) by its framework.
     *
     * @throws `ERR_SPI_NOT_AN_SPI` when `spi` is not marked `@SPI`; `ERR_SPI_SCOPE_MISMATCH` when an application
     * point is asked of the framework; `ERR_SPI_NOT_SUBCLASS` when another class already claims the same id.
     */
    getExtensionLoader<T>(spi: AbstractClass<T>): ExtensionLoader<T>;
    /**
     * Loads extension points (imports their manifest entries) so that lookups on them can be synchronous.
     * @throws the first point's load error, after every point was attempted.
     */
    loadExtensions(...spis: AbstractClass[]): Promise<void>;
    /** Registers a service injectable into extensions of this scope (and its children) with `@Inject(token)`. */
    registerService<S>(token: ServiceToken<S>, value: S): void;
    /** Whether a service is registered under `token` in this scope or a parent. */
    hasService(token: ServiceToken): boolean;
    /** Resolves a registered service. */
    getService<S>(token: ServiceToken<S>): S;
    /** Runs `hook` when this scope is destroyed (in reverse registration order). */
    onDestroy(hook: () => void | Promise<void>): void;
    /** Destroys children first, then this scope's extension instances (`destroy()`), then its hooks. Idempotent. */
    destroy(): Promise<void>;
    /** Destroys child scopes. */
    protected destroyChildren(): Promise<void>;
}
//# sourceMappingURL=scope-model.d.ts.map