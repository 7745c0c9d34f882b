import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import type { TypeDescriptor } from './service-definition.js';

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

function fail(value: unknown, expected: string, where: string): never {
  let shown: string;
  try {
    shown = JSON.stringify(value) ?? String(value);
  } catch {
    shown = String(value);
  }
  if (shown.length > 80) shown = `${shown.slice(0, 77)}...`;
  throw new RpcError(RpcErrorCode.SERIALIZATION, `Cannot convert ${shown} to ${expected}${where ? ` (${where})` : ''}.`);
}

/** The name of a descriptor, for messages. */
export function describeType(type: TypeDescriptor): string {
  if (type === null) return 'void';
  if (Array.isArray(type)) return `${describeType(type[0] as TypeDescriptor)}[]`;
  return (type as { name?: string }).name || 'anonymous class';
}

/**
 * Converts plain data (as decoded from JSON, or parsed from a mock expression) into the declared type.
 *
 * @remarks
 * `String`, `Number`, `Boolean` convert between each other's textual forms (`"42"` → 42, `"true"` → true);
 * `Date` from an ISO string or epoch ms; `Map` from an object or an array of pairs; `Set` from an array;
 * `[T]` element by element; a class from a plain object — an instance created **without running the
 * constructor** (`Object.create(prototype)`) with the object's own properties copied, except `__proto__`,
 * `constructor` and `prototype`, which are dropped so data can never reach a prototype. `null`/`undefined` pass
 * through; `Object` and `Array` accept their kind as is.
 *
 * @example
 * ```ts
 * realize({ name: 'ann' }, User) instanceof User; // true
 * realize(['2024-01-01T00:00:00Z'], [Date])[0] instanceof Date; // true
 * ```
 * @throws `RpcError` `serialization` when the value cannot be converted.
 */
export function realize(value: unknown, type: TypeDescriptor | undefined, where = ''): unknown {
  if (type === undefined || value === undefined || value === null) return type === null ? undefined : value;
  if (type === null) return undefined;
  if (Array.isArray(type)) {
    if (!Array.isArray(value)) fail(value, describeType(type), where);
    const element = type[0] as TypeDescriptor;
    return (value as unknown[]).map((v, i) => realize(v, element, where ? `${where}[${i}]` : `[${i}]`));
  }
  switch (type) {
    case String:
      if (typeof value === 'string') return value;
      if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
      return fail(value, 'String', where);
    case Number: {
      if (typeof value === 'number') return value;
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      return fail(value, 'Number', where);
    }
    case Boolean:
      if (typeof value === 'boolean') return value;
      if (value === 'true' || value === 'false') return value === 'true';
      return fail(value, 'Boolean', where);
    case Date: {
      if (value instanceof Date) return value;
      if (typeof value === 'string' || typeof value === 'number') {
        const date = new Date(value);
        if (!Number.isNaN(date.getTime())) return date;
      }
      return fail(value, 'Date', where);
    }
    case Map:
      if (value instanceof Map) return value;
      if (Array.isArray(value)) return new Map(value as [unknown, unknown][]);
      if (typeof value === 'object') return new Map(Object.entries(value as object).filter(([k]) => !UNSAFE_KEYS.has(k)));
      return fail(value, 'Map', where);
    case Set:
      if (value instanceof Set) return value;
      if (Array.isArray(value)) return new Set(value);
      return fail(value, 'Set', where);
    case Array:
      return Array.isArray(value) ? value : fail(value, 'Array', where);
    case Object:
      return typeof value === 'object' ? value : fail(value, 'Object', where);
    default: {
      const cls = type as abstract new (...args: never[]) => unknown;
      if (value instanceof cls) return value;
      if (typeof value !== 'object' || Array.isArray(value)) return fail(value, describeType(type), where);
      const instance = Object.create(cls.prototype as object) as Record<string, unknown>;
      for (const key of Object.keys(value as object)) {
        if (!UNSAFE_KEYS.has(key)) instance[key] = (value as Record<string, unknown>)[key];
      }
      return instance;
    }
  }
}
