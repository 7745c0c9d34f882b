import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import { isSecretKey } from '../common/mask-secrets.js';
import { DECIMAL, KEEP_FORM, checkComponents, decodeOrThrow, entriesOf, formatUrl, invalidUrl, normalizeHost, parseQuery, percentEncode, splitHostPort, stripLeadingSlashes } from './url-syntax.js';
import { EMPTY_TABLE, ParamTable, tableFor } from './url-parameters.js';

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

  /**
   * Returns a URL with these components and `parameters` as its parameters, taken over (not copied): the caller never
   * changes the map afterwards, and every key in it is non-empty. For code that builds the whole map itself.
   * @internal
   */
  withParameterMap(parameters: Map<string, string>): URL {
    return parameters === this.#table.map ? this : this.#withMap(parameters);
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
    const url = this.#with({}, map.size === 0 ? EMPTY_TABLE : new ParamTable(map));
    url.#identity = this.#identity; // same components, same identity string
    return url;
  }

  #edit(params: ParameterEdits, ifAbsent: boolean): URL {
    const base = this.#table.map;
    let map: Map<string, string> | undefined;
    const edit = (value: ParameterValue | undefined, key: string): void => {
      if (!key || value === undefined) return;
      const text = typeof value === 'string' ? value : String(value);
      const current = base.get(key);
      if (text === '' || current === text || (ifAbsent && current)) return;
      (map ??= new Map(base)).set(key, text);
    };
    if (params instanceof Map) params.forEach(edit); // no entry arrays
    else for (const [key, value] of entriesOf(params)) edit(value, key);
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
    return formatUrl(this, withParameters ? this.#table.map : undefined, mask);
  }
}
