import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import type { Protocol } from '../protocol/protocol.js';
import type { URL } from '../rpc/url.js';

/**
 * The URL keys of TLS, named as Dubbo's `dubbo.ssl.*` configuration maps them (`ssl-enabled` and `ssl.<Dubbo name>`).
 *
 * @remarks A provider with `ssl-enabled=true` needs its certificate chain and private key; a trust collection makes
 * it require client certificates (mTLS). A consumer verifies its providers against its trust collection (else the
 * system's CAs) and presents a client certificate when it has one. Paths name PEM files, re-read when they change.
 * @example
 * ```ts
 * app.export(Greeter, impl, { protocol: 'tri', parameters: { [TlsKeys.ENABLED]: true,
 *   [TlsKeys.SERVER_CERT]: '/etc/weft/server.pem', [TlsKeys.SERVER_KEY]: '/etc/weft/server.key' } });
 * ```
 */
export const TlsKeys = {
  /** `true`: the protocol speaks TLS on this service (never a silent plaintext fallback). */
  ENABLED: 'ssl-enabled',
  /** Provider: its certificate chain (PEM), leaf first. */
  SERVER_CERT: 'ssl.server-key-cert-chain-path',
  /** Provider: the private key of that certificate (PEM). */
  SERVER_KEY: 'ssl.server-private-key-path',
  /** Provider: the passphrase of an encrypted private key (a secret: masked in every message). */
  SERVER_KEY_PASSWORD: 'ssl.server-key-password',
  /** Provider: the CAs client certificates must chain to; when set, a client without a valid certificate is refused (mTLS). */
  SERVER_TRUST: 'ssl.server-trust-cert-collection-path',
  /** Consumer: its client certificate chain (PEM), for mTLS. */
  CLIENT_CERT: 'ssl.client-key-cert-chain-path',
  /** Consumer: the private key of its client certificate (PEM). */
  CLIENT_KEY: 'ssl.client-private-key-path',
  /** Consumer: the passphrase of an encrypted client key (a secret). */
  CLIENT_KEY_PASSWORD: 'ssl.client-key-password',
  /** Consumer: the CAs providers' certificates must chain to (default: the system's CAs). */
  CLIENT_TRUST: 'ssl.client-trust-cert-collection-path',
  /** Consumer: the name the provider's certificate must carry, also sent as SNI (default: the provider's host). */
  SERVER_NAME: 'ssl.server-name',
} as const;

/** The keys of each side, in the order messages list them. */
const SIDE_KEYS = {
  provider: [TlsKeys.SERVER_CERT, TlsKeys.SERVER_KEY, TlsKeys.SERVER_KEY_PASSWORD, TlsKeys.SERVER_TRUST],
  consumer: [TlsKeys.CLIENT_CERT, TlsKeys.CLIENT_KEY, TlsKeys.CLIENT_KEY_PASSWORD, TlsKeys.CLIENT_TRUST, TlsKeys.SERVER_NAME],
} as const;

/** Every `ssl.*` key Weft reads. */
export const TLS_FILE_KEYS: readonly string[] = [...SIDE_KEYS.provider, ...SIDE_KEYS.consumer];

/**
 * Whether `url` asks for TLS on `side`, after checking that the keys make sense together.
 *
 * @remarks `ssl-enabled` must be a boolean; `ssl.*` keys of the side without `ssl-enabled=true` are refused (a
 * certificate that is configured but would not be used is a silent downgrade); a provider needs both its
 * certificate chain and its private key, and a consumer's client certificate and key come as a pair. Files are not
 * read here (see `TlsMaterial`).
 * @throws ExtensionError `ERR_SPI_INVALID_PARAMETER`, naming the key that is wrong or missing.
 * @example
 * ```ts
 * tlsRequested(url, 'provider', 'org.acme.Greeter'); // true when ssl-enabled=true and the keys are complete
 * ```
 */
export function tlsRequested(url: URL, side: 'provider' | 'consumer', where: string): boolean {
  const raw = url.getParameter(TlsKeys.ENABLED)?.trim().toLowerCase();
  if (raw !== undefined && raw !== '' && raw !== 'true' && raw !== 'false') {
    throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: ssl-enabled=${raw} is not a boolean (use true or false).`);
  }
  const enabled = raw === 'true';
  const present = SIDE_KEYS[side].filter((key) => (url.getParameter(key) ?? '') !== '');
  if (!enabled) {
    if (present.length > 0) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where}: ${present.join(', ')} ${present.length === 1 ? 'is' : 'are'} set but ssl-enabled is not true, so ` +
          `${present.length === 1 ? 'it' : 'they'} would not be used and the ${side === 'provider' ? 'service would be served' : 'calls would go'} in plaintext. ` +
          'Set ssl-enabled=true, or remove the ssl.* keys.',
      );
    }
    return false;
  }
  if (side === 'provider') {
    const missing = [TlsKeys.SERVER_CERT, TlsKeys.SERVER_KEY].filter((key) => !present.includes(key));
    if (missing.length > 0) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where}: ssl-enabled=true needs ${TlsKeys.SERVER_CERT} (the certificate chain, PEM) and ${TlsKeys.SERVER_KEY} ` +
          `(its private key, PEM); missing: ${missing.join(' and ')}.`,
      );
    }
  } else {
    const hasCert = present.includes(TlsKeys.CLIENT_CERT);
    const hasKey = present.includes(TlsKeys.CLIENT_KEY);
    if (hasCert !== hasKey) {
      throw new ExtensionError(
        ExtensionErrorCode.INVALID_PARAMETER,
        `${where}: a client certificate needs both ${TlsKeys.CLIENT_CERT} and ${TlsKeys.CLIENT_KEY}; missing: ` +
          `${hasCert ? TlsKeys.CLIENT_KEY : TlsKeys.CLIENT_CERT}.`,
      );
    }
  }
  return true;
}

/**
 * Checks the TLS keys of a service URL (see `tlsRequested`) and refuses `ssl-enabled=true` on a protocol that does
 * not speak TLS: serving or calling in plaintext under a key that asks for TLS would be a silent downgrade.
 * @throws `ERR_SPI_INVALID_PARAMETER` naming the key, the protocol, or the missing certificate key.
 * @internal
 */
export function refuseUnhonouredTls(url: URL, where: string, side: 'provider' | 'consumer', protocol: Protocol | undefined): void {
  if (!tlsRequested(url, side, where)) return;
  if (protocol === undefined || protocol.supportsTls()) return;
  throw new ExtensionError(
    ExtensionErrorCode.INVALID_PARAMETER,
    `${where}: ssl-enabled=true cannot be honoured: protocol "${url.protocol}" does not speak TLS, and Weft refuses to ` +
      `${side === 'provider' ? 'serve' : 'call'} in plaintext under a key that asks for TLS. Use a protocol that does ` +
      '(tri, dubbo), remove ssl-enabled, or terminate TLS in front of the service (a proxy or sidecar).',
  );
}
