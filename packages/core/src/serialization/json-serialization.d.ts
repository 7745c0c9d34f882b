import { Serialization } from './serialization.js';
/**
 * The `json` codec (default): UTF-8 JSON, with `Map`/`Set` sent as arrays and `BigInt` as strings.
 *
 * @remarks `undefined` is sent as `null`. Decoding is strict UTF-8. Keys such as `__proto__` arrive as plain
 * own properties; realisation drops them.
 * @example
 * ```ts
 * new JsonSerialization().copy({ when: new Date(0) }); // { when: '1970-01-01T00:00:00.000Z' }
 * ```
 */
export declare class JsonSerialization extends Serialization {
    readonly contentSubtype = "json";
    serialize(value: unknown): Uint8Array;
    deserialize(bytes: Uint8Array): unknown;
    copy(value: unknown): unknown;
    private stringify;
    private parse;
}
//# sourceMappingURL=json-serialization.d.ts.map