import type { TypeDescriptor } from './service-definition.js';
/** The name of a descriptor, for messages. */
export declare function describeType(type: TypeDescriptor): string;
/**
 * Converts plain data (as decoded from JSON, or parsed from a mock expression) into the declared type.
 *
 * @remarks
 * `String`, `Number`, `Boolean` convert between each other's textual forms (`"42"` → 42, `"true"` → true);
 * `Date` from an ISO string or epoch ms; `Map` from an object or an array of pairs; `Set` from an array;
 * `[T]` element by element; a class from a plain object — an instance created **without running the
 * constructor** (`Object.create(prototype)`) with the object's own properties copied, except `__proto__`,
 * `constructor` and `prototype`, which are dropped so data can never reach a prototype. `null`/`undefined` pass
 * through; `Object` and `Array` accept their kind as is.
 *
 * @example
 * ```ts
 * realize({ name: 'ann' }, User) instanceof User; // true
 * realize(['2024-01-01T00:00:00Z'], [Date])[0] instanceof Date; // true
 * ```
 * @throws `RpcError` `serialization` when the value cannot be converted.
 */
export declare function realize(value: unknown, type: TypeDescriptor | undefined, where?: string): unknown;
/** Serialisable form of an error: its name, message and own enumerable data. */
export interface ErrorData {
    readonly name: string;
    readonly message: string;
    readonly [key: string]: unknown;
}
/** Captures an error as plain data (name, message, own enumerable properties that are plain data). */
export declare function errorToData(error: unknown): ErrorData;
/**
 * Rebuilds an error from {@link ErrorData}: an instance of the declared error class (or standard error class such
 * as `TypeError`) whose `name` matches — created without running its constructor — else a plain `Error` carrying
 * the name.
 */
export declare function errorFromData(data: ErrorData, declared?: readonly (abstract new (...args: never[]) => Error)[]): Error;
//# sourceMappingURL=realize.d.ts.map