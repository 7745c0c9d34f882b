import { ExtensionError, ExtensionErrorCode, URL, type MethodDescriptor } from '@weft/core';

import { MockLimits } from './mock-limits.js';
import { MockLiteral } from './mock-literal.js';

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
function isConfigEmpty(value: string | null | undefined): boolean {
  if (value === undefined || value === null) return true;
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
export function mockMode(raw: string | null | undefined): MockMode {
  if (isConfigEmpty(raw)) return 'none';
  return (raw as string).trim().startsWith('force') ? 'force' : 'fail';
}

/**
 * Dubbo's `normalizeMock`, rule by rule.
 *
 * @remarks `null`/`undefined` (no value: no mock) are returned as they are; `return` alone → `return null`;
 * `true`/`default`/`fail`/`force` (any case) → `default`; strips `fail:` then `force:` (case-sensitive, both can
 * apply); for `return …`/`throw…` every backtick becomes a double quote. As in Dubbo, the result is not re-checked:
 * `fail:true` → `true` ({@link parseMockAction} reads it as the default mock, as Dubbo's `MockInvoker` does).
 * @example
 * ```ts
 * normalizeMock('force:return `scj mock hhh`'); // 'return "scj mock hhh"'
 * normalizeMock(undefined); // undefined
 * ```
 */
export function normalizeMock(mock: string): string;
export function normalizeMock(mock: null): null;
export function normalizeMock(mock: undefined): undefined;
export function normalizeMock(mock: string | null | undefined): string | null | undefined;
export function normalizeMock(mock: string | null | undefined): string | null | undefined {
  if (mock === null || mock === undefined) return mock;
  let s = mock.trim();
  if (s === '') return s;
  const lower = s.toLowerCase();
  if (lower === 'return') return 'return null';
  if (isDefaultName(lower)) return 'default';
  if (s.startsWith('fail:')) s = s.slice('fail:'.length).trim();
  if (s.startsWith('force:')) s = s.slice('force:'.length).trim();
  if (s.startsWith(RETURN_PREFIX) || s.startsWith(THROW_PREFIX)) s = s.replace(/`/g, '"');
  return s;
}

/** `true`, `default`, `fail`, `force` (lower-cased): the names of the service's default mock implementation. */
function isDefaultName(lower: string): boolean {
  return lower === 'true' || lower === 'default' || lower === 'fail' || lower === 'force';
}

/** Refuses a value past {@link MockLimits.maxLength} before anything else reads it. */
function checkLength(text: string, what: string): void {
  if (text.length > MockLimits.maxLength) {
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `${what} is ${text.length} characters long; the limit is ${MockLimits.maxLength}`,
    );
  }
}

/**
 * Parses a raw `mock` value into its action: form-decodes it (as Dubbo's MockInvoker does, so operators' `+`
 * mean spaces), normalises it, and classifies it.
 *
 * @remarks
 * `return <value>` → return; `throw` / `throw <Name>` → throw; `true`, `default`, `fail` or `force` (any case,
 * bare or after a `force:`/`fail:` prefix: `force:true`, `fail:default`) → the service's **default** mock
 * implementation (`name: 'default'`, Dubbo's `<Interface>Mock`); any other name → the mock implementation
 * registered under it. `null`/`undefined` (no value) → `undefined`: no mock. Differences from Dubbo: a bare
 * `return` left after a prefix (`force:return`) means `return null`, and `force:fail` means the default mock
 * (Dubbo looks for mock classes named `return` and `fail`). Values longer than {@link MockLimits.maxLength} are
 * refused before decoding.
 * @example
 * ```ts
 * parseMockAction('fail:throw Unavailable'); // { kind: 'throw', errorName: 'Unavailable' }
 * parseMockAction('force:true'); // { kind: 'implementation', name: 'default' }
 * ```
 * @throws `SyntaxError` for a malformed percent-escape or an empty expression; `ExtensionError`
 * `ERR_SPI_INVALID_PARAMETER` for a value past the size limit.
 */
export function parseMockAction(raw: string): MockAction;
export function parseMockAction(raw: string | null | undefined): MockAction | undefined;
export function parseMockAction(raw: string | null | undefined): MockAction | undefined {
  if (raw === null || raw === undefined) return undefined;
  checkLength(raw, 'the mock value');
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
    if (rest !== '' && !/^[A-Za-z_$][\w$.]*$/.test(rest)) throw new SyntaxError(`"throw ${shorten(rest)}": expected an error class name`);
    return { kind: 'throw', errorName: rest === '' ? undefined : rest };
  }
  // Dubbo's MockInvoker reads `true`/`default` left by a prefix (`fail:true`) as the default mock (isDefault).
  if (isDefaultName(normalized.toLowerCase())) return { kind: 'implementation', name: 'default' };
  if (!/^[-._0-9a-zA-Z]+$/.test(normalized)) {
    throw new SyntaxError(
      `"${shorten(normalized)}" is neither "return <value>", "throw [ErrorName]" nor the name of a registered mock implementation`,
    );
  }
  return { kind: 'implementation', name: normalized };
}

/** @internal A long text cut for a message (past `max` characters): its beginning and its length. */
export function shorten(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max - 40)}… (${text.length} characters)`;
}

/**
 * Dubbo's `parseMockValue`, then realised against the method's declared return type.
 *
 * @remarks In order: `empty`; `null`; `true`/`false`; a quoted string (`"…"` or `'…'`); the raw text when the
 * return type is `String`; digits only → a number; `{…}` → an object, `[…]` → an array (lenient JSON: unquoted
 * keys and single quotes); else the raw text. The value is then converted to the declared type (a string to a
 * number, an object to an instance of the declared class, …). Each call builds fresh objects. `null`/`undefined`
 * (no value) mean `null`, as `return` alone does. To parse once and realise many times, use {@link MockLiteral}.
 * @example
 * ```ts
 * parseMockValue('{name: "ann"}', User); // a User
 * ```
 * @throws `RpcError` `serialization` when the value cannot be converted to the declared type, `SyntaxError`
 * for malformed JSON, `ExtensionError` `ERR_SPI_INVALID_PARAMETER` past {@link MockLimits} (size, nesting).
 */
export function parseMockValue(text: string | null | undefined, method?: MethodDescriptor): unknown {
  const literal = text ?? 'null';
  checkLength(literal, 'the mock return value');
  return MockLiteral.parse(literal).valueFor(method);
}
