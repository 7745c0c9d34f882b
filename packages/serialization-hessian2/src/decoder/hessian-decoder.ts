import { ByteSource, malformed, normalizeLong } from './byte-source.js';
import { JavaThrowable, fillThrowable } from '../java/java-throwable.js';

/** How deeply lists, maps and objects may nest in a body read (deeper input is refused, never a stack overflow). */
export const MAX_READ_DEPTH = 512;

/** The symbol under which a decoded object keeps the Java class name its class definition named (not enumerable). */
export const JAVA_CLASS: unique symbol = Symbol.for('weft.hessian2.javaClass');

/** What a class definition's instances become when read untyped. */
type ClassKind = 'object' | 'throwable' | 'value-string' | 'value-date';

interface ReadClassDef {
  readonly name: string;
  readonly fields: readonly string[];
  readonly kind: ClassKind;
}

/** Classes Java writes as one `value` field holding their `toString()` (hessian-lite's `StringValueSerializer`). */
const STRING_VALUE_CLASSES: ReadonlySet<string> = new Set([
  'java.math.BigDecimal',
  'java.util.UUID',
  'java.io.File',
  'javax.management.ObjectName',
  'com.alibaba.com.caucho.hessian.io.LocaleHandle',
  'com.caucho.hessian.io.LocaleHandle',
]);
const DATE_VALUE_CLASSES: ReadonlySet<string> = new Set(['java.sql.Timestamp', 'java.sql.Date', 'java.sql.Time']);

function kindOf(name: string, fields: readonly string[]): ClassKind {
  if (fields.length === 1 && fields[0] === 'value') {
    if (STRING_VALUE_CLASSES.has(name)) return 'value-string';
    if (DATE_VALUE_CLASSES.has(name)) return 'value-date';
  }
  if (fields.includes('detailMessage') && (fields.includes('stackTrace') || fields.includes('cause') || fields.includes('suppressedExceptions'))) {
    return 'throwable';
  }
  // The minimal shape Weft (and js-to-java) write: `detailMessage` (+ declared fields) of an …Exception/…Error class.
  if (fields.includes('detailMessage') && /(Exception|Error|Throwable)$/.test(name)) return 'throwable';
  return 'object';
}

function isSetType(type: string): boolean {
  return type.endsWith('Set') && !type.startsWith('[');
}

const UNSAFE_FIELD = '__proto__';

/**
 * Reads the values of one Hessian 2 body into plain JavaScript data, sharing the body's reference, class-definition
 * and type tables across values.
 *
 * @remarks
 * Untyped mapping: ints and doubles → numbers, longs → numbers (a `bigint` beyond 2⁵³), strings, binaries →
 * `Uint8Array`, dates → `Date`, lists → arrays (`…Set` types → `Set`), `H` maps → plain objects (a `Map` when a key is
 * not a string or is `__proto__`), `M` maps → `Map`, objects → plain objects of their fields (the class name under
 * {@link JAVA_CLASS}), `BigDecimal`/`UUID` → their string, `java.sql` dates → `Date`, Throwables → {@link JavaThrowable}.
 * Bounded: nesting past {@link MAX_READ_DEPTH}, lengths beyond the bytes left, references and class or type indexes
 * beyond their tables, unknown tags and truncation all throw an `RpcError` `serialization` with the offset.
 */
export class HessianDecoder extends ByteSource {
  private readonly refs: unknown[] = [];
  private readonly classDefs: ReadClassDef[] = [];
  private readonly types: string[] = [];
  private depth = 0;
  /** Whether objects keep their class name under {@link JAVA_CLASS} (untyped reads; typed ones realise to classes). */
  markClasses = true;

  /** Reads one value. */
  value(): unknown {
    const start = this.pos;
    const tag = this.u8('value');
    if (tag >= 0x80) {
      if (tag <= 0xbf) return tag - 0x90;
      if (tag <= 0xcf) return ((tag - 0xc8) << 8) + this.u8('int');
      if (tag <= 0xd7) return (tag - 0xd4) * 65536 + this.u16('int');
      if (tag <= 0xef) return tag - 0xe0;
      return ((tag - 0xf8) << 8) + this.u8('long');
    }
    if (tag <= 0x1f) return this.utf8(tag);
    if (tag <= 0x2f) return this.take(tag - 0x20, 'binary');
    if (tag <= 0x33) return this.utf8(((tag - 0x30) << 8) + this.u8('string length'));
    if (tag <= 0x37) return this.take(((tag - 0x34) << 8) + this.u8('binary length'), 'binary');
    if (tag <= 0x3f) return (tag - 0x3c) * 65536 + this.u16('long');
    if (tag >= 0x60 && tag <= 0x6f) return this.instance(tag - 0x60, start);
    if (tag >= 0x70 && tag <= 0x77) return this.list(this.type(), tag - 0x70, start);
    if (tag >= 0x78) return this.list(null, tag - 0x78, start);
    switch (tag) {
      case 0x41:
      case 0x42:
        return this.chunkedBinary(tag);
      case 0x43:
        this.classDefinition();
        return this.value();
      case 0x44:
        return this.f64('double');
      case 0x46:
        return false;
      case 0x54:
        return true;
      case 0x48:
        return this.map(null, start);
      case 0x49:
        return this.i32('int');
      case 0x4a:
        return new Date(Number(this.i64('date')));
      case 0x4b:
        return new Date(this.i32('date') * 60000);
      case 0x4c:
        return normalizeLong(this.i64('long'));
      case 0x4d:
        return this.map(this.type(), start);
      case 0x4e:
        return null;
      case 0x4f:
        return this.instance(this.length('class index'), start);
      case 0x51: {
        const index = this.length('reference');
        if (index >= this.refs.length) throw malformed(`reference #${index} to a value not read yet (${this.refs.length} so far)`, start);
        return this.refs[index];
      }
      case 0x52:
      case 0x53:
        return this.chunkedString(tag);
      case 0x55:
        return this.list(this.type(), -1, start);
      case 0x56: {
        const type = this.type();
        return this.list(type, this.length('list length'), start);
      }
      case 0x57:
        return this.list(null, -1, start);
      case 0x58:
        return this.list(null, this.length('list length'), start);
      case 0x59:
        return this.i32('long');
      case 0x5b:
        return 0;
      case 0x5c:
        return 1;
      case 0x5d:
        return (this.u8('double') << 24) >> 24;
      case 0x5e:
        return (this.u16('double') << 16) >> 16;
      case 0x5f:
        return this.i32('double') * 0.001;
      default:
        throw malformed(`unknown tag 0x${tag.toString(16).padStart(2, '0')}`, start);
    }
  }

  /** A non-negative int in any int (or long) encoding: a length, a reference or a table index. */
  length(what: string): number {
    const start = this.pos;
    const value = this.value();
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
      throw malformed(`expected a non-negative int for the ${what}, got ${typeof value === 'number' ? value : typeof value}`, start);
    }
    return value;
  }

  /** A string (or `null`) in any string encoding. */
  stringOrNull(what: string): string | null {
    const start = this.pos;
    const tag = this.bytes[this.pos];
    if (tag === 0x4e) {
      this.pos++;
      return null;
    }
    if (tag === undefined || !(tag <= 0x1f || (tag >= 0x30 && tag <= 0x33) || tag === 0x52 || tag === 0x53)) {
      if (tag === undefined) throw malformed(`truncated ${what}`, start);
      throw malformed(`expected a string for the ${what}, got tag 0x${tag.toString(16).padStart(2, '0')}`, start);
    }
    return this.value() as string;
  }

  private enter(start: number): void {
    if (++this.depth > MAX_READ_DEPTH) throw malformed(`values nested deeper than ${MAX_READ_DEPTH} levels`, start);
  }

  private chunkedString(tag: number): string {
    let out = '';
    for (;;) {
      const length = this.u16('string chunk length');
      out += this.utf8(length);
      if (tag === 0x53) return out;
      const start = this.pos;
      tag = this.u8('string chunk');
      if (tag <= 0x1f) return out + this.utf8(tag);
      if (tag >= 0x30 && tag <= 0x33) return out + this.utf8(((tag - 0x30) << 8) + this.u8('string length'));
      if (tag !== 0x52 && tag !== 0x53) throw malformed(`expected a string chunk, got tag 0x${tag.toString(16).padStart(2, '0')}`, start);
    }
  }

  private chunkedBinary(tag: number): Uint8Array {
    const parts: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const length = this.u16('binary chunk length');
      parts.push(this.take(length, 'binary chunk'));
      total += length;
      if (tag === 0x42) break;
      const start = this.pos;
      tag = this.u8('binary chunk');
      if (tag >= 0x20 && tag <= 0x2f) {
        parts.push(this.take(tag - 0x20, 'binary'));
        total += tag - 0x20;
        break;
      }
      if (tag >= 0x34 && tag <= 0x37) {
        const n = ((tag - 0x34) << 8) + this.u8('binary length');
        parts.push(this.take(n, 'binary'));
        total += n;
        break;
      }
      if (tag !== 0x41 && tag !== 0x42) throw malformed(`expected a binary chunk, got tag 0x${tag.toString(16).padStart(2, '0')}`, start);
    }
    if (parts.length === 1) return parts[0] as Uint8Array;
    const out = new Uint8Array(total);
    let at = 0;
    for (const part of parts) {
      out.set(part, at);
      at += part.length;
    }
    return out;
  }

  /** A list or map type: a string (added to the type table) or an index into it. */
  private type(): string {
    const start = this.pos;
    const tag = this.bytes[this.pos];
    if (tag !== undefined && (tag <= 0x1f || (tag >= 0x30 && tag <= 0x33) || tag === 0x52 || tag === 0x53)) {
      const type = this.value() as string;
      this.types.push(type);
      return type;
    }
    const index = this.length('type reference');
    const type = this.types[index];
    if (type === undefined) throw malformed(`type reference #${index} beyond the ${this.types.length} types defined`, start);
    return type;
  }

  private classDefinition(): void {
    const name = this.stringOrNull('class name');
    if (name === null || name === '') throw malformed('class definition without a class name', this.pos);
    const start = this.pos;
    const count = this.length('field count');
    if (count > this.remaining) throw malformed(`class definition of ${count} fields but only ${this.remaining} bytes left`, start);
    const fields: string[] = [];
    for (let i = 0; i < count; i++) {
      const field = this.stringOrNull(`field name of ${name}`);
      if (field === null) throw malformed(`null field name in the definition of ${name}`, this.pos);
      fields.push(field);
    }
    this.classDefs.push({ name, fields, kind: kindOf(name, fields) });
  }

  private instance(index: number, start: number): unknown {
    const def = this.classDefs[index];
    if (def === undefined) throw malformed(`object of class definition #${index} beyond the ${this.classDefs.length} defined`, start);
    this.enter(start);
    const fields = def.fields;
    let result: unknown;
    if (def.kind === 'object') {
      const object: Record<string, unknown> = {};
      if (this.markClasses) Object.defineProperty(object, JAVA_CLASS, { value: def.name });
      this.refs.push(object);
      for (let i = 0; i < fields.length; i++) {
        const v = this.value();
        const field = fields[i] as string;
        if (field !== UNSAFE_FIELD) object[field] = v;
      }
      result = object;
    } else if (def.kind === 'throwable') {
      const error = new JavaThrowable(def.name);
      this.refs.push(error);
      const values: Record<string, unknown> = {};
      for (let i = 0; i < fields.length; i++) {
        const v = this.value();
        const field = fields[i] as string;
        if (field !== UNSAFE_FIELD) values[field] = v;
      }
      fillThrowable(error, values);
      result = error;
    } else {
      const slot = this.refs.length;
      this.refs.push(null);
      const valueStart = this.pos;
      const v = this.value();
      if (def.kind === 'value-string') {
        if (typeof v !== 'string' && v !== null) throw malformed(`expected the string value of ${def.name}`, valueStart);
        result = v;
      } else {
        if (!(v instanceof Date) && v !== null) throw malformed(`expected the date value of ${def.name}`, valueStart);
        result = v;
      }
      this.refs[slot] = result;
    }
    this.depth--;
    return result;
  }

  private list(type: string | null, length: number, start: number): unknown {
    this.enter(start);
    if (length > this.remaining) throw malformed(`list of ${length} elements but only ${this.remaining} bytes left`, start);
    let result: unknown;
    if (type !== null && isSetType(type)) {
      const set = new Set<unknown>();
      this.refs.push(set);
      if (length >= 0) for (let i = 0; i < length; i++) set.add(this.value());
      else while (!this.end()) set.add(this.value());
      result = set;
    } else if (length >= 0) {
      const array = new Array<unknown>(length);
      this.refs.push(array);
      for (let i = 0; i < length; i++) array[i] = this.value();
      result = array;
    } else {
      const array: unknown[] = [];
      this.refs.push(array);
      while (!this.end()) array.push(this.value());
      result = array;
    }
    this.depth--;
    return result;
  }

  /** Consumes `Z` when it is next. */
  private end(): boolean {
    if (this.pos >= this.bytes.length) throw malformed('truncated list or map (no end marker)', this.pos);
    if (this.bytes[this.pos] === 0x5a) {
      this.pos++;
      return true;
    }
    return false;
  }

  private map(type: string | null, start: number): unknown {
    this.enter(start);
    const slot = this.refs.length;
    let result: unknown;
    if (type === null) {
      let object: Record<string, unknown> | undefined = {};
      let map: Map<unknown, unknown> | undefined;
      this.refs.push(object);
      while (!this.end()) {
        const key = this.value();
        const v = this.value();
        if (object !== undefined && (typeof key !== 'string' || key === UNSAFE_FIELD)) {
          map = new Map(Object.entries(object));
          object = undefined;
          this.refs[slot] = map;
        }
        if (object !== undefined) object[key as string] = v;
        else (map as Map<unknown, unknown>).set(key, v);
      }
      result = object ?? map;
    } else {
      const map = new Map<unknown, unknown>();
      if (this.markClasses) Object.defineProperty(map, JAVA_CLASS, { value: type });
      this.refs.push(map);
      while (!this.end()) {
        const key = this.value();
        map.set(key, this.value());
      }
      result = map;
    }
    this.depth--;
    return result;
  }

  /** Whether bytes remain. */
  hasMore(): boolean {
    return this.pos < this.bytes.length;
  }
}
