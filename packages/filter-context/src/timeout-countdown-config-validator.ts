import { ExtensionError, ExtensionErrorCode, type ServiceDefinition, type URL } from '@weft/core';
import { ConfigValidator } from '@weft/core/spi';

import { ContextKeys } from './context-keys.js';

/**
 * Rejects an `enable-timeout-countdown` value other than `true` or `false` when a reference is created or
 * overridden, so a typo never silently changes how nested calls inherit deadlines.
 *
 * @remarks
 * `weft.config.ConfigValidator` extension `timeout-countdown`, activated in group `consumer`. Checks the
 * interface-level key and the method-level `<method>.enable-timeout-countdown` of every method (case-insensitive
 * `true`/`false`; unset or empty means the default, `true`).
 * @throws `ERR_SPI_INVALID_PARAMETER` naming the key and its value.
 * @example
 * ```ts
 * // ExtensionError ERR_SPI_INVALID_PARAMETER: refer(org.acme.Stock): enable-timeout-countdown=yes must be true or false …
 * await app.refer(Stock, { parameters: { 'enable-timeout-countdown': 'yes' } });
 * ```
 */
export class TimeoutCountdownConfigValidator extends ConfigValidator {
  validate(url: URL, service: ServiceDefinition | undefined, where: string): void {
    const key = ContextKeys.ENABLE_TIMEOUT_COUNTDOWN;
    check(where, key, url.getParameter(key));
    for (const method of service?.methodNames ?? []) check(where, `${method}.${key}`, url.getMethodParameterStrict(method, key));
  }
}

function check(where: string, key: string, raw: string | undefined): void {
  if (raw === undefined || raw === '') return;
  const lower = raw.toLowerCase();
  if (lower === 'true' || lower === 'false') return;
  throw new ExtensionError(
    ExtensionErrorCode.INVALID_PARAMETER,
    `${where}: ${key}=${raw} must be true or false (true, the default: nested calls inherit the deadline and ` +
      'cancellation of the call being handled; false: they do not).',
  );
}
