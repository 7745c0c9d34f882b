import { ExtensionError, ExtensionErrorCode } from './extension-error.js';
import { assertExtensionName, camelToDotted, EXTENSION_POINT_ID_PATTERN } from './names.js';
const SPI_KEY = Symbol.for('weft.spi');
const ACTIVATE_KEY = Symbol.for('weft.activate');
const WRAPPER_KEY = Symbol.for('weft.wrapper');
const ADAPTIVE_CLASS_KEY = Symbol.for('weft.adaptive.class');
const ADAPTIVE_METHODS_KEY = Symbol.for('weft.adaptive.methods');
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
export function SPI(options) {
    return (target) => {
        const cls = target;
        if (typeof options?.id !== 'string' || !EXTENSION_POINT_ID_PATTERN.test(options.id)) {
            throw new ExtensionError(ExtensionErrorCode.INVALID_NAME, `@SPI on class ${cls.name}: id ${JSON.stringify(options?.id)} is not a dotted extension point id such as "weft.rpc.Filter".`);
        }
        const defaultName = options.default?.trim() || undefined;
        if (defaultName !== undefined)
            assertExtensionName(defaultName, `the default of @SPI ${options.id}`);
        const derived = camelToDotted(cls.name);
        const adaptive = new Map();
        const fromMethods = (Object.prototype.hasOwnProperty.call(cls.prototype, ADAPTIVE_METHODS_KEY)
            ? cls.prototype[ADAPTIVE_METHODS_KEY]
            : undefined);
        for (const [method, keys] of fromMethods ?? [])
            adaptive.set(method, keys.length > 0 ? keys : [derived]);
        for (const [method, keys] of Object.entries(options.adaptive ?? {})) {
            adaptive.set(method, keys.length > 0 ? [...keys] : [derived]);
        }
        const meta = {
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
export function Adaptive(keys = []) {
    return ((target, propertyKey) => {
        if (propertyKey === undefined) {
            Object.defineProperty(target, ADAPTIVE_CLASS_KEY, { value: true, enumerable: false });
            return;
        }
        const proto = target;
        let methods = Object.prototype.hasOwnProperty.call(proto, ADAPTIVE_METHODS_KEY)
            ? proto[ADAPTIVE_METHODS_KEY]
            : undefined;
        if (methods === undefined) {
            methods = new Map();
            Object.defineProperty(proto, ADAPTIVE_METHODS_KEY, { value: methods, enumerable: false });
        }
        methods.set(String(propertyKey), [...keys]);
    });
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
export function Activate(options = {}) {
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
export function Wrapper(options = {}) {
    return (target) => {
        Object.defineProperty(target, WRAPPER_KEY, { value: normalizeWrapper(options, `@Wrapper on ${target.name}`) });
    };
}
/** The extension point metadata of `spi`, or `undefined` when it is not marked `@SPI`. */
export function getSpiMetadata(spi) {
    if (typeof spi !== 'function')
        return undefined;
    return Object.prototype.hasOwnProperty.call(spi, SPI_KEY) ? spi[SPI_KEY] : undefined;
}
/** Throws `ERR_SPI_NOT_AN_SPI` unless `spi` is marked `@SPI`. @internal */
export function requireSpiMetadata(spi, where) {
    const meta = getSpiMetadata(spi);
    if (meta === undefined) {
        const name = typeof spi === 'function' ? spi.name || '(anonymous class)' : String(spi);
        throw new ExtensionError(ExtensionErrorCode.NOT_AN_SPI, `${where}: ${name} is not an extension point. Mark its abstract class with @SPI({ id: '…' }) ` +
            `(and, if it is declared in the same module, declare it before the classes that refer to it).`);
    }
    return meta;
}
/** `@Activate` metadata declared on the class itself, if any. @internal */
export function getActivateMetadata(cls) {
    return Object.prototype.hasOwnProperty.call(cls, ACTIVATE_KEY)
        ? cls[ACTIVATE_KEY]
        : undefined;
}
/** `@Wrapper` metadata declared on the class itself, if any. @internal */
export function getWrapperMetadata(cls) {
    return Object.prototype.hasOwnProperty.call(cls, WRAPPER_KEY)
        ? cls[WRAPPER_KEY]
        : undefined;
}
/** Whether the class is marked `@Adaptive()`. @internal */
export function isAdaptiveClass(cls) {
    return Object.prototype.hasOwnProperty.call(cls, ADAPTIVE_CLASS_KEY);
}
function toList(value) {
    if (value === undefined)
        return [];
    return (typeof value === 'string' ? [value] : [...value]).map((v) => v.trim()).filter((v) => v.length > 0);
}
/** Normalises activation options (from a decorator or a manifest). @internal */
export function normalizeActivate(options, where) {
    const order = options.order ?? 0;
    if (!Number.isFinite(order)) {
        throw new ExtensionError(ExtensionErrorCode.INVALID_MANIFEST, `${where}: order must be a finite number.`);
    }
    const conditions = toList(options.value).map((entry) => {
        const parts = entry.split(':');
        // Dubbo keeps only the first two fields: `a:b:c` behaves as `a:b`.
        return parts.length > 1 ? { key: parts[0], expected: parts[1] } : { key: entry, expected: undefined };
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
export function normalizeWrapper(options, where) {
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
//# sourceMappingURL=decorators.js.map