import { MAX_REALIZE_DEPTH, type Realizer } from '../service/realizer.js';
import type { MethodDescriptor, TypeDescriptor } from '../service/service-definition.js';
import { MapType, SetType } from '../service/type-descriptors.js';

/**
 * The JSON trip (`JSON.parse(JSON.stringify(value, replacer))` of the `json` codec, Maps and Sets as arrays, BigInts
 * as strings) done as one walk over the value, fused with the realisation against declared types.
 *
 * The walk reproduces the trip: `toJSON` is called with its key, `undefined`, functions and symbols are dropped
 * from objects and become `null` in arrays, non-finite numbers become `null`, `-0` becomes `0`, an own `__proto__`
 * key stays an own property. Whatever only the reference path reproduces to the letter — a cycle (or nesting past
 * {@link WIRE_DEPTH}), a boxed primitive, a value that does not fit its declared type — throws {@link FALLBACK}, and
 * the caller runs the reference path (stringify, parse, realise), which gives the same result or the same error as
 * before. No code is generated: the per-type copiers are closures composed from the declared descriptors.
 */

/** What a value becomes when the JSON trip drops it (`undefined`, a function, a symbol). */
export const MISSING: unique symbol = Symbol('weft.json.missing');
/** Thrown by a copier when the reference path must decide (its result or its error). */
export const FALLBACK: unique symbol = Symbol('weft.json.fallback');

/** Nesting at which the walk hands over to the reference path (which reports a cycle as `JSON.stringify` does). */
const WIRE_DEPTH = 512;

/** Copies one value as the JSON trip would (and realises it, for a declared type); may return {@link MISSING}. */
export type CopyNode = (value: unknown, key: string | number, depth: number) => unknown;

type Obj = Record<string, unknown>;

const DATE_TO_JSON = Date.prototype.toJSON;
const DATE_TO_ISO = Date.prototype.toISOString;
const DATE_VALUE_OF = Date.prototype.valueOf;

function keyString(key: string | number): string {
  return typeof key === 'string' ? key : String(key);
}

/** The JSON trip of any value (no declared type). */
export const wire: CopyNode = (value, key, depth) => {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      // Non-finite → null; -0 + 0 is +0, as "0" parses.
      return value - value === 0 ? value + 0 : null;
    case 'object':
      return value === null ? null : wireObject(value as Obj, key, depth);
    case 'bigint': {
      const toJSON = (value as unknown as Obj)['toJSON'];
      return typeof toJSON === 'function' ? resolved(toJSON.call(value, keyString(key)), depth) : value.toString();
    }
    default:
      return MISSING;
  }
};

function wireObject(value: Obj, key: string | number, depth: number): unknown {
  if (depth > WIRE_DEPTH) throw FALLBACK;
  const toJSON = value['toJSON'];
  if (typeof toJSON === 'function') return resolved(toJSON.call(value, keyString(key)), depth);
  return shape(value, depth);
}

/** A value `toJSON` returned: the replacer's conversions apply, `toJSON` is not called again. */
function resolved(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return value - value === 0 ? value + 0 : null;
    case 'bigint':
      return value.toString();
    case 'object':
      return value === null ? null : shape(value as Obj, depth);
    default:
      return MISSING;
  }
}

/** An object after `toJSON`: an array, a Map or Set (as arrays), or its own enumerable properties. */
function shape(value: Obj, depth: number): unknown {
  if (Array.isArray(value)) return wireArray(value, depth);
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) {
    if (value instanceof Map) return wireMap(value, depth);
    if (value instanceof Set) return wireSet(value, depth);
    if (value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt) throw FALLBACK;
  }
  return wireRecord(value, depth);
}

function wireArray(value: readonly unknown[], depth: number): unknown[] {
  const out: unknown[] = [];
  const n = value.length;
  for (let i = 0; i < n; i++) {
    const v = wire(value[i], i, depth + 1);
    out.push(v === MISSING ? null : v);
  }
  return out;
}

function wireMap(value: Map<unknown, unknown>, depth: number): unknown[] {
  const out: unknown[] = [];
  for (const [k, v] of value.entries()) {
    const wk = wire(k, 0, depth + 2);
    const wv = wire(v, 1, depth + 2);
    out.push([wk === MISSING ? null : wk, wv === MISSING ? null : wv]);
  }
  return out;
}

function wireSet(value: Set<unknown>, depth: number): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  for (const element of value) {
    const v = wire(element, i++, depth + 1);
    out.push(v === MISSING ? null : v);
  }
  return out;
}

function wireRecord(value: Obj, depth: number): Obj {
  const out: Obj = {};
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    const v = wire(value[k], k, depth + 1);
    if (v === MISSING) continue;
    // JSON.parse makes "__proto__" an own property; an assignment would set the prototype.
    if (k === '__proto__') Object.defineProperty(out, k, { value: v, writable: true, enumerable: true, configurable: true });
    else out[k] = v;
  }
  return out;
}

/** Whether `value` is an object the trip writes as its own properties (no `toJSON`, not an array, Map, Set or box). */
function isRecord(value: unknown): value is Obj {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  if (typeof (value as Obj)['toJSON'] === 'function') return false;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto === Object.prototype || proto === null) return true;
  return !(value instanceof Map || value instanceof Set || value instanceof Number || value instanceof String || value instanceof Boolean || value instanceof BigInt);
}

/**
 * Whether `JSON.stringify(value)` writes what `JSON.stringify(value, replacer)` would: nothing reachable is a Map,
 * a Set or a BigInt, and no `toJSON` other than `Date`'s could return one. Walks the value without allocating; a
 * cycle or nesting past {@link WIRE_DEPTH} answers `false` (the replacer path then reports the cycle).
 */
export function isPlainJson(value: unknown, depth: number): boolean {
  if (typeof value === 'bigint') return false;
  if (typeof value !== 'object' || value === null) return true;
  if (depth > WIRE_DEPTH) return false;
  if (Array.isArray(value)) {
    if ((value as unknown as Obj)['toJSON'] !== undefined) return false;
    for (let i = 0; i < value.length; i++) {
      const element: unknown = value[i];
      if (typeof element === 'object' ? element !== null && !isPlainJson(element, depth + 1) : typeof element === 'bigint') return false;
    }
    return true;
  }
  const toJSON = (value as Obj)['toJSON'];
  if (toJSON !== undefined) return toJSON === DATE_TO_JSON && value instanceof Date && (value as Date).toISOString === DATE_TO_ISO;
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null && (value instanceof Map || value instanceof Set || value instanceof BigInt)) return false;
  for (const key in value) {
    if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
    const v = (value as Obj)[key];
    if (typeof v === 'object' ? v !== null && !isPlainJson(v, depth + 1) : typeof v === 'bigint') return false;
  }
  return true;
}

// ------------------------------------------------------------------------------------------------------------
// Copiers of declared types: a fast path for the shapes values usually have, the trip then the realiser otherwise.

/** `wire` then the compiled realiser of `type`; a value that does not fit goes to the reference path. */
function slow(realize: (value: unknown) => unknown): CopyNode {
  return (value, key, depth) => {
    const w = wire(value, key, depth);
    if (w === MISSING) return MISSING;
    try {
      return realize(w);
    } catch {
      throw FALLBACK;
    }
  };
}

const voidNode: CopyNode = (value, key, depth) => (wire(value, key, depth) === MISSING ? MISSING : undefined);

function stringNode(slowPath: CopyNode): CopyNode {
  return (value, key, depth) => (typeof value === 'string' ? value : slowPath(value, key, depth));
}

function numberNode(slowPath: CopyNode): CopyNode {
  return (value, key, depth) => (typeof value === 'number' ? (value - value === 0 ? value + 0 : null) : slowPath(value, key, depth));
}

function booleanNode(slowPath: CopyNode): CopyNode {
  return (value, key, depth) => (typeof value === 'boolean' ? value : slowPath(value, key, depth));
}


function dateNode(slowPath: CopyNode): CopyNode {
  return (value, key, depth) => {
    if (value instanceof Date && value.toJSON === DATE_TO_JSON && value.toISOString === DATE_TO_ISO && value.valueOf === DATE_VALUE_OF) {
      // The ISO string holds every millisecond of a valid Date; an invalid one is sent as null.
      const time = value.getTime();
      return time === time ? new Date(time) : null;
    }
    return slowPath(value, key, depth);
  };
}

const objectNode: CopyNode = (value, key, depth) => {
  const w = wire(value, key, depth);
  if (w === MISSING || typeof w === 'object') return w;
  throw FALLBACK;
};

function plainArray(slowPath: CopyNode): CopyNode {
  return (value, key, depth) => (Array.isArray(value) && (value as unknown as Obj)['toJSON'] === undefined ? wireArray(value, depth) : slowPath(value, key, depth));
}

/** What an element the trip drops becomes once realised: `null`, or `undefined` for `void`. */
function absent(type: TypeDescriptor | undefined): unknown {
  return type === null ? undefined : null;
}

function arrayNode(element: CopyNode, empty: unknown, slowPath: CopyNode): CopyNode {
  return (value, key, depth) => {
    if (!Array.isArray(value) || (value as unknown as Obj)['toJSON'] !== undefined) return slowPath(value, key, depth);
    if (depth >= MAX_REALIZE_DEPTH) throw FALLBACK;
    const out: unknown[] = [];
    const n = value.length;
    for (let i = 0; i < n; i++) {
      const v = element(value[i], i, depth + 1);
      out.push(v === MISSING ? empty : v);
    }
    return out;
  };
}

function setNode(element: CopyNode, empty: unknown, slowPath: CopyNode): CopyNode {
  return (value, key, depth) => {
    if (!(value instanceof Set) || (value as unknown as Obj)['toJSON'] !== undefined) return slowPath(value, key, depth);
    if (depth >= MAX_REALIZE_DEPTH) throw FALLBACK;
    const out = new Set<unknown>();
    let i = 0;
    for (const e of value) {
      const v = element(e, i++, depth + 1);
      out.add(v === MISSING ? empty : v);
    }
    return out;
  };
}

function mapNode(keyNode: CopyNode, keyEmpty: unknown, valueNode: CopyNode, valueEmpty: unknown, slowPath: CopyNode): CopyNode {
  return (value, key, depth) => {
    if (!(value instanceof Map) || (value as unknown as Obj)['toJSON'] !== undefined) return slowPath(value, key, depth);
    if (depth >= MAX_REALIZE_DEPTH) throw FALLBACK;
    const out = new Map<unknown, unknown>();
    for (const [k, v] of value.entries()) {
      const ck = keyNode(k, 0, depth + 2);
      const cv = valueNode(v, 1, depth + 2);
      out.set(ck === MISSING ? keyEmpty : ck, cv === MISSING ? valueEmpty : cv);
    }
    return out;
  };
}

/** A class: an instance (constructor not run) of the value's own properties, declared fields copied to their types. */
function classNode(prototype: object, fields: ReadonlyMap<string, CopyNode> | undefined, slowPath: CopyNode): CopyNode {
  return (value, key, depth) => {
    if (!isRecord(value)) return slowPath(value, key, depth);
    if (fields !== undefined && depth >= MAX_REALIZE_DEPTH) throw FALLBACK;
    const instance = Object.create(prototype) as Obj;
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      const field = fields === undefined ? undefined : fields.get(k);
      const v = field === undefined ? wire(value[k], k, depth + 1) : field(value[k], k, depth + 1);
      // Dropped keys are still copied first: the trip would have failed on them too.
      if (v === MISSING || k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
      instance[k] = v;
    }
    return instance;
  };
}

/**
 * Compiles the copier of `type` (already checked by the realiser, which compiled it first); `pending` holds the
 * copiers made so far, so a class naming itself finds its own.
 */
function compile(type: TypeDescriptor | undefined, realizer: Realizer, pending: Map<object, CopyNode>): CopyNode {
  if (type === undefined) return wire;
  if (type === null) return voidNode;
  const seen = pending.get(type);
  if (seen !== undefined) return seen;
  const realize = realizer.type(type) as (value: unknown) => unknown;
  const slowPath = slow(realize);
  let node: CopyNode;
  if (type === String) node = stringNode(slowPath);
  else if (type === Number) node = numberNode(slowPath);
  else if (type === Boolean) node = booleanNode(slowPath);
  else if (type === Date) node = dateNode(slowPath);
  else if (type === Object) node = objectNode;
  else if (type === Array) node = plainArray(slowPath);
  else if (type === Map || type === Set) node = slowPath;
  else if (Array.isArray(type)) {
    const element = type[0] as TypeDescriptor;
    node = arrayNode(compile(element, realizer, pending), absent(element), slowPath);
  } else if (type instanceof SetType) {
    node = setNode(compile(type.element, realizer, pending), absent(type.element), slowPath);
  } else if (type instanceof MapType) {
    node = mapNode(compile(type.key, realizer, pending), absent(type.key), compile(type.value, realizer, pending), absent(type.value), slowPath);
  } else {
    const cls = type as { prototype: object; fields?: Record<string, TypeDescriptor> | null };
    const declared = cls.fields;
    if (declared === undefined || declared === null) node = classNode(cls.prototype, undefined, slowPath);
    else {
      const fields = new Map<string, CopyNode>();
      node = classNode(cls.prototype, fields, slowPath);
      pending.set(type, node); // before the fields: a field may name this class again
      for (const key of Object.keys(declared)) fields.set(key, compile(declared[key] as TypeDescriptor, realizer, pending));
    }
  }
  pending.set(type, node);
  return node;
}

/** The copiers of one method's arguments (by position) and result. */
export interface CompiledMethod {
  readonly args: readonly CopyNode[] | undefined;
  /** What a dropped argument becomes, per declared position. */
  readonly absentArgs: readonly unknown[];
  readonly result: CopyNode;
}

/**
 * Compiles the fused copiers of `method` (its declared types compiled by `realizer` first, so a malformed
 * declaration fails with the realiser's error).
 */
export function compileMethod(method: MethodDescriptor, realizer: Realizer): CompiledMethod {
  realizer.method(method);
  const pending = new Map<object, CopyNode>();
  return {
    args: method.args?.map((type) => compile(type, realizer, pending)),
    absentArgs: method.args?.map(absent) ?? [],
    result: compile(method.returns, realizer, pending),
  };
}
