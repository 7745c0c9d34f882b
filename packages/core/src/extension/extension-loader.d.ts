import { type AbstractClass, type ActivateMetadata, type ActivateOptions, type Class, type SpiMetadata, type WrapperOptions } from './decorators.js';
import type { DiscoveryProblem, ManifestRecord } from './discovery.js';
import { type Injector } from './injector.js';
import type { URL } from '../rpc/url.js';
/**
 * What an {@link ExtensionLoader} needs from the scope that owns it.
 * @internal
 */
export interface LoaderHost {
    /** e.g. `application "orders"`. */
    readonly description: string;
    readonly injector: Injector;
    /** The resolution stack shared by a scope chain, for cycle detection. */
    readonly resolutionStack: string[];
    manifestRecords(pointId: string): readonly ManifestRecord[];
    /** Problems of one point's manifests, or (with `undefined`) those that belong to no point, such as missing dependencies. */
    discoveryProblems(pointId: string | undefined): readonly DiscoveryProblem[];
    getExtensionLoader<S>(spi: AbstractClass<S>): ExtensionLoader<S>;
    assertAlive(): void;
    warn(message: string, error?: unknown): void;
}
/** Where an extension class came from. */
export type ExtensionSource = {
    readonly kind: 'manifest';
    readonly record: ManifestRecord;
} | {
    readonly kind: 'programmatic';
};
/** Options of {@link ExtensionLoader.addExtension}, overriding the class's decorators. */
export interface AddExtensionOptions {
    /** Register as a wrapper (true, or wrapper options) instead of a named extension. */
    readonly wrapper?: boolean | WrapperOptions;
    /** Register as the hand-written adaptive class. */
    readonly adaptive?: boolean;
    /** Activation metadata (instead of `@Activate` on the class). */
    readonly activate?: ActivateOptions;
}
/**
 * Finds, creates and caches the extensions of one extension point within one scope.
 *
 * @remarks
 * **Loading model.** Manifest entries are known from discovery without importing code. `await load()` imports
 * every entry of this point once (in parallel), checks each class extends the SPI class, records failures,
 * and loads the extension points its classes inject, transitively. After that every lookup is synchronous:
 * `getExtension` on a created name is one `Map` lookup, and `getActivateExtensions` is cached per URL object,
 * key and group. A lookup before `load()` throws `ERR_SPI_NOT_LOADED` (a point no package contributes to
 * needs no load). `load()` rejects when any manifest entry is invalid, duplicated or fails to import — the
 * rest of the point stays usable, and a later lookup of the broken name reports what went wrong.
 *
 * **Instances** are singletons per scope, built through the scope's tsyringe container; two names mapped to
 * one class share the unwrapped instance. Wrappers apply around every extension they match, the smallest
 * `order` outermost.
 *
 * @example
 * ```ts
 * const loader = app.getExtensionLoader(Filter);
 * await loader.load();
 * const tps = loader.getExtension('tps');
 * const chain = loader.getActivateExtensions(url, 'service.filter', 'provider');
 * ```
 */
export declare class ExtensionLoader<T> {
    /** The extension point's abstract class. */
    readonly spi: AbstractClass<T>;
    private readonly host;
    /** The extension point's metadata (id, default name, scope, adaptive methods). */
    readonly point: SpiMetadata;
    private readonly extensions;
    private readonly classNames;
    private wrappers;
    private adaptiveDefinition;
    /** Names claimed twice: the message explaining by whom. */
    private readonly duplicates;
    /** Recorded load failures by name. */
    private readonly failures;
    private readonly instances;
    private readonly bareInstances;
    private readonly rawByClass;
    private adaptiveInstance;
    private adaptiveError;
    private activateCache;
    private candidates;
    private loaded;
    private loading;
    /** @internal Created by a scope: use `scope.getExtensionLoader(Spi)`. */
    constructor(
    /** The extension point's abstract class. */
    spi: AbstractClass<T>, host: LoaderHost);
    /** Whether `load()` has completed (or there was nothing to load). */
    get isLoaded(): boolean;
    /**
     * Imports every manifest entry of this extension point, and the extension points its classes inject.
     *
     * @remarks Idempotent and safe to call concurrently: the work happens once.
     * @throws `ERR_SPI_INVALID_MANIFEST`, `ERR_SPI_DUPLICATE_NAME`, `ERR_SPI_LOAD_FAILED` or `ERR_SPI_NOT_SUBCLASS`,
     * listing every problem of the point (the problems' own codes are on `cause`).
     */
    load(): Promise<void>;
    private doLoad;
    /** Loads the extension points the given classes inject; throws the first problem. */
    private loadDependenciesOf;
    /** Loads the extension points the given classes inject, returning the problems met. */
    private dependencyProblems;
    private allClasses;
    private importRecord;
    private registerFromManifest;
    private setAdaptive;
    private assertSubclass;
    /**
     * Registers an extension, wrapper or adaptive class programmatically (for applications and tests).
     *
     * @remarks The class's `@Activate`, `@Wrapper` and `@Adaptive` decorators say what it is, unless `options`
     * does. Registering clears cached activation results; wrappers added later apply to extensions created later.
     * @throws `ERR_SPI_DUPLICATE_NAME` when the name exists, `ERR_SPI_INVALID_NAME`, `ERR_SPI_NOT_SUBCLASS`.
     */
    addExtension(name: string, cls: Class<T>, options?: AddExtensionOptions): this;
    /**
     * Replaces the class registered under an existing name, dropping its cached instances.
     * @throws `ERR_SPI_NOT_FOUND` when the name is not registered.
     */
    replaceExtension(name: string, cls: Class<T>, options?: AddExtensionOptions): this;
    private invalidate;
    /**
     * Returns the extension registered under `name`, wrapped by the point's wrappers unless `wrap` is false.
     *
     * @remarks `"default"` and `"true"` mean the default extension. Singleton per scope; after the first call
     * for a name, a call is one `Map` lookup.
     * @throws `ERR_SPI_NOT_FOUND` (listing what is available and any recorded load failure for the name),
     * `ERR_SPI_DUPLICATE_NAME`, `ERR_SPI_NOT_LOADED`, `ERR_SPI_INSTANTIATION_FAILED`, `ERR_SPI_CYCLE`.
     */
    getExtension(name: string, wrap?: boolean): T;
    private createExtension;
    private instantiate;
    private resolveDependency;
    /** The default extension, or `undefined` when the point declares no default. */
    getDefaultExtension(): T | undefined;
    /** The default extension name, if any. */
    getDefaultExtensionName(): string | undefined;
    /** The named extension when registered, else the default. */
    getOrDefaultExtension(name: string | undefined): T | undefined;
    /** The already-created (wrapped) instance for `name`, without creating it. */
    getLoadedExtension(name: string): T | undefined;
    /** Whether an extension is registered under `name` (wrappers and adaptive classes are not named extensions). */
    hasExtension(name: string): boolean;
    /** The registered extension names, sorted. */
    getSupportedExtensions(): readonly string[];
    /** The names whose (wrapped) instances have been created, sorted. */
    getLoadedExtensions(): readonly string[];
    /** The first name under which an extension class (or an instance of it) is registered. */
    getExtensionName(extension: object | Class<T>): string | undefined;
    /** Where the named extension came from (package and manifest, or programmatic). */
    getExtensionSource(name: string): ExtensionSource | undefined;
    /** The activation metadata of a named extension. */
    getActivateMetadata(name: string): ActivateMetadata | undefined;
    /**
     * Returns the adaptive extension: the registered `@Adaptive` class, or one generated from the point's
     * adaptive methods that picks the extension per call from the URL.
     * @throws `ERR_SPI_ADAPTIVE_FAILED` when the point has neither (the error is kept and rethrown on every call).
     */
    getAdaptiveExtension(): T;
    /**
     * Returns the extensions to activate for a URL, in chain order.
     *
     * @param url - the URL whose parameters decide (value conditions, the names list).
     * @param keyOrValues - a URL key holding a comma list of names (e.g. `service.filter`), or the list itself.
     * @param group - only extensions activated in this group (`provider`, `consumer`); none: every group.
     * @remarks Dubbo 3.x selection (see `docs/guide/writing-an-extension.md`): automatic activation by group and
     * URL keys, the names list with `default` placement, `-name` and `-default` removal, explicit names included
     * even without `@Activate`; ordered by `order`, `before`/`after` constraints, then name. The result is frozen
     * and cached per URL object, key and group.
     * @throws `ERR_SPI_CYCLE` when before/after constraints form a cycle.
     */
    getActivateExtensions(url: URL, keyOrValues?: string | readonly string[], group?: string): readonly T[];
    /**
     * Explains activation: the names `getActivateExtensions` would return, in order, without creating instances.
     *
     * @remarks Same arguments and rules as {@link ExtensionLoader.getActivateExtensions}; not cached. Tools
     * (`weft explain`) and plugin tests use it to assert activation.
     */
    selectActivateNames(url: URL, keyOrValues?: string | readonly string[], group?: string): string[];
    private activateCandidates;
    /**
     * Calls `destroy()` on every instance created by this loader (outermost wrappers and bare instances), once
     * each; errors are logged, never thrown.
     * @internal Called by the owning scope.
     */
    destroyInstances(): void;
    private assertLoaded;
    private describeAvailable;
    private notFound;
}
//# sourceMappingURL=extension-loader.d.ts.map