import 'reflect-metadata';
import { container as rootContainer, inject, injectable, type DependencyContainer, type InjectionToken } from 'tsyringe';

import { requireSpiMetadata, type AbstractClass, type Class } from './decorators.js';
import { describeError, ExtensionError, ExtensionErrorCode } from './extension-error.js';

/**
 * A token under which a scope service is registered: a class (abstract or not), a string or a symbol.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ServiceToken<T = unknown> = (abstract new (...args: any[]) => T) | string | symbol;

/** What a constructor parameter asks for. */
export type Dependency =
  | { readonly kind: 'extension'; readonly spi: AbstractClass; readonly name: string }
  | { readonly kind: 'adaptive'; readonly spi: AbstractClass }
  | { readonly kind: 'loader'; readonly spi: AbstractClass }
  | { readonly kind: 'wrapped' }
  | { readonly kind: 'service'; readonly token: ServiceToken };

const DEPENDENCIES_KEY = Symbol.for('weft.dependencies');
const WRAPPED_TOKEN = 'weft:wrapped';

/** A constructor-parameter decorator, as returned by the `Inject*` decorators. */
export type ParameterDecorator = (target: object, propertyKey: string | symbol | undefined, parameterIndex: number) => void;

function recordDependency(dependency: Dependency, token: InjectionToken<unknown>): ParameterDecorator {
  return (target, propertyKey, index) => {
    const cls = target as Record<symbol, unknown>;
    let deps = Object.prototype.hasOwnProperty.call(cls, DEPENDENCIES_KEY) ? (cls[DEPENDENCIES_KEY] as Dependency[]) : undefined;
    if (deps === undefined) {
      deps = [];
      Object.defineProperty(cls, DEPENDENCIES_KEY, { value: deps, enumerable: false });
    }
    deps[index] = dependency;
    inject(token)(target, propertyKey, index);
  };
}

function spiId(spi: AbstractClass, decorator: string): string {
  return requireSpiMetadata(spi, `@${decorator}`).id;
}

/**
 * Injects a scope service registered under `token` (a class, string or symbol).
 *
 * @remarks The scope registers itself under its class (`ApplicationModel`, `FrameworkModel`), its logger
 * under `Logger`, and anything registered with `scope.registerService(token, value)`.
 * @example
 * ```ts
 * class AuditFilter extends Filter { constructor(@Inject(ApplicationModel) private app: ApplicationModel) { super(); } }
 * ```
 */
export function Inject(token: ServiceToken): ParameterDecorator {
  return recordDependency({ kind: 'service', token }, token as InjectionToken<unknown> as string);
}

/**
 * Injects the named extension of an extension point, built (and wrapped) in the same scope.
 * @example
 * ```ts
 * constructor(@InjectExtension(TpsLimiter, 'default') private limiter: TpsLimiter) { super(); }
 * ```
 */
export function InjectExtension(spi: AbstractClass, name: string): ParameterDecorator {
  return recordDependency({ kind: 'extension', spi, name }, `weft:extension:${spiId(spi, 'InjectExtension')}:${name}`);
}

/**
 * Injects the adaptive extension of an extension point: it picks the extension per call from the URL.
 * @example
 * ```ts
 * constructor(@InjectAdaptive(Protocol) private protocol: Protocol) { super(); }
 * ```
 */
export function InjectAdaptive(spi: AbstractClass): ParameterDecorator {
  return recordDependency({ kind: 'adaptive', spi }, `weft:adaptive:${spiId(spi, 'InjectAdaptive')}`);
}

/**
 * Injects the {@link ExtensionLoader} of an extension point in the same scope (for `getActivateExtensions`,
 * or lookups by a name known only per call).
 * @example
 * ```ts
 * constructor(@InjectLoader(Filter) private filters: ExtensionLoader<Filter>) { super(); }
 * ```
 */
export function InjectLoader(spi: AbstractClass): ParameterDecorator {
  return recordDependency({ kind: 'loader', spi }, `weft:loader:${spiId(spi, 'InjectLoader')}`);
}

/**
 * Injects, into a wrapper class, the extension it wraps.
 * @example
 * ```ts
 * @Wrapper() class CountingProtocolWrapper extends Protocol { constructor(@InjectWrapped() private inner: Protocol) { super(); } }
 * ```
 */
export function InjectWrapped(): ParameterDecorator {
  return recordDependency({ kind: 'wrapped' }, WRAPPED_TOKEN);
}

/**
 * The extension dependencies a class declares, by constructor parameter index.
 *
 * @remarks A class that declares none but takes no parameters of its own (it inherits its constructor, e.g. a
 * `FailoverCluster extends AbstractCluster`) inherits the declarations of its nearest base class that has them;
 * they are copied onto it once, with tsyringe's injection tokens, so the inherited constructor is injected.
 * @internal
 */
export function getDependencies(cls: Function): readonly (Dependency | undefined)[] {
  if (Object.prototype.hasOwnProperty.call(cls, DEPENDENCIES_KEY)) {
    return (cls as unknown as Record<symbol, Dependency[]>)[DEPENDENCIES_KEY] as Dependency[];
  }
  if (cls.length > 0) return [];
  for (let base = Object.getPrototypeOf(cls) as Function | null; base !== null && base !== Function.prototype; base = Object.getPrototypeOf(base) as Function | null) {
    if (!Object.prototype.hasOwnProperty.call(base, DEPENDENCIES_KEY)) continue;
    const inherited = (base as unknown as Record<symbol, Dependency[]>)[DEPENDENCIES_KEY] as Dependency[];
    Object.defineProperty(cls, DEPENDENCIES_KEY, { value: inherited, enumerable: false });
    const tokens = Reflect.getOwnMetadata('injectionTokens', base) as unknown;
    if (tokens !== undefined) Reflect.defineMetadata('injectionTokens', tokens, cls);
    return inherited;
  }
  return [];
}

function dependencyToken(dependency: Dependency): string {
  switch (dependency.kind) {
    case 'service':
      throw new Error('scope services are resolved by the container');
    case 'wrapped':
      return WRAPPED_TOKEN;
    case 'extension':
      return `weft:extension:${requireSpiMetadata(dependency.spi, 'dependency').id}:${dependency.name}`;
    default:
      return `weft:${dependency.kind}:${requireSpiMetadata(dependency.spi, 'dependency').id}`;
  }
}

/** Describes a dependency for error messages. @internal */
export function describeDependency(dependency: Dependency): string {
  switch (dependency.kind) {
    case 'wrapped':
      return 'the wrapped extension';
    case 'service':
      return `the scope service ${describeToken(dependency.token)}`;
    case 'extension':
      return `extension "${dependency.name}" of ${requireSpiMetadata(dependency.spi, 'dependency').id}`;
    case 'adaptive':
      return `the adaptive extension of ${requireSpiMetadata(dependency.spi, 'dependency').id}`;
    case 'loader':
      return `the extension loader of ${requireSpiMetadata(dependency.spi, 'dependency').id}`;
  }
}

function describeToken(token: ServiceToken): string {
  return typeof token === 'function' ? token.name : String(token);
}

/**
 * Creates instances through a tsyringe container owned by one scope.
 *
 * @remarks
 * The only place Weft touches tsyringe. Each scope has its own child container (the framework's is a child
 * of tsyringe's root, an application's a child of its framework's), so registrations never leak between
 * scopes. Extension dependencies are resolved by the caller first — so failures can be reported hop by hop
 * — and handed to tsyringe as values in a short-lived child container that constructs the class.
 * @internal
 */
export class Injector {
  private readonly container: DependencyContainer;

  constructor(parent?: Injector) {
    this.container = (parent?.container ?? rootContainer).createChildContainer();
  }

  /** Registers a scope service. */
  registerValue<T>(token: ServiceToken<T>, value: T): void {
    this.container.register(token as InjectionToken<T>, { useValue: value });
  }

  /** Whether a service is registered for the token in this scope or its parents. */
  isRegistered(token: ServiceToken): boolean {
    return this.container.isRegistered(token as InjectionToken<unknown>, true);
  }

  /** Resolves a scope service. */
  resolveService<T>(token: ServiceToken<T>): T {
    return this.container.resolve(token as InjectionToken<T>);
  }

  /**
   * Constructs `cls`, first resolving its declared extension dependencies with `resolve` (which may throw
   * a composed ExtensionError) and offering `wrapped` for `@InjectWrapped()`.
   */
  instantiate<T>(
    cls: Class<T>,
    what: string,
    resolve: (dependency: Dependency) => unknown,
    wrapped?: unknown,
  ): T {
    const dependencies = getDependencies(cls);
    const child = this.container.createChildContainer();
    try {
      for (let i = 0; i < dependencies.length; i++) {
        const dependency = dependencies[i];
        if (dependency === undefined) continue;
        if (dependency.kind === 'service') {
          if (!this.container.isRegistered(dependency.token as InjectionToken<unknown>, true)) {
            throw new ExtensionError(
              ExtensionErrorCode.INSTANTIATION_FAILED,
              `Cannot create ${what}: constructor parameter #${i} needs ${describeDependency(dependency)}, which is not ` +
                `registered in this scope. Register it with scope.registerService(token, value) before the extension is created.`,
            );
          }
          continue;
        }
        let value: unknown;
        if (dependency.kind === 'wrapped') {
          if (wrapped === undefined) {
            throw new ExtensionError(
              ExtensionErrorCode.INSTANTIATION_FAILED,
              `Cannot create ${what}: constructor parameter #${i} asks for the wrapped extension (@InjectWrapped), ` +
                `but the class is not used as a wrapper. Declare it as a wrapper in the manifest ("wrapper": true) or with @Wrapper().`,
            );
          }
          value = wrapped;
        } else {
          try {
            value = resolve(dependency);
          } catch (error) {
            throw new ExtensionError(
              error instanceof ExtensionError && error.code === ExtensionErrorCode.CYCLE
                ? ExtensionErrorCode.CYCLE
                : ExtensionErrorCode.INSTANTIATION_FAILED,
              `Cannot create ${what}: constructor parameter #${i} needs ${describeDependency(dependency)} → ${messageOf(error)}`,
              { cause: error },
            );
          }
        }
        child.register(dependencyToken(dependency), { useValue: value });
      }
      if (cls.length > 0 || dependencies.length > 0) {
        if (Reflect.getMetadata('design:paramtypes', cls) === undefined && dependencies.length < cls.length) {
          throw new ExtensionError(
            ExtensionErrorCode.INSTANTIATION_FAILED,
            `Cannot create ${what}: its constructor takes ${cls.length} parameter(s) but they are not marked for ` +
              `injection. Mark each one with @InjectExtension, @InjectAdaptive, @InjectLoader, @InjectWrapped or @Inject.`,
          );
        }
        injectable()(cls);
      }
      return child.resolve(cls);
    } catch (error) {
      if (error instanceof ExtensionError) throw error;
      throw new ExtensionError(
        ExtensionErrorCode.INSTANTIATION_FAILED,
        `Cannot create ${what}: ${describeError(rootCause(error))}`,
        { cause: error },
      );
    }
    // The short-lived child container is not disposed: tsyringe would call `dispose()` on the instance it
    // just built. It holds nothing but value registrations and is garbage-collected.
  }

}

function messageOf(error: unknown): string {
  return error instanceof ExtensionError ? error.message : `root cause: ${describeError(error)}`;
}

function rootCause(error: unknown): unknown {
  let current = error;
  for (let i = 0; i < 10 && current instanceof Error && current.cause !== undefined; i++) current = current.cause;
  return current;
}
