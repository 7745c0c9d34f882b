import { resolve } from 'node:path';

import { ApplicationModel, ExtensionError, ExtensionErrorCode, type ServiceDefinition, type URL } from '@weft/core';
import { ConfigValidator, Inject, isConfigNotEmpty, splitCommaList } from '@weft/core/spi';

import { AuthKeys } from './auth-keys.js';
import { AuthParameters } from './auth-parameters.js';
import { readKeysFile } from './keys-file.js';

const ALL = new Set(['*', 'true', 'default']);

/**
 * Checks the `auth.*` keys when a service is exported or referred, so a mistake fails there, not on every call.
 *
 * @remarks
 * Extension `auth` of `weft.config.ConfigValidator`, groups `provider` and `consumer`, activated by the keys that
 * activate the filter. Consumer (`side=consumer`): `auth.key-id` has a secret (`auth.secret`, or the key id in the
 * application's `AuthKeys`), `auth.sign-arguments` is a boolean. Provider: `auth.replay-window` and
 * `auth.nonce-cache` are integers > 0; `auth.keys-file` is a readable owner-only JSON key file; the key ids
 * `auth.keys` lists exist in the key store (the file, else `AuthKeys`, which must then be registered);
 * `auth.callers` lists are not empty. Throws `ExtensionError` `ERR_SPI_INVALID_PARAMETER` naming the key — never
 * a secret.
 *
 * @example
 * ```ts
 * // ERR_SPI_INVALID_PARAMETER: export(org.acme.Billing): auth.keys-file /etc/weft/keys.json has mode 0644: …
 * await app.export(Billing, impl, { parameters: { 'auth.keys-file': '/etc/weft/keys.json' } });
 * ```
 * @throws ExtensionError `ERR_SPI_INVALID_PARAMETER`.
 */
export class AuthConfigValidator extends ConfigValidator {
  constructor(@Inject(ApplicationModel) private readonly model: ApplicationModel) {
    super();
  }

  /** Throws when an `auth.*` key of the URL is invalid. */
  validate(url: URL, service: ServiceDefinition | undefined, where: string): void {
    const fail = (message: string): never => {
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: ${message}`);
    };
    const authKeys = this.model.hasService(AuthKeys) ? this.model.getService(AuthKeys) : undefined;
    if (url.getParameter('side') === 'consumer') {
      const keyId = url.getParameter(AuthParameters.KEY_ID);
      const sign = url.getParameter(AuthParameters.SIGN_ARGUMENTS)?.trim().toLowerCase();
      if (sign !== undefined && sign !== '' && sign !== 'true' && sign !== 'false') fail(`${AuthParameters.SIGN_ARGUMENTS}=${sign} is not a boolean (use true or false).`);
      if (keyId !== undefined && keyId !== '' && !isConfigNotEmpty(url.getParameter(AuthParameters.SECRET)) && authKeys?.has(keyId) !== true) {
        fail(
          `${AuthParameters.KEY_ID}=${keyId} has no secret: set ${AuthParameters.SECRET} on the reference, or register AuthKeys with key id ` +
            `"${keyId}" on the application model before refer (app.model.registerService(AuthKeys, new AuthKeys({ … }))).`,
        );
      }
      return;
    }
    for (const key of [AuthParameters.REPLAY_WINDOW, AuthParameters.NONCE_CACHE]) {
      const raw = url.getParameter(key);
      if (raw !== undefined && raw !== '' && (!/^\d+$/.test(raw.trim()) || Number(raw) <= 0)) fail(`${key}=${raw} is not valid: expected an integer > 0.`);
    }
    const file = url.getParameter(AuthParameters.KEYS_FILE)?.trim();
    const rawKeys = url.getParameter(AuthParameters.KEYS)?.trim();
    let known: (keyId: string) => boolean = () => false;
    let store = '';
    if (isConfigNotEmpty(file)) {
      let keys: Map<string, Buffer>;
      try {
        keys = readKeysFile(resolve(file));
      } catch (error) {
        const e = error as NodeJS.ErrnoException;
        return fail(typeof e.code === 'string' ? `${AuthParameters.KEYS_FILE} ${resolve(file)} cannot be read (${e.code}).` : `${e.message}.`);
      }
      known = (keyId) => keys.has(keyId);
      store = `${AuthParameters.KEYS_FILE} ${resolve(file)} (key ids: ${[...keys.keys()].join(', ') || 'none'})`;
    } else if (isConfigNotEmpty(rawKeys)) {
      if (authKeys === undefined) {
        fail(
          `${AuthParameters.KEYS}=${rawKeys} needs the secrets of its keys: set ${AuthParameters.KEYS_FILE}, or register AuthKeys on the application model ` +
            'before export (app.model.registerService(AuthKeys, new AuthKeys({ … }))). Secrets never go into URL parameters.',
        );
      }
      known = (keyId) => authKeys?.has(keyId) === true;
      store = `the application's ${String(authKeys)}`;
    }
    if (isConfigNotEmpty(rawKeys)) {
      const listed = splitCommaList(rawKeys).filter((k) => k !== '');
      if (!listed.some((k) => ALL.has(k.toLowerCase()))) {
        const missing = listed.filter((k) => !known(k));
        if (missing.length > 0) fail(`${AuthParameters.KEYS} names key id${missing.length === 1 ? '' : 's'} ${missing.join(', ')}, not in ${store}.`);
      }
    }
    const checkCallers = (key: string, raw: string | undefined): void => {
      if (raw !== undefined && raw.trim() !== '' && splitCommaList(raw).every((n) => n.trim() === '')) fail(`${key}=${raw} lists no principal.`);
    };
    checkCallers(AuthParameters.CALLERS, url.getParameter(AuthParameters.CALLERS));
    for (const method of service?.methodNames ?? []) checkCallers(`${method}.${AuthParameters.CALLERS}`, url.getMethodParameterStrict(method, AuthParameters.CALLERS));
  }
}
