import { JavaType, MapType, RpcError, RpcErrorCode, SetType, describeType, javaClassOf, type TypeDescriptor } from '@weft/core';
import { classDef, type ClassDef } from '../java/class-def.js';
import { arrayWireType, listWireType, mapWireType, setWireType } from '../java/java-names.js';
import type { HessianEncoder, WriteFn, WriterSource } from './hessian-encoder.js';
import { writeThrowable } from './throwable-writer.js';

function mismatch(expected: string, value: unknown): RpcError {
  let shown: string;
  try {
    shown = typeof value === 'bigint' ? `${value}n` : (JSON.stringify(value) ?? String(value));
  } catch {
    shown = String(value);
  }
  if (shown.length > 60) shown = `${shown.slice(0, 57)}...`;
  return new RpcError(RpcErrorCode.SERIALIZATION, `hessian2: expected ${expected}, got ${shown}.`);
}

const writeNull: WriteFn = (e) => e.byte(0x4e);
const writeUntyped: WriteFn = (e, v) => e.value(v);

const writeString: WriteFn = (e, v) => {
  if (typeof v === 'string') e.string(v);
  else if (v === null || v === undefined) e.byte(0x4e);
  else if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') e.string(String(v));
  else throw mismatch('a string', v);
};

const writeNumber: WriteFn = (e, v) => {
  if (typeof v === 'number') e.number(v);
  else if (v === null || v === undefined) e.byte(0x4e);
  else if (typeof v === 'bigint') e.bigLong(v, 'value');
  else throw mismatch('a number', v);
};

const writeBoolean: WriteFn = (e, v) => {
  if (typeof v === 'boolean') e.byte(v ? 0x54 : 0x46);
  else if (v === null || v === undefined) e.byte(0x4e);
  else throw mismatch('a boolean', v);
};

const writeDate: WriteFn = (e, v) => {
  if (v instanceof Date) e.date(v.getTime());
  else if (typeof v === 'number' && Number.isInteger(v)) e.date(v);
  else if (v === null || v === undefined) e.byte(0x4e);
  else throw mismatch('a Date', v);
};

function intWriter(kind: string, min: number, max: number): WriteFn {
  return (e, v) => {
    if (typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max) e.int(v);
    else if (v === null || v === undefined) e.byte(0x4e);
    else if (typeof v === 'bigint' && v >= BigInt(min) && v <= BigInt(max)) e.int(Number(v));
    else throw mismatch(`a Java ${kind}`, v);
  };
}

const writeLong: WriteFn = (e, v) => {
  if (typeof v === 'number' && Number.isSafeInteger(v)) e.long(v);
  else if (typeof v === 'bigint') e.bigLong(v, 'value');
  else if (v === null || v === undefined) e.byte(0x4e);
  else if (typeof v === 'string' && /^[+-]?\d+$/.test(v)) e.bigLong(BigInt(v), 'value');
  else if (typeof v === 'number' && Number.isInteger(v)) e.bigLong(BigInt(v), 'value');
  else throw mismatch('a Java long', v);
};

const writeDouble: WriteFn = (e, v) => {
  if (typeof v === 'number') e.double(v);
  else if (v === null || v === undefined) e.byte(0x4e);
  else if (typeof v === 'bigint') e.double(Number(v));
  else throw mismatch('a Java double', v);
};

/** A boxed `Float` or a `float` argument: the shortest decimal (hessian-lite's `BasicSerializer`). */
const writeFloat: WriteFn = (e, v) => {
  if (typeof v === 'number') e.float(v);
  else if (v === null || v === undefined) e.byte(0x4e);
  else throw mismatch('a Java float', v);
};

/** A `float` field or `float[]` element: the float's exact value as a double. */
const writeFloatField: WriteFn = (e, v) => {
  if (typeof v === 'number') e.double(Math.fround(v));
  else if (v === null || v === undefined) e.byte(0x4e);
  else throw mismatch('a Java float', v);
};

const writeChar: WriteFn = (e, v) => {
  if (typeof v === 'string' && v.length === 1) e.string(v);
  else if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0xffff) e.string(String.fromCharCode(v));
  else if (v === null || v === undefined) e.byte(0x4e);
  else throw mismatch('a Java char (a one-unit string)', v);
};

const writeBytes: WriteFn = (e, v) => {
  if (v instanceof Uint8Array) e.binary(v);
  else if (v === null || v === undefined) e.byte(0x4e);
  else if (Array.isArray(v)) e.binary(Uint8Array.from(v as number[]));
  else throw mismatch('a Uint8Array (byte[])', v);
};

const BIG_DECIMAL = classDef('java.math.BigDecimal', ['value']);
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

const writeDecimal: WriteFn = (e, v) => {
  if (v === null || v === undefined) {
    e.byte(0x4e);
    return;
  }
  const text = typeof v === 'string' ? v : typeof v === 'bigint' || (typeof v === 'number' && Number.isFinite(v)) ? String(v) : undefined;
  if (text === undefined || !DECIMAL.test(text)) throw mismatch('a decimal (java.math.BigDecimal)', v);
  e.anonymous();
  e.objectStart(BIG_DECIMAL);
  e.string(text);
};

function iterableOf(v: unknown): readonly unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (v instanceof Set) return [...v];
  return undefined;
}

function listWriter(wireType: string | null, element: WriteFn, expected: string): WriteFn {
  return (e, v) => {
    if (v === null || v === undefined) {
      e.byte(0x4e);
      return;
    }
    const items = iterableOf(v);
    if (items === undefined) throw mismatch(expected, v);
    if (e.ref(v as object)) return;
    e.enter();
    e.listStart(items.length, wireType);
    for (let i = 0; i < items.length; i++) element(e, items[i]);
    e.depth--;
  };
}

function mapWriter(wireType: string | null, key: WriteFn, value: WriteFn, expected: string): WriteFn {
  return (e, v) => {
    if (v === null || v === undefined) {
      e.byte(0x4e);
      return;
    }
    if (typeof v !== 'object' || Array.isArray(v)) throw mismatch(expected, v);
    if (e.ref(v)) return;
    e.enter();
    e.mapStart(wireType);
    if (v instanceof Map) {
      for (const [k, x] of v) {
        key(e, k);
        value(e, x);
      }
    } else {
      for (const k of Object.keys(v)) {
        key(e, k);
        value(e, (v as Record<string, unknown>)[k]);
      }
    }
    e.byte(0x5a);
    e.depth--;
  };
}

function enumWriter(type: JavaType): WriteFn {
  const def = classDef(type.className, ['name']);
  const constants = type.constants === undefined ? undefined : new Set(type.constants);
  return (e, v) => {
    if (v === null || v === undefined) {
      e.byte(0x4e);
      return;
    }
    const name = typeof v === 'object' ? (v as { name?: unknown }).name : v;
    if (typeof name !== 'string' || (constants !== undefined && !constants.has(name))) throw mismatch(`a constant of ${type.className}`, v);
    if (e.enumRef(type.className, name)) return;
    e.objectStart(def);
    e.string(name);
  };
}

type AnyClass = abstract new (...args: never[]) => unknown;

/**
 * Compiles declared types into writers, once per descriptor (a scope object: one per `Hessian2Serialization`).
 *
 * @remarks The cache is a `WeakMap` keyed by the descriptor objects, so writing a declared value runs closures only.
 */
export class WriterCompiler implements WriterSource {
  private readonly cache = new WeakMap<object, WriteFn>();
  private readonly fieldCache = new WeakMap<object, WriteFn>();
  private readonly classes = new WeakMap<object, WriteFn | null>();

  writer(type: unknown): WriteFn {
    if (type === undefined) return writeUntyped;
    if (type === null) return writeNull;
    const known = this.cache.get(type as object);
    if (known !== undefined) return known;
    let impl: WriteFn = writeUntyped;
    const fn: WriteFn = (e, v) => impl(e, v);
    this.cache.set(type as object, fn); // before compiling: a class may name itself
    try {
      impl = this.compile(type as TypeDescriptor);
    } catch (error) {
      this.cache.delete(type as object);
      throw error;
    }
    this.cache.set(type as object, impl);
    return impl === writeUntyped ? writeUntyped : fn;
  }

  /** The writer of a POJO field or array element: as {@link writer}, except a Java `float` keeps its float bits. */
  fieldWriter(type: TypeDescriptor): WriteFn {
    if (type instanceof JavaType && type.kind === 'float') return writeFloatField;
    return this.writer(type);
  }

  classWriter(cls: object): WriteFn | undefined {
    let known = this.classes.get(cls);
    if (known === undefined) {
      known = javaClassOf(cls) !== undefined || (cls as { fields?: unknown }).fields !== undefined ? this.writer(cls) : null;
      this.classes.set(cls, known);
    }
    return known ?? undefined;
  }

  private compile(type: TypeDescriptor): WriteFn {
    if (type === String) return writeString;
    if (type === Number) return writeNumber;
    if (type === Boolean) return writeBoolean;
    if (type === Date) return writeDate;
    if (type === Object || type === Array || type === Map) return writeUntyped;
    if (type === Set) return listWriter('java.util.HashSet', writeUntyped, 'a Set');
    if (Array.isArray(type)) return listWriter(null, this.writer(type[0]), describeType(type));
    if (type instanceof MapType) return mapWriter(null, this.writer(type.key), this.writer(type.value), describeType(type));
    if (type instanceof SetType) return listWriter('java.util.HashSet', this.writer(type.element), describeType(type));
    if (type instanceof JavaType) return this.compileJava(type);
    if (typeof type === 'function') {
      if (type === Error || (type as { prototype?: unknown }).prototype instanceof Error) return (e, v) => writeThrowable(e, v, this);
      return this.compileClass(type as AnyClass);
    }
    throw new RpcError(RpcErrorCode.SERIALIZATION, `hessian2: ${String(type)} is not a type descriptor.`);
  }

  private compileJava(type: JavaType): WriteFn {
    switch (type.kind) {
      case 'boolean':
        return writeBoolean;
      case 'byte':
        return intWriter('byte', -128, 127);
      case 'short':
        return intWriter('short', -32768, 32767);
      case 'int':
        return intWriter('int', -0x80000000, 0x7fffffff);
      case 'long':
        return writeLong;
      case 'float':
        return writeFloat;
      case 'double':
        return writeDouble;
      case 'char':
        return writeChar;
      case 'string':
        return writeString;
      case 'bytes':
        return writeBytes;
      case 'decimal':
        return writeDecimal;
      case 'enum':
        return enumWriter(type);
      case 'list':
        return listWriter(listWireType(type.className), this.writer(type.element), type.className);
      case 'set':
        return listWriter(setWireType(type.className), this.writer(type.element), type.className);
      case 'array':
        return this.arrayWriter(type);
      case 'map':
        return mapWriter(mapWireType(type.className), this.writer(type.key), this.writer(type.element), type.className);
      default:
        return writeUntyped;
    }
  }

  private arrayWriter(type: JavaType): WriteFn {
    const element = type.element;
    if (element instanceof JavaType && element.kind === 'char' && element.primitive) {
      // char[] travels as a string.
      return (e, v) => {
        if (v === null || v === undefined) e.byte(0x4e);
        else if (typeof v === 'string') e.string(v);
        else if (Array.isArray(v)) e.string(v.join(''));
        else throw mismatch('a char[] (a string or an array of one-unit strings)', v);
      };
    }
    return listWriter(arrayWireType(element), element === undefined ? writeUntyped : this.fieldWriter(element), type.className);
  }

  private compileClass(cls: AnyClass): WriteFn {
    const javaClass = javaClassOf(cls);
    const declared = (cls as { fields?: unknown }).fields;
    const fieldTypes = (typeof declared === 'object' && declared !== null ? declared : {}) as Record<string, TypeDescriptor>;
    const names = Object.keys(fieldTypes);
    const writers = names.map((name) => this.fieldWriter(fieldTypes[name] as TypeDescriptor));
    if (javaClass === undefined) {
      // No Java class: a HashMap of the instance's own fields, declared ones written as declared.
      const byName = new Map(names.map((name, i) => [name, writers[i] as WriteFn]));
      return (e, v) => {
        if (v === null || v === undefined) {
          e.byte(0x4e);
          return;
        }
        if (typeof v !== 'object' || Array.isArray(v)) throw mismatch(cls.name || 'an object', v);
        if (e.ref(v)) return;
        e.enter();
        e.byte(0x48);
        for (const key of Object.keys(v)) {
          e.string(key);
          (byName.get(key) ?? writeUntyped)(e, (v as Record<string, unknown>)[key]);
        }
        e.byte(0x5a);
        e.depth--;
      };
    }
    const def: ClassDef = classDef(javaClass, names);
    return (e, v) => {
      if (v === null || v === undefined) {
        e.byte(0x4e);
        return;
      }
      if (typeof v !== 'object' || Array.isArray(v)) throw mismatch(javaClass, v);
      if (e.ref(v)) return;
      e.enter();
      e.objectStart(def);
      for (let i = 0; i < names.length; i++) (writers[i] as WriteFn)(e, (v as Record<string, unknown>)[names[i] as string]);
      e.depth--;
    };
  }
}
