import type { TypeDescriptor } from './service-definition.js';

/**
 * The descriptor of a `Map` whose keys and values have declared types; made by {@link mapOf}.
 *
 * @remarks Realised from a `Map`, an array of `[key, value]` pairs (how the `json` codec sends a map) or a plain
 * object (string keys); every key and value is realised to its declared type.
 * @example
 * ```ts
 * const byId = mapOf(String, User); // a MapType<StringConstructor, typeof User>
 * ```
 */
export class MapType<K extends TypeDescriptor = TypeDescriptor, V extends TypeDescriptor = TypeDescriptor> {
  constructor(
    /** The key type. */
    readonly key: K,
    /** The value type. */
    readonly value: V,
  ) {
    Object.freeze(this);
  }
}

/**
 * The descriptor of a `Set` whose elements have a declared type; made by {@link setOf}.
 *
 * @remarks Realised from a `Set` or an array (how the `json` codec sends a set), element by element.
 * @example
 * ```ts
 * const tags = setOf(String); // a SetType<StringConstructor>
 * ```
 */
export class SetType<E extends TypeDescriptor = TypeDescriptor> {
  constructor(
    /** The element type. */
    readonly element: E,
  ) {
    Object.freeze(this);
  }
}

/**
 * Declares a `Map<K, V>`: keys realised to `K`, values to `V`, to any depth.
 *
 * @remarks `TypeOf<ReturnType<typeof mapOf<K, V>>>` is `Map<TypeOf<K>, TypeOf<V>>`, so service proxies are typed.
 * @example
 * ```ts
 * defineService('org.acme.Directory', { byId: { returns: mapOf(String, User) } });
 * ```
 */
export function mapOf<const K extends TypeDescriptor, const V extends TypeDescriptor>(key: K, value: V): MapType<K, V> {
  return new MapType(key, value);
}

/**
 * Declares a `Set<T>`: elements realised to `T`, to any depth.
 *
 * @remarks `TypeOf` of the descriptor is `Set<TypeOf<T>>`.
 * @example
 * ```ts
 * defineService('org.acme.Tags', { tags: { returns: setOf(String) } });
 * ```
 */
export function setOf<const E extends TypeDescriptor>(element: E): SetType<E> {
  return new SetType(element);
}

/**
 * The shape of a class's `static fields` declaration: a descriptor per field of `T`, every field optional.
 *
 * @remarks Use it with `satisfies` so a misspelt field name does not compile; fields left out are copied as
 * they arrive. See {@link TypeDescriptor} for what a class's `fields` does.
 * @example
 * ```ts
 * class Greeting {
 *   text = '';
 *   at = new Date(0);
 *   static readonly fields = { at: Date } satisfies FieldTypes<Greeting>;
 * }
 * ```
 */
export type FieldTypes<T> = { readonly [K in keyof T]?: TypeDescriptor };

