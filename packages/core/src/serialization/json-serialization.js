import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import { Serialization } from './serialization.js';
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });
/** JSON replacer: Maps and Sets as arrays, BigInts as strings (JSON has neither). */
function replacer(_key, value) {
    if (value instanceof Map)
        return [...value.entries()];
    if (value instanceof Set)
        return [...value];
    if (typeof value === 'bigint')
        return value.toString();
    return value;
}
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
export class JsonSerialization extends Serialization {
    contentSubtype = 'json';
    serialize(value) {
        return encoder.encode(this.stringify(value));
    }
    deserialize(bytes) {
        let text;
        try {
            text = decoder.decode(bytes);
        }
        catch (error) {
            throw new RpcError(RpcErrorCode.SERIALIZATION, 'JSON payload is not valid UTF-8.', { cause: error });
        }
        return this.parse(text);
    }
    copy(value) {
        return value === undefined ? undefined : this.parse(this.stringify(value));
    }
    stringify(value) {
        try {
            return JSON.stringify(value === undefined ? null : value, replacer);
        }
        catch (error) {
            throw new RpcError(RpcErrorCode.SERIALIZATION, `Cannot encode value as JSON: ${error.message}`, { cause: error });
        }
    }
    parse(text) {
        try {
            return JSON.parse(text);
        }
        catch (error) {
            throw new RpcError(RpcErrorCode.SERIALIZATION, `Malformed JSON payload: ${error.message}`, { cause: error });
        }
    }
}
//# sourceMappingURL=json-serialization.js.map