import { JavaType, MapType, SetType, javaClassNameOf, javaDescriptorOf, type TypeDescriptor } from '@weft/core';

/** The collection classes hessian-lite writes as an untyped list (`ArrayList` and the interfaces Java fills with one). */
const UNTYPED_LISTS: ReadonlySet<string> = new Set(['java.util.List', 'java.util.ArrayList', 'java.util.Collection', 'java.lang.Iterable']);

/** The implementation a Java peer instantiates for a declared collection or map interface (the class on the wire). */
const IMPLEMENTATIONS: Readonly<Record<string, string>> = {
  'java.util.Set': 'java.util.HashSet',
  'java.util.SortedSet': 'java.util.TreeSet',
  'java.util.NavigableSet': 'java.util.TreeSet',
  'java.util.Queue': 'java.util.LinkedList',
  'java.util.Deque': 'java.util.ArrayDeque',
  'java.util.SortedMap': 'java.util.TreeMap',
  'java.util.NavigableMap': 'java.util.TreeMap',
};

/** The list type written for a declared list class: `null` (untyped) for `List`/`ArrayList`, else the class. */
export function listWireType(className: string): string | null {
  return UNTYPED_LISTS.has(className) ? null : (IMPLEMENTATIONS[className] ?? className);
}

/** The list type written for a declared set class (`java.util.HashSet` for `java.util.Set`). */
export function setWireType(className: string): string {
  return IMPLEMENTATIONS[className] ?? className;
}

/** The map type written for a declared map class: `null` (`H`) for `Map`/`HashMap`, else `M` with the class. */
export function mapWireType(className: string): string | null {
  return className === 'java.util.Map' || className === 'java.util.HashMap' ? null : (IMPLEMENTATIONS[className] ?? className);
}

const ARRAY_ELEMENT_NAMES: Readonly<Record<string, string>> = {
  'java.lang.String': 'string',
  'java.lang.Object': 'object',
  'java.util.Date': 'date',
};

/** The Hessian type of an array whose elements are `element`: `[int`, `[string`, `[object`, `[com.acme.User`, `[[int`. */
export function arrayWireType(element: TypeDescriptor | undefined): string {
  if (element === undefined) return '[object';
  if (element instanceof JavaType && element.kind === 'array') return `[${arrayWireType(element.element)}`;
  const name = javaClassNameOf(element);
  return `[${ARRAY_ELEMENT_NAMES[name] ?? name}`;
}

/** `Class.getName()` of a declared type (Triple's `argTypes`): `java.lang.String`, `int`, `[I`, `com.acme.User`. */
export function javaTypeName(type: TypeDescriptor): string {
  if (type instanceof MapType) return 'java.util.Map';
  if (type instanceof SetType) return 'java.util.Set';
  return javaClassNameOf(type);
}

/** The `dubbo://` parameter descriptor of declared argument types (`Ljava/lang/String;IJ`). */
export function parameterDescriptor(types: readonly TypeDescriptor[]): string {
  let out = '';
  for (const type of types) out += javaDescriptorOf(javaTypeName(type));
  return out;
}
