import { JavaType, java } from './java-types.js';
import type { ServiceDefinition, TypeDescriptor } from './service-definition.js';
import { MapType, SetType, mapOf, setOf } from './type-descriptors.js';

/**
 * The URL key under which registered providers and consumers carry the declared return type of each method.
 *
 * @remarks Value: `<method>:<type text>` entries joined by `,`, sorted by method
 * (`count:Number,find:org.acme.User,sayHello:String`); see {@link typeText} for the type grammar. Written by Weft
 * on registered URLs only (never on the URLs calls use); Dubbo's keys are untouched. Left out when it would be
 * longer than {@link MAX_RETURN_TYPES_TEXT}.
 * @example
 * ```ts
 * url.getParameter(RETURN_TYPES_KEY); // 'count:Number,sayHello:String'
 * ```
 */
export const RETURN_TYPES_KEY = 'weft.returns';

/**
 * The longest `weft.returns` value written (characters); a longer one is left out entirely.
 * @remarks Also the longest value {@link parseReturnTypes} and {@link typeFromText} read, so a registration
 * written by hand cannot make a reader do unbounded work.
 * @defaultValue 4096
 * @example
 * ```ts
 * MAX_RETURN_TYPES_TEXT; // 4096
 * ```
 */
export const MAX_RETURN_TYPES_TEXT = 4096;

/** How deeply a type text may nest (`Map(String,Set(…))`): deeper descriptors are not described, deeper texts not read. */
const MAX_TYPE_DEPTH = 16;

/** A class name or a `java.<helper>` name: dotted identifiers (`$` for nested classes). */
const NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
const METHOD = /^[A-Za-z_$][\w$]*$/;

const JS_NAMES: ReadonlyMap<unknown, string> = new Map<unknown, string>([
  [String, 'String'],
  [Number, 'Number'],
  [Boolean, 'Boolean'],
  [Date, 'Date'],
  [Map, 'Map'],
  [Set, 'Set'],
  [Object, 'Object'],
  [Array, 'Array'],
]);

const JS_TYPES: ReadonlyMap<string, TypeDescriptor> = new Map<string, TypeDescriptor>([...JS_NAMES].map(([type, name]) => [name, type as TypeDescriptor]));

const BOXES: Readonly<Record<string, string>> = {
  boolean: 'Boolean',
  byte: 'Byte',
  short: 'Short',
  int: 'Integer',
  long: 'Long',
  float: 'Float',
  double: 'Double',
  char: 'Character',
};

/** The `java.<name>` constants a text may name (`java.int`, `java.Long`, `java.BigDecimal`, …). */
const JAVA_CONSTANTS: ReadonlyMap<string, JavaType> = new Map(
  Object.entries(java).filter((entry): entry is [string, JavaType] => entry[1] instanceof JavaType),
);

function javaText(type: JavaType, depth: number): string | undefined {
  const part = (t: TypeDescriptor | undefined) => (t === undefined ? 'Object' : describe(t, depth + 1));
  switch (type.kind) {
    case 'string':
      return 'java.String';
    case 'object':
      return 'java.Object';
    case 'decimal':
      return 'java.BigDecimal';
    case 'bytes':
      return 'java.bytes';
    case 'enum':
      return NAME.test(type.className) ? `java.enum(${type.className})` : undefined;
    case 'list':
    case 'set': {
      const element = part(type.element);
      return element === undefined ? undefined : `java.${type.kind}(${element})`;
    }
    case 'array': {
      const element = part(type.element);
      return element === undefined ? undefined : `Array(${element})`;
    }
    case 'map': {
      const key = part(type.key);
      const value = part(type.element);
      return key === undefined || value === undefined ? undefined : `java.map(${key},${value})`;
    }
    default:
      return type.primitive ? `java.${type.kind}` : `java.${BOXES[type.kind] ?? type.kind}`;
  }
}

function describe(type: TypeDescriptor, depth: number): string | undefined {
  if (depth > MAX_TYPE_DEPTH) return undefined;
  if (type === null) return 'void';
  const js = JS_NAMES.get(type);
  if (js !== undefined) return js;
  if (Array.isArray(type)) {
    const element = describe(type[0] as TypeDescriptor, depth + 1);
    return element === undefined ? undefined : `Array(${element})`;
  }
  if (type instanceof MapType) {
    const key = describe(type.key, depth + 1);
    const value = describe(type.value, depth + 1);
    return key === undefined || value === undefined ? undefined : `Map(${key},${value})`;
  }
  if (type instanceof SetType) {
    const element = describe(type.element, depth + 1);
    return element === undefined ? undefined : `Set(${element})`;
  }
  if (type instanceof JavaType) return javaText(type, depth);
  if (typeof type === 'function') {
    if (type.prototype instanceof Error) return undefined;
    const declared = (type as { javaClass?: unknown }).javaClass;
    const name = typeof declared === 'string' ? declared : type.name;
    // A class whose name reads as a standard type (a user class called `Date`, `void` or `java.x`) is not described.
    if (!NAME.test(name) || JS_TYPES.has(name) || name === 'void' || name.startsWith('java.')) return undefined;
    return name;
  }
  return undefined;
}

/**
 * The compact text of a type descriptor, as `weft.returns` carries it; `undefined` for one it cannot name.
 *
 * @remarks Grammar (only letters, digits and `. _ $ ( ) ,`, characters URL query strings keep as they are, so the
 * text reads the same encoded or decoded, in every registry): `void`; `String`, `Number`, `Boolean`, `Date`,
 * `Map`, `Set`, `Object`, `Array`; `Array(T)` (`[T]` and `java.array(T)`); `Map(K,V)`, `Set(T)` (`mapOf`,
 * `setOf`); `java.int` … `java.char` (primitives), `java.Integer` … (boxes), `java.String`, `java.Object`,
 * `java.BigDecimal`, `java.bytes`, `java.list(T)`, `java.set(T)`, `java.map(K,V)` (the collection class is not
 * kept), `java.enum(com.acme.Color)` (the constants are not kept); a class: its
 * `static javaClass`, else its name. Not named (`undefined`): error classes, anonymous classes, a class whose name
 * is one of the standard names, descriptors nested deeper than 16. {@link typeFromText} reads it back.
 * @example
 * ```ts
 * typeText(mapOf(String, [java.long])); // 'Map(String,Array(java.long))'
 * ```
 */
export function typeText(type: TypeDescriptor): string | undefined {
  return describe(type, 0);
}

/**
 * The `weft.returns` value of a service: `<method>:<type text>` for each unary, non-IDL method whose return type
 * {@link typeText} names, sorted by method and joined by `,`; `undefined` when no method qualifies or the text
 * would be longer than {@link MAX_RETURN_TYPES_TEXT}.
 *
 * @remarks Streaming methods (a mock answers no stream) and IDL methods (their messages are not Weft descriptors)
 * are left out, as is every method whose type cannot be named: a console then checks only the grammar for them.
 * @example
 * ```ts
 * returnTypesText(Greeter); // 'count:Number,sayHello:String'
 * ```
 */
export function returnTypesText(service: ServiceDefinition): string | undefined {
  const entries: string[] = [];
  for (const name of [...service.methodNames].sort()) {
    const method = service.getMethod(name);
    if (method === undefined || method.stream !== undefined || method.idl !== undefined || !METHOD.test(name)) continue;
    const text = typeText(method.returns);
    if (text !== undefined) entries.push(`${name}:${text}`);
  }
  const value = entries.join(',');
  return value === '' || value.length > MAX_RETURN_TYPES_TEXT ? undefined : value;
}

/**
 * Reads a `weft.returns` value back into method → type text.
 *
 * @remarks Entries are split at the commas outside parentheses; an entry without `<method>:`, with a method
 * that is not an identifier or with an empty type is skipped, and the first entry of a method wins. A value
 * longer than {@link MAX_RETURN_TYPES_TEXT} is not read at all (an empty map). The type texts are not checked
 * here: {@link typeFromText} reads them.
 *
 * @example
 * ```ts
 * parseReturnTypes('count:Number,sayHello:String').get('count'); // 'Number'
 * ```
 */
export function parseReturnTypes(value: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (value === undefined || value.length > MAX_RETURN_TYPES_TEXT) return out;
  for (const entry of splitTopLevel(value)) {
    const colon = entry.indexOf(':');
    const method = entry.slice(0, colon).trim();
    const text = entry.slice(colon + 1).trim();
    if (colon > 0 && METHOD.test(method) && text !== '' && !out.has(method)) out.set(method, text);
  }
  return out;
}

/** `value` split at the commas outside parentheses (those inside separate a `Map(K,V)`'s types). */
function splitTopLevel(value: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (ch === ',' && depth === 0) {
      parts.push(value.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(value.slice(start));
  return parts;
}

/** A recursive-descent reader of the grammar of {@link typeText}; `undefined` for text it does not read. */
class TypeTextReader {
  private at = 0;
  constructor(private readonly text: string) {}

  read(): TypeDescriptor | undefined {
    const type = this.type(0);
    return type !== undefined && this.at === this.text.length ? type : undefined;
  }

  private type(depth: number): TypeDescriptor | undefined {
    if (depth > MAX_TYPE_DEPTH) return undefined;
    const name = this.name();
    if (name === undefined) return undefined;
    let args: TypeDescriptor[] | undefined;
    let enumName: string | undefined;
    if (this.text[this.at] === '(') {
      this.at++;
      if (name === 'java.enum') {
        enumName = this.name();
        if (enumName === undefined) return undefined;
      } else {
        args = [];
        for (;;) {
          const arg = this.type(depth + 1);
          if (arg === undefined) return undefined;
          args.push(arg);
          if (this.text[this.at] !== ',') break;
          this.at++;
        }
      }
      if (this.text[this.at] !== ')') return undefined;
      this.at++;
    }
    return build(name, args, enumName);
  }

  private name(): string | undefined {
    const match = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/.exec(this.text.slice(this.at));
    if (match === null) return undefined;
    this.at += match[0].length;
    return match[0];
  }
}

function build(name: string, args: readonly TypeDescriptor[] | undefined, enumName: string | undefined): TypeDescriptor | undefined {
  if (enumName !== undefined) return java.enum(enumName);
  if (args !== undefined) {
    const [first, second] = args as [TypeDescriptor, TypeDescriptor | undefined];
    if (args.length === 1 && name === 'Array') return [first] as const;
    if (args.length === 1 && name === 'Set') return setOf(first);
    if (args.length === 1 && name === 'java.list') return java.list(first);
    if (args.length === 1 && name === 'java.set') return java.set(first);
    if (args.length === 2 && name === 'Map') return mapOf(first, second as TypeDescriptor);
    if (args.length === 2 && name === 'java.map') return java.map(first, second as TypeDescriptor);
    return undefined;
  }
  if (name === 'void') return null;
  const js = JS_TYPES.get(name);
  if (js !== undefined) return js;
  if (name.startsWith('java.')) return JAVA_CONSTANTS.get(name.slice('java.'.length));
  return namedClass(name);
}

/** A stand-in for a class known by name only: realising a value checks that it is an object (or null). */
function namedClass(name: string): TypeDescriptor {
  const cls = class {};
  Object.defineProperty(cls, 'name', { value: name });
  Object.defineProperty(cls, 'javaClass', { value: name });
  return cls;
}

/**
 * Rebuilds a descriptor from its {@link typeText} form, for a tool that knows a method only by its registration
 * (a console checking a mock value); `undefined` for text it does not read.
 *
 * @remarks A class name gives a stand-in class of that name (with `javaClass` set to it): realising a value
 * against it checks that the value is an object (not an array) or null, and copies its properties, since the
 * class's own `fields` are unknown. Collections keep their element types; `java.enum(X)` accepts any constant
 * name. Texts longer than {@link MAX_RETURN_TYPES_TEXT} or nested deeper than 16 are not read.
 * @example
 * ```ts
 * realize('42', typeFromText('Array(java.long)')); // throws: expected an array
 * typeFromText('Map(String,Number)'); // mapOf(String, Number)
 * ```
 */
export function typeFromText(text: string): TypeDescriptor | undefined {
  if (text.length > MAX_RETURN_TYPES_TEXT) return undefined;
  return new TypeTextReader(text).read();
}
