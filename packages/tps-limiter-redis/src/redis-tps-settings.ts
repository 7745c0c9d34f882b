import { ExtensionError, ExtensionErrorCode, maskSecrets, URL } from '@weft/core';
import { boundedEditDistance } from '@weft/core/spi';

import type { RedisTpsConfig } from './redis-tps-config.js';
import { MAX_TIMEOUT, ON_ERROR_POLICIES, RedisTpsDefaults, RedisTpsKeys, WINDOW_KINDS } from './redis-tps-keys.js';

/**
 * Window kind (`tps.redis.window`): the memory limiter's fixed window, or an exact sliding log.
 * @example
 * ```ts
 * const window: RedisWindowKind = 'sliding';
 * ```
 */
export type RedisWindowKind = 'fixed' | 'sliding';
/**
 * What a call gets while Redis cannot answer (`tps.redis.on-error`).
 * @example
 * ```ts
 * const policy: RedisOnErrorPolicy = 'closed';
 * ```
 */
export type RedisOnErrorPolicy = 'local' | 'open' | 'closed';

/**
 * The `redis` limiter's settings for one provider URL, checked.
 *
 * @example
 * ```ts
 * const settings = redisTpsSettingsOf(url, undefined, 'export(org.acme.Greeter)');
 * settings.window; // 'fixed'
 * ```
 */
export interface RedisTpsSettings {
  /** The Redis URL, as given (it may hold a password: never log it, log {@link RedisTpsSettings.maskedAddress}). */
  readonly address: string;
  /** The address with its password masked, for messages. */
  readonly maskedAddress: string;
  readonly prefix: string;
  readonly window: RedisWindowKind;
  readonly onError: RedisOnErrorPolicy;
  /** Command timeout in ms. */
  readonly timeout: number;
}

/** The longest key prefix accepted. */
const MAX_PREFIX = 256;

/**
 * Reads and checks the `tps.redis.*` settings of a provider URL, falling back to the application's config, then
 * to the defaults.
 *
 * @remarks Every message names the key, where the value came from (the URL or `RedisTpsConfig`), what is
 * accepted and the closest accepted value; a password is never echoed.
 * @example
 * ```ts
 * redisTpsSettingsOf(URL.parse('tri://h/org.acme.Greeter?tps.redis.window=slidin'), undefined, 'export(org.acme.Greeter)');
 * // ExtensionError ERR_SPI_INVALID_PARAMETER: export(org.acme.Greeter): tps.redis.window=slidin (provider URL) is not valid:
 * // expected fixed or sliding; did you mean sliding?
 * ```
 * @throws ExtensionError `ERR_SPI_INVALID_PARAMETER`.
 */
export function redisTpsSettingsOf(url: URL, config: RedisTpsConfig | undefined, where: string): RedisTpsSettings {
  const read = (key: string, fromConfig: string | number | undefined): { value: string; source: string } | undefined => {
    const raw = url.getParameter(key);
    if (raw !== undefined && raw !== '') return { value: raw, source: 'provider URL' };
    if (fromConfig !== undefined && fromConfig !== '') return { value: String(fromConfig), source: 'RedisTpsConfig' };
    return undefined;
  };
  const invalid = (key: string, shown: string, source: string, expected: string): ExtensionError =>
    new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: ${key}=${shown} (${source}) is not valid: expected ${expected}.`);
  const oneOf = <T extends string>(key: string, choices: readonly T[], fromConfig: string | undefined, fallback: T): T => {
    const got = read(key, fromConfig);
    if (got === undefined) return fallback;
    const value = got.value.trim().toLowerCase();
    const found = choices.find((c) => c === value);
    if (found !== undefined) return found;
    const closest = choices.find((c) => boundedEditDistance(value, c, 2) <= 2);
    const list = choices.length === 2 ? choices.join(' or ') : `one of ${choices.join(', ')}`;
    throw invalid(key, shorten(got.value), got.source, `${list}${closest === undefined ? '' : `; did you mean ${closest}?`}`);
  };

  const addressRead = read(RedisTpsKeys.ADDRESS, config?.address);
  const address = addressRead?.value.trim() ?? RedisTpsDefaults.ADDRESS;
  const maskedAddress = checkAddress(address, addressRead?.source ?? 'default', where);

  const prefixRead = read(RedisTpsKeys.PREFIX, config?.prefix);
  const prefix = prefixRead?.value ?? RedisTpsDefaults.PREFIX;
  if (prefixRead !== undefined && (prefix.length > MAX_PREFIX || /[\s\u0000-\u001f]/.test(prefix))) {
    throw invalid(RedisTpsKeys.PREFIX, shorten(prefix), prefixRead.source, `at most ${MAX_PREFIX} characters, without spaces or control characters`);
  }

  const window = oneOf(RedisTpsKeys.WINDOW, WINDOW_KINDS, config?.window, RedisTpsDefaults.WINDOW);
  const onError = oneOf(RedisTpsKeys.ON_ERROR, ON_ERROR_POLICIES, config?.onError, RedisTpsDefaults.ON_ERROR);

  const timeoutRead = read(RedisTpsKeys.TIMEOUT, config?.timeout);
  let timeout: number = RedisTpsDefaults.TIMEOUT;
  if (timeoutRead !== undefined) {
    timeout = Number(timeoutRead.value);
    if (!/^\s*\d+\s*$/.test(timeoutRead.value) || timeout < 1 || timeout > MAX_TIMEOUT) {
      throw invalid(RedisTpsKeys.TIMEOUT, shorten(timeoutRead.value), timeoutRead.source, `an integer from 1 to ${MAX_TIMEOUT} (milliseconds)`);
    }
  }
  return { address, maskedAddress, prefix, window, onError, timeout };
}

/** Checks a Redis URL; returns it with its password masked. */
function checkAddress(address: string, source: string, where: string): string {
  const fail = (shown: string, why: string): ExtensionError =>
    new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `${where}: ${RedisTpsKeys.ADDRESS}=${shown} (${source}) is not valid: ${why}; expected redis://[[user]:password@]host[:port][/db] or rediss://… (TLS).`,
    );
  let parsed: URL;
  try {
    parsed = URL.parse(address);
  } catch {
    // Unparsable: show only what precedes a possible user-info part, never a password.
    throw fail(shorten(address.replace(/\/\/[^/@]*@/, '//***@')), 'not a URL');
  }
  const masked = maskSecrets(parsed);
  if (parsed.protocol !== 'redis' && parsed.protocol !== 'rediss') {
    const hint = boundedEditDistance(parsed.protocol, 'redis', 2) <= 2 ? ' (did you mean redis://?)' : '';
    throw fail(shorten(masked), `the scheme is ${parsed.protocol}://${hint}`);
  }
  if (parsed.host === '') throw fail(shorten(masked), 'it names no host');
  if (parsed.port < 0 || parsed.port > 65_535) throw fail(shorten(masked), `port ${parsed.port} is out of range`);
  if (parsed.path !== '' && !/^\d{1,2}$/.test(parsed.path)) throw fail(shorten(masked), `the database "${shorten(parsed.path)}" is not a number`);
  return masked;
}

/** A value as shown in a message: hostile input never makes a message huge. */
function shorten(value: string): string {
  return value.length > 120 ? `${value.slice(0, 120)}…` : value;
}
