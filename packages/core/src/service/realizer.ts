import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import type { MethodDescriptor, TypeDescriptor, TypeOf } from './service-definition.js';
import { MapType, SetType } from './type-descriptors.js';
import { JavaType } from './java-types.js';
import { javaNode } from './java-realize.js';

/**
 * How deeply declared containers (classes with `fields`, arrays, maps, sets) may nest in one realised value.
 *
 * @remarks Only declared types recurse (an undeclared field is copied as it is), so only a recursive declaration
 * (a tree) can meet the limit; past it the value is refused with an `RpcError` `serialization` naming the path,
 * never a stack overflow.
 * @defaultValue 256
 * @example
 * ```ts
 * MAX_REALIZE_DEPTH; // 256
 * ```
 */
export const MAX_REALIZE_DEPTH = 256;

/** Converts one value to a type; throws {@link Mismatch}. `depth` counts the containers above it. */
type Node = (value: unknown, depth: number) => unknown;

/** A compiled converter: the value realised to its declared type, or an `RpcError` naming `where` and the path. */
export type RealizeFn<T = unknown> = (value: unknown, where?: string) => T;

/** Realises the values of one method's calls against its declared types (compiled once per method). */
export interface MethodRealizer {
  /** Realises the arguments in place (each against its parameter type) and returns the same array. */
  args(values: unknown[]): unknown[];
  /** Realises a return value against the declared return type. */
  result(value: unknown): unknown;
}

/** A value that does not fit; the path is collected (innermost segment first) while the stack unwinds. */
class Mismatch {
  readonly path: string[] = [];
  constructor(
    readonly expected: string,
    readonly value: unknown,
    readonly reason?: string,
  ) {}
}

function within(error: unknown, segment: string): unknown {
  if (error instanceof Mismatch) error.path.push(segment);
  return error;
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function fieldSegment(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

function show(value: unknown): string {
  if (typeof value === 'function') return `function ${value.name || '(anonymous)'}`;
  let shown: string;
  try {
    shown = typeof value === 'bigint' ? `${value}n` : (JSON.stringify(value) ?? String(value));
  } catch {
    shown = String(value);
  }
  return shown.length > 80 ? `${shown.slice(0, 77)}...` : shown;
}

function formatPath(segments: readonly string[]): string {
  // Innermost first as collected; a path past the depth limit is shown by its ends.
  const path = [...segments].reverse();
  if (path.length <= 16) return path.join('');
  return `${path.slice(0, 6).join('')}…(${path.length - 12} more)…${path.slice(-6).join('')}`;
}

function toRpcError(mismatch: Mismatch, where: string): RpcError {
  const path = formatPath(mismatch.path);
  const place = where !== '' && path !== '' ? `${where} ${path}` : where || path || 'value';
  const problem = mismatch.reason ?? `expected ${mismatch.expected}, got ${show(mismatch.value)}`;
  return new RpcError(RpcErrorCode.SERIALIZATION, `${place}: ${problem}.`);
}

function tooDeep(value: unknown): Mismatch {
  return new Mismatch('', value, `nested deeper than ${MAX_REALIZE_DEPTH} levels (the limit for realised values)`);
}

const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

type AnyClass = abstract new (...args: never[]) => unknown;

/** The name of a descriptor, for messages: `String`, `Greeting[]`, `Map<String, Greeting>`, `void`. */
export function typeName(type: TypeDescriptor): string {
  if (type === null) return 'void';
  if (Array.isArray(type)) return `${typeName(type[0] as TypeDescriptor)}[]`;
  if (type instanceof MapType) return `Map<${typeName(type.key)}, ${typeName(type.value)}>`;
  if (type instanceof SetType) return `Set<${typeName(type.element)}>`;
  if (type instanceof JavaType) return type.className;
  return (type as { name?: string }).name || 'anonymous class';
}

const DESCRIPTORS = 'String, Number, Boolean, Date, Map, Set, Object, Array, a class, [T], mapOf(K, V), setOf(T) or null';

function invalid(type: unknown, place: string): ExtensionError {
  return new ExtensionError(
    ExtensionErrorCode.INVALID_PARAMETER,
    `${place}: ${show(type)} is not a type descriptor (use ${DESCRIPTORS}).`,
  );
}

/** Throws when `type` is not a descriptor (only its outer layer: a class's fields are checked when compiled). */
export function checkDescriptor(type: unknown, place: string): void {
  if (type === null || typeof type === 'function' || type instanceof MapType || type instanceof SetType || type instanceof JavaType) return;
  if (Array.isArray(type) && type.length === 1) return;
  throw invalid(type, place);
}

// ------------------------------------------------------------------------------------------------------------
// Nodes for the standard types

const toVoid: Node = () => undefined;

const toString: Node = (value) => {
  if (typeof value === 'string' || value === undefined || value === null) return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  throw new Mismatch('String', value);
};

const toNumber: Node = (value) => {
  if (typeof value === 'number' || value === undefined || value === null) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  throw new Mismatch('Number', value);
};

const toBoolean: Node = (value) => {
  if (typeof value === 'boolean' || value === undefined || value === null) return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw new Mismatch('Boolean', value);
};

const toDate: Node = (value) => {
  if (value instanceof Date || value === undefined || value === null) return value;
  if (typeof value === 'string' || typeof value === 'number') {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new Mismatch('Date', value);
};

const toMap: Node = (value) => {
  if (value instanceof Map || value === undefined || value === null) return value;
  if (Array.isArray(value)) return new Map(value as [unknown, unknown][]);
  if (typeof value === 'object') return new Map(Object.entries(value as object).filter(([k]) => !UNSAFE_KEYS.has(k)));
  throw new Mismatch('Map', value);
};

const toSet: Node = (value) => {
  if (value instanceof Set || value === undefined || value === null) return value;
  if (Array.isArray(value)) return new Set(value);
  throw new Mismatch('Set', value);
};

const toArray: Node = (value) => {
  if (Array.isArray(value) || value === undefined || value === null) return value;
  throw new Mismatch('Array', value);
};

const toObject: Node = (value) => {
  if (typeof value === 'object' || value === undefined) return value;
  throw new Mismatch('Object', value);
};

const STANDARD: ReadonlyMap<unknown, Node> = new Map<unknown, Node>([
  [String, toString],
  [Number, toNumber],
  [Boolean, toBoolean],
  [Date, toDate],
  [Map, toMap],
  [Set, toSet],
  [Array, toArray],
  [Object, toObject],
]);

// ------------------------------------------------------------------------------------------------------------
// Nodes for containers

function arrayNode(name: string, element: Node): Node {
  return (value, depth) => {
    if (value === undefined || value === null) return value;
    if (!Array.isArray(value)) throw new Mismatch(name, value);
    if (depth >= MAX_REALIZE_DEPTH) throw tooDeep(value);
    const out = new Array<unknown>(value.length);
    let i = 0;
    try {
      for (; i < value.length; i++) out[i] = element(value[i], depth + 1);
    } catch (error) {
      throw within(error, `[${i}]`);
    }
    return out;
  };
}

function setNode(name: string, element: Node): Node {
  return (value, depth) => {
    if (value instanceof Set || value === undefined || value === null) return value;
    if (!Array.isArray(value)) throw new Mismatch(name, value);
    if (depth >= MAX_REALIZE_DEPTH) throw tooDeep(value);
    const out = new Set<unknown>();
    let i = 0;
    try {
      for (; i < value.length; i++) out.add(element(value[i], depth + 1));
    } catch (error) {
      throw within(error, `[${i}]`);
    }
    return out;
  };
}

function mapNode(name: string, key: Node, val: Node): Node {
  return (value, depth) => {
    if (value instanceof Map || value === undefined || value === null) return value;
    if (typeof value !== 'object') throw new Mismatch(name, value);
    if (depth >= MAX_REALIZE_DEPTH) throw tooDeep(value);
    const out = new Map<unknown, unknown>();
    if (Array.isArray(value)) {
      let i = 0;
      let part = -1;
      try {
        for (; i < value.length; i++) {
          const entry: unknown = value[i];
          part = -1;
          if (!Array.isArray(entry) || entry.length !== 2) throw new Mismatch('a [key, value] pair', entry);
          part = 0;
          const k = key(entry[0], depth + 1);
          part = 1;
          out.set(k, val(entry[1], depth + 1));
        }
      } catch (error) {
        throw within(part < 0 ? error : within(error, `[${part}]`), `[${i}]`);
      }
      return out;
    }
    let current = '';
    try {
      for (const k of Object.keys(value)) {
        if (UNSAFE_KEYS.has(k)) continue;
        current = k;
        out.set(key(k, depth + 1), val((value as Record<string, unknown>)[k], depth + 1));
      }
    } catch (error) {
      throw within(error, fieldSegment(current));
    }
    return out;
  };
}

/** An undeclared class: an instance (constructor not run) with the value's own properties copied. */
function plainClassNode(cls: AnyClass, name: string): Node {
  const prototype = cls.prototype as object;
  return (value) => {
    if (value === undefined || value === null || value instanceof cls) return value;
    if (typeof value !== 'object' || Array.isArray(value)) throw new Mismatch(name, value);
    const instance = Object.create(prototype) as Record<string, unknown>;
    const keys = Object.keys(value);
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string;
      if (key !== '__proto__' && key !== 'constructor' && key !== 'prototype') instance[key] = (value as Record<string, unknown>)[key];
    }
    return instance;
  };
}

/** A class with `static fields`: declared fields realised, the others copied. `fields` is filled after creation (cycles). */
function declaredClassNode(cls: AnyClass, name: string, fields: ReadonlyMap<string, Node>): Node {
  const prototype = cls.prototype as object;
  return (value, depth) => {
    if (value === undefined || value === null || value instanceof cls) return value;
    if (typeof value !== 'object' || Array.isArray(value)) throw new Mismatch(name, value);
    if (depth >= MAX_REALIZE_DEPTH) throw tooDeep(value);
    const instance = Object.create(prototype) as Record<string, unknown>;
    const keys = Object.keys(value);
    let key = '';
    try {
      for (let i = 0; i < keys.length; i++) {
        key = keys[i] as string;
        if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
        const field = fields.get(key);
        const v = (value as Record<string, unknown>)[key];
        instance[key] = field === undefined ? v : field(v, depth + 1);
      }
    } catch (error) {
      throw within(error, fieldSegment(key));
    }
    return instance;
  };
}

// ------------------------------------------------------------------------------------------------------------

/**
 * Compiles type descriptors into converters, once per descriptor, and method descriptors into
 * {@link MethodRealizer}s, once per method.
 *
 * @remarks
 * A scope object: the compiled converters live in `WeakMap`s keyed by the descriptor objects, so a codec or a
 * protocol holds one `Realizer` and the per-call path runs closures only, with no descriptor interpretation. The
 * conversions are those of {@link realize}; a class's `static fields` is read when the class is first compiled
 * (so a `static get fields()` may name classes declared after it), and a class that names itself, directly or
 * through another class, is compiled once and referenced. Nesting is bounded by {@link MAX_REALIZE_DEPTH}.
 *
 * @example
 * ```ts
 * const realizer = new Realizer();
 * const toGreeting = realizer.type(Greeting);
 * toGreeting({ text: 'hi', at: '2024-01-01T00:00:00Z' }, 'greet() result').at instanceof Date; // true
 * ```
 * @throws `ERR_SPI_INVALID_PARAMETER` (from `type`/`method`) when a descriptor or a `fields` entry is not a
 * descriptor, naming the class and field.
 */
export class Realizer {
  private readonly nodes = new WeakMap<object, Node>();
  private readonly fns = new WeakMap<object, RealizeFn>();
  private readonly methods = new WeakMap<MethodDescriptor, MethodRealizer>();

  /**
   * The converter for `type`; `undefined` (no declared type) passes values through, `null` (void) gives `undefined`.
   *
   * @throws `RpcError` `serialization` (from the converter) when a value does not fit, naming `where` and the path.
   */
  type<const D extends TypeDescriptor | undefined>(type: D): RealizeFn<D extends TypeDescriptor ? TypeOf<D> : unknown> {
    type Result = RealizeFn<D extends TypeDescriptor ? TypeOf<D> : unknown>;
    if (type === undefined) return ((value: unknown) => value) as Result;
    if (type === null) return ((): unknown => undefined) as Result;
    let fn = this.fns.get(type);
    if (fn === undefined) {
      const node = this.node(type, 'type');
      fn = (value, where = '') => {
        try {
          return node(value, 0);
        } catch (error) {
          throw error instanceof Mismatch ? toRpcError(error, where) : error;
        }
      };
      this.fns.set(type, fn);
    }
    return fn as Result;
  }

  /** The realiser of one method's arguments and result, with messages naming `name() argument i` / `name() result`. */
  method(method: MethodDescriptor): MethodRealizer {
    let compiled = this.methods.get(method);
    if (compiled === undefined) {
      compiled = this.compileMethod(method);
      this.methods.set(method, compiled);
    }
    return compiled;
  }

  private compileMethod(method: MethodDescriptor): MethodRealizer {
    const argTypes = method.args;
    const args = argTypes?.map((type, i) => this.node(type, `${method.name}() argument ${i}`));
    const argPlaces = argTypes?.map((_, i) => `${method.name}() argument ${i}`) ?? [];
    const returns = method.returns === null ? toVoid : this.node(method.returns, `${method.name}() result`);
    const resultPlace = `${method.name}() result`;
    return {
      args(values: unknown[]): unknown[] {
        if (args === undefined) return values;
        const n = Math.min(values.length, args.length);
        let i = 0;
        try {
          for (; i < n; i++) values[i] = (args[i] as Node)(values[i], 0);
        } catch (error) {
          throw error instanceof Mismatch ? toRpcError(error, argPlaces[i] as string) : error;
        }
        return values;
      },
      result(value: unknown): unknown {
        try {
          return returns(value, 0);
        } catch (error) {
          throw error instanceof Mismatch ? toRpcError(error, resultPlace) : error;
        }
      },
    };
  }

  /** The node of `type`, compiling it (and what it names) when first seen; `place` names it in declaration errors. */
  private node(type: TypeDescriptor, place: string): Node {
    if (type === null) return toVoid;
    const known = this.nodes.get(type);
    if (known !== undefined) return known;
    const pending = new Map<object, Node>();
    const node = compile(type, place, pending, this.nodes);
    // Only a fully compiled graph is kept: a bad declaration leaves nothing half-built behind.
    for (const [key, value] of pending) this.nodes.set(key, value);
    return node;
  }
}

/** Compiles `type`; nodes made on the way go into `pending` (so a class naming itself finds its own node). */
function compile(type: TypeDescriptor, place: string, pending: Map<object, Node>, known?: WeakMap<object, Node>): Node {
  if (type === null) return toVoid;
  const seen = known?.get(type) ?? pending.get(type);
  if (seen !== undefined) return seen;
  checkDescriptor(type, place);
  const standard = STANDARD.get(type);
  if (standard !== undefined) return standard;
  let node: Node;
  // Elements first: a malformed element is reported before the container's name is needed.
  if (Array.isArray(type)) {
    const element = compile(type[0] as TypeDescriptor, `${place}[]`, pending, known);
    node = arrayNode(typeName(type), element);
  } else if (type instanceof MapType) {
    const key = compile(type.key, `${place} key`, pending, known);
    node = mapNode(typeName(type), key, compile(type.value, `${place} value`, pending, known));
  } else if (type instanceof SetType) {
    const element = compile(type.element, `${place} element`, pending, known);
    node = setNode(typeName(type), element);
  } else if (type instanceof JavaType) {
    const element = type.element === undefined ? undefined : compile(type.element, `${place} element`, pending, known);
    const key = type.key === undefined ? undefined : compile(type.key, `${place} key`, pending, known);
    node = javaNode(type, element, key, { arrayNode, setNode, mapNode, Mismatch, tooDeep });
  } else {
    return compileClass(type as AnyClass, pending, known);
  }
  pending.set(type, node);
  return node;
}

function compileClass(cls: AnyClass, pending: Map<object, Node>, known: WeakMap<object, Node> | undefined): Node {
  const name = typeName(cls as TypeDescriptor);
  if (typeof cls.prototype !== 'object' || cls.prototype === null) throw invalid(cls, name);
  const declared = (cls as { fields?: unknown }).fields;
  if (declared === undefined || declared === null) {
    const node = plainClassNode(cls, name);
    pending.set(cls, node);
    return node;
  }
  if (typeof declared !== 'object' || Array.isArray(declared)) {
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `${name}.fields: must be an object of field types (e.g. { at: Date, tags: [String] }), not ${show(declared)}.`,
    );
  }
  const fields = new Map<string, Node>();
  const node = declaredClassNode(cls, name, fields);
  pending.set(cls, node); // before the fields: a field may name this class again
  for (const key of Object.keys(declared)) {
    if (UNSAFE_KEYS.has(key)) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${name}.fields.${key}: "${key}" cannot be a field (it never reaches an instance).`,
      );
    }
    fields.set(key, compile((declared as Record<string, TypeDescriptor>)[key] as TypeDescriptor, `${name}.fields${fieldSegment(key)}`, pending, known));
  }
  return node;
}

/**
 * Realises one value without keeping anything compiled (what {@link realize} does).
 *
 * @remarks Compiles `type` into a throw-away graph, so a one-off conversion allocates no cache.
 * @example
 * ```ts
 * realizeOnce('42', Number, 'count() result'); // 42
 * ```
 * @throws `RpcError` `serialization` when the value does not fit; `ERR_SPI_INVALID_PARAMETER` for a bad declaration.
 */
export function realizeOnce(value: unknown, type: TypeDescriptor | undefined, where: string): unknown {
  if (type === undefined) return value;
  if (type === null) return undefined;
  const node = compile(type, 'type', new Map());
  try {
    return node(value, 0);
  } catch (error) {
    throw error instanceof Mismatch ? toRpcError(error, where) : error;
  }
}
