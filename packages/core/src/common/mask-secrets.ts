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
 * @example
 * ```ts
 * maskSecrets(URL.parse('tri://u:pw@127.0.0.1:50051/org.acme.Greeter?token=abc&timeout=1000'));
 * // 'tri://u:***@127.0.0.1:50051/org.acme.Greeter?token=***&timeout=1000'
 * ```
 */
export function maskSecrets(url: URL): string {
  let masked = url.password === '' ? url : url.withPassword(MASK);
  for (const [key, value] of url.parameters) {
    if (value !== '' && SECRET_KEY.test(key)) masked = masked.addParameter(key, MASK);
    else if (value.includes('@') && URL_WITH_PASSWORD.test(value)) masked = masked.addParameter(key, value.replace(URL_WITH_PASSWORD, `$1${MASK}@`));
  }
  return masked.toString();
}
