import { ExtensionError, ExtensionErrorCode, type ExtensionLoader, type ServiceDefinition, type URL } from '@weft/core';
import { ConfigValidator, InjectLoader, KNOWN_EXTENSIONS } from '@weft/core/spi';

import { TpsKeys } from './tps-keys.js';
import { TpsLimiter } from './tps-limiter.js';

/**
 * Checks the `tps` keys when a service is exported, so a typo fails there instead of on every call.
 *
 * @remarks
 * Extension `tps` of `weft.config.ConfigValidator`, activated in group `provider` when `tps` is set (service or
 * method level). Checks, at service level and for every method: `tps` is an integer (`<= 0` means unlimited),
 * `tps.interval` is an integer `> 0`, and `tps.limiter` names an installed `weft.filter.TpsLimiter` (`default`/`true` mean its default, `memory`). Throws
 * `ExtensionError` `ERR_SPI_INVALID_PARAMETER` naming the key and the value.
 *
 * @example
 * ```ts
 * // ERR_SPI_INVALID_PARAMETER: export(org.acme.Greeter): sayHello.tps.interval=0 is not valid: expected an integer > 0 …
 * await app.export(Greeter, impl, { parameters: { tps: 10 }, methods: { sayHello: { 'tps.interval': 0 } } });
 * ```
 * @throws ExtensionError `ERR_SPI_INVALID_PARAMETER`.
 */
export class TpsConfigValidator extends ConfigValidator {
  constructor(@InjectLoader(TpsLimiter) private readonly limiters: ExtensionLoader<TpsLimiter>) {
    super();
  }

  /** Throws when a `tps` key of the URL, at service or method level, is invalid. */
  validate(url: URL, service: ServiceDefinition | undefined, where: string): void {
    const check = (key: string, raw: string | undefined, ok: (n: number) => boolean, expected: string): void => {
      if (raw === undefined || raw === '') return;
      const value = Number(raw);
      if (!/^[+-]?\d+$/.test(raw.trim()) || !ok(value)) {
        throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: ${key}=${raw} is not valid: expected ${expected}.`);
      }
    };
    const checkAt = (prefix: string, read: (key: string) => string | undefined): void => {
      check(`${prefix}${TpsKeys.TPS}`, read(TpsKeys.TPS), () => true, 'an integer (calls per window; <= 0 means unlimited)');
      check(`${prefix}${TpsKeys.INTERVAL}`, read(TpsKeys.INTERVAL), (n) => n > 0, 'an integer > 0 (the window in milliseconds)');
    };
    checkAt('', (key) => url.getParameter(key));
    for (const method of service?.methodNames ?? []) checkAt(`${method}.`, (key) => url.getMethodParameterStrict(method, key));
    const limiter = url.getParameter(TpsKeys.LIMITER);
    if (limiter !== undefined && limiter !== '' && limiter !== 'default' && limiter !== 'true' && !this.limiters.hasExtension(limiter)) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where}: ${TpsKeys.LIMITER}=${limiter} names no weft.filter.TpsLimiter extension (available: ` +
          `${this.limiters.getSupportedExtensions().join(', ') || 'none'}). ${installHintFor(limiter)}`,
      );
    }
  }
}

/** What to do about an unknown limiter name: install the first-party package contributing it, when there is one. */
function installHintFor(limiter: string): string {
  const known = KNOWN_EXTENSIONS.find((e) => e.point === 'weft.filter.TpsLimiter' && e.name === limiter);
  return known === undefined
    ? 'Install the package that provides it, or remove the key.'
    : `"${limiter}" comes with ${known.package}: install it (npm install ${known.package}), or remove the key.`;
}
