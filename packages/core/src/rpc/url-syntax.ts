// The text syntax of Weft's URLs: percent-encoding and the parsing helpers `URL.parse` uses. @internal
import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import { isSecretKey, maskUrlText } from '../common/mask-secrets.js';

// ---------------------------------------------------------------------------------------------------------------
// Percent-encoding

export const HEX: readonly string[] = Array.from({ length: 256 }, (_, b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`);
export const UTF8 = new TextEncoder();

/** ASCII table: 1 = emit as is, 0 = percent-encode. Letters and digits are always kept. */
export function keepTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || chars.includes(ch)) {
      table[c] = 1;
    }
  }
  return table;
}

/** Parameter keys and values, and the path when a protocol is present. */
export const KEEP_QUERY = keepTable("-._~,:/*@!$'()");
/** The path of a URL without protocol: an unescaped `:/` there would be read as a protocol delimiter. */
export const KEEP_PATH_NO_COLON = keepTable("-._~,/*@!$'()");
/** User name and password: `:`, `/` and `@` delimit the user-info part. */
export const KEEP_USER = keepTable("-._~,*!$'()");
/** Java's `URLEncoder` keeps exactly these (plus letters and digits); space becomes `+`. */
export const KEEP_FORM = keepTable('.-*_');

/**
 * Percent-encodes `s` as UTF-8, keeping the ASCII characters marked in `keep`. Lone surrogates become U+FFFD.
 * With `form`, a space becomes `+`.
 */
export function percentEncode(s: string, keep: Uint8Array, form = false): string {
  let out = '';
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 128 && keep[c] === 1) continue;
    out += s.slice(start, i);
    if (c < 128) {
      out += form && c === 32 ? '+' : HEX[c];
      start = i + 1;
    } else {
      let j = i + 1;
      while (j < s.length && s.charCodeAt(j) >= 128) j++;
      for (const b of UTF8.encode(s.slice(i, j))) out += HEX[b];
      start = j;
      i = j - 1;
    }
  }
  return start === 0 ? s : out + s.slice(start);
}

/** Decodes `%XX` escapes (either case) as UTF-8; `+` is kept. Returns undefined when the escapes are malformed. */
export function percentDecode(s: string): string | undefined {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing helpers

export const COMMA_SPLIT = /\s*,+\s*/;
export const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
export const BAD_PROTOCOL = /[\s:/?#]/;
export const BAD_HOST = /[\s/?#@[\]]/;
export const DEFAULT_PREFIX = 'default.';

export function invalidUrl(message: string): ExtensionError {
  // The message quotes the URL as given: its secrets are masked here, on the error path only.
  return new ExtensionError(ExtensionErrorCode.INVALID_URL, maskUrlText(message));
}

export function decodeOrThrow(s: string, what: string, subject: string, secret = false): string {
  const decoded = percentDecode(s);
  if (decoded === undefined) {
    throw invalidUrl(
      `Invalid ${subject}: malformed percent-encoding in ${what}${secret ? ' (not shown: a secret)' : ` "${s}"`}; expected "%" followed by two hex digits forming UTF-8.`,
    );
  }
  return decoded;
}

/** Rejects a protocol, host or port that the string form could not carry. */
export function checkComponents(protocol: string, host: string, port: number, subject: string): void {
  if (BAD_PROTOCOL.test(protocol)) {
    throw invalidUrl(`Invalid ${subject}: bad protocol "${protocol}"; expected no whitespace, ":", "/", "?" or "#".`);
  }
  if (BAD_HOST.test(host)) {
    throw invalidUrl(`Invalid ${subject}: bad host "${host}"; expected no whitespace, "/", "?", "#", "@", "[" or "]".`);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw invalidUrl(`Invalid ${subject}: bad port ${String(port)}; expected an integer from 0 to 65535.`);
  }
}

export function parsePort(text: string, subject: string): number {
  const port = /^\d{1,5}$/.test(text) ? Number(text) : NaN;
  if (!(port <= 65535)) {
    throw invalidUrl(`Invalid ${subject}: bad port "${text}"; expected an integer from 0 to 65535.`);
  }
  return port;
}

/**
 * Splits `host[:port]`. `[v6]` and `[v6]:port` are bracketed IPv6; an unbracketed host with two or more `:` is a
 * bare IPv6 address without port. The port is undefined when absent.
 */
export function splitHostPort(text: string, subject: string): { host: string; port: number | undefined } {
  if (text.startsWith('[')) {
    const end = text.indexOf(']');
    if (end < 0) throw invalidUrl(`Invalid ${subject}: "[" without "]" in "${text}"; expected [IPv6] or [IPv6]:port.`);
    const after = text.slice(end + 1);
    if (after !== '' && !after.startsWith(':')) {
      throw invalidUrl(`Invalid ${subject}: unexpected "${after}" after "]"; expected [IPv6] or [IPv6]:port.`);
    }
    return { host: text.slice(1, end), port: after === '' ? undefined : parsePort(after.slice(1), subject) };
  }
  const colon = text.indexOf(':');
  if (colon < 0 || text.indexOf(':', colon + 1) >= 0) return { host: text, port: undefined };
  return { host: text.slice(0, colon), port: parsePort(text.slice(colon + 1), subject) };
}

/** Parses an encoded query (without `?`) into `out`, following Dubbo's `URLStrParser` rules (see {@link URL.parse}). */
export function parseQuery(query: string, subject: string, out: Map<string, string>, decoded = false): void {
  let nameStart = 0;
  let valueStart = -1;
  const len = query.length;
  for (let i = 0; i <= len; i++) {
    const ch = i < len ? query.charCodeAt(i) : 38; // a virtual '&' ends the last part
    if (ch === 61 /* = */) {
      if (nameStart === i) nameStart = i + 1; // leading '=' of a part is skipped
      else if (valueStart < nameStart) valueStart = i + 1; // the first '=' splits
    } else if (ch === 38 /* & */ || ch === 59 /* ; */) {
      if (nameStart < i) {
        const hasValue = valueStart > nameStart;
        const rawName = query.slice(nameStart, hasValue ? valueStart - 1 : i);
        const name = decoded ? rawName : decodeOrThrow(rawName, 'parameter name', subject);
        const rawValue = hasValue ? query.slice(valueStart, i) : '';
        const value = !hasValue ? '' : decoded ? rawValue : decodeOrThrow(rawValue, `parameter "${name}"`, subject, isSecretKey(name));
        out.set(name, value);
        if (rawName.startsWith(DEFAULT_PREFIX) && name.length > DEFAULT_PREFIX.length) {
          const stripped = name.slice(DEFAULT_PREFIX.length);
          if (!out.has(stripped)) out.set(stripped, value);
        }
      }
      nameStart = i + 1;
    }
  }
}

export function stripLeadingSlashes(path: string): string {
  let i = 0;
  while (path.charCodeAt(i) === 47 /* / */) i++;
  return i === 0 ? path : path.slice(i);
}

export function normalizeHost(host: string): string {
  return host.length >= 2 && host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

export function entriesOf<V>(source: Readonly<Record<string, V>> | ReadonlyMap<string, V>): Iterable<readonly [string, V]> {
  const map = source as Partial<ReadonlyMap<string, V>>;
  return typeof map.entries === 'function' && typeof map.get === 'function'
    ? (source as ReadonlyMap<string, V>).entries()
    : Object.entries(source);
}

/**
 * The string form of a URL's components (see `URL.toString`); `mask` hides the password. The parts are joined once,
 * so the result is one flat string, not a tree of concatenations copied again when it is first hashed or compared.
 */
export function formatUrl(
  url: { readonly protocol: string; readonly username: string; readonly password: string; readonly host: string; readonly port: number; readonly path: string },
  parameters: ReadonlyMap<string, string> | undefined,
  mask: boolean,
): string {
  const parts: string[] = [];
  if (url.protocol) parts.push(url.protocol, '://');
  if (url.username || url.password) {
    parts.push(percentEncode(url.username, KEEP_USER));
    if (url.password) parts.push(':', mask ? '***' : percentEncode(url.password, KEEP_USER));
    parts.push('@');
  }
  if (url.host.includes(':')) parts.push('[', url.host, ']');
  else parts.push(url.host);
  if (url.port !== 0) parts.push(':', String(url.port));
  if (url.path) parts.push('/', percentEncode(url.path, url.protocol ? KEEP_QUERY : KEEP_PATH_NO_COLON));
  if (parameters !== undefined) {
    let separator = '?';
    for (const [key, value] of parameters) {
      // A literal `default.x` would make parse() add `x`; escape the dot when `x` is not a parameter.
      if (key.startsWith(DEFAULT_PREFIX) && key.length > DEFAULT_PREFIX.length && !parameters.has(key.slice(DEFAULT_PREFIX.length))) {
        parts.push(separator, 'default%2E', percentEncode(key, KEEP_QUERY).slice(DEFAULT_PREFIX.length));
      } else {
        parts.push(separator, percentEncode(key, KEEP_QUERY));
      }
      parts.push('=', percentEncode(value, KEEP_QUERY));
      separator = '&';
    }
  }
  return parts.join('');
}
