/** A class constructor, abstract or concrete. */
export type AbstractClass<T = unknown> = abstract new (...args: any[]) => T;
/** A concrete class constructor. */
export type Class<T = unknown> = new (...args: any[]) => T;
/** The scope that owns an extension point's loader and its singleton instances. */
export type ExtensionScope = 'framework' | 'application';
/** Options of {@link SPI}. */
export interface SpiOptions {
    /** Extension point id, e.g. `weft.rpc.Filter`; names the manifest file `META-INF/weft/<id>.json`. */
    readonly id: string;
    /** Name of the default extension. */
    readonly default?: string;
    /** Owning scope. @defaultValue `'application'` */
    readonly scope?: ExtensionScope;
    /**
     * Adaptive methods and the URL keys each reads the extension name from, in priority order. An empty
     * list means the key derived from the class name (`LoadBalance` → `load.balance`). (Decorators cannot sit
     * on abstract methods, so adaptive methods of an abstract SPI class are declared here.)
     */
    readonly adaptive?: Readonly<Record<string, readonly string[]>>;
}
/** Resolved metadata of an extension point. */
export interface SpiMetadata {
    readonly id: string;
    readonly defaultName: string | undefined;
    readonly scope: ExtensionScope;
    /** Adaptive method name → URL keys (never empty: the derived default key is filled in). */
    readonly adaptiveMethods: ReadonlyMap<string, readonly string[]>;
    /** The key derived from the class name, used when an adaptive method lists no keys. */
    readonly defaultAdaptiveKey: string;
    /** The class's own name, for messages. */
    readonly className: string;
}
/** Options of {@link Activate}, also the `activate` object of a manifest entry. */
export interface ActivateOptions {
    /** Groups (`provider`, `consumer`, …) the extension activates in; none means only when no group is asked. */
    readonly group?: string | readonly string[];
    /** URL keys (`key` or `key:expected`), any of which being set activates the extension. */
    readonly value?: string | readonly string[];
    /** Lower runs first. @defaultValue 0 */
    readonly order?: number;
    /** Extension names this one must come before (a real ordering constraint). */
    readonly before?: readonly string[];
    /** Extension names this one must come after. */
    readonly after?: readonly string[];
}
/** One `value` condition of activation: `key`, or `key:expected`. */
export interface ActivateCondition {
    readonly key: string;
    readonly expected: string | undefined;
}
/** Normalised activation metadata. */
export interface ActivateMetadata {
    readonly groups: readonly string[];
    readonly conditions: readonly ActivateCondition[];
    readonly order: number;
    readonly before: readonly string[];
    readonly after: readonly string[];
}
/** Options of {@link Wrapper}, also the `wrapper` object of a manifest entry. */
export interface WrapperOptions {
    /** Only wrap these extension names (empty: all). */
    readonly matches?: readonly string[];
    /** Never wrap these extension names. */
    readonly mismatches?: readonly string[];
    /** Lower is outer. @defaultValue 0 */
    readonly order?: number;
}
/** Normalised wrapper metadata. */
export interface WrapperMetadata {
    readonly matches: readonly string[];
    readonly mismatches: readonly string[];
    readonly order: number;
}
/**
 * Marks an abstract class as an extension point.
 *
 * @remarks
 * Only classes marked `@SPI` can have an {@link ExtensionLoader}. The id names the manifest file that
 * packages ship to contribute extensions (`META-INF/weft/<id>.json`). The default name is what
 * `getExtension('default')`, `getDefaultExtension()` and adaptive lookups fall back to.
 *
 * @example
 * ```ts
 * @SPI({ id: 'acme.greeting.Greeter', default: 'plain', adaptive: { greet: ['greeter'] } })
 * export abstract class Greeter {
 *   abstract greet(url: URL, who: string): string;
 * }
 * ```
 * @throws `ERR_SPI_INVALID_NAME` for a malformed id or default name.
 */
export declare function SPI(options: SpiOptions): ClassDecorator;
/**
 * Marks a hand-written adaptive class (class decorator), or a concrete SPI method as adaptive with URL keys
 * (method decorator).
 *
 * @remarks
 * A class marked `@Adaptive()` and registered for an extension point is returned as is by
 * `getAdaptiveExtension()`. On a method of a non-abstract SPI class, it declares the URL keys the generated
 * adaptive extension reads (for abstract methods use `@SPI({ adaptive })`).
 *
 * @example
 * ```ts
 * @Adaptive()
 * export class AdaptiveCompiler extends Compiler { compile(code: string) { … } }
 * ```
 */
export declare function Adaptive(keys?: readonly string[]): ClassDecorator & MethodDecorator;
/**
 * Declares when an extension is activated automatically by `getActivateExtensions`.
 *
 * @remarks
 * For extensions contributed through a manifest, the manifest entry's `activate` object is authoritative
 * (so tools can explain activation without importing code); a decorator on such a class must say the same.
 * For extensions added with `addExtension`, the decorator is where the metadata comes from.
 *
 * @example
 * ```ts
 * @Activate({ group: ['provider'], value: ['tps'], order: -100 })
 * export class TpsLimitFilter extends Filter { … }
 * ```
 */
export declare function Activate(options?: ActivateOptions): ClassDecorator;
/**
 * Marks a class as a wrapper of its extension point: it is applied around every extension of the point.
 *
 * @remarks
 * The wrapped extension is passed to the constructor through `@InjectWrapped()`. Wrappers are never named
 * extensions. Sorted ascending by `order` (then by name), the smallest order ends up outermost; a wrapper
 * applies to a name when `matches` is empty or contains it, and `mismatches` does not.
 *
 * @example
 * ```ts
 * @Wrapper({ order: 100 })
 * export class ProtocolFilterWrapper extends Protocol {
 *   constructor(@InjectWrapped() private readonly protocol: Protocol) { super(); }
 * }
 * ```
 */
export declare function Wrapper(options?: WrapperOptions): ClassDecorator;
/** The extension point metadata of `spi`, or `undefined` when it is not marked `@SPI`. */
export declare function getSpiMetadata(spi: unknown): SpiMetadata | undefined;
/** Throws `ERR_SPI_NOT_AN_SPI` unless `spi` is marked `@SPI`. @internal */
export declare function requireSpiMetadata(spi: unknown, where: string): SpiMetadata;
/** `@Activate` metadata declared on the class itself, if any. @internal */
export declare function getActivateMetadata(cls: Function): ActivateMetadata | undefined;
/** `@Wrapper` metadata declared on the class itself, if any. @internal */
export declare function getWrapperMetadata(cls: Function): WrapperMetadata | undefined;
/** Whether the class is marked `@Adaptive()`. @internal */
export declare function isAdaptiveClass(cls: Function): boolean;
/** Normalises activation options (from a decorator or a manifest). @internal */
export declare function normalizeActivate(options: ActivateOptions, where: string): ActivateMetadata;
/** Normalises wrapper options (from a decorator or a manifest). @internal */
export declare function normalizeWrapper(options: WrapperOptions, where: string): WrapperMetadata;
//# sourceMappingURL=decorators.d.ts.map