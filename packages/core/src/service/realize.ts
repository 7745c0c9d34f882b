import { realizeOnce, typeName, type Realizer } from './realizer.js';
import type { TypeDescriptor } from './service-definition.js';

/** The name of a descriptor, for messages: `String`, `Greeting[]`, `Map<String, Greeting>`, `void`. */
export function describeType(type: TypeDescriptor): string {
  return typeName(type);
}

/**
 * Converts plain data (as decoded from JSON, or parsed from a mock expression) into the declared type, to any depth.
 *
 * @remarks
 * `String`, `Number`, `Boolean` convert between each other's textual forms (`"42"` → 42, `"true"` → true);
 * `Date` from an ISO string or epoch ms; `Map` from an object or an array of pairs; `Set` from an array;
 * `[T]`, `setOf(T)` and `mapOf(K, V)` element by element; a class from a plain object — an instance created
 * **without running the constructor** (`Object.create(prototype)`) with the object's own properties copied, the
 * fields its `static fields` declares realised to their types, except `__proto__`, `constructor` and `prototype`,
 * which are dropped so data can never reach a prototype. `null`/`undefined` pass through; `Object` and `Array`
 * accept their kind as is. This function compiles `type` on every call: code that realises many values holds a
 * {@link Realizer} instead.
 *
 * @example
 * ```ts
 * realize({ name: 'ann' }, User) instanceof User; // true
 * realize(['2024-01-01T00:00:00Z'], [Date])[0] instanceof Date; // true
 * ```
 * @throws `RpcError` `serialization` when the value cannot be converted, naming `where` and the field path
 * (`greet() result .at: expected Date, got "yesterday"`); `ERR_SPI_INVALID_PARAMETER` for a malformed declaration.
 */
export function realize(value: unknown, type: TypeDescriptor | undefined, where = ''): unknown {
  return realizeOnce(value, type, where);
}
