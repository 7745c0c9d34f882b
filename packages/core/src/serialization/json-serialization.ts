import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import type { Realizer } from '../service/realizer.js';
import type { MethodDescriptor } from '../service/service-definition.js';
import { isAscii, isUtf8 } from 'node:buffer';

import { compileMethod, FALLBACK, isPlainJson, MISSING, wire } from './json-copier.js';
import { Serialization, type MethodCopier } from './serialization.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

/** JSON replacer: Maps and Sets as arrays, BigInts as strings (JSON has neither). */
function replacer(_key: string, value: unknown): unknown {
  if (value instanceof Map) return [...value.entries()];
  if (value instanceof Set) return [...value];
  if (typeof value === 'bigint') return value.toString();
  return value;
}

function encodeError(error: unknown): RpcError {
  return new RpcError(RpcErrorCode.SERIALIZATION, `Cannot encode value as JSON: ${(error as Error).message}`, { cause: error });
}

/**
 * The `json` codec (default): UTF-8 JSON, with `Map`/`Set` sent as arrays and `BigInt` as strings.
 *
 * @remarks `undefined` is sent as `null`. Decoding is strict UTF-8. Keys such as `__proto__` arrive as plain
 * own properties; realisation drops them. `copy` and `copier` give what a trip through `serialize`/`deserialize`
 * (and the realisation) would, without the text: one walk over the value that builds the copy, realised types
 * included; a value it cannot copy exactly (a cycle, a boxed primitive, one that does not fit its declared type)
 * takes the trip, so results and errors are the trip's.
 * @example
 * ```ts
 * new JsonSerialization().copy({ when: new Date(0) }); // { when: '1970-01-01T00:00:00.000Z' }
 * ```
 */
export class JsonSerialization extends Serialization {
  readonly contentSubtype = 'json';

  serialize(value: unknown): Uint8Array {
    // Buffer.from encodes UTF-8 as TextEncoder does (lone surrogates → U+FFFD) in one native pass.
    // (JSON.stringify gives undefined for a lone function or symbol: empty bytes, as TextEncoder made of it.)
    const text: string | undefined = this.stringify(value);
    return Buffer.from(text ?? '', 'utf8');
  }

  deserialize(bytes: Uint8Array): unknown {
    let text: string;
    // Valid UTF-8 without a BOM (which TextDecoder strips) is read in place: ASCII — the usual JSON, and valid UTF-8
    // without a BOM by itself, so one scan — as Latin-1 (a one-byte string).
    if (isAscii(bytes)) {
      text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    } else if (isUtf8(bytes) && !(bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)) {
      text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    } else {
      try {
        text = decoder.decode(bytes);
      } catch (error) {
        throw new RpcError(RpcErrorCode.SERIALIZATION, 'JSON payload is not valid UTF-8.', { cause: error });
      }
    }
    return this.parse(text);
  }

  override copy(value: unknown): unknown {
    if (value === undefined) return undefined;
    try {
      const copied = wire(value, '', 0);
      if (copied !== MISSING) return copied;
    } catch (error) {
      if (error !== FALLBACK) throw encodeError(error);
    }
    return this.trip(value);
  }

  protected override compileCopier(method: MethodDescriptor, realizer: Realizer): MethodCopier {
    const compiled = compileMethod(method, realizer);
    const realize = realizer.method(method);
    const argNodes = compiled.args;
    const declared = argNodes === undefined ? 0 : argNodes.length;
    const absentArgs = compiled.absentArgs;
    const resultNode = compiled.result;
    // The reference path: the text trip, then the realiser (its result, or its error, is the contract).
    const tripArgs = (values: readonly unknown[]): unknown[] => realize.args(this.trip(values) as unknown[]);
    const tripResult = (value: unknown): unknown => realize.result(this.trip(value));
    return {
      args: (values) => {
        try {
          const n = values.length;
          // One argument (the usual case) as a one-element literal: an empty array's first push reserves 17 slots.
          if (n === 1 && declared >= 1) {
            const v = (argNodes as NonNullable<typeof argNodes>)[0]!(values[0], 0, 1);
            return [v !== MISSING ? v : absentArgs[0]];
          }
          const out: unknown[] = [];
          for (let i = 0; i < n; i++) {
            const node = i < declared ? (argNodes as NonNullable<typeof argNodes>)[i] : undefined;
            const v = node === undefined ? wire(values[i], i, 1) : node(values[i], i, 1);
            out.push(v !== MISSING ? v : i < declared ? absentArgs[i] : null);
          }
          return out;
        } catch (error) {
          if (error !== FALLBACK) throw encodeError(error);
        }
        return tripArgs(values);
      },
      result: (value) => {
        if (value === undefined) return undefined;
        try {
          const v = resultNode(value, '', 0);
          if (v !== MISSING) return v;
        } catch (error) {
          if (error !== FALLBACK) throw encodeError(error);
        }
        return tripResult(value);
      },
    };
  }

  /** The reference copy: the text trip. */
  private trip(value: unknown): unknown {
    return this.parse(this.stringify(value));
  }

  private stringify(value: unknown): string {
    try {
      // Without a replacer V8 keeps its fast serializer; the replacer is needed only where a Map, Set or BigInt is.
      if (value === undefined) return 'null';
      return isPlainJson(value, 0) ? JSON.stringify(value) : JSON.stringify(value, replacer);
    } catch (error) {
      throw encodeError(error);
    }
  }

  private parse(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch (error) {
      throw new RpcError(RpcErrorCode.SERIALIZATION, `Malformed JSON payload: ${(error as Error).message}`, { cause: error });
    }
  }
}
