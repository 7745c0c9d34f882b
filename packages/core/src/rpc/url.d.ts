/** A parameter value accepted by the `addParameter*` edits; numbers and booleans are stored as their string form. */
export type ParameterValue = string | number | boolean;
/** The parameter sources accepted by {@link URLInit.parameters}. */
export type ParameterSource = Readonly<Record<string, string>> | ReadonlyMap<string, string> | Iterable<readonly [string, string]>;
/** The parameter sources accepted by {@link URL.addParameters} and {@link URL.addParametersIfAbsent}. */
export type ParameterEdits = Readonly<Record<string, ParameterValue | undefined>> | ReadonlyMap<string, ParameterValue | undefined>;
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
export declare class URL {
    #private;
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
    /**
     * Creates a URL from its components.
     *
     * @throws ExtensionError `INVALID_URL` when the protocol or host contains a reserved character, or the port is
     * not an integer from 0 to 65535.
     */
    constructor(init?: URLInit);
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
     * @throws ExtensionError `INVALID_URL` for `://` (or `:/`) at the start ("missing protocol"), a port that is not
     * an integer from 0 to 65535, an unterminated `[`, or a malformed percent-escape.
     */
    static parse(text: string): URL;
    /**
     * Form-encodes `s` like Java's `URLEncoder` (as Dubbo's `URL.encode`): UTF-8, space → `+`, letters, digits and
     * `. - * _` kept, everything else `%XX`. Registries use it for node names.
     */
    static encode(s: string): string;
    /**
     * Form-decodes `s` (as Dubbo's `URL.decode`): `+` → space, then UTF-8 `%XX` escapes.
     *
     * @throws ExtensionError `INVALID_URL` for a malformed percent-escape.
     */
    static decode(s: string): string;
    /** Builds a service key `[group/]path[:version]`; empty group or version is left out. */
    static buildKey(path: string, group?: string, version?: string): string;
    /** All parameters, in insertion order. Shared and read-only: never mutate it. */
    get parameters(): ReadonlyMap<string, string>;
    /** Same as {@link URL.parameters}. */
    getParameters(): ReadonlyMap<string, string>;
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
    /**
     * Returns the value of `key` as a number, or `defaultValue` when it is missing, empty or not positive.
     *
     * @throws ExtensionError `INVALID_PARAMETER` when `defaultValue <= 0` or the value is not a number.
     */
    getPositiveParameter(key: string, defaultValue: number): number;
    /** True when `key` has a non-empty value. */
    hasParameter(key: string): boolean;
    /**
     * Returns the method-level value of `key` for `method` (parameter `method.key`), or undefined.
     *
     * @remarks
     * When the `methods` parameter is non-empty and `method` is not one of its comma-separated elements, the answer
     * is undefined. Dubbo tests for a substring instead (`methods=sayHelloWorld` admits `sayHello`); Weft does not.
     */
    getMethodParameterStrict(method: string, key: string): string | undefined;
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
    /**
     * As {@link URL.getMethodParameter} with a number default, but a value `<= 0` also gives the default.
     *
     * @throws ExtensionError `INVALID_PARAMETER` when `defaultValue <= 0` or the value is not a number.
     */
    getMethodPositiveParameter(method: string, key: string, defaultValue: number): number;
    /**
     * Returns a non-empty method-level value of `key` for any method, or undefined.
     *
     * @remarks
     * With a non-empty `methods` parameter, its elements are tried in order. Otherwise the first method-level
     * `key` in parameter insertion order wins (Dubbo uses hash order here, which is arbitrary).
     */
    getAnyMethodParameter(key: string): string | undefined;
    /**
     * Tells whether a method-level parameter exists, in one of three forms (as Dubbo):
     * `(method, key)`: the strict value is non-empty; `(undefined, key)`: some parameter name ends with `.key`;
     * `(method)`: some parameter name starts with `method.`. Both undefined gives false.
     */
    hasMethodParameter(method: string | undefined, key?: string): boolean;
    /** The `interface` parameter if non-empty, else the path; undefined when both are empty. */
    getServiceInterface(): string | undefined;
    /** The `group` parameter. */
    getGroup(): string | undefined;
    /** The `version` parameter. */
    getVersion(): string | undefined;
    /** The `application` parameter. */
    getApplication(): string | undefined;
    /** The `side` parameter (`provider` or `consumer`). */
    getSide(): string | undefined;
    /** The `category` parameter if non-empty, else `defaultValue`. */
    getCategory(): string | undefined;
    /** The `category` parameter if non-empty, else `defaultValue`. */
    getCategory(defaultValue: string): string;
    /** The service key `[group/]interface[:version]`; undefined when there is neither interface nor path. */
    getServiceKey(): string | undefined;
    /** As {@link URL.getServiceKey}, but using the path when non-empty, else the interface. */
    getPathKey(): string | undefined;
    /** `interface[:version]`; undefined when there is neither interface nor path. */
    getDisplayServiceKey(): string | undefined;
    /** `interface:version:group`, keeping empty slots (`a.B::`). */
    getColonSeparatedKey(): string;
    /** The service key plus `:protocol`, except for protocol `consumer`; undefined when there is no service key. */
    getProtocolServiceKey(): string | undefined;
    /** `host:port`, or `host` when the port is 0; an IPv6 host is bracketed. */
    getAddress(): string;
    /** The encoded string form, parameters in insertion order; {@link URL.parse} reads it back. Cached. */
    toString(): string;
    /** Same as {@link URL.toString}. */
    toFullString(): string;
    /** `protocol://[user[:password]@]host[:port][/path]`, encoded, without parameters. Cached. */
    toIdentityString(): string;
    /** True when `other` has the same components and the same parameters (in any order). */
    equals(other: URL | null | undefined): boolean;
    /** Returns a URL with `key` set to `value`; `this` when the key or value is empty or the value is unchanged. */
    addParameter(key: string, value: ParameterValue | undefined): URL;
    /** Returns a URL with every entry of `params` set; entries with an empty key or value are ignored. */
    addParameters(params: ParameterEdits): URL;
    /** As {@link URL.addParameter}, but only when `key` has no non-empty value yet. */
    addParameterIfAbsent(key: string, value: ParameterValue | undefined): URL;
    /** As {@link URL.addParameters}, but only for keys that have no non-empty value yet. */
    addParametersIfAbsent(params: ParameterEdits): URL;
    /** Returns a URL without `key`; `this` when it is absent. */
    removeParameter(key: string): URL;
    /** Returns a URL without any of `keys`; `this` when none is present. */
    removeParameters(...keys: string[]): URL;
    /** Returns a URL without parameters; `this` when there are none. */
    clearParameters(): URL;
    /** Returns a URL with another protocol. */
    withProtocol(protocol: string): URL;
    /** Returns a URL with another user name. */
    withUsername(username: string): URL;
    /** Returns a URL with another password. */
    withPassword(password: string): URL;
    /** Returns a URL with another host (IPv6 with or without brackets). */
    withHost(host: string): URL;
    /** Returns a URL with another port. */
    withPort(port: number): URL;
    /**
     * Returns a URL with host and port from `address` (`host`, `host:port`, `[v6]`, `[v6]:port`); the port is
     * kept when `address` has none.
     *
     * @throws ExtensionError `INVALID_URL` for an invalid port or an unterminated `[`.
     */
    withAddress(address: string): URL;
    /** Returns a URL with another path (leading `/` dropped). */
    withPath(path: string): URL;
}
//# sourceMappingURL=url.d.ts.map