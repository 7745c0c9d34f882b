import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import { isSecretKey, maskUrlText } from '../common/mask-secrets.js';

/** A parameter value accepted by the `addParameter*` edits; numbers and booleans are stored as their string form. */
export type ParameterValue = string | number | boolean;

/** The parameter sources accepted by {@link URLInit.parameters}. */
export type ParameterSource =
  | Readonly<Record<string, string>>
  | ReadonlyMap<string, string>
  | Iterable<readonly [string, string]>;

/** The parameter sources accepted by {@link URL.addParameters} and {@link URL.addParametersIfAbsent}. */
export type ParameterEdits =
  | Readonly<Record<string, ParameterValue | undefined>>
  | ReadonlyMap<string, ParameterValue | undefined>;

/**
 * The components of a {@link URL}, all optional.
 *
 * @remarks
 * Missing strings become `''`, a missing port becomes `0`. Leading `/` characters of `path` are dropped.
 * A `host` wrapped in brackets (`[::1]`) is stored without them. Parameters with an empty key or a
 * `null`/`undefined` value are dropped.
 */
export interface URLInit {
  /** Protocol, e.g. `dubbo`; `''` for none. Must not contain whitespace, `:`, `/`, `?` or `#`. */
  protocol?: string;
  /** User name of the user-info part. */
  username?: string;
  /** Password of the user-info part. */
  password?: string;
  /** Host name or IP address (IPv6 with or without brackets). Must not contain whitespace, `/ ? # @ [ ]`. */
  host?: string;
  /** Port, an integer from 0 to 65535; 0 means "none". */
  port?: number;
  /** Path, usually the service interface name. */
  path?: string;
  /** Parameters, kept in the given order. Another URL's `parameters` map is shared, not copied. */
  parameters?: ParameterSource;
}

// ---------------------------------------------------------------------------------------------------------------
// Percent-encoding

const HEX: readonly string[] = Array.from({ length: 256 }, (_, b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`);
const UTF8 = new TextEncoder();

/** ASCII table: 1 = emit as is, 0 = percent-encode. Letters and digits are always kept. */
function keepTable(chars: string): Uint8Array {
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
const KEEP_QUERY = keepTable("-._~,:/*@!$'()");
/** The path of a URL without protocol: an unescaped `:/` there would be read as a protocol delimiter. */
const KEEP_PATH_NO_COLON = keepTable("-._~,/*@!$'()");
/** User name and password: `:`, `/` and `@` delimit the user-info part. */
const KEEP_USER = keepTable("-._~,*!$'()");
/** Java's `URLEncoder` keeps exactly these (plus letters and digits); space becomes `+`. */
const KEEP_FORM = keepTable('.-*_');

/**
 * Percent-encodes `s` as UTF-8, keeping the ASCII characters marked in `keep`. Lone surrogates become U+FFFD.
 * With `form`, a space becomes `+`.
 */
function percentEncode(s: string, keep: Uint8Array, form = false): string {
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
function percentDecode(s: string): string | undefined {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing helpers

const COMMA_SPLIT = /\s*,+\s*/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const BAD_PROTOCOL = /[\s:/?#]/;
const BAD_HOST = /[\s/?#@[\]]/;
const DEFAULT_PREFIX = 'default.';

function invalidUrl(message: string): ExtensionError {
  // The message quotes the URL as given: its secrets are masked here, on the error path only.
  return new ExtensionError(ExtensionErrorCode.INVALID_URL, maskUrlText(message));
}

function decodeOrThrow(s: string, what: string, subject: string, secret = false): string {
  const decoded = percentDecode(s);
  if (decoded === undefined) {
    throw invalidUrl(
      `Invalid ${subject}: malformed percent-encoding in ${what}${secret ? ' (not shown: a secret)' : ` "${s}"`}; expected "%" followed by two hex digits forming UTF-8.`,
    );
  }
  return decoded;
}

/** Rejects a protocol, host or port that the string form could not carry. */
function checkComponents(protocol: string, host: string, port: number, subject: string): void {
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

function parsePort(text: string, subject: string): number {
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
function splitHostPort(text: string, subject: string): { host: string; port: number | undefined } {
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
function parseQuery(query: string, subject: string, out: Map<string, string>, decoded = false): void {
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

function stripLeadingSlashes(path: string): string {
  let i = 0;
  while (path.charCodeAt(i) === 47 /* / */) i++;
  return i === 0 ? path : path.slice(i);
}

function normalizeHost(host: string): string {
  return host.length >= 2 && host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function entriesOf<V>(source: Readonly<Record<string, V>> | ReadonlyMap<string, V>): Iterable<readonly [string, V]> {
  const map = source as Partial<ReadonlyMap<string, V>>;
  return typeof map.entries === 'function' && typeof map.get === 'function'
    ? (source as ReadonlyMap<string, V>).entries()
    : Object.entries(source);
}

// ---------------------------------------------------------------------------------------------------------------
// Parameter table: the map plus lazily built lookup structures, shared by every URL holding the same map

/** Maps each table's `map` back to its table, so `new URL({ parameters: other.parameters })` shares it. */
/** A parameter map plus its lazily built lookup structures. */
class ParamTable {
  readonly map: Map<string, string>;
  /** Parsed numbers, keyed by the value text (parsing depends only on it). */
  #numbers: Map<string, number> | undefined;
  /** Method parameters: key → method → value, in parameter insertion order. */
  #byKey: Map<string, Map<string, string>> | undefined;
  /** Elements of the `methods` parameter; null when it is empty (no restriction); undefined until computed. */
  #methodList: readonly string[] | null | undefined;
  #methodSet: ReadonlySet<string> | null = null;

  constructor(map: Map<string, string>) {
    this.map = map;
  }

  /** The number cache, created on first use. */
  numbers(): Map<string, number> {
    return (this.#numbers ??= new Map());
  }

  /** The method-parameter index (key → method → value), built on first use. */
  byKey(): Map<string, Map<string, string>> {
    if (this.#byKey === undefined) {
      const index = new Map<string, Map<string, string>>();
      for (const [full, value] of this.map) {
        const dot = full.indexOf('.');
        if (dot < 0) continue;
        const key = full.slice(dot + 1);
        let methods = index.get(key);
        if (methods === undefined) index.set(key, (methods = new Map()));
        methods.set(full.slice(0, dot), value);
      }
      this.#byKey = index;
    }
    return this.#byKey;
  }

  /** The elements of `methods` in order, or null when it is empty. */
  methodList(): readonly string[] | null {
    if (this.#methodList === undefined) {
      const methods = this.map.get('methods');
      if (methods) {
        const list = methods.trim().split(COMMA_SPLIT).filter((m) => m !== '');
        this.#methodList = list;
        this.#methodSet = new Set(list);
      } else {
        this.#methodList = null;
      }
    }
    return this.#methodList;
  }

  /** The `methods` restriction, or null when every method is admitted. */
  methodSet(): ReadonlySet<string> | null {
    if (this.#methodList === undefined) this.methodList();
    return this.#methodSet;
  }
}

const EMPTY_TABLE = new ParamTable(new Map());

function tableFor(source: ParameterSource | undefined): ParamTable {
  if (source === undefined) return EMPTY_TABLE;
  const map = new Map<string, string>();
  const entries: Iterable<readonly [string, unknown]> =
    typeof (source as Partial<Iterable<unknown>>)[Symbol.iterator] === 'function'
      ? (source as Iterable<readonly [string, string]>)
      : Object.entries(source);
  for (const [key, value] of entries) {
    if (key === '' || value === undefined || value === null) continue;
    map.set(key, typeof value === 'string' ? value : String(value));
  }
  return map.size === 0 ? EMPTY_TABLE : new ParamTable(map);
}

// ---------------------------------------------------------------------------------------------------------------

/**
 * Weft's Dubbo-style URL: protocol, user info, host, port, path and an ordered map of string parameters.
 *
 * @remarks
 * **Immutability.** A URL never changes. Every edit (`addParameter`, `withHost`, ...) returns a new URL, or `this`
 * when nothing would change; a new URL shares the parameter map (and its lookup caches) when the parameters are
 * unchanged. `parameters` is exposed as a `ReadonlyMap` and must not be mutated.
 *
 * **String form.** {@link URL.toString} gives
 * `protocol://[user[:password]@]host[:port][/path][?k=v&...]` with parameters in insertion order. User, password,
 * path, parameter keys and values are percent-encoded (UTF-8) so that `URL.parse(u.toString())` equals `u` for any
 * content; `, : / * . - _ ~` stay readable. `+` is literal in both directions (this is not form encoding; use
 * {@link URL.encode}/{@link URL.decode} for that). Protocol and host are written verbatim, so the constructor rejects
 * the few characters that would break them.
 *
 * **Lookups.** {@link URL.getParameter} reads the map; typed overloads return the default for an empty value and
 * throw `ExtensionError` (`INVALID_PARAMETER`) for a malformed one. Method parameters follow Dubbo 3.x: every key
 * containing `.` is also indexed as `(method = text before the first '.', key = the rest)`, so `sayHello.timeout`
 * is `timeout` of method `sayHello` (and, as in Dubbo, `tps.interval` is `interval` of "method" `tps`).
 * {@link URL.getMethodParameter} tries the method-level value first, then the plain key.
 *
 * **Deliberate differences from Dubbo.**
 * 1. The `methods` parameter restricts strict method lookups by *list element* (comma-separated, trimmed), not by
 *    substring: `methods=sayHelloWorld` does not admit `sayHello` (Dubbo's substring test does).
 * 2. {@link URL.getAnyMethodParameter} without `methods` returns the first match in parameter insertion order, not an
 *    arbitrary hash-order match.
 *
 * Other differences: typed getters reject non-numbers and non-booleans instead of coercing; an unbracketed host
 * with several `:` is an IPv6 address without port.
 *
 * @example
 * ```ts
 * const url = URL.parse('dubbo://10.0.0.1:20880/org.demo.Greeter?timeout=1000&sayHello.timeout=3000&group=g1');
 * url.getParameter('timeout', 0);                   // 1000
 * url.getMethodParameter('sayHello', 'timeout', 0); // 3000
 * url.getServiceKey();                              // 'g1/org.demo.Greeter'
 * const moved = url.withPort(20881).addParameter('retries', 2);
 * moved.toString(); // 'dubbo://10.0.0.1:20881/org.demo.Greeter?timeout=1000&sayHello.timeout=3000&group=g1&retries=2'
 * ```
 */
export class URL {
  /** The protocol, e.g. `dubbo`; `''` when absent. */
  readonly protocol: string;
  /** The user name; `''` when absent. */
  readonly username: string;
  /** The password; `''` when absent. */
  readonly password: string;
  /** The host, without IPv6 brackets; `''` when absent. */
  readonly host: string;
  /** The port; `0` when absent. */
  readonly port: number;
  /** The path, without leading `/`; `''` when absent. */
  readonly path: string;

  #table: ParamTable;
  #string: string | undefined;
  #identity: string | undefined;
  #serviceKey: string | null | undefined; // null: computed, no key
  #protocolServiceKey: string | null | undefined;

  /**
   * Creates a URL from its components.
   *
   * @throws ExtensionError `INVALID_URL` when the protocol or host contains a reserved character, or the port is
   * not an integer from 0 to 65535.
   */
  constructor(init: URLInit = {}) {
    const protocol = init.protocol ?? '';
    const host = normalizeHost(init.host ?? '');
    const port = init.port ?? 0;
    checkComponents(protocol, host, port, 'URL component');
    this.protocol = protocol;
    this.username = init.username ?? '';
    this.password = init.password ?? '';
    this.host = host;
    this.port = port;
    this.path = stripLeadingSlashes(init.path ?? '');
    this.#table = tableFor(init.parameters);
  }

  /**
   * Parses the encoded string form produced by {@link URL.toString}.
   *
   * @remarks
   * Grammar: `protocol://[user[:password]@]host[:port][/path][?query]`. Also accepted: `file:/path` (protocol
   * delimited by `:/`, empty host) and a body without protocol (`host:port/path`, protocol `''`). The input is
   * trimmed; everything from the first `#` is ignored; an empty input gives an empty URL.
   *
   * - Host: `[v6]:port` for IPv6; otherwise the port follows the `:` (a host with several `:` is a bare IPv6
   *   address). A missing port is 0.
   * - User info: split at the last `@` of the authority, then at the first `:`.
   * - Query: parts split on `&` or `;`; the first `=` splits name and value; a part without `=` has value `''`;
   *   a leading `=` is skipped; a later duplicate wins. A name written as `default.x` also sets `x` unless `x` is
   *   already set (Dubbo compatibility; write `default%2Ex` to avoid that).
   * - User, password, path, parameter names and values are percent-decoded (UTF-8, hex digits of either case).
   *   `+` is kept as is: this is not form decoding.
   *
   * With `{ decoded: true }` the text is taken as Dubbo's **decoded** form (what a registry node name gives after
   * one `URL.decode`): nothing is percent-decoded again, so a value such as `100%` or `a%2Bb` stays as written.
   *
   * @throws ExtensionError `INVALID_URL` for `://` (or `:/`) at the start ("missing protocol"), a port that is not
   * an integer from 0 to 65535, an unterminated `[`, or a malformed percent-escape.
   */
  static parse(text: string, options?: { readonly decoded?: boolean }): URL {
    const decoded = options?.decoded === true;
    let s = text.trim();
    const subject = `URL "${text}"`;
    const hash = s.indexOf('#');
    if (hash >= 0) s = s.slice(0, hash);
    const q = s.indexOf('?');
    const body = q >= 0 ? s.slice(0, q) : s;

    let protocol = '';
    let rest = body;
    let i = body.indexOf('://');
    let skip = 3;
    if (i < 0) {
      i = body.indexOf(':/');
      skip = 1;
    }
    if (i === 0) {
      throw invalidUrl(`Invalid ${subject}: missing protocol; expected protocol://[user[:password]@]host[:port][/path][?query].`);
    }
    if (i > 0) {
      protocol = body.slice(0, i);
      rest = body.slice(i + skip);
    }

    let path = '';
    const slash = rest.indexOf('/');
    if (slash >= 0) {
      path = decoded ? rest.slice(slash + 1) : decodeOrThrow(rest.slice(slash + 1), 'path', subject);
      rest = rest.slice(0, slash);
    }

    let username = '';
    let password = '';
    const at = rest.lastIndexOf('@');
    if (at >= 0) {
      const info = rest.slice(0, at);
      rest = rest.slice(at + 1);
      const colon = info.indexOf(':');
      const user = colon >= 0 ? info.slice(0, colon) : info;
      username = decoded ? user : decodeOrThrow(user, 'user name', subject);
      if (colon >= 0) password = decoded ? info.slice(colon + 1) : decodeOrThrow(info.slice(colon + 1), 'password', subject, true);
    }

    const { host, port = 0 } = splitHostPort(rest, subject);
    checkComponents(protocol, host, port, subject);
    const parameters = new Map<string, string>();
    if (q >= 0) parseQuery(s.slice(q + 1), subject, parameters, decoded);
    return URL.#create({ protocol, username, password, host, port, path }, parameters.size === 0 ? EMPTY_TABLE : new ParamTable(parameters));
  }

  /** Builds a URL around an existing parameter table (shared, never copied: tables are immutable). */
  static #create(init: URLInit, table: ParamTable): URL {
    const url = new URL(init);
    url.#table = table;
    return url;
  }

  /**
   * Form-encodes `s` like Java's `URLEncoder` (as Dubbo's `URL.encode`): UTF-8, space → `+`, letters, digits and
   * `. - * _` kept, everything else `%XX`. Registries use it for node names.
   */
  static encode(s: string): string {
    return percentEncode(s, KEEP_FORM, true);
  }

  /**
   * Form-decodes `s` (as Dubbo's `URL.decode`): `+` → space, then UTF-8 `%XX` escapes.
   *
   * @throws ExtensionError `INVALID_URL` for a malformed percent-escape.
   */
  static decode(s: string): string {
    return decodeOrThrow(s.replaceAll('+', ' '), 'text', `encoded text "${s}"`);
  }

  /** Builds a service key `[group/]path[:version]`; empty group or version is left out. */
  static buildKey(path: string, group?: string, version?: string): string {
    let key = group ? `${group}/${path}` : path;
    if (version) key += `:${version}`;
    return key;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Parameters

  /** All parameters, in insertion order. Shared and read-only: never mutate it. */
  get parameters(): ReadonlyMap<string, string> {
    return this.#table.map;
  }

  /** Same as {@link URL.parameters}. */
  getParameters(): ReadonlyMap<string, string> {
    return this.#table.map;
  }

  /** Returns the raw value of `key`, or undefined. */
  getParameter(key: string): string | undefined;
  /** Returns the value of `key`, or `defaultValue` when it is missing or `''`. */
  getParameter(key: string, defaultValue: string): string;
  /**
   * Returns the value of `key` as a number, or `defaultValue` when it is missing or `''`.
   *
   * @throws ExtensionError `INVALID_PARAMETER` when the value is not a finite decimal number.
   */
  getParameter(key: string, defaultValue: number): number;
  /**
   * Returns the value of `key` as a boolean (`true`/`false`, any case), or `defaultValue` when it is missing or `''`.
   *
   * @throws ExtensionError `INVALID_PARAMETER` for any other value.
   */
  getParameter(key: string, defaultValue: boolean): boolean;
  getParameter(key: string, defaultValue?: ParameterValue): ParameterValue | undefined {
    const value = this.#table.map.get(key);
    return defaultValue === undefined ? value : this.#typed(value, defaultValue, key, undefined);
  }

  /**
   * Returns the value of `key` as a number, or `defaultValue` when it is missing, empty or not positive.
   *
   * @throws ExtensionError `INVALID_PARAMETER` when `defaultValue <= 0` or the value is not a number.
   */
  getPositiveParameter(key: string, defaultValue: number): number {
    this.#checkPositiveDefault(key, undefined, defaultValue);
    const value = this.getParameter(key, defaultValue);
    return value > 0 ? value : defaultValue;
  }

  /** True when `key` has a non-empty value. */
  hasParameter(key: string): boolean {
    return !!this.#table.map.get(key);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Method parameters

  /**
   * Returns the method-level value of `key` for `method` (parameter `method.key`), or undefined.
   *
   * @remarks
   * When the `methods` parameter is non-empty and `method` is not one of its comma-separated elements, the answer
   * is undefined. Dubbo tests for a substring instead (`methods=sayHelloWorld` admits `sayHello`); Weft does not.
   */
  getMethodParameterStrict(method: string, key: string): string | undefined {
    const table = this.#table;
    const allowed = table.methodSet();
    if (allowed !== null && !allowed.has(method)) return undefined;
    return table.byKey().get(key)?.get(method);
  }

  /** Returns the method-level value of `key` if non-empty, else the plain value of `key`, else undefined. */
  getMethodParameter(method: string, key: string): string | undefined;
  /** As {@link URL.getMethodParameter}, with `defaultValue` for a missing or empty value. */
  getMethodParameter(method: string, key: string, defaultValue: string): string;
  /**
   * As {@link URL.getMethodParameter}, parsed as a number, with `defaultValue` for a missing or empty value.
   *
   * @throws ExtensionError `INVALID_PARAMETER` when the value is not a finite decimal number.
   */
  getMethodParameter(method: string, key: string, defaultValue: number): number;
  /**
   * As {@link URL.getMethodParameter}, parsed as a boolean (`true`/`false`, any case), with `defaultValue` for a
   * missing or empty value.
   *
   * @throws ExtensionError `INVALID_PARAMETER` for any other value.
   */
  getMethodParameter(method: string, key: string, defaultValue: boolean): boolean;
  getMethodParameter(method: string, key: string, defaultValue?: ParameterValue): ParameterValue | undefined {
    const value = this.getMethodParameterStrict(method, key) || this.#table.map.get(key);
    return defaultValue === undefined ? value : this.#typed(value, defaultValue, key, method);
  }

  /**
   * As {@link URL.getMethodParameter} with a number default, but a value `<= 0` also gives the default.
   *
   * @throws ExtensionError `INVALID_PARAMETER` when `defaultValue <= 0` or the value is not a number.
   */
  getMethodPositiveParameter(method: string, key: string, defaultValue: number): number {
    this.#checkPositiveDefault(key, method, defaultValue);
    const value = this.getMethodParameter(method, key, defaultValue);
    return value > 0 ? value : defaultValue;
  }

  /**
   * Returns a non-empty method-level value of `key` for any method, or undefined.
   *
   * @remarks
   * With a non-empty `methods` parameter, its elements are tried in order. Otherwise the first method-level
   * `key` in parameter insertion order wins (Dubbo uses hash order here, which is arbitrary).
   */
  getAnyMethodParameter(key: string): string | undefined {
    const byMethod = this.#table.byKey().get(key);
    if (byMethod === undefined) return undefined;
    const methods = this.#table.methodList();
    if (methods !== null) {
      for (const method of methods) {
        const value = byMethod.get(method);
        if (value) return value;
      }
      return undefined;
    }
    for (const value of byMethod.values()) if (value) return value;
    return undefined;
  }

  /**
   * Tells whether a method-level parameter exists, in one of three forms (as Dubbo):
   * `(method, key)`: the strict value is non-empty; `(undefined, key)`: some parameter name ends with `.key`;
   * `(method)`: some parameter name starts with `method.`. Both undefined gives false.
   */
  hasMethodParameter(method: string | undefined, key?: string): boolean {
    if (method === undefined) {
      if (key === undefined) return false;
      const suffix = `.${key}`;
      for (const name of this.#table.map.keys()) if (name.endsWith(suffix)) return true;
      return false;
    }
    if (key === undefined) {
      const prefix = `${method}.`;
      for (const name of this.#table.map.keys()) if (name.startsWith(prefix)) return true;
      return false;
    }
    return !!this.getMethodParameterStrict(method, key);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Derived values and keys

  /** The `interface` parameter if non-empty, else the path; undefined when both are empty. */
  getServiceInterface(): string | undefined {
    return this.#table.map.get('interface') || this.path || undefined;
  }

  /** The `group` parameter. */
  getGroup(): string | undefined {
    return this.#table.map.get('group');
  }

  /** The `version` parameter. */
  getVersion(): string | undefined {
    return this.#table.map.get('version');
  }

  /** The `application` parameter. */
  getApplication(): string | undefined {
    return this.#table.map.get('application');
  }

  /** The `side` parameter (`provider` or `consumer`). */
  getSide(): string | undefined {
    return this.#table.map.get('side');
  }

  /** The `category` parameter if non-empty, else `defaultValue`. */
  getCategory(): string | undefined;
  /** The `category` parameter if non-empty, else `defaultValue`. */
  getCategory(defaultValue: string): string;
  getCategory(defaultValue?: string): string | undefined {
    return this.#table.map.get('category') || defaultValue;
  }

  /** The service key `[group/]interface[:version]`; undefined when there is neither interface nor path. */
  getServiceKey(): string | undefined {
    if (this.#serviceKey === undefined) {
      const inf = this.getServiceInterface();
      this.#serviceKey = inf === undefined ? null : URL.buildKey(inf, this.getGroup(), this.getVersion());
    }
    return this.#serviceKey ?? undefined;
  }

  /** As {@link URL.getServiceKey}, but using the path when non-empty, else the interface. */
  getPathKey(): string | undefined {
    const inf = this.path || this.getServiceInterface();
    return inf === undefined ? undefined : URL.buildKey(inf, this.getGroup(), this.getVersion());
  }

  /** `interface[:version]`; undefined when there is neither interface nor path. */
  getDisplayServiceKey(): string | undefined {
    const inf = this.getServiceInterface();
    if (inf === undefined) return undefined;
    const version = this.getVersion();
    return version ? `${inf}:${version}` : inf;
  }

  /** `interface:version:group`, keeping empty slots (`a.B::`). */
  getColonSeparatedKey(): string {
    return `${this.getServiceInterface() ?? ''}:${this.getVersion() ?? ''}:${this.getGroup() ?? ''}`;
  }

  /** The service key plus `:protocol`, except for protocol `consumer`; undefined when there is no service key. */
  getProtocolServiceKey(): string | undefined {
    if (this.#protocolServiceKey === undefined) {
      const key = this.getServiceKey();
      this.#protocolServiceKey =
        key === undefined ? null : this.protocol === 'consumer' ? key : `${key}:${this.protocol}`;
    }
    return this.#protocolServiceKey ?? undefined;
  }

  // -------------------------------------------------------------------------------------------------------------
  // String forms

  /** `host:port`, or `host` when the port is 0; an IPv6 host is bracketed. */
  getAddress(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return this.port === 0 ? host : `${host}:${this.port}`;
  }

  /** The encoded string form, parameters in insertion order; {@link URL.parse} reads it back. Cached. */
  toString(): string {
    return (this.#string ??= this.#build(true, false));
  }

  /** Same as {@link URL.toString}. */
  toFullString(): string {
    return this.toString();
  }

  /** `protocol://[user[:password]@]host[:port][/path]`, encoded, without parameters. Cached. */
  /**
   * Dubbo's `toFullString()`: the **decoded** form — parameters raw (not encoded), sorted by key when `sorted` —
   * as registries name their nodes (`URL.encode(url.toDecodedString(true))`). Not reversible for values containing
   * `&`, `=` or `?`; use {@link URL.toString} for a lossless form.
   */
  toDecodedString(sorted = false): string {
    const entries = [...this.#table.map].filter(([k, v]) => k !== '' && v !== '');
    if (sorted) entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    const query = entries.map(([k, v]) => `${k}=${v.trim()}`).join('&');
    return `${this.toIdentityString()}${query === '' ? '' : `?${query}`}`;
  }

  toIdentityString(): string {
    return (this.#identity ??= this.#build(false, false));
  }

  /** True when `other` has the same components and the same parameters (in any order). */
  equals(other: URL | null | undefined): boolean {
    if (other === this) return true;
    if (
      !(other instanceof URL) ||
      other.protocol !== this.protocol ||
      other.username !== this.username ||
      other.password !== this.password ||
      other.host !== this.host ||
      other.port !== this.port ||
      other.path !== this.path
    ) {
      return false;
    }
    const mine = this.#table.map;
    const theirs = other.#table.map;
    if (mine === theirs) return true;
    if (mine.size !== theirs.size) return false;
    for (const [key, value] of mine) if (theirs.get(key) !== value) return false;
    return true;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Immutable edits

  /** Returns a URL with `key` set to `value`; `this` when the key or value is empty or the value is unchanged. */
  addParameter(key: string, value: ParameterValue | undefined): URL {
    if (!key || value === undefined) return this;
    const text = typeof value === 'string' ? value : String(value);
    if (text === '' || this.#table.map.get(key) === text) return this;
    const map = new Map(this.#table.map);
    map.set(key, text);
    return this.#withMap(map);
  }

  /** Returns a URL with every entry of `params` set; entries with an empty key or value are ignored. */
  addParameters(params: ParameterEdits): URL {
    return this.#edit(params, false);
  }

  /** As {@link URL.addParameter}, but only when `key` has no non-empty value yet. */
  addParameterIfAbsent(key: string, value: ParameterValue | undefined): URL {
    return this.hasParameter(key) ? this : this.addParameter(key, value);
  }

  /** As {@link URL.addParameters}, but only for keys that have no non-empty value yet. */
  addParametersIfAbsent(params: ParameterEdits): URL {
    return this.#edit(params, true);
  }

  /** Returns a URL without `key`; `this` when it is absent. */
  removeParameter(key: string): URL {
    return this.removeParameters(key);
  }

  /** Returns a URL without any of `keys`; `this` when none is present. */
  removeParameters(...keys: string[]): URL {
    let map: Map<string, string> | undefined;
    for (const key of keys) {
      if ((map ?? this.#table.map).has(key)) (map ??= new Map(this.#table.map)).delete(key);
    }
    return map === undefined ? this : this.#withMap(map);
  }

  /** Returns a URL without parameters; `this` when there are none. */
  clearParameters(): URL {
    return this.#table.map.size === 0 ? this : this.#with({}, EMPTY_TABLE);
  }

  /** Returns a URL with another protocol. */
  withProtocol(protocol: string): URL {
    return protocol === this.protocol ? this : this.#with({ protocol });
  }

  /** Returns a URL with another user name. */
  withUsername(username: string): URL {
    return username === this.username ? this : this.#with({ username });
  }

  /** Returns a URL with another password. */
  withPassword(password: string): URL {
    return password === this.password ? this : this.#with({ password });
  }

  /** Returns a URL with another host (IPv6 with or without brackets). */
  withHost(host: string): URL {
    return normalizeHost(host) === this.host ? this : this.#with({ host });
  }

  /** Returns a URL with another port. */
  withPort(port: number): URL {
    return port === this.port ? this : this.#with({ port });
  }

  /**
   * Returns a URL with host and port from `address` (`host`, `host:port`, `[v6]`, `[v6]:port`); the port is
   * kept when `address` has none.
   *
   * @throws ExtensionError `INVALID_URL` for an invalid port or an unterminated `[`.
   */
  withAddress(address: string): URL {
    const { host, port = this.port } = splitHostPort(address, `address "${address}"`);
    return host === this.host && port === this.port ? this : this.#with({ host, port });
  }

  /** Returns a URL with another path (leading `/` dropped). */
  withPath(path: string): URL {
    return stripLeadingSlashes(path) === this.path ? this : this.#with({ path });
  }

  // -------------------------------------------------------------------------------------------------------------
  // Internals

  #with(patch: Omit<URLInit, 'parameters'>, table: ParamTable = this.#table): URL {
    return URL.#create(
      {
        protocol: this.protocol,
        username: this.username,
        password: this.password,
        host: this.host,
        port: this.port,
        path: this.path,
        ...patch,
      },
      table,
    );
  }

  #withMap(map: Map<string, string>): URL {
    return this.#with({}, map.size === 0 ? EMPTY_TABLE : new ParamTable(map));
  }

  #edit(params: ParameterEdits, ifAbsent: boolean): URL {
    const base = this.#table.map;
    let map: Map<string, string> | undefined;
    for (const [key, value] of entriesOf(params)) {
      if (!key || value === undefined) continue;
      const text = typeof value === 'string' ? value : String(value);
      const current = base.get(key);
      if (text === '' || current === text || (ifAbsent && current)) continue;
      (map ??= new Map(base)).set(key, text);
    }
    return map === undefined ? this : this.#withMap(map);
  }

  #typed(value: string | undefined, defaultValue: ParameterValue, key: string, method: string | undefined): ParameterValue {
    if (value === undefined || value === '') return defaultValue;
    switch (typeof defaultValue) {
      case 'number': {
        const numbers = this.#table.numbers();
        const cached = numbers.get(value);
        if (cached !== undefined) return cached;
        const parsed = DECIMAL.test(value) ? Number(value) : NaN;
        if (!Number.isFinite(parsed)) throw this.#badParameter(key, method, value, 'a finite decimal number');
        numbers.set(value, parsed);
        return parsed;
      }
      case 'boolean': {
        if (value === 'true') return true;
        if (value === 'false') return false;
        const lower = value.toLowerCase();
        if (lower === 'true') return true;
        if (lower === 'false') return false;
        throw this.#badParameter(key, method, value, '"true" or "false"');
      }
      default:
        return value;
    }
  }

  #checkPositiveDefault(key: string, method: string | undefined, defaultValue: number): void {
    if (!(defaultValue > 0)) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `Invalid default value ${String(defaultValue)} for ${this.#describe(key, method)}: expected a number > 0.`,
      );
    }
  }

  #badParameter(key: string, method: string | undefined, value: string, expected: string): ExtensionError {
    return new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `Invalid value ${isSecretKey(key) ? '(not shown: a secret)' : `"${value}"`} of ${this.#describe(key, method)}: expected ${expected}.`,
    );
  }

  #describe(key: string, method: string | undefined): string {
    const where = method === undefined ? `parameter "${key}"` : `parameter "${key}" (method "${method}")`;
    return `${where} in URL "${this.#build(false, true)}"`;
  }

  /** Builds the string form; `mask` hides the password (for error messages). */
  #build(withParameters: boolean, mask: boolean): string {
    let s = this.protocol ? `${this.protocol}://` : '';
    if (this.username || this.password) {
      s += percentEncode(this.username, KEEP_USER);
      if (this.password) s += `:${mask ? '***' : percentEncode(this.password, KEEP_USER)}`;
      s += '@';
    }
    s += this.getAddress();
    if (this.path) s += `/${percentEncode(this.path, this.protocol ? KEEP_QUERY : KEEP_PATH_NO_COLON)}`;
    if (withParameters) {
      const map = this.#table.map;
      let separator = '?';
      for (const [key, value] of map) {
        let name = percentEncode(key, KEEP_QUERY);
        // A literal `default.x` would make parse() add `x`; escape the dot when `x` is not a parameter.
        if (key.startsWith(DEFAULT_PREFIX) && key.length > DEFAULT_PREFIX.length && !map.has(key.slice(DEFAULT_PREFIX.length))) {
          name = `default%2E${name.slice(DEFAULT_PREFIX.length)}`;
        }
        s += `${separator}${name}=${percentEncode(value, KEEP_QUERY)}`;
        separator = '&';
      }
    }
    return s;
  }
}
