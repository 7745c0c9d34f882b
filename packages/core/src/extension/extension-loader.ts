import { selectActivated } from './activate.js';
import { createAdaptiveExtension } from './adaptive.js';
import {
  getActivateMetadata,
  getSpiMetadata,
  getWrapperMetadata,
  isAdaptiveClass,
  normalizeActivate,
  normalizeWrapper,
  type AbstractClass,
  type ActivateMetadata,
  type ActivateOptions,
  type Class,
  type SpiMetadata,
  type WrapperMetadata,
  type WrapperOptions,
} from './decorators.js';
import type { DiscoveryProblem, ManifestRecord } from './discovery.js';
import { ExtensionDefinitions, type ExtensionSource, type WrapperDefinition } from './extension-definitions.js';
import { describeError, ExtensionError, ExtensionErrorCode } from './extension-error.js';
import { describeAvailable, describeMissing, describeSource, notFound } from './extension-messages.js';
import type { Dependency, Injector } from './injector.js';
import { loadDependenciesOf, loadFromManifests } from './manifest-loading.js';
import { assertExtensionName, splitCommaList } from './names.js';
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
  /** How long one extension module may take to import, in ms. */
  readonly importTimeout: number;
  manifestRecords(pointId: string): readonly ManifestRecord[];
  /** Problems of one point's manifests, or (with `undefined`) those that belong to no point, such as missing dependencies. */
  discoveryProblems(pointId: string | undefined): readonly DiscoveryProblem[];
  getExtensionLoader<S>(spi: AbstractClass<S>): ExtensionLoader<S>;
  assertAlive(): void;
  warn(message: string, error?: unknown): void;
}

export type { ExtensionSource };

/** Options of {@link ExtensionLoader.addExtension}, overriding the class's decorators. */
export interface AddExtensionOptions {
  /** Register as a wrapper (true, or wrapper options) instead of a named extension. */
  readonly wrapper?: boolean | WrapperOptions;
  /** Register as the hand-written adaptive class. */
  readonly adaptive?: boolean;
  /** Activation metadata (instead of `@Activate` on the class). */
  readonly activate?: ActivateOptions;
}

/** Options of {@link ExtensionLoader.replaceExtension}: named extensions only (no `wrapper`, no `adaptive`). */
export type ReplaceExtensionOptions = Pick<AddExtensionOptions, 'activate'>;

type GroupCache<T> = Map<string, readonly T[]>;

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
export class ExtensionLoader<T> {
  /** The extension point's metadata (id, default name, scope, adaptive methods). */
  readonly point: SpiMetadata;

  /** The registered classes (named, wrappers, adaptive), duplicates and failures: everything but instances. */
  private readonly definitions: ExtensionDefinitions;

  private readonly instances = new Map<string, T>();
  private readonly bareInstances = new Map<string, T>();
  private readonly rawByClass = new Map<Function, T>();
  private adaptiveInstance: T | undefined;
  private adaptiveError: ExtensionError | undefined;
  private activateCache = new WeakMap<object, Map<string, GroupCache<T>>>();

  private loaded: boolean;
  private loading: Promise<void> | undefined;

  /** @internal Created by a scope: use `scope.getExtensionLoader(Spi)`. */
  constructor(
    /** The extension point's abstract class. */
    readonly spi: AbstractClass<T>,
    private readonly host: LoaderHost,
  ) {
    this.point = getSpiMetadata(spi) as SpiMetadata;
    this.definitions = new ExtensionDefinitions(spi, this.point);
    this.loaded = host.manifestRecords(this.point.id).length === 0 && host.discoveryProblems(this.point.id).length === 0;
  }

  /** Whether `load()` has completed (or there was nothing to load). */
  get isLoaded(): boolean {
    return this.loaded;
  }

  /**
   * Imports every manifest entry of this extension point, and the extension points its classes inject.
   *
   * @remarks Idempotent and safe to call concurrently: the work happens once.
   * @throws `ERR_SPI_INVALID_MANIFEST`, `ERR_SPI_DUPLICATE_NAME`, `ERR_SPI_LOAD_FAILED` or `ERR_SPI_NOT_SUBCLASS`,
   * listing every problem of the point (the problems' own codes are on `cause`).
   */
  load(): Promise<void> {
    this.host.assertAlive();
    if (this.loading === undefined) {
      const { definitions, host } = this;
      this.loading = this.loaded
        ? loadDependenciesOf(definitions, host, definitions.allClasses())
        : loadFromManifests(definitions, host, () => {
            this.invalidate();
            this.loaded = true;
          });
    }
    return this.loading;
  }

  /**
   * Registers an extension, wrapper or adaptive class programmatically (for applications and tests).
   *
   * @remarks The class's `@Activate`, `@Wrapper` and `@Adaptive` decorators say what it is, unless `options`
   * does. Registering clears cached activation results; wrappers added later apply to extensions created later.
   * An adaptive class is refused once the adaptive extension has been created (Dubbo: "Adaptive Extension
   * already exists"): two live adaptive instances would be a bug.
   * @throws `ERR_SPI_DUPLICATE_NAME` when the name exists, `ERR_SPI_INVALID_NAME`, `ERR_SPI_NOT_SUBCLASS`,
   * `ERR_SPI_ADAPTIVE_FAILED` for an adaptive class added after the adaptive extension was handed out.
   */
  addExtension(name: string, cls: Class<T>, options: AddExtensionOptions = {}): this {
    this.host.assertAlive();
    assertExtensionName(name, `addExtension() on ${this.point.id}`);
    const definitions = this.definitions;
    definitions.assertSubclass(cls, `addExtension("${name}") on ${this.point.id}`);
    const source: ExtensionSource = { kind: 'programmatic' };
    const existing = definitions.extensions.get(name) ?? definitions.wrappers.find((w) => w.name === name);
    if (existing !== undefined || definitions.duplicates.has(name)) {
      throw new ExtensionError(
        ExtensionErrorCode.DUPLICATE_NAME,
        `Extension name "${name}" already exists for ${this.point.id}` +
          (existing !== undefined ? ` (class ${existing.cls.name}, ${describeSource(existing.source)})` : '') +
          '. Choose another name, or use replaceExtension().',
      );
    }
    if (options.adaptive ?? isAdaptiveClass(cls)) {
      if (this.adaptiveInstance !== undefined) {
        // Dubbo: "Adaptive Extension already exists". Resetting it would leave two live adaptive instances.
        throw new ExtensionError(
          ExtensionErrorCode.ADAPTIVE_FAILED,
          `Cannot add adaptive class ${cls.name || '(anonymous)'} ("${name}") to ${this.point.id}: its adaptive extension ` +
            `(${definitions.adaptive === undefined ? 'generated from its adaptive methods' : `class ${definitions.adaptive.cls.name}`}) ` +
            `was already created and handed out, and two live adaptive instances would disagree. Register adaptive classes ` +
            `before the first getAdaptiveExtension() (before the application starts).`,
        );
      }
      definitions.setAdaptive(name, cls, source);
      this.adaptiveInstance = undefined;
      this.adaptiveError = undefined;
    } else if (options.wrapper !== undefined && options.wrapper !== false ? true : getWrapperMetadata(cls) !== undefined) {
      const wrapper =
        typeof options.wrapper === 'object'
          ? normalizeWrapper(options.wrapper, `addExtension("${name}")`)
          : (getWrapperMetadata(cls) ?? normalizeWrapper({}, `addExtension("${name}")`));
      definitions.wrappers.push({ name, cls, wrapper, source });
      this.instances.clear();
    } else {
      const activate =
        options.activate !== undefined ? normalizeActivate(options.activate, `addExtension("${name}")`) : getActivateMetadata(cls);
      definitions.setExtension(name, cls, activate, source);
    }
    this.invalidate();
    return this;
  }

  /**
   * Replaces the class registered under an existing name, dropping its cached instances.
   *
   * @remarks Named extensions only: a wrapper or an adaptive class cannot be replaced, because instances built
   * with the old one may already be handed out (two live adaptive instances, chains wrapped by both). Register
   * those with {@link ExtensionLoader.addExtension} before the first lookup instead.
   * @throws `ERR_SPI_NOT_FOUND` when the name is not registered; `ERR_SPI_ADAPTIVE_FAILED` when `cls` is marked
   * `@Adaptive`; `ERR_SPI_INVALID_NAME` when `cls` is marked `@Wrapper` or `name` is a wrapper's.
   */
  replaceExtension(name: string, cls: Class<T>, options: ReplaceExtensionOptions = {}): this {
    this.host.assertAlive();
    const kind = isAdaptiveClass(cls) ? 'an @Adaptive class' : getWrapperMetadata(cls) !== undefined ? 'a @Wrapper class' : undefined;
    const definitions = this.definitions;
    const wrapperNamed = definitions.wrappers.find((w) => w.name === name);
    if (kind !== undefined || wrapperNamed !== undefined) {
      throw new ExtensionError(
        isAdaptiveClass(cls) ? ExtensionErrorCode.ADAPTIVE_FAILED : ExtensionErrorCode.INVALID_NAME,
        `replaceExtension("${name}") on ${this.point.id}: ` +
          (kind !== undefined ? `${cls.name || '(anonymous)'} is ${kind}` : `"${name}" is a wrapper (class ${wrapperNamed?.cls.name})`) +
          `; only named extensions can be replaced (instances built with a wrapper or an adaptive class may already be in use). ` +
          `Register wrappers and adaptive classes with addExtension() before the first lookup.`,
      );
    }
    const existing = definitions.extensions.get(name);
    if (existing === undefined) throw notFound(definitions, this.host, name);
    definitions.assertSubclass(cls, `replaceExtension("${name}") on ${this.point.id}`);
    const activate =
      options.activate !== undefined ? normalizeActivate(options.activate, `replaceExtension("${name}")`) : getActivateMetadata(cls);
    definitions.setExtension(name, cls, activate, { kind: 'programmatic' });
    this.instances.clear();
    this.bareInstances.delete(name);
    this.rawByClass.delete(existing.cls);
    this.invalidate();
    return this;
  }

  /** After every registration: drops cached activation results and derived candidates, re-sorts the wrappers. */
  private invalidate(): void {
    this.definitions.changed();
    this.activateCache = new WeakMap();
  }

  /**
   * Returns the extension registered under `name`, wrapped by the point's wrappers unless `wrap` is false.
   *
   * @remarks `"default"` and `"true"` mean the default extension. Singleton per scope; after the first call
   * for a name, a call is one `Map` lookup.
   * @throws `ERR_SPI_NOT_FOUND` (listing what is available and any recorded load failure for the name),
   * `ERR_SPI_DUPLICATE_NAME`, `ERR_SPI_NOT_LOADED`, `ERR_SPI_INSTANTIATION_FAILED`, `ERR_SPI_CYCLE`.
   */
  getExtension(name: string, wrap = true): T {
    if (wrap) {
      const hit = this.instances.get(name);
      if (hit !== undefined) return hit;
    }
    return this.createExtension(name, wrap);
  }

  private createExtension(requested: string, wrap: boolean): T {
    this.host.assertAlive();
    if (typeof requested !== 'string' || requested.trim() === '') {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_NAME,
        `Extension name of ${this.point.id} must be a non-empty string (got ${JSON.stringify(requested)}).`,
      );
    }
    let name = requested;
    if (name === 'true' || name === 'default') {
      if (this.point.defaultName === undefined) {
        throw new ExtensionError(
          ExtensionErrorCode.NOT_FOUND,
          `Extension point ${this.point.id} has no default extension, so "${requested}" names nothing. ` +
            `Name one of: ${describeAvailable(this.definitions)}.`,
        );
      }
      name = this.point.defaultName;
    }
    this.assertLoaded();
    const definitions = this.definitions;
    const duplicate = definitions.duplicates.get(name);
    if (duplicate !== undefined) throw new ExtensionError(ExtensionErrorCode.DUPLICATE_NAME, duplicate);
    const definition = definitions.extensions.get(name);
    if (definition === undefined) throw notFound(definitions, this.host, name);

    const cache = wrap ? this.instances : this.bareInstances;
    const existing = cache.get(name);
    if (existing !== undefined) {
      cache.set(requested, existing);
      return existing;
    }
    const what = `extension "${name}" of ${this.point.id} (class ${definition.cls.name}, ${describeSource(definition.source)})`;
    let instance = this.rawByClass.get(definition.cls);
    if (instance === undefined) {
      instance = this.instantiate(definition.cls, `${this.point.id}#${name}`, what);
      this.rawByClass.set(definition.cls, instance);
    }
    if (wrap) {
      const wrappers = definitions.wrappers;
      for (let i = wrappers.length - 1; i >= 0; i--) {
        const w = wrappers[i] as WrapperDefinition;
        if (!wrapperApplies(w.wrapper, name)) continue;
        instance = this.instantiate(
          w.cls,
          `${this.point.id}#${name}<${w.name}>`,
          `wrapper "${w.name}" (class ${w.cls.name}, ${describeSource(w.source)}) around ${what}`,
          instance,
        );
      }
    }
    cache.set(name, instance);
    if (requested !== name) cache.set(requested, instance);
    return instance;
  }

  private instantiate(cls: Class, key: string, what: string, wrapped?: T): T {
    const stack = this.host.resolutionStack;
    const at = stack.indexOf(key);
    if (at >= 0) {
      throw new ExtensionError(
        ExtensionErrorCode.CYCLE,
        `Dependency cycle: ${[...stack.slice(at), key].join(' → ')}. Break it by injecting the adaptive extension or the ` +
          `loader (@InjectAdaptive / @InjectLoader), which resolve lazily.`,
      );
    }
    stack.push(key);
    try {
      return this.host.injector.instantiate(cls, what, (dependency) => this.resolveDependency(dependency), wrapped) as T;
    } finally {
      stack.pop();
    }
  }

  private resolveDependency(dependency: Dependency): unknown {
    if (dependency.kind === 'wrapped' || dependency.kind === 'service') return undefined;
    const loader: ExtensionLoader<unknown> =
      dependency.spi === this.spi ? this : this.host.getExtensionLoader(dependency.spi);
    switch (dependency.kind) {
      case 'extension':
        return loader.getExtension(dependency.name);
      case 'adaptive':
        return loader.getAdaptiveExtension();
      case 'loader':
        return loader;
    }
  }

  /** The default extension, or `undefined` when the point declares no default. */
  getDefaultExtension(): T | undefined {
    return this.point.defaultName === undefined ? undefined : this.getExtension(this.point.defaultName);
  }

  /** The default extension name, if any. */
  getDefaultExtensionName(): string | undefined {
    return this.point.defaultName;
  }

  /** The named extension when registered, else the default. */
  getOrDefaultExtension(name: string | undefined): T | undefined {
    return name !== undefined && name !== '' && this.hasExtension(name) ? this.getExtension(name) : this.getDefaultExtension();
  }

  /** The already-created (wrapped) instance for `name`, without creating it. */
  getLoadedExtension(name: string): T | undefined {
    return this.instances.get(name);
  }

  /** Whether an extension is registered under `name` (wrappers and adaptive classes are not named extensions). */
  hasExtension(name: string): boolean {
    this.host.assertAlive();
    this.assertLoaded();
    return this.definitions.extensions.has(name) && !this.definitions.duplicates.has(name);
  }

  /** The registered extension names, sorted. */
  getSupportedExtensions(): readonly string[] {
    this.host.assertAlive();
    this.assertLoaded();
    return this.definitions.names().sort();
  }

  /** The names whose (wrapped) instances have been created, sorted. */
  getLoadedExtensions(): readonly string[] {
    return [...this.instances.keys()].filter((n) => this.definitions.extensions.has(n)).sort();
  }

  /** The first name under which an extension class (or an instance of it) is registered. */
  getExtensionName(extension: object | Class<T>): string | undefined {
    const cls = typeof extension === 'function' ? extension : (extension as object).constructor;
    return this.definitions.classNames.get(cls);
  }

  /** Where the named extension came from (package and manifest, or programmatic). */
  getExtensionSource(name: string): ExtensionSource | undefined {
    return this.definitions.extensions.get(name)?.source;
  }

  /** The activation metadata of a named extension. */
  getActivateMetadata(name: string): ActivateMetadata | undefined {
    return this.definitions.extensions.get(name)?.activate;
  }

  /**
   * Returns the adaptive extension: the registered `@Adaptive` class, or one generated from the point's
   * adaptive methods that picks the extension per call from the URL.
   * @throws `ERR_SPI_ADAPTIVE_FAILED` when the point has neither (the error is kept and rethrown on every call).
   */
  getAdaptiveExtension(): T {
    if (this.adaptiveInstance !== undefined) return this.adaptiveInstance;
    if (this.adaptiveError !== undefined) throw this.adaptiveError;
    this.host.assertAlive();
    this.assertLoaded();
    try {
      const definition = this.definitions.adaptive;
      this.adaptiveInstance =
        definition !== undefined
          ? this.instantiate(
              definition.cls,
              `${this.point.id}#<adaptive>`,
              `adaptive class ${definition.cls.name} of ${this.point.id} (${describeSource(definition.source)})`,
            )
          : createAdaptiveExtension(this.spi as AbstractClass<T & object>, this.point, (name) => this.getExtension(name) as T & object) as T;
      return this.adaptiveInstance;
    } catch (error) {
      this.adaptiveError =
        error instanceof ExtensionError
          ? error
          : new ExtensionError(ExtensionErrorCode.ADAPTIVE_FAILED, describeError(error), { cause: error });
      throw this.adaptiveError;
    }
  }

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
  getActivateExtensions(url: URL, keyOrValues?: string | readonly string[], group?: string): readonly T[] {
    let perUrl = this.activateCache.get(url);
    const keySpec =
      keyOrValues === undefined ? '' : typeof keyOrValues === 'string' ? `k${keyOrValues}` : `v${JSON.stringify(keyOrValues)}`;
    const groupKey = group ?? '';
    const hit = perUrl?.get(keySpec)?.get(groupKey);
    if (hit !== undefined) return hit;
    this.host.assertAlive();
    const names = this.selectActivateNames(url, keyOrValues, group);
    const result = Object.freeze(names.map((n) => this.getExtension(n)));
    if (perUrl === undefined) this.activateCache.set(url, (perUrl = new Map()));
    let perKey = perUrl.get(keySpec);
    if (perKey === undefined) perUrl.set(keySpec, (perKey = new Map()));
    perKey.set(groupKey, result);
    return result;
  }

  /**
   * Explains activation: the names `getActivateExtensions` would return, in order, without creating instances.
   *
   * @remarks Same arguments and rules as {@link ExtensionLoader.getActivateExtensions}; not cached. Tools
   * (`weft explain`) and plugin tests use it to assert activation.
   */
  selectActivateNames(url: URL, keyOrValues?: string | readonly string[], group?: string): string[] {
    this.assertLoaded();
    let values: readonly string[] | undefined;
    if (typeof keyOrValues === 'string') {
      const raw = url.getParameter(keyOrValues);
      values = raw === undefined || raw === '' ? undefined : splitCommaList(raw);
    } else {
      values = keyOrValues;
    }
    return selectActivated(this.point.id, this.definitions.activateCandidates(), url, values, group);
  }

  /**
   * Calls `destroy()` on every instance created by this loader (outermost wrappers and bare instances), once
   * each, and waits for the asynchronous ones (e.g. a log flush); errors are logged, never thrown.
   * @internal Called by the owning scope.
   */
  async destroyInstances(): Promise<void> {
    const seen = new Set<unknown>();
    const all = [...this.instances.values(), ...this.bareInstances.values()];
    // A generated adaptive extension only dispatches; a hand-written adaptive class may own resources.
    if (this.adaptiveInstance !== undefined && this.definitions.adaptive !== undefined) all.push(this.adaptiveInstance);
    const pending: Promise<unknown>[] = [];
    for (const instance of all.reverse()) {
      if (seen.has(instance)) continue;
      seen.add(instance);
      const destroy = (instance as { destroy?: unknown } | null)?.destroy;
      if (typeof destroy !== 'function') continue;
      try {
        const out = destroy.call(instance) as unknown;
        if (out instanceof Promise) pending.push(out.catch((e: unknown) => this.host.warn(`destroy() of ${this.point.id} extension failed`, e)));
      } catch (error) {
        this.host.warn(`destroy() of ${this.point.id} extension failed`, error);
      }
    }
    await Promise.all(pending);
    this.instances.clear();
    this.bareInstances.clear();
    this.rawByClass.clear();
    this.adaptiveInstance = undefined;
    this.adaptiveError = undefined;
    // Cached lookups must not outlive the scope: the next lookup takes the slow path, which refuses.
    this.activateCache = new WeakMap();
  }

  private assertLoaded(): void {
    if (!this.loaded) {
      throw new ExtensionError(
        ExtensionErrorCode.NOT_LOADED,
        `Extension point ${this.point.id} is not loaded in ${this.host.description}: its ` +
          `${this.host.manifestRecords(this.point.id).length} manifest entries must be imported (and its ` +
          `${this.host.discoveryProblems(this.point.id).length} manifest problems reported) first. ` +
          `Call "await scope.loadExtensions(${this.point.className})" (or start the application) before looking up extensions.`,
      );
    }
  }

  /**
   * Explains a name this point does not have, for error messages: what is available, the closest name, and
   * the first-party package that contributes it when there is one.
   *
   * @remarks The closest name is looked for among the registered names and the names the first-party
   * packages contribute to this point; an install hint names only a package that exists (never a misspelt
   * name turned into a package name).
   * @example
   * ```ts
   * loader.describeMissing('tsp'); // 'Available: echo, timeout. Did you mean "tps"? "tps" comes with @weft/filter-tpslimit: …'
   * ```
   */
  describeMissing(name: string): string {
    return describeMissing(this.definitions, name);
  }
}

function wrapperApplies(wrapper: WrapperMetadata, name: string): boolean {
  return (wrapper.matches.length === 0 || wrapper.matches.includes(name)) && !wrapper.mismatches.includes(name);
}
