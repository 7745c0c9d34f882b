import { realize, RpcError, RpcErrorCode, URL, type MethodDescriptor, type TypeDescriptor } from '@weft/core';

import { parseLenientJson } from './lenient-json.js';

/** What a mock expression does, once normalised. */
export type MockAction =
  | { readonly kind: 'return'; readonly text: string }
  | { readonly kind: 'throw'; readonly errorName: string | undefined }
  | { readonly kind: 'implementation'; readonly name: string };

/** Whether a mock setting degrades calls: not at all, always (`force…`), or on framework failure. */
export type MockMode = 'none' | 'force' | 'fail';

const RETURN_PREFIX = 'return ';
const THROW_PREFIX = 'throw';

/** Dubbo's ConfigUtils-empty: unset, `""`, `false`, `0`, `null`, `N/A` (case-insensitive). */
function isConfigEmpty(value: string | undefined): boolean {
  if (value === undefined) return true;
  const v = value.trim().toLowerCase();
  return v === '' || v === 'false' || v === '0' || v === 'null' || v === 'n/a';
}

/**
 * How the mock cluster invoker treats a call, from the raw `mock` value (method level first).
 *
 * @remarks ConfigUtils-empty → `none`; starting with `force` (case-sensitive) → `force`; anything else → `fail`.
 * @example
 * ```ts
 * mockMode('force:return null'); // 'force'
 * ```
 */
export function mockMode(raw: string | undefined): MockMode {
  if (isConfigEmpty(raw)) return 'none';
  return (raw as string).trim().startsWith('force') ? 'force' : 'fail';
}

/**
 * Dubbo's `normalizeMock`, rule by rule.
 *
 * @remarks `return` alone → `return null`; `true`/`default`/`fail`/`force` (any case) → `default`; strips
 * `fail:` then `force:` (case-sensitive, both can apply); for `return …`/`throw…` every backtick becomes a double
 * quote. As in Dubbo, the result is not re-checked: `fail:true` → `true`.
 * @example
 * ```ts
 * normalizeMock('force:return `scj mock hhh`'); // 'return "scj mock hhh"'
 * ```
 */
export function normalizeMock(mock: string): string {
  let s = mock.trim();
  if (s === '') return s;
  const lower = s.toLowerCase();
  if (lower === 'return') return 'return null';
  if (lower === 'true' || lower === 'default' || lower === 'fail' || lower === 'force') return 'default';
  if (s.startsWith('fail:')) s = s.slice('fail:'.length).trim();
  if (s.startsWith('force:')) s = s.slice('force:'.length).trim();
  if (s.startsWith(RETURN_PREFIX) || s.startsWith(THROW_PREFIX)) s = s.replace(/`/g, '"');
  return s;
}

/**
 * Parses a raw `mock` value into its action: form-decodes it (as Dubbo's MockInvoker does, so operators' `+`
 * mean spaces), normalises it, and classifies it.
 *
 * @remarks
 * `return <value>` → return; `throw` / `throw <Name>` → throw; anything else names a mock implementation
 * (`default` for the interface's). One difference from Dubbo: a bare `return` left after stripping a prefix
 * (`force:return`) means `return null` instead of naming an implementation called "return".
 * @example
 * ```ts
 * parseMockAction('fail:throw Unavailable'); // { kind: 'throw', errorName: 'Unavailable' }
 * ```
 * @throws `SyntaxError` for a malformed percent-escape or an empty expression.
 */
export function parseMockAction(raw: string): MockAction {
  let decoded: string;
  try {
    decoded = URL.decode(raw);
  } catch (error) {
    throw new SyntaxError(`malformed percent-escape (${(error as Error).message})`);
  }
  const normalized = normalizeMock(decoded);
  if (normalized === '') throw new SyntaxError('empty mock expression');
  if (normalized === 'return') return { kind: 'return', text: 'null' };
  if (normalized.startsWith(RETURN_PREFIX)) return { kind: 'return', text: normalized.slice(RETURN_PREFIX.length).trim() || 'null' };
  if (normalized.startsWith(THROW_PREFIX)) {
    const rest = normalized.slice(THROW_PREFIX.length).trim();
    if (rest !== '' && !/^[A-Za-z_$][\w$.]*$/.test(rest)) throw new SyntaxError(`"throw ${rest}": expected an error class name`);
    return { kind: 'throw', errorName: rest === '' ? undefined : rest };
  }
  if (!/^[-._0-9a-zA-Z]+$/.test(normalized)) {
    throw new SyntaxError(
      `"${normalized}" is neither "return <value>", "throw [ErrorName]" nor the name of a registered mock implementation`,
    );
  }
  return { kind: 'implementation', name: normalized };
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

/**
 * Dubbo's `parseMockValue`, then realised against the method's declared return type.
 *
 * @remarks In order: `empty`; `null`; `true`/`false`; a quoted string (`"…"` or `'…'`); the raw text when the
 * return type is `String`; digits only → a number; `{…}` → an object, `[…]` → an array (lenient JSON: unquoted
 * keys and single quotes); else the raw text. The value is then converted to the declared type (a string to a
 * number, an object to an instance of the declared class, …). Each call builds fresh objects.
 * @example
 * ```ts
 * parseMockValue('{name: "ann"}', User); // a User
 * ```
 * @throws `RpcError` `serialization` when the value cannot be converted to the declared type, `SyntaxError`
 * for malformed JSON.
 */
export function parseMockValue(text: string, method?: MethodDescriptor): unknown {
  const type = method?.returns;
  let value: unknown;
  if (text === 'empty') return emptyValue(type);
  if (text === 'null') value = null;
  else if (text === 'true') value = true;
  else if (text === 'false') value = false;
  else if (text.length >= 2 && ((text.startsWith('"') && text.endsWith('"')) || (text.startsWith("'") && text.endsWith("'")))) {
    value = unescape(text.slice(1, -1));
  } else if (type === String) value = text;
  else if (/^\d+$/.test(text)) {
    const n = Number(text);
    value = Number.isSafeInteger(n) ? n : BigInt(text);
  } else if (text.startsWith('{') || text.startsWith('[')) value = parseLenientJson(text);
  else value = text;
  if (type === undefined) return value;
  if (typeof value === 'bigint' && type === Number) {
    throw new RpcError(RpcErrorCode.SERIALIZATION, `Mock value ${text} does not fit a JavaScript number.`);
  }
  return realize(value, type, method === undefined ? '' : `mock value of ${method.name}`);
}

function unescape(s: string): string {
  return s.replace(/\\(["'\\])/g, '$1');
}
