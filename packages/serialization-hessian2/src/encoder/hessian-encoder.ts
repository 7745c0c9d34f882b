import { JavaValue, RpcError, RpcErrorCode } from '@weft/core';
import { ByteSink, type Scratch } from './byte-sink.js';
import type { ClassDef } from '../java/class-def.js';

/** How deeply containers may nest in one written value (cycles are references, so only real depth counts). */
export const MAX_WRITE_DEPTH = 512;

/** Writes one value as a declared type (compiled by `WriterCompiler`). */
export type WriteFn = (encoder: HessianEncoder, value: unknown) => void;

/** What the encoder asks of the compiler for values that carry or imply a declared type. */
export interface WriterSource {
  /** The writer of a declared type. */
  writer(type: unknown): WriteFn;
  /** The writer of a class instance whose class declares a Java class, or `undefined`. */
  classWriter(cls: object): WriteFn | undefined;
}

/**
 * One Hessian 2 body being written: the scalar encodings of {@link ByteSink} plus the three tables (references, class
 * definitions, types) shared by every value of the body, and the untyped mapping of JavaScript values.
 */
export class HessianEncoder extends ByteSink {
  private refs: Map<object, number> | undefined;
  /** Lists, maps and objects written so far: the reader numbers references by this count. */
  private refCount = 0;
  private readonly classDefs = new Map<string, number>();
  private readonly types = new Map<string, number>();
  private enums: Map<string, number> | undefined;
  /** Containers currently open. */
  depth = 0;

  constructor(
    readonly source: WriterSource,
    scratch?: Scratch,
  ) {
    super(scratch);
  }

  /** Writes `51 n` and returns true when `value` was written before in this body; else numbers it. */
  ref(value: object): boolean {
    const refs = (this.refs ??= new Map());
    const seen = refs.get(value);
    if (seen !== undefined) {
      this.byte(0x51);
      this.int(seen);
      return true;
    }
    refs.set(value, this.refCount++);
    return false;
  }

  /** Counts a list, map or object that has no identity to refer back to (a `BigDecimal` from a string). */
  anonymous(): void {
    this.refCount++;
  }

  /** Writes `51 n` for an enum constant written before (Java writes its singleton by reference); else numbers it. */
  enumRef(className: string, name: string): boolean {
    const enums = (this.enums ??= new Map());
    const key = `${className}\u0000${name}`;
    const seen = enums.get(key);
    if (seen !== undefined) {
      this.byte(0x51);
      this.int(seen);
      return true;
    }
    enums.set(key, this.refCount++);
    return false;
  }

  enter(): void {
    if (++this.depth > MAX_WRITE_DEPTH) {
      throw new RpcError(RpcErrorCode.SERIALIZATION, `hessian2: value nested deeper than ${MAX_WRITE_DEPTH} levels.`);
    }
  }

  /** A type string the first time, its index in the type table afterwards. */
  type(name: string): void {
    const index = this.types.get(name);
    if (index !== undefined) {
      this.int(index);
      return;
    }
    this.types.set(name, this.types.size);
    this.string(name);
  }

  /** A fixed-length list header (`78+n`/`58 n` untyped, `70+n type`/`V type n` typed); never the variable forms. */
  listStart(length: number, type: string | null): void {
    if (type === null) {
      if (length <= 7) this.byte(0x78 + length);
      else {
        this.byte(0x58);
        this.int(length);
      }
    } else if (length <= 7) {
      this.byte(0x70 + length);
      this.type(type);
    } else {
      this.byte(0x56);
      this.type(type);
      this.int(length);
    }
  }

  /** `H` (untyped, a `HashMap`) or `M type`. */
  mapStart(type: string | null): void {
    if (type === null) this.byte(0x48);
    else {
      this.byte(0x4d);
      this.type(type);
    }
  }

  /** An object instance header: the class definition the first time (`C …`), then `60+n` or `O n`. */
  objectStart(def: ClassDef): void {
    let index = this.classDefs.get(def.key);
    if (index === undefined) {
      index = this.classDefs.size;
      this.classDefs.set(def.key, index);
      this.byte(0x43);
      this.string(def.name);
      this.int(def.fields.length);
      for (const field of def.fields) this.string(field);
    }
    if (index <= 15) this.byte(0x60 + index);
    else {
      this.byte(0x4f);
      this.int(index);
    }
  }

  /** A JavaScript number with no declared Java type: `int` when a 32-bit integer, `long` when an integer, else `double`. */
  number(value: number): void {
    if (Number.isInteger(value)) {
      if (value >= -0x80000000 && value <= 0x7fffffff) this.int(value);
      else if (Number.isSafeInteger(value)) this.long(value);
      else this.double(value);
    } else this.double(value);
  }

  /** Writes a value by its runtime shape (see the package README, "Default mapping"). */
  value(value: unknown): void {
    switch (typeof value) {
      case 'string':
        this.string(value);
        return;
      case 'number':
        this.number(value);
        return;
      case 'boolean':
        this.byte(value ? 0x54 : 0x46);
        return;
      case 'bigint':
        this.bigLong(value, 'value');
        return;
      case 'undefined':
        this.byte(0x4e);
        return;
      case 'object':
        if (value === null) this.byte(0x4e);
        else this.object(value);
        return;
      default:
        throw new RpcError(RpcErrorCode.SERIALIZATION, `hessian2: cannot write a ${typeof value} (no Java type for it).`);
    }
  }

  private object(value: object): void {
    if (value instanceof Date) {
      this.date(value.getTime());
      return;
    }
    if (value instanceof Uint8Array) {
      this.binary(value);
      return;
    }
    if (value instanceof JavaValue) {
      this.source.writer(value.type)(this, value.value);
      return;
    }
    if (Array.isArray(value)) {
      if (this.ref(value)) return;
      this.enter();
      this.listStart(value.length, null);
      for (let i = 0; i < value.length; i++) this.value(value[i]);
      this.depth--;
      return;
    }
    if (value instanceof Map) {
      if (this.ref(value)) return;
      this.enter();
      this.byte(0x48);
      for (const [k, v] of value) {
        this.value(k);
        this.value(v);
      }
      this.byte(0x5a);
      this.depth--;
      return;
    }
    if (value instanceof Set) {
      if (this.ref(value)) return;
      this.enter();
      this.listStart(value.size, 'java.util.HashSet');
      for (const v of value) this.value(v);
      this.depth--;
      return;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const ctor = (value as { constructor?: unknown }).constructor;
      if (typeof ctor === 'function') {
        const write = this.source.classWriter(ctor);
        if (write !== undefined) {
          write(this, value);
          return;
        }
      }
      if (value instanceof Error) {
        this.source.writer(Error)(this, value);
        return;
      }
    }
    this.plainObject(value as Record<string, unknown>);
  }

  /** A plain object as a `HashMap` with string keys, in key order. */
  plainObject(value: Record<string, unknown>): void {
    if (this.ref(value)) return;
    this.enter();
    this.byte(0x48);
    for (const key in value) {
      if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
      this.string(key);
      this.value(value[key]);
    }
    this.byte(0x5a);
    this.depth--;
  }
}
