import { JavaType, MapType, RpcError, RpcErrorCode, SetType, describeType, type TypeDescriptor } from '@weft/core';
import { normalizeLong } from './byte-source.js';
import { JAVA_CLASS } from './hessian-decoder.js';

/**
 * Realises one decoded value to a declared type. `seen` maps decoded containers to their realised copies, so shared
 * references stay shared, cycles stay cycles and the work stays linear in the input.
 */
export type ConvertFn = (value: unknown, seen: Map<object, unknown>) => unknown;

class Mismatch extends Error {
  readonly path: string[] = [];
}

function show(value: unknown): string {
  if (value instanceof Map) return 'a map';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Set) return 'a set';
  if (typeof value === 'object' && value !== null) {
    const cls = (value as { [JAVA_CLASS]?: string })[JAVA_CLASS];
    return cls === undefined ? 'a map' : `an object of ${cls}`;
  }
  let shown = typeof value === 'bigint' ? `${value}n` : typeof value === 'string' ? JSON.stringify(value) : String(value);
  if (shown.length > 60) shown = `${shown.slice(0, 57)}...`;
  return shown;
}

function fail(expected: string, value: unknown): never {
  throw new Mismatch(`expected ${expected}, got ${show(value)}`);
}

/** Untyped positions: the value as decoded, or its realised copy when a declared position already copied it. */
const identity: ConvertFn = (v, seen) => (typeof v === 'object' && v !== null ? (seen.get(v) ?? v) : v);
const toVoid: ConvertFn = () => undefined;

const toStringValue: ConvertFn = (v) => {
  if (typeof v === 'string' || v === null || v === undefined) return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return fail('a string', v);
};

const toNumberValue: ConvertFn = (v) => {
  if (typeof v === 'number' || v === null || v === undefined) return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  return fail('a number', v);
};

const toIntValue: ConvertFn = (v) => {
  if (typeof v === 'number') return Math.trunc(v) | 0;
  if (v === null || v === undefined) return v;
  if (typeof v === 'bigint') return Number(BigInt.asIntN(32, v));
  if (typeof v === 'boolean') return v ? 1 : 0;
  return fail('an int', v);
};

const toLongValue: ConvertFn = (v) => {
  if (typeof v === 'number') return Number.isInteger(v) ? v : Math.trunc(v);
  if (typeof v === 'bigint' || v === null || v === undefined) return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return fail('a long', v);
};

const toBooleanValue: ConvertFn = (v) => {
  if (typeof v === 'boolean' || v === null || v === undefined) return v;
  if (typeof v === 'number') return v !== 0;
  return fail('a boolean', v);
};

const toDateValue: ConvertFn = (v) => {
  if (v instanceof Date || v === null || v === undefined) return v;
  if (typeof v === 'number') return new Date(v);
  return fail('a date', v);
};

const toCharValue: ConvertFn = (v) => {
  if (typeof v === 'string' || v === null || v === undefined) return v;
  if (typeof v === 'number') return String.fromCharCode(v);
  return fail('a char', v);
};

const toBytesValue: ConvertFn = (v) => {
  if (v instanceof Uint8Array || v === null || v === undefined) return v;
  if (Array.isArray(v)) return Uint8Array.from(v as number[]);
  return fail('a byte[]', v);
};

const toDecimalValue: ConvertFn = (v) => {
  if (typeof v === 'string' || v === null || v === undefined) return v;
  if (typeof v === 'number' || typeof v === 'bigint') return String(v);
  if (typeof v === 'object' && typeof (v as { value?: unknown }).value === 'string') return (v as { value: string }).value;
  return fail('a BigDecimal', v);
};

function itemsOf(v: unknown): readonly unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (v instanceof Set) return [...v];
  return undefined;
}

function arrayConverter(expected: string, element: ConvertFn): ConvertFn {
  return (v, seen) => {
    if (v === null || v === undefined) return v;
    if (element === identity && Array.isArray(v)) return v;
    const items = itemsOf(v);
    if (items === undefined) return fail(expected, v);
    const known = seen.get(v as object);
    if (known !== undefined) return known;
    const out = new Array<unknown>(items.length);
    seen.set(v as object, out);
    let i = 0;
    try {
      for (; i < items.length; i++) out[i] = element(items[i], seen);
    } catch (error) {
      if (error instanceof Mismatch) error.path.push(`[${i}]`);
      throw error;
    }
    return out;
  };
}

function setConverter(expected: string, element: ConvertFn): ConvertFn {
  return (v, seen) => {
    if (v === null || v === undefined) return v;
    const items = itemsOf(v);
    if (items === undefined) return fail(expected, v);
    const known = seen.get(v as object);
    if (known !== undefined) return known;
    const out = new Set<unknown>();
    seen.set(v as object, out);
    for (const item of items) out.add(element(item, seen));
    return out;
  };
}

function mapConverter(expected: string, key: ConvertFn, value: ConvertFn): ConvertFn {
  return (v, seen) => {
    if (v === null || v === undefined) return v;
    if (typeof v !== 'object' || Array.isArray(v) || v instanceof Set || v instanceof Date || v instanceof Uint8Array) return fail(expected, v);
    if (v instanceof Map && key === identity && value === identity) return v;
    const known = seen.get(v);
    if (known !== undefined) return known;
    const out = new Map<unknown, unknown>();
    seen.set(v, out);
    const entries = v instanceof Map ? v.entries() : Object.entries(v);
    for (const [k, x] of entries) {
      try {
        out.set(key(k, seen), value(x, seen));
      } catch (error) {
        if (error instanceof Mismatch) error.path.push(typeof k === 'string' ? `[${JSON.stringify(k)}]` : `[${String(k)}]`);
        throw error;
      }
    }
    return out;
  };
}

const UNSAFE_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
type AnyClass = abstract new (...args: never[]) => unknown;

/** A declared `Error` class: a Throwable read off the wire becomes an instance of it (constructor not run). */
function errorConverter(cls: AnyClass): ConvertFn {
  return (v, seen) => {
    if (v === null || v === undefined || v instanceof cls || cls === Error) return v instanceof Error || v === null || v === undefined ? v : fail('a Throwable', v);
    if (!(v instanceof Error)) return fail('a Throwable', v);
    const known = seen.get(v);
    if (known !== undefined) return known;
    const error = Object.create(cls.prototype as object) as Error & Record<string, unknown>;
    seen.set(v, error);
    for (const key of Object.keys(v)) if (!UNSAFE_KEYS.has(key)) error[key] = (v as unknown as Record<string, unknown>)[key];
    Object.defineProperty(error, 'message', { value: v.message, writable: true, configurable: true });
    Object.defineProperty(error, 'stack', { value: v.stack, writable: true, configurable: true });
    error.name = v.name;
    if (v.cause !== undefined) error.cause = v.cause;
    return error;
  };
}

/**
 * Compiles declared types into converters from decoded Hessian data, once per descriptor (one per
 * `Hessian2Serialization`).
 *
 * @remarks The declared type wins over the wire's class name: an object of any class fills the declared class by
 * field name, fields the class does not declare are copied as they arrive, an untyped list fills a declared
 * `Set` or array. Instances are created without running the constructor (`Object.create(prototype)`).
 */
export class ReaderCompiler {
  private readonly cache = new WeakMap<object, ConvertFn>();

  /** The converter of `type`, with errors naming `where`. */
  realize(type: TypeDescriptor | undefined, value: unknown, where: string): unknown {
    if (type === undefined) return value;
    const convert = this.converter(type);
    try {
      return convert(value, new Map());
    } catch (error) {
      if (error instanceof Mismatch) {
        const path = error.path.reverse().join('');
        throw new RpcError(RpcErrorCode.SERIALIZATION, `hessian2: ${where} as ${describeType(type)}${path === '' ? '' : ` ${path}`}: ${error.message}.`);
      }
      throw error;
    }
  }

  converter(type: TypeDescriptor): ConvertFn {
    if (type === null) return toVoid;
    const known = this.cache.get(type);
    if (known !== undefined) return known;
    let impl: ConvertFn = identity;
    const fn: ConvertFn = (v, seen) => impl(v, seen);
    this.cache.set(type, fn);
    try {
      impl = this.compile(type);
    } catch (error) {
      this.cache.delete(type);
      throw error;
    }
    this.cache.set(type, impl);
    return fn;
  }

  private compile(type: Exclude<TypeDescriptor, null>): ConvertFn {
    if (type === String) return toStringValue;
    if (type === Number) return toNumberValue;
    if (type === Boolean) return toBooleanValue;
    if (type === Date) return toDateValue;
    if (type === Object) return identity;
    if (type === Array) return arrayConverter('a list', identity);
    if (type === Set) return setConverter('a set', identity);
    if (type === Map) return mapConverter('a map', identity, identity);
    if (Array.isArray(type)) return arrayConverter(describeType(type), this.converter(type[0] as TypeDescriptor));
    if (type instanceof MapType) return mapConverter(describeType(type), this.converter(type.key), this.converter(type.value));
    if (type instanceof SetType) return setConverter(describeType(type), this.converter(type.element));
    if (type instanceof JavaType) return this.compileJava(type);
    if (typeof type === 'function' && (type === Error || type.prototype instanceof Error)) return errorConverter(type as AnyClass);
    return this.compileClass(type as AnyClass);
  }

  private compileJava(type: JavaType): ConvertFn {
    const convert = this.compileJavaKind(type);
    if (!type.primitive) return convert;
    // A Java primitive is never null: a null on the wire reads as the JVM default.
    const zero = type.kind === 'boolean' ? false : type.kind === 'char' ? '\u0000' : 0;
    return (v, seen) => (v === null || v === undefined ? zero : convert(v, seen));
  }

  private compileJavaKind(type: JavaType): ConvertFn {
    const element = type.element === undefined ? identity : this.converter(type.element);
    switch (type.kind) {
      case 'boolean':
        return toBooleanValue;
      case 'byte':
      case 'short':
      case 'int':
        return toIntValue;
      case 'long':
        return (v, seen) => {
          const out = toLongValue(v, seen);
          return typeof out === 'bigint' ? normalizeLong(out) : out;
        };
      case 'float':
      case 'double':
        return toNumberValue;
      case 'char':
        return toCharValue;
      case 'string':
        return toStringValue;
      case 'bytes':
        return toBytesValue;
      case 'decimal':
        return toDecimalValue;
      case 'enum': {
        const constants = type.constants === undefined ? undefined : new Set(type.constants);
        return (v) => {
          if (v === null || v === undefined) return v;
          const name = typeof v === 'object' ? (v as { name?: unknown }).name : v;
          if (typeof name !== 'string' || (constants !== undefined && !constants.has(name))) return fail(`a constant of ${type.className}`, v);
          return name;
        };
      }
      case 'list':
      case 'array':
        if (type.className === '[C') return toStringValue;
        return arrayConverter(type.className, element);
      case 'set':
        return setConverter(type.className, element);
      case 'map':
        return mapConverter(type.className, type.key === undefined ? identity : this.converter(type.key), element);
      default:
        return identity;
    }
  }

  private compileClass(cls: AnyClass): ConvertFn {
    const name = cls.name || 'anonymous class';
    const prototype = cls.prototype as object;
    const declared = (cls as { fields?: unknown }).fields;
    const fields = new Map<string, ConvertFn>();
    if (typeof declared === 'object' && declared !== null) {
      for (const key of Object.keys(declared)) fields.set(key, this.converter((declared as Record<string, TypeDescriptor>)[key] as TypeDescriptor));
    }
    return (v, seen) => {
      if (v === null || v === undefined || v instanceof cls) return v;
      if (typeof v !== 'object' || Array.isArray(v) || v instanceof Set || v instanceof Date || v instanceof Uint8Array) return fail(name, v);
      const known = seen.get(v);
      if (known !== undefined) return known;
      const instance = Object.create(prototype) as Record<string, unknown>;
      seen.set(v, instance);
      let key = '';
      try {
        if (v instanceof Map) {
          for (const [k, x] of v) {
            if (typeof k !== 'string' || UNSAFE_KEYS.has(k)) continue;
            key = k;
            const field = fields.get(k);
            instance[k] = field === undefined ? x : field(x, seen);
          }
        } else {
          // Decoded objects are plain: own enumerable string keys only, never __proto__ (the decoder drops it).
          for (key in v) {
            if (key === 'constructor' || key === 'prototype' || key === '__proto__') continue;
            const x = (v as Record<string, unknown>)[key];
            const field = fields.get(key);
            instance[key] = field === undefined ? x : field(x, seen);
          }
        }
      } catch (error) {
        if (error instanceof Mismatch) error.path.push(`.${key}`);
        throw error;
      }
      return instance;
    };
  }
}
