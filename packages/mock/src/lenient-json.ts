/**
 * Parses the JSON literals of mock expressions leniently, as Dubbo's JSON facades do: object keys may be
 * unquoted identifiers, strings may be single-quoted. Nothing else is relaxed.
 *
 * @remarks Objects are built key by key; the keys `__proto__`, `constructor` and `prototype` are rejected, so
 * a pushed override can never reach a prototype. Throws `SyntaxError` with the (0-based) position of the offending
 * character on malformed input.
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
  const ws = () => {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
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
      const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '/': '/', '\\': '\\', '"': '"', "'": "'" };
      if (esc !== undefined && esc in simple) out += simple[esc];
      else if (esc === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i, i + 4))) {
        out += String.fromCharCode(parseInt(text.slice(i, i + 4), 16));
        i += 4;
      } else fail('Bad escape', escapeAt);
    }
    if (text[i] !== quote) fail('Unterminated string');
    i++;
    return out;
  };
  const number = (): number => {
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (match === null) return fail('Bad number');
    i += match[0].length;
    return Number(match[0]);
  };
  const key = (): string => {
    ws();
    if (text[i] === '"' || text[i] === "'") return string();
    const match = /^[A-Za-z_$][\w$]*/.exec(text.slice(i));
    if (match === null) return fail('Expected a key');
    i += match[0].length;
    return match[0];
  };
  const object = (): Record<string, unknown> => {
    i++;
    const out: Record<string, unknown> = {};
    ws();
    if (text[i] === '}') {
      i++;
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
      if (sep === '}') return out;
    }
  };
  const array = (): unknown[] => {
    i++;
    const out: unknown[] = [];
    ws();
    if (text[i] === ']') {
      i++;
      return out;
    }
    for (;;) {
      out.push(value());
      ws();
      const sep = text[i];
      if (sep !== ']' && sep !== ',') fail('Expected "," or "]"');
      i++;
      if (sep === ']') return out;
    }
  };
  const result = value();
  ws();
  if (i < text.length) fail('Unexpected trailing text');
  return result;
}
