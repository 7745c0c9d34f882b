import { ExtensionError, ExtensionErrorCode } from '@weft/core';

import { MockLimits } from './mock-limits.js';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const IDENTIFIER = /[A-Za-z_$][\w$]*/y;
const HEX4 = /[0-9a-fA-F]{4}/y;
const SIMPLE_ESCAPES: Readonly<Record<string, string>> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '/': '/', '\\': '\\', '"': '"', "'": "'" };

/**
 * Parses the JSON literals of mock expressions leniently, as Dubbo's JSON facades do: object keys may be
 * unquoted identifiers, strings may be single-quoted. Nothing else is relaxed.
 *
 * @remarks Objects are built key by key; the keys `__proto__`, `constructor` and `prototype` are rejected, so
 * a pushed override can never reach a prototype. Throws `SyntaxError` with the (0-based) position of the offending
 * character on malformed input, and `ExtensionError` `ERR_SPI_INVALID_PARAMETER` for arrays and objects nested
 * deeper than {@link MockLimits.maxDepth} (64) levels — before any stack is at risk. Linear in the text's length.
 * @example
 * ```ts
 * parseLenientJson("{name: 'ann', tags: ['a']}"); // { name: 'ann', tags: ['a'] }
 * ```
 */
export function parseLenientJson(text: string): unknown {
  let i = 0;
  const fail = (what: string, at = i): never => {
    throw new SyntaxError(`${what} at position ${at} of ${JSON.stringify(text.length > 60 ? `${text.slice(0, 57)}...` : text)}`);
  };
  let depth = 0;
  const ws = () => {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  };
  const enter = () => {
    if (++depth > MockLimits.maxDepth) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `mock JSON value nested deeper than ${MockLimits.maxDepth} levels (at position ${i})`,
      );
    }
  };
  const match = (re: RegExp): string | undefined => {
    re.lastIndex = i;
    const found = re.exec(text);
    return found === null ? undefined : found[0];
  };
  const value = (): unknown => {
    ws();
    const ch = text[i];
    if (ch === '{') return object();
    if (ch === '[') return array();
    if (ch === '"' || ch === "'") return string();
    if (ch === '-' || (ch !== undefined && ch >= '0' && ch <= '9')) return number();
    for (const [word, result] of [
      ['true', true],
      ['false', false],
      ['null', null],
    ] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return result;
      }
    }
    return fail(ch === undefined ? 'Unexpected end' : `Unexpected "${ch}"`);
  };
  const string = (): string => {
    const quote = text[i++] as string;
    let out = '';
    while (i < text.length && text[i] !== quote) {
      const ch = text[i++] as string;
      if (ch !== '\\') {
        out += ch;
        continue;
      }
      const escapeAt = i - 1;
      const esc = text[i++];
      if (esc !== undefined && Object.prototype.hasOwnProperty.call(SIMPLE_ESCAPES, esc)) out += SIMPLE_ESCAPES[esc];
      else if (esc === 'u' && match(HEX4) !== undefined) {
        out += String.fromCharCode(parseInt(text.slice(i, i + 4), 16));
        i += 4;
      } else fail('Bad escape', escapeAt);
    }
    if (text[i] !== quote) fail('Unterminated string');
    i++;
    return out;
  };
  const number = (): number => {
    const found = match(NUMBER);
    if (found === undefined) return fail('Bad number');
    i += found.length;
    return Number(found);
  };
  const key = (): string => {
    ws();
    if (text[i] === '"' || text[i] === "'") return string();
    const found = match(IDENTIFIER);
    if (found === undefined) return fail('Expected a key');
    i += found.length;
    return found;
  };
  const object = (): Record<string, unknown> => {
    enter();
    i++;
    const out: Record<string, unknown> = {};
    ws();
    if (text[i] === '}') {
      i++;
      depth--;
      return out;
    }
    for (;;) {
      ws();
      const keyAt = i;
      const k = key();
      if (k === '__proto__' || k === 'constructor' || k === 'prototype') fail(`Key "${k}" is not allowed`, keyAt);
      ws();
      if (text[i] !== ':') fail('Expected ":"');
      i++;
      out[k] = value();
      ws();
      const sep = text[i];
      if (sep !== '}' && sep !== ',') fail('Expected "," or "}"');
      i++;
      if (sep === '}') {
        depth--;
        return out;
      }
    }
  };
  const array = (): unknown[] => {
    enter();
    i++;
    const out: unknown[] = [];
    ws();
    if (text[i] === ']') {
      i++;
      depth--;
      return out;
    }
    for (;;) {
      out.push(value());
      ws();
      const sep = text[i];
      if (sep !== ']' && sep !== ',') fail('Expected "," or "]"');
      i++;
      if (sep === ']') {
        depth--;
        return out;
      }
    }
  };
  const result = value();
  ws();
  if (i < text.length) fail('Unexpected trailing text');
  return result;
}

/** JSON's and JavaScript's white space, as `\s` matches it (the common ASCII ones first). */
function isSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || (code > 127 && /\s/.test(String.fromCharCode(code)));
}
