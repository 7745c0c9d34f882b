import type { URL } from '../rpc/url.js';

/** Parameter keys whose values are secrets: `token`, `password`, `secret`, `access-key`, `sayHello.token`, … */
const SECRET_KEY = /(?:^|[.\-_])(?:token|password|passwd|pwd|secret|credentials?|access[-_.]?key|api[-_.]?key|auth(?:orization)?)$/i;

/** A parameter value that is itself a URL with a password: `redis://user:pw@host` (group 1 keeps `redis://user:`). */
const URL_WITH_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^/@:?#]*:)[^/@?#]*@/i;

/** What a masked secret reads as. */
export const MASK = '***';

/**
 * The string form of a URL with its secrets masked, for log lines: the password of the user-info part and the
 * values of secret-looking parameters (`token`, `password`, `secret`, `access-key`, `api-key`, `auth`, also at
 * method level) become `***`, and so does the password of a parameter value that is itself a URL
 * (`tps.redis.address=redis://:pw@10.0.0.5:6379` → `redis://:***@10.0.0.5:6379`).
 *
 * @remarks Weft never echoes a secret in a log line or an error message; every URL it logs goes through here.
 * `declared` adds the keys extensions and the application declare secret (`app.parameterKeys.secretKeys`).
 * @example
 * ```ts
 * maskSecrets(URL.parse('tri://u:pw@127.0.0.1:50051/org.acme.Greeter?token=abc&timeout=1000'));
 * // 'tri://u:***@127.0.0.1:50051/org.acme.Greeter?token=***&timeout=1000'
 * ```
 */
export function maskSecrets(url: URL, declared?: ReadonlySet<string>): string {
  let masked = url.password === '' ? url : url.withPassword(MASK);
  for (const [key, value] of url.parameters) {
    if (value !== '' && isSecretKey(key, declared)) masked = masked.addParameter(key, MASK);
    else if (value.includes('@') && URL_WITH_PASSWORD.test(value)) masked = masked.addParameter(key, value.replace(URL_WITH_PASSWORD, `$1${MASK}@`));
  }
  return masked.toString();
}

/** `user:password@` right after `scheme://`, anywhere in a text (a message may quote a URL). */
const TEXT_PASSWORD = /((?:[a-z][a-z0-9+.-]*)?:\/\/[^/@:?#\s"'`[\]]*:)[^/@?#\s"'`[\]]*@/gi;
/** `key=value` pairs in a query. */
const TEXT_PARAMETER = /([?&;])([^=&#\s"'`]+)=([^&#\s"'`]*)/g;

/**
 * URL text (which may not even parse, or a message quoting URLs) with its secrets masked, for error messages that
 * must show what was given: the password of every `scheme://user:password@`, and the values of secret-looking query
 * parameters (as {@link maskSecrets}, with the same optional `declared` keys), also in parameter values that are URLs
 * themselves.
 *
 * @remarks Works on the text as given — percent-escapes are kept — so a message shows the user what they typed,
 * minus the secrets. Weft formats every URL string it did not parse itself through here.
 * @example
 * ```ts
 * maskUrlText('tri://u:pw@127.0.0.1:x/org.acme.Greeter?token=abc&timeout=1000');
 * // 'tri://u:***@127.0.0.1:x/org.acme.Greeter?token=***&timeout=1000'
 * ```
 */
export function maskUrlText(text: string, declared?: ReadonlySet<string>): string {
  return text.replace(TEXT_PASSWORD, `$1${MASK}@`).replace(TEXT_PARAMETER, (whole, separator: string, key: string, value: string) => {
    let name = key;
    try {
      name = decodeURIComponent(key);
    } catch {
      // a malformed escape: judge the key as written
    }
    if (value !== '' && isSecretKey(name, declared)) return `${separator}${key}=${MASK}`;
    let decoded = value;
    try {
      decoded = decodeURIComponent(value);
    } catch {
      // keep as written
    }
    if (decoded.includes('@') && URL_WITH_PASSWORD.test(decoded)) return `${separator}${key}=${encodeURIComponent(decoded.replace(URL_WITH_PASSWORD, `$1${MASK}@`))}`;
    return whole;
  });
}

/**
 * A URL's identity (`protocol://user:***@host:port/path`, no parameters) with its password masked: how messages name
 * a registry or a provider.
 *
 * @example
 * ```ts
 * maskedIdentity(URL.parse('zookeeper://admin:pw@10.0.0.5:2181')); // 'zookeeper://admin:***@10.0.0.5:2181'
 * ```
 */
export function maskedIdentity(url: URL): string {
  return url.password === '' ? url.toIdentityString() : url.withPassword(MASK).toIdentityString();
}

/**
 * Whether a parameter key names a secret (`token`, `password`, `secret`, `access-key`, `api-key`, `auth`, also at
 * method level such as `sayHello.token`), so its value is never shown.
 *
 * @remarks `declared` adds the keys extensions and the application declare secret (`app.parameterKeys.secretKeys`),
 * bare or per method.
 * @example
 * ```ts
 * isSecretKey('tps.redis.password'); // true
 * ```
 */
export function isSecretKey(key: string, declared?: ReadonlySet<string>): boolean {
  if (SECRET_KEY.test(key)) return true;
  if (declared === undefined || declared.size === 0) return false;
  if (declared.has(key)) return true;
  // `<method>.<key>`: a declared key set per method.
  const dot = key.indexOf('.');
  return dot > 0 && declared.has(key.slice(dot + 1));
}
