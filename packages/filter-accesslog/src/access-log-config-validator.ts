import { ConfigValidator, ExtensionError, ExtensionErrorCode, type ServiceDefinition, type URL } from '@weft/core';

import { AccessLogKeys } from './access-log-keys.js';

const POSITIVE_KEYS = [AccessLogKeys.FLUSH_INTERVAL, AccessLogKeys.BUFFER_SIZE, AccessLogKeys.MAX_PENDING, AccessLogKeys.WRITE_TIMEOUT, AccessLogKeys.SPOOL_MAX] as const;
const MILLISECOND_KEYS: readonly string[] = [AccessLogKeys.FLUSH_INTERVAL, AccessLogKeys.WRITE_TIMEOUT];

/**
 * Rejects bad `accesslog.*` settings at export time, naming the key, instead of logging with a silent default.
 *
 * @remarks
 * `weft.config.ConfigValidator` extension `accesslog` (manifest `META-INF/weft/weft.config.ConfigValidator.json`),
 * activated in group `provider` when `accesslog` (or a method-level `<method>.accesslog`) is set — the same
 * condition as the `accesslog` filter. Checks: `accesslog.flush.interval`, `accesslog.buffer.size`,
 * `accesslog.max.pending`, `accesslog.write.timeout` and `accesslog.spool.max`, when set, are positive integers;
 * `accesslog.format` is `text` or `json`, `accesslog.overflow` `spool` or `hold`, `accesslog.exit-flush` a boolean.
 * The path itself is not checked: a file that cannot be written yet (a missing mount, a full disk) is retried,
 * never refused.
 *
 * @example
 * ```ts
 * // ExtensionError ERR_SPI_INVALID_PARAMETER: export(org.acme.Greeter): accesslog.buffer.size=lots is not a positive integer…
 * await app.export(Greeter, impl, { parameters: { accesslog: 'access.log', 'accesslog.buffer.size': 'lots' } });
 * ```
 * @throws `ERR_SPI_INVALID_PARAMETER` naming the key, the value and what is expected.
 */
export class AccessLogConfigValidator extends ConfigValidator {
  validate(url: URL, _service: ServiceDefinition | undefined, where: string): void {
    for (const key of POSITIVE_KEYS) {
      const raw = url.getParameter(key);
      if (raw === undefined || raw === '') continue;
      const value = Number(raw);
      if (raw.trim() === '' || !Number.isInteger(value) || value <= 0) {
        throw new ExtensionError(
          ExtensionErrorCode.INVALID_PARAMETER,
          `${where}: ${key}=${raw} is not a positive integer. Expected a whole number of ${MILLISECOND_KEYS.includes(key) ? 'milliseconds' : 'lines'} greater than 0.`,
        );
      }
    }
    const overflow = url.getParameter(AccessLogKeys.OVERFLOW);
    if (overflow !== undefined && overflow !== '' && !['spool', 'hold'].includes(overflow.trim().toLowerCase())) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where}: ${AccessLogKeys.OVERFLOW}=${overflow} is not known. Expected "spool" (calls proceed while lines wait) or "hold" (calls wait at ${AccessLogKeys.MAX_PENDING}).`,
      );
    }
    const exitFlush = url.getParameter(AccessLogKeys.EXIT_FLUSH);
    if (exitFlush !== undefined && exitFlush !== '' && !['true', 'false'].includes(exitFlush.trim().toLowerCase())) {
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: ${AccessLogKeys.EXIT_FLUSH}=${exitFlush} must be true or false.`);
    }
    const format = url.getParameter(AccessLogKeys.FORMAT);
    if (format !== undefined && format !== '' && !['text', 'json'].includes(format.trim().toLowerCase())) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where}: ${AccessLogKeys.FORMAT}=${format} is not a known format. Expected "text" (Dubbo's line format) or "json" (JSON lines).`,
      );
    }
  }
}
