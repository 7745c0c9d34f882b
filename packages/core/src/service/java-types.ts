import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import type { TypeDescriptor, TypeOf } from './service-definition.js';
import { MapType, SetType } from './type-descriptors.js';

/**
 * What a {@link JavaType} declares: a Java primitive (or its box), a collection, a map, `BigDecimal`, an enum or
 * `java.lang.Object`.
 */
export type JavaKind =
  | 'boolean'
  | 'byte'
  | 'short'
  | 'int'
  | 'long'
  | 'float'
  | 'double'
  | 'char'
  | 'string'
  | 'bytes'
  | 'list'
  | 'set'
  | 'array'
  | 'map'
  | 'decimal'
  | 'enum'
  | 'object';

/** The numeric and boolean kinds: the ones with a primitive form and a box. */
export type JavaPrimitiveKind = 'boolean' | 'byte' | 'short' | 'int' | 'long' | 'float' | 'double' | 'char';

/**
 * A Java type declared on a Weft type: the descriptor Java-speaking codecs (Hessian2 on `dubbo://`) read to pick
 * the wire kind (`int` vs `long`, `List` vs `Set` vs an array, a map's class, `BigDecimal`, an enum); made by the
 * helpers of {@link java}.
 *
 * @remarks
 * A `JavaType` is a {@link TypeDescriptor} like `String` or `mapOf(K, V)`: it goes into `args`, `returns` and a
 * class's `static fields`, and `realize` converts values to what it stands for in JavaScript — numbers (a `long`
 * beyond 2⁵³ as a `bigint`), one-character strings for `char`, decimal strings for `BigDecimal`, the constant name
 * for an enum, arrays, `Set`s, `Map`s, `Uint8Array` for `byte[]`. Codecs without Java types (`json`) treat it as the
 * JavaScript type it realises to. `T` is the JavaScript type (type-level only).
 *
 * @example
 * ```ts
 * class User {
 *   static readonly javaClass = 'com.acme.User';
 *   static readonly fields = { id: java.long, name: String, tags: java.set(String) };
 *   id = 0; name = ''; tags = new Set<string>();
 * }
 * ```
 */
export class JavaType<T = unknown> {
  /** Type-level only (never set): the JavaScript type values realise to. */
  declare readonly jsType?: T;

  constructor(
    /** What the type is. */
    readonly kind: JavaKind,
    /** `Class.getName()` of the declared type: `int`, `java.lang.Long`, `java.util.List`, `[I`, `com.acme.Color`. */
    readonly className: string,
    /** The element type of a list, set or array; the value type of a map. */
    readonly element: TypeDescriptor | undefined = undefined,
    /** The key type of a map. */
    readonly key: TypeDescriptor | undefined = undefined,
    /** The constants of an enum, when declared (realising checks them). */
    readonly constants: readonly string[] | undefined = undefined,
  ) {
    Object.freeze(this);
  }

  /** Whether this is a Java primitive (`int`, not `java.lang.Integer`): it cannot be `null`. */
  get primitive(): boolean {
    return !this.className.includes('.') && !this.className.startsWith('[');
  }
}

/**
 * A value that carries its Java type, for positions whose declared type is `Object` (a `Map<String, Object>` value,
 * an `Object` field): the codec writes `value` as `type`; made by {@link java}`.value`.
 *
 * @example
 * ```ts
 * out.writeObject({ count: java.value(java.long, 5) }); // 5 goes out as a Java long
 * ```
 */
export class JavaValue<T = unknown> {
  constructor(
    /** The Java type to write the value as. */
    readonly type: JavaType<T> | TypeDescriptor,
    /** The value. */
    readonly value: T,
  ) {
    Object.freeze(this);
  }
}

const PRIMITIVES: Readonly<Record<JavaPrimitiveKind, readonly [primitive: string, boxed: string]>> = {
  boolean: ['boolean', 'java.lang.Boolean'],
  byte: ['byte', 'java.lang.Byte'],
  short: ['short', 'java.lang.Short'],
  int: ['int', 'java.lang.Integer'],
  long: ['long', 'java.lang.Long'],
  float: ['float', 'java.lang.Float'],
  double: ['double', 'java.lang.Double'],
  char: ['char', 'java.lang.Character'],
};

const JAVA_CLASS_NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;

function checkClassName(name: unknown, where: string): string {
  if (typeof name !== 'string' || !JAVA_CLASS_NAME.test(name)) {
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `${where}: ${JSON.stringify(name)} is not a Java class name (dotted identifiers, nested classes with "$", e.g. "com.acme.Outer$Inner").`,
    );
  }
  return name;
}

/** `Class.getName()` of an array of `element`: `[I`, `[Ljava.lang.String;`, `[[I`. */
function arrayClassName(element: TypeDescriptor): string {
  if (element instanceof JavaType) {
    const letter = PRIMITIVE_LETTERS[element.className];
    if (letter !== undefined) return `[${letter}`;
    if (element.className.startsWith('[')) return `[${element.className}`;
    return `[L${element.className};`;
  }
  return `[L${javaClassNameOf(element)};`;
}

const PRIMITIVE_LETTERS: Readonly<Record<string, string>> = {
  boolean: 'Z',
  byte: 'B',
  short: 'S',
  int: 'I',
  long: 'J',
  float: 'F',
  double: 'D',
  char: 'C',
  void: 'V',
};

/** The Java class a descriptor that is not a {@link JavaType} stands for (`Class.getName()`). */
export function javaClassNameOf(type: TypeDescriptor): string {
  if (type instanceof JavaType) return type.className;
  if (type === null) return 'void';
  if (type === String) return 'java.lang.String';
  if (type === Number) return 'int';
  if (type === Boolean) return 'boolean';
  if (type === Date) return 'java.util.Date';
  if (type === Map) return 'java.util.Map';
  if (type === Set) return 'java.util.Set';
  if (type === Array || Array.isArray(type)) return 'java.util.List';
  if (type === Object) return 'java.lang.Object';
  if (typeof type === 'function') {
    const declared = (type as { javaClass?: unknown }).javaClass;
    if (typeof declared === 'string') return declared;
    if (type.prototype instanceof Error || type === Error) return 'java.lang.Throwable';
    return 'java.util.Map';
  }
  if (type instanceof SetType) return 'java.util.Set';
  if (type instanceof MapType) return 'java.util.Map';
  return 'java.lang.Object';
}

/**
 * The `dubbo://` parameter descriptor of one Java class name (`int` → `I`, `java.lang.String` →
 * `Ljava/lang/String;`, `[I` → `[I`, `[Ljava.lang.String;` → `[Ljava/lang/String;`).
 *
 * @example
 * ```ts
 * javaDescriptorOf('java.lang.String'); // 'Ljava/lang/String;'
 * ```
 */
export function javaDescriptorOf(className: string): string {
  const letter = PRIMITIVE_LETTERS[className];
  if (letter !== undefined) return letter;
  if (className.startsWith('[')) return className.replace(/\./g, '/');
  return `L${className.replace(/\./g, '/')};`;
}

function primitive<T>(kind: JavaPrimitiveKind, boxed: boolean): JavaType<T> {
  return new JavaType<T>(kind, PRIMITIVES[kind][boxed ? 1 : 0]);
}

/** The declared Java type of a POJO class: its `static javaClass`, if any. */
export function javaClassOf(cls: unknown): string | undefined {
  if (typeof cls !== 'function') return undefined;
  const declared = (cls as { javaClass?: unknown }).javaClass;
  if (declared === undefined) return undefined;
  return checkClassName(declared, `${(cls as { name?: string }).name || 'anonymous class'}.javaClass`);
}

/**
 * Java type declarations for Weft types: primitives and boxes, collections, arrays, maps, `BigDecimal`, enums.
 *
 * @remarks
 * Declare them where a Java peer has them: `args`, `returns`, a class's `static fields`. A POJO names its Java class
 * with `static javaClass = 'com.acme.User'`; its `static fields` keys, in order, are the fields of its class
 * definition (declare every field the Java class has, in the order Java writes them for byte-identical output).
 * Without a Java declaration a codec falls back to the JavaScript type (`Number`: an `int` when it is a 32-bit integer,
 * else a `long` when an integer, else a `double`; arrays: `java.util.List`; `Set`: `java.util.Set`; `Map` and plain
 * objects: `java.util.HashMap`). A declared `long` is always written as a Java `long`; longs beyond 2⁵³ read as
 * `bigint`. Primitive (`java.int`) and boxed (`java.Integer`) forms write the same bytes; they differ in `dubbo://`
 * parameter descriptors (`I` vs `Ljava/lang/Integer;`) and the primitive never reads as `null`.
 *
 * @example
 * ```ts
 * const Users = defineService('com.acme.UserService', {
 *   find: { args: [java.long], returns: User },
 *   scores: { args: [java.list(String)], returns: java.map(String, java.double) },
 *   ids: { returns: java.array(java.int) },
 * });
 * ```
 */
export const java = Object.freeze({
  boolean: primitive<boolean>('boolean', false),
  byte: primitive<number>('byte', false),
  short: primitive<number>('short', false),
  int: primitive<number>('int', false),
  long: primitive<number | bigint>('long', false),
  float: primitive<number>('float', false),
  double: primitive<number>('double', false),
  char: primitive<string>('char', false),
  Boolean: primitive<boolean>('boolean', true),
  Byte: primitive<number>('byte', true),
  Short: primitive<number>('short', true),
  Integer: primitive<number>('int', true),
  Long: primitive<number | bigint>('long', true),
  Float: primitive<number>('float', true),
  Double: primitive<number>('double', true),
  Character: primitive<string>('char', true),
  /** `java.lang.String` (same as `String`). */
  String: new JavaType<string>('string', 'java.lang.String'),
  /** `java.lang.Object`: written by the value's runtime shape. */
  Object: new JavaType<unknown>('object', 'java.lang.Object'),
  /** `java.math.BigDecimal`, realised to its decimal string (`"12.50"`). */
  BigDecimal: new JavaType<string>('decimal', 'java.math.BigDecimal'),
  /** `byte[]` (a Hessian binary), realised to a `Uint8Array`. */
  bytes: new JavaType<Uint8Array>('bytes', '[B'),
  /** A `java.util.List` (or the collection class named, e.g. `java.util.LinkedList`) of `element`; a JS array. */
  list<const E extends TypeDescriptor>(element: E, className = 'java.util.List'): JavaType<TypeOf<E>[]> {
    return new JavaType<TypeOf<E>[]>('list', checkClassName(className, 'java.list()'), element);
  },
  /** A `java.util.Set` (or the set class named, e.g. `java.util.TreeSet`) of `element`; a JS `Set`. */
  set<const E extends TypeDescriptor>(element: E, className = 'java.util.Set'): JavaType<Set<TypeOf<E>>> {
    return new JavaType<Set<TypeOf<E>>>('set', checkClassName(className, 'java.set()'), element);
  },
  /** A Java array `E[]` (`java.array(java.int)` is `int[]`); a JS array. Use `java.bytes` for `byte[]`. */
  array<const E extends TypeDescriptor>(element: E): JavaType<TypeOf<E>[]> {
    if (element instanceof JavaType && element.className === 'byte') {
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, 'java.array(java.byte): declare byte[] as java.bytes (a Hessian binary, a Uint8Array).');
    }
    return new JavaType<TypeOf<E>[]>('array', arrayClassName(element), element);
  },
  /** A `java.util.Map` (or the map class named, e.g. `java.util.LinkedHashMap`) from `key` to `value`; a JS `Map`. */
  map<const K extends TypeDescriptor, const V extends TypeDescriptor>(
    key: K,
    value: V,
    className = 'java.util.Map',
  ): JavaType<Map<TypeOf<K>, TypeOf<V>>> {
    return new JavaType<Map<TypeOf<K>, TypeOf<V>>>('map', checkClassName(className, 'java.map()'), value, key);
  },
  /** A Java enum, realised to the constant's name (checked against `constants` when given). */
  enum<const N extends string>(className: string, constants?: readonly N[]): JavaType<N> {
    return new JavaType<N>('enum', checkClassName(className, 'java.enum()'), undefined, undefined, constants ? Object.freeze([...constants]) : undefined);
  },
  /** A value carrying its Java type, for `Object` positions. */
  value<T>(type: JavaType<T> | TypeDescriptor, value: T): JavaValue<T> {
    return new JavaValue(type, value);
  },
});
