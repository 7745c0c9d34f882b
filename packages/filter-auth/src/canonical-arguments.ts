import { createHash } from 'node:crypto';

import { JavaValue } from '@weft/core';

/**
 * Bounds of the canonical form: deeper or larger values are refused rather than walked.
 *
 * @remarks `depth` counts nesting (the argument list is depth 0); `nodes` counts every value visited, so a value
 * that shares one object many times over (a DAG that would unfold exponentially) is refused as soon as it passes
 * the count.
 * @example
 * ```ts
 * canonicalArgumentsDigest(args, { depth: 16, nodes: 10_000 });
 * ```
 */
export interface CanonicalLimits {
  /** Deepest nesting. @defaultValue 64 */
  readonly depth: number;
  /** Most values visited. @defaultValue 1_000_000 */
  readonly nodes: number;
}

/**
 * The bounds used by the `auth` filter: 64 levels, 1,000,000 values.
 *
 * @example
 * ```ts
 * canonicalArguments(args, { ...CANONICAL_LIMITS, nodes: 10_000 });
 * ```
 */
export const CANONICAL_LIMITS: CanonicalLimits = Object.freeze({ depth: 64, nodes: 1_000_000 });

/**
 * Thrown when arguments exceed the {@link CanonicalLimits}, or cannot be read (a getter that throws, an object
 * posing as a `Map`).
 *
 * @example
 * ```ts
 * try { canonicalArguments(args); } catch (e) { if (e instanceof CanonicalLimitError) console.log(e.message); }
 * ```
 */
export class CanonicalLimitError extends Error {
  override name = 'CanonicalLimitError';
}

const ENCODER = new TextEncoder();

/**
 * The canonical text of a call's arguments, independent of the serialization that carried them.
 *
 * @remarks
 * Each value is written with a type tag, so the text is self-delimiting:
 * - `null` and `undefined` → `n` (serializations turn one into the other); `true`/`false` → `t`/`f`;
 * - numbers and bigints → `d<decimal>;` — integers in full digits, so `5`, `5n` and `5.0` agree; other numbers as
 *   JavaScript prints them (`0.5`, `1e-7`, `NaN`, `Infinity`); `-0` is `0`;
 * - strings → `s<UTF-8 byte length>:<text>`; `Uint8Array` / `Buffer` / `ArrayBuffer` → `b<base64>;`;
 *   `Date` → `D<ISO 8601>;` (`DInvalid;`);
 * - arrays, `Set`s and other typed arrays → `[<count>:<items>]` in order (a `Set` in insertion order, as it
 *   travels);
 * - objects and `Map`s → `{<count>:<key><value>…}`, entries sorted by the key's canonical text (UTF-16 code unit
 *   order); entries whose value is `null`, `undefined`, a function or a symbol are dropped (a missing field and a
 *   null one arrive alike in some serializations); object keys are own enumerable string keys, written as strings,
 *   so `{a: 1}` and `new Map([['a', 1]])` agree;
 * - protobuf-es messages → their fields, without `$typeName` and `$unknown`; `JavaValue` wrappers → their value;
 * - functions and symbols elsewhere → `n`.
 *
 * The argument list itself is an array. Values deeper than `limits.depth` or with more than `limits.nodes` values
 * throw {@link CanonicalLimitError} (a cyclic value always does).
 *
 * @example
 * ```ts
 * canonicalArguments(['ann', 5n, { b: undefined, a: true }]); // '[3:s3:annd5;{1:s1:at}]'
 * ```
 * @throws CanonicalLimitError when the arguments exceed the bounds.
 */
export function canonicalArguments(args: readonly unknown[], limits: CanonicalLimits = CANONICAL_LIMITS): string {
  const state = { nodes: 0, limits };
  try {
    return encode(args, 0, state);
  } catch (error) {
    if (error instanceof CanonicalLimitError) throw error;
    // A hostile or odd value (a getter that throws, an object posing as a Map): refuse it, never crash the call.
    throw new CanonicalLimitError(`the arguments cannot be read into the canonical form (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  }
}

/**
 * SHA-256 of {@link canonicalArguments} (UTF-8), as the 43-character base64url text the signature covers.
 *
 * @example
 * ```ts
 * canonicalArgumentsDigest(['ann']); // 'r4Kk…' (43 characters)
 * ```
 * @throws CanonicalLimitError when the arguments exceed the bounds.
 */
export function canonicalArgumentsDigest(args: readonly unknown[], limits: CanonicalLimits = CANONICAL_LIMITS): string {
  return createHash('sha256').update(canonicalArguments(args, limits), 'utf8').digest('base64url');
}

interface EncodeState {
  nodes: number;
  readonly limits: CanonicalLimits;
}

function encode(value: unknown, depth: number, state: EncodeState): string {
  if (++state.nodes > state.limits.nodes) {
    throw new CanonicalLimitError(`the arguments have more than ${state.limits.nodes} values`);
  }
  switch (typeof value) {
    case 'undefined':
    case 'function':
    case 'symbol':
      return 'n';
    case 'boolean':
      return value ? 't' : 'f';
    case 'bigint':
      return `d${value.toString()};`;
    case 'number':
      return `d${decimal(value)};`;
    case 'string':
      return `s${ENCODER.encode(value).length}:${value}`;
    default:
      break;
  }
  if (value === null) return 'n';
  if (depth >= state.limits.depth) {
    throw new CanonicalLimitError(`the arguments nest deeper than ${state.limits.depth} levels (or refer to themselves)`);
  }
  if (value instanceof JavaValue) return encode(value.value, depth + 1, state);
  if (ArrayBuffer.isView(value) && value instanceof Uint8Array) return `b${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')};`;
  if (value instanceof ArrayBuffer) return `b${Buffer.from(value).toString('base64')};`;
  if (value instanceof Date && Object.prototype.toString.call(value) === '[object Date]') return `D${Number.isNaN(value.getTime()) ? 'Invalid' : value.toISOString()};`;
  if (Array.isArray(value) || value instanceof Set || (ArrayBuffer.isView(value) && !(value instanceof DataView))) {
    const items = Array.isArray(value) ? (value as readonly unknown[]) : Array.from(value as Iterable<unknown>);
    let out = `[${items.length}:`;
    for (const item of items) out += encode(item, depth + 1, state);
    return `${out}]`;
  }
  const entries: [string, string][] = [];
  if (value instanceof Map) {
    for (const [key, item] of value) {
      if (dropped(item)) continue;
      entries.push([encode(key, depth + 1, state), encode(item, depth + 1, state)]);
    }
  } else {
    const message = typeof (value as { $typeName?: unknown }).$typeName === 'string';
    for (const key of Object.keys(value as object)) {
      if (message && (key === '$typeName' || key === '$unknown')) continue;
      const item = (value as Record<string, unknown>)[key];
      if (dropped(item)) continue;
      entries.push([encode(key, depth + 1, state), encode(item, depth + 1, state)]);
    }
  }
  entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  let out = `{${entries.length}:`;
  for (const [key, item] of entries) out += key + item;
  return `${out}}`;
}

function dropped(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'function' || typeof value === 'symbol';
}

/** Integers in full digits (`2 ** 60` → `1152921504606846976`, as the bigint prints), others as JavaScript prints them. */
function decimal(n: number): string {
  if (Number.isInteger(n)) return Math.abs(n) <= Number.MAX_SAFE_INTEGER ? (n === 0 ? '0' : String(n)) : BigInt(n).toString();
  return String(n);
}
