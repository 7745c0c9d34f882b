import { typeFromText, type MethodDescriptor } from '@weft/core';
import { MockLiteral } from '@weft/mock';

/**
 * What checking one `return <value>` mock against one method's registered return type found.
 *
 * @remarks Made by {@link checkMockValue}: exactly one of `value` (it fits) and `error` (it does not) is set when
 * `checked`, neither when not.
 * @example
 * ```ts
 * const check: MockValueCheck = { method: 'count', returns: 'Number', checked: true, value: 42 };
 * ```
 */
export interface MockValueCheck {
  /** The method. */
  readonly method: string;
  /** Its return type as registered (`weft.returns`). */
  readonly returns: string;
  /** `false` when the console cannot rebuild the type from its text: the value was not checked. */
  readonly checked: boolean;
  /** The value the consumer receives, realised to the type (set when checked and it fits). */
  readonly value?: unknown;
  /** Why the value does not fit (set when checked and it does not). */
  readonly error?: string;
}

/** Type texts that name a standard type or a Java helper, not a class. */
const STANDARD = new Set(['void', 'String', 'Number', 'Boolean', 'Date', 'Map', 'Set', 'Object', 'Array']);
const CLASS_NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;

function shorten(text: string, max = 100): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Realises the literal of a `return <value>` mock against a method's registered return type, exactly as the
 * consumer's `@weft/mock` will (`MockLiteral.valueFor`), so the console can refuse a value that would fail at call
 * time and preview the one that would not.
 *
 * @remarks The type is rebuilt from its registered text with `typeFromText` of `@weft/core`; a text it cannot read
 * answers `checked: false` (the console then checks the grammar only). A class name stands for "an object of that
 * class": an object literal or `null` fits, anything else does not. The error names the method, its return type and
 * the value: `the mock value "abc" does not fit count(), which returns Number: expected Number, got "abc".`
 * @example
 * ```ts
 * checkMockValue('"abc"', 'count', 'Number').error; // 'the mock value "abc" does not fit count(), which returns Number: …'
 * checkMockValue('42', 'count', 'Number').value; // 42
 * ```
 */
export function checkMockValue(literal: string, method: string, returns: string): MockValueCheck {
  const type = typeFromText(returns);
  if (type === undefined) return { method, returns, checked: false };
  const descriptor: MethodDescriptor = { name: method, args: undefined, returns: type, throws: [], idl: undefined, stream: undefined, safe: false, idempotent: undefined };
  try {
    return { method, returns, checked: true, value: MockLiteral.parse(literal).valueFor(descriptor) };
  } catch (error) {
    const what = CLASS_NAME.test(returns) && !STANDARD.has(returns) && !returns.startsWith('java.') ? ` (an object of class ${returns}, or null)` : '';
    const prefix = `mock value of ${method}`;
    const raw = (error as Error).message;
    const reason = raw.startsWith(`${prefix}: `) ? raw.slice(prefix.length + 2) : raw.startsWith(prefix) ? `the value${raw.slice(prefix.length)}` : raw;
    return { method, returns, checked: true, error: `the mock value ${shorten(literal)} does not fit ${method}(), which returns ${returns}${what}: ${reason}` };
  }
}
