import type { URL } from '../rpc/url.js';

/** Parameter keys whose values are secrets: `token`, `password`, `secret`, `access-key`, `sayHello.token`, … */
const SECRET_KEY = /(?:^|[.\-_])(?:token|password|passwd|pwd|secret|credentials?|access[-_.]?key|api[-_.]?key|auth(?:orization)?)$/i;

/** What a masked secret reads as. */
export const MASK = '***';

/**
 * The string form of a URL with its secrets masked, for log lines: the password of the user-info part and the
 * values of secret-looking parameters (`token`, `password`, `secret`, `access-key`, `api-key`, `auth`, also at
 * method level) become `***`.
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
  }
  return masked.toString();
}
