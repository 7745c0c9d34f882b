import 'reflect-metadata';
import { type AbstractClass, type Class } from './decorators.js';
/**
 * A token under which a scope service is registered: a class (abstract or not), a string or a symbol.
 */
export type ServiceToken<T = unknown> = (abstract new (...args: any[]) => T) | string | symbol;
/** What a constructor parameter asks for. */
export type Dependency = {
    readonly kind: 'extension';
    readonly spi: AbstractClass;
    readonly name: string;
} | {
    readonly kind: 'adaptive';
    readonly spi: AbstractClass;
} | {
    readonly kind: 'loader';
    readonly spi: AbstractClass;
} | {
    readonly kind: 'wrapped';
} | {
    readonly kind: 'service';
    readonly token: ServiceToken;
};
/** A constructor-parameter decorator, as returned by the `Inject*` decorators. */
export type ParameterDecorator = (target: object, propertyKey: string | symbol | undefined, parameterIndex: number) => void;
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
export declare function Inject(token: ServiceToken): ParameterDecorator;
/**
 * Injects the named extension of an extension point, built (and wrapped) in the same scope.
 * @example
 * ```ts
 * constructor(@InjectExtension(TpsLimiter, 'default') private limiter: TpsLimiter) { super(); }
 * ```
 */
export declare function InjectExtension(spi: AbstractClass, name: string): ParameterDecorator;
/**
 * Injects the adaptive extension of an extension point: it picks the extension per call from the URL.
 * @example
 * ```ts
 * constructor(@InjectAdaptive(Protocol) private protocol: Protocol) { super(); }
 * ```
 */
export declare function InjectAdaptive(spi: AbstractClass): ParameterDecorator;
/**
 * Injects the {@link ExtensionLoader} of an extension point in the same scope (for `getActivateExtensions`,
 * or lookups by a name known only per call).
 * @example
 * ```ts
 * constructor(@InjectLoader(Filter) private filters: ExtensionLoader<Filter>) { super(); }
 * ```
 */
export declare function InjectLoader(spi: AbstractClass): ParameterDecorator;
/**
 * Injects, into a wrapper class, the extension it wraps.
 * @example
 * ```ts
 * @Wrapper() class CountingProtocolWrapper extends Protocol { constructor(@InjectWrapped() private inner: Protocol) { super(); } }
 * ```
 */
export declare function InjectWrapped(): ParameterDecorator;
/** The extension dependencies a class declares, by constructor parameter index. @internal */
export declare function getDependencies(cls: Function): readonly (Dependency | undefined)[];
/** Describes a dependency for error messages. @internal */
export declare function describeDependency(dependency: Dependency): string;
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
export declare class Injector {
    private readonly container;
    constructor(parent?: Injector);
    /** Registers a scope service. */
    registerValue<T>(token: ServiceToken<T>, value: T): void;
    /** Whether a service is registered for the token in this scope or its parents. */
    isRegistered(token: ServiceToken): boolean;
    /** Resolves a scope service. */
    resolveService<T>(token: ServiceToken<T>): T;
    /**
     * Constructs `cls`, first resolving its declared extension dependencies with `resolve` (which may throw
     * a composed ExtensionError) and offering `wrapped` for `@InjectWrapped()`.
     */
    instantiate<T>(cls: Class<T>, what: string, resolve: (dependency: Dependency) => unknown, wrapped?: unknown): T;
}
//# sourceMappingURL=injector.d.ts.map