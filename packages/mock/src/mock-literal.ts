import { realize, RpcError, RpcErrorCode, type MethodDescriptor, type TypeDescriptor } from '@weft/core';

import { parseLenientJson } from './lenient-json.js';

/** How a literal was read: `empty`, a value fixed whatever the type, or text whose meaning depends on the type. */
type Reading =
  | { readonly kind: 'empty' }
  | { readonly kind: 'fixed'; readonly value: unknown }
  | { readonly kind: 'typed'; readonly value: unknown }
  | { readonly kind: 'invalid'; readonly error: unknown };

/**
 * The value of a `return <value>` mock, parsed once and realised per method and per call.
 *
 * @remarks Dubbo's `parseMockValue` rules, in order: `empty`; `null`; `true`/`false`; a quoted string (`"…"` or
 * `'…'`); the raw text when the return type is `String`; digits only → a number (a `bigint` beyond 2^53); `{…}`
 * / `[…]` → lenient JSON; else the raw text. The text is parsed when the literal is created (a JSON error is kept
 * and thrown only for a method whose return type is not `String`, as Dubbo's `String` short-circuit has it);
 * {@link MockLiteral.valueFor} then builds a fresh value per call (a structured clone of the parsed JSON,
 * realised against the declared return type). One parse serves every method of an interface-level `mock`.
 * @example
 * ```ts
 * const literal = MockLiteral.parse('{name: "ann"}');
 * literal.valueFor(Users.getMethod('find')); // a User, fresh per call
 * ```
 */
export class MockLiteral {
  private constructor(
    /** The literal text, as written after `return `. */
    readonly text: string,
    private readonly reading: Reading,
  ) {}

  /** Parses a literal (never throws: a malformed JSON value fails when a non-`String` method asks for it). */
  static parse(text: string): MockLiteral {
    return new MockLiteral(text, read(text));
  }

  /**
   * A fresh value for one call of `method` (no method: the value as parsed, without a declared type).
   *
   * @throws `RpcError` `serialization` when the value does not convert to the declared type; `SyntaxError` for
   * malformed JSON; `ExtensionError` `ERR_SPI_INVALID_PARAMETER` for JSON nested too deeply.
   */
  valueFor(method?: MethodDescriptor): unknown {
    const type: TypeDescriptor | undefined = method?.returns;
    const reading = this.reading;
    switch (reading.kind) {
      case 'empty':
        return emptyValue(type);
      case 'fixed':
        return type === undefined ? reading.value : realize(reading.value, type, `mock value of ${method?.name ?? ''}`);
      case 'invalid':
        if (type === String) return this.text;
        throw reading.error;
      case 'typed': {
        if (type === String) return this.text;
        const value = typeof reading.value === 'object' && reading.value !== null ? structuredClone(reading.value) : reading.value;
        if (type === undefined) return value;
        if (typeof value === 'bigint' && type === Number) {
          throw new RpcError(RpcErrorCode.SERIALIZATION, `Mock value ${this.text} does not fit a JavaScript number.`);
        }
        return realize(value, type, method === undefined ? '' : `mock value of ${method.name}`);
      }
    }
  }
}

function read(text: string): Reading {
  if (text === 'empty') return { kind: 'empty' };
  if (text === 'null') return { kind: 'fixed', value: null };
  if (text === 'true') return { kind: 'fixed', value: true };
  if (text === 'false') return { kind: 'fixed', value: false };
  if (text.length >= 2 && ((text.startsWith('"') && text.endsWith('"')) || (text.startsWith("'") && text.endsWith("'")))) {
    return { kind: 'fixed', value: unescape(text.slice(1, -1)) };
  }
  if (/^\d+$/.test(text)) {
    const n = Number(text);
    return { kind: 'typed', value: Number.isSafeInteger(n) ? n : BigInt(text) };
  }
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      return { kind: 'typed', value: parseLenientJson(text) };
    } catch (error) {
      return { kind: 'invalid', error };
    }
  }
  return { kind: 'typed', value: text };
}

function unescape(s: string): string {
  return s.replace(/\\(["'\\])/g, '$1');
}

/**
 * The "empty" value of a declared type (`return empty`).
 *
 * @remarks `String` → `""`, `Number` → 0, `Boolean` → false, arrays → `[]`, `Map`/`Set` → empty, `Object` →
 * `{}` (Dubbo gives `[]` for Object), `Date` → now, a class → a new instance (its no-argument constructor; when it
 * throws, an instance created without it); void → undefined; no declared type → null.
 * @example
 * ```ts
 * emptyValue([String]); // []
 * ```
 */
export function emptyValue(type: TypeDescriptor | undefined): unknown {
  if (type === undefined) return null;
  if (type === null) return undefined;
  if (Array.isArray(type) || type === Array) return [];
  switch (type) {
    case String:
      return '';
    case Number:
      return 0;
    case Boolean:
      return false;
    case Map:
      return new Map();
    case Set:
      return new Set();
    case Object:
      return {};
    case Date:
      return new Date();
    default: {
      const cls = type as new () => unknown;
      try {
        return new cls();
      } catch {
        return Object.create(cls.prototype as object) as unknown;
      }
    }
  }
}
