import { ExtensionError, ExtensionErrorCode } from './extension-error.js';
import { assertExtensionName, camelToDotted, EXTENSION_POINT_ID_PATTERN } from './names.js';

/** A class constructor, abstract or concrete. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AbstractClass<T = unknown> = abstract new (...args: any[]) => T;
/** A concrete class constructor. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
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

const SPI_KEY = Symbol.for('weft.spi');
const ACTIVATE_KEY = Symbol.for('weft.activate');
const WRAPPER_KEY = Symbol.for('weft.wrapper');
const ADAPTIVE_CLASS_KEY = Symbol.for('weft.adaptive.class');
const ADAPTIVE_METHODS_KEY = Symbol.for('weft.adaptive.methods');

type Tagged = Record<symbol, unknown>;

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
export function SPI(options: SpiOptions): ClassDecorator {
  return (target) => {
    const cls = target as unknown as AbstractClass & Tagged;
    if (typeof options?.id !== 'string' || !EXTENSION_POINT_ID_PATTERN.test(options.id)) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_NAME,
        `@SPI on class ${cls.name}: id ${JSON.stringify(options?.id)} is not a dotted extension point id such as "weft.rpc.Filter".`,
      );
    }
    const defaultName = options.default?.trim() || undefined;
    if (defaultName !== undefined) assertExtensionName(defaultName, `the default of @SPI ${options.id}`);
    const derived = camelToDotted(cls.name);
    const adaptive = new Map<string, readonly string[]>();
    const fromMethods = (Object.prototype.hasOwnProperty.call(cls.prototype, ADAPTIVE_METHODS_KEY)
      ? (cls.prototype as Tagged)[ADAPTIVE_METHODS_KEY]
      : undefined) as Map<string, readonly string[]> | undefined;
    for (const [method, keys] of fromMethods ?? []) adaptive.set(method, keys.length > 0 ? keys : [derived]);
    for (const [method, keys] of Object.entries(options.adaptive ?? {})) {
      adaptive.set(method, keys.length > 0 ? [...keys] : [derived]);
    }
    const meta: SpiMetadata = {
      id: options.id,
      defaultName,
      scope: options.scope ?? 'application',
      adaptiveMethods: adaptive,
      defaultAdaptiveKey: derived,
      className: cls.name,
    };
    Object.defineProperty(cls, SPI_KEY, { value: meta, enumerable: false });
  };
}

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
export function Adaptive(keys: readonly string[] = []): ClassDecorator & MethodDecorator {
  return ((target: object, propertyKey?: string | symbol) => {
    if (propertyKey === undefined) {
      Object.defineProperty(target, ADAPTIVE_CLASS_KEY, { value: true, enumerable: false });
      return;
    }
    const proto = target as Tagged;
    let methods = Object.prototype.hasOwnProperty.call(proto, ADAPTIVE_METHODS_KEY)
      ? (proto[ADAPTIVE_METHODS_KEY] as Map<string, readonly string[]>)
      : undefined;
    if (methods === undefined) {
      methods = new Map();
      Object.defineProperty(proto, ADAPTIVE_METHODS_KEY, { value: methods, enumerable: false });
    }
    methods.set(String(propertyKey), [...keys]);
  }) as ClassDecorator & MethodDecorator;
}

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
export function Activate(options: ActivateOptions = {}): ClassDecorator {
  return (target) => {
    Object.defineProperty(target, ACTIVATE_KEY, { value: normalizeActivate(options, `@Activate on ${target.name}`) });
  };
}

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
export function Wrapper(options: WrapperOptions = {}): ClassDecorator {
  return (target) => {
    Object.defineProperty(target, WRAPPER_KEY, { value: normalizeWrapper(options, `@Wrapper on ${target.name}`) });
  };
}

/** The extension point metadata of `spi`, or `undefined` when it is not marked `@SPI`. */
export function getSpiMetadata(spi: unknown): SpiMetadata | undefined {
  if (typeof spi !== 'function') return undefined;
  return Object.prototype.hasOwnProperty.call(spi, SPI_KEY) ? ((spi as unknown as Tagged)[SPI_KEY] as SpiMetadata) : undefined;
}

/** Throws `ERR_SPI_NOT_AN_SPI` unless `spi` is marked `@SPI`. @internal */
export function requireSpiMetadata(spi: unknown, where: string): SpiMetadata {
  const meta = getSpiMetadata(spi);
  if (meta === undefined) {
    const name = typeof spi === 'function' ? spi.name || '(anonymous class)' : String(spi);
    throw new ExtensionError(
      ExtensionErrorCode.NOT_AN_SPI,
      `${where}: ${name} is not an extension point. Mark its abstract class with @SPI({ id: '…' }) ` +
        `(and, if it is declared in the same module, declare it before the classes that refer to it).`,
    );
  }
  return meta;
}

/** `@Activate` metadata declared on the class itself, if any. @internal */
export function getActivateMetadata(cls: Function): ActivateMetadata | undefined {
  return Object.prototype.hasOwnProperty.call(cls, ACTIVATE_KEY)
    ? ((cls as unknown as Tagged)[ACTIVATE_KEY] as ActivateMetadata)
    : undefined;
}

/** `@Wrapper` metadata declared on the class itself, if any. @internal */
export function getWrapperMetadata(cls: Function): WrapperMetadata | undefined {
  return Object.prototype.hasOwnProperty.call(cls, WRAPPER_KEY)
    ? ((cls as unknown as Tagged)[WRAPPER_KEY] as WrapperMetadata)
    : undefined;
}

/** Whether the class is marked `@Adaptive()`. @internal */
export function isAdaptiveClass(cls: Function): boolean {
  return Object.prototype.hasOwnProperty.call(cls, ADAPTIVE_CLASS_KEY);
}

function toList(value: string | readonly string[] | undefined): string[] {
  if (value === undefined) return [];
  return (typeof value === 'string' ? [value] : [...value]).map((v) => v.trim()).filter((v) => v.length > 0);
}

/** Normalises activation options (from a decorator or a manifest). @internal */
export function normalizeActivate(options: ActivateOptions, where: string): ActivateMetadata {
  const order = options.order ?? 0;
  if (!Number.isFinite(order)) {
    throw new ExtensionError(ExtensionErrorCode.INVALID_MANIFEST, `${where}: order must be a finite number.`);
  }
  const conditions = toList(options.value).map((entry): ActivateCondition => {
    const parts = entry.split(':');
    // Dubbo keeps only the first two fields: `a:b:c` behaves as `a:b`.
    return parts.length > 1 ? { key: parts[0] as string, expected: parts[1] as string } : { key: entry, expected: undefined };
  });
  return Object.freeze({
    groups: Object.freeze(toList(options.group)),
    conditions: Object.freeze(conditions),
    order,
    before: Object.freeze(toList(options.before)),
    after: Object.freeze(toList(options.after)),
  });
}

/** Normalises wrapper options (from a decorator or a manifest). @internal */
export function normalizeWrapper(options: WrapperOptions, where: string): WrapperMetadata {
  const order = options.order ?? 0;
  if (!Number.isFinite(order)) {
    throw new ExtensionError(ExtensionErrorCode.INVALID_MANIFEST, `${where}: order must be a finite number.`);
  }
  return Object.freeze({
    matches: Object.freeze(toList(options.matches)),
    mismatches: Object.freeze(toList(options.mismatches)),
    order,
  });
}
