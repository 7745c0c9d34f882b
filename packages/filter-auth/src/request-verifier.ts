import { timingSafeEqual } from 'node:crypto';
import { resolve } from 'node:path';

import { peerCertificateOf, RpcError, RpcErrorCode, type Invocation, type Logger, type URL } from '@weft/core';
import { isConfigNotEmpty, safeLog, setCallerIdentity, splitCommaList } from '@weft/core/spi';

import type { AuthKeys } from './auth-keys.js';
import { AuthAttachments, AuthDefaults, AuthParameters } from './auth-parameters.js';
import { CanonicalLimitError, canonicalArgumentsDigest } from './canonical-arguments.js';
import { KeysFile } from './keys-file.js';
import { NonceCache } from './nonce-cache.js';
import { signatureOf, SIGNATURE_VERSION, type SignedRequest } from './request-signature.js';
import { signedArgumentsOf } from './request-signer.js';

/** A provider URL's verification settings, read once per URL; `null` when it verifies nothing. */
interface VerifierConfig {
  /** The key ids accepted: `'*'` for every key of the store. */
  readonly accepted: ReadonlySet<string> | '*';
  /** The resolved `auth.keys-file`, if any (else the application's `AuthKeys`). */
  readonly file: string | undefined;
  readonly nonces: NonceCache;
}

const TIMESTAMP = /^\d{1,15}$/;
const NONCE = /^[A-Za-z0-9_-]{22}$/;
const MAC = /^[A-Za-z0-9_-]{43}$/;
const ALL = new Set(['*', 'true', 'default']);

/**
 * The provider half of the `auth` filter's signature check: key id, timestamp, signature, nonce — in that order.
 *
 * @remarks Holds one {@link NonceCache} per distinct (`auth.replay-window`, `auth.nonce-cache`) pair and one
 * {@link KeysFile} per key file path, for the application. {@link RequestVerifier.close} stops the key files' polling.
 * @internal Used by `AuthFilter`.
 */
export class RequestVerifier {
  private readonly configs = new WeakMap<URL, VerifierConfig | null>();
  private readonly caches = new Map<string, NonceCache>();
  private readonly files = new Map<string, KeysFile>();
  /** Caches whose "full" state was logged (cleared when one accepts again). */
  private readonly fullLogged = new WeakSet<NonceCache>();

  constructor(
    private readonly authKeys: () => AuthKeys | undefined,
    private readonly logger: Logger,
  ) {}

  /** Whether `url` asks for signatures. */
  verifies(url: URL): boolean {
    return this.configOf(url) !== null;
  }

  /**
   * Verifies the signature of `invocation`: on success records the caller identity and removes the auth
   * attachments; otherwise answers why (for a `forbidden` message, never holding a secret).
   */
  verify(url: URL, invocation: Invocation, now: number = Date.now()): string | undefined {
    const config = this.configOf(url);
    if (config === null) return undefined;
    const read = (key: string): string | undefined => {
      const value = invocation.getAttachment(key);
      return value === undefined ? undefined : String(value);
    };
    const keyId = read(AuthAttachments.KEY_ID);
    const signature = read(AuthAttachments.SIGNATURE);
    if (keyId === undefined && signature === undefined) {
      return `the call is not signed (no ${AuthAttachments.SIGNATURE} attachment), and this service accepts signed calls only`;
    }
    if (keyId === undefined || keyId === '' || keyId.length > 256) return `malformed ${AuthAttachments.KEY_ID} attachment`;
    let secret: Buffer | undefined;
    if (config.accepted === '*' || config.accepted.has(keyId)) {
      if (config.file !== undefined) {
        const file = this.keysFile(config.file);
        if (file.problem !== undefined) return "the provider's key file cannot be used (the provider's log says why)";
        secret = file.lookup(keyId);
      } else {
        secret = this.authKeys()?.secretOf(keyId);
      }
    }
    if (secret === undefined) return `unknown key id ${quote(keyId)}`;

    const ts = read(AuthAttachments.TIMESTAMP);
    if (ts === undefined || !TIMESTAMP.test(ts)) return `malformed or missing ${AuthAttachments.TIMESTAMP} attachment (milliseconds since the epoch)`;
    const timestamp = Number(ts);
    const window = config.nonces.window;
    const skew = now - timestamp;
    if (skew > window) return `expired timestamp: ${skew} ms in the past, more than the ${window} ms ${AuthParameters.REPLAY_WINDOW} allows (clock skew, or a replayed call)`;
    if (-skew > window) return `future timestamp: ${-skew} ms ahead of the provider's clock, more than the ${window} ms ${AuthParameters.REPLAY_WINDOW} allows (clock skew)`;

    const nonce = read(AuthAttachments.NONCE);
    if (nonce === undefined || !NONCE.test(nonce)) return `malformed or missing ${AuthAttachments.NONCE} attachment (16 bytes, base64url)`;
    const mode = read(AuthAttachments.ARGUMENTS);
    if (mode !== 'sha256' && mode !== 'unsigned') return `malformed or missing ${AuthAttachments.ARGUMENTS} attachment (sha256 or unsigned)`;
    if (signature === undefined) return `missing ${AuthAttachments.SIGNATURE} attachment`;
    const separator = signature.indexOf('=');
    const version = separator < 0 ? signature : signature.slice(0, separator);
    if (version !== SIGNATURE_VERSION) return `unsupported signature version ${quote(version)} (this provider verifies ${SIGNATURE_VERSION})`;
    const mac = signature.slice(separator + 1);
    if (!MAC.test(mac)) return `malformed ${AuthAttachments.SIGNATURE} attachment (${SIGNATURE_VERSION}= and 32 bytes, base64url)`;

    let argumentsDigest: string | undefined;
    if (mode === 'sha256') {
      try {
        argumentsDigest = canonicalArgumentsDigest(signedArgumentsOf(invocation));
      } catch (error) {
        if (!(error instanceof CanonicalLimitError)) throw error;
        return `the arguments cannot be verified: ${error.message}`;
      }
    }
    const request: SignedRequest = {
      keyId,
      service: url.getServiceInterface() ?? url.path,
      group: url.getGroup() ?? '',
      version: url.getVersion() ?? '',
      method: invocation.methodName,
      timestamp,
      nonce,
      argumentsDigest,
    };
    const expected = signatureOf(request, secret);
    const given = Buffer.from(mac, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      return 'bad signature (a different secret, or the call was altered on the way: service, method, timestamp, nonce or arguments)';
    }

    const remembered = config.nonces.remember(`${keyId}\u0000${nonce}`, timestamp, now);
    if (remembered === 'replayed') return 'replayed nonce: a call with this nonce was already accepted';
    if (remembered === 'full') {
      if (!this.fullLogged.has(config.nonces)) {
        this.fullLogged.add(config.nonces);
        safeLog(
          this.logger,
          'warn',
          `auth: the nonce cache holds ${config.nonces.capacity} unexpired nonces (${AuthParameters.NONCE_CACHE}), so signed calls are refused ` +
            `until nonces expire (within ${window} ms). Raise ${AuthParameters.NONCE_CACHE} above calls per second × ${AuthParameters.REPLAY_WINDOW} in seconds, or shorten the window.`,
        );
      }
      return `the provider's nonce cache is full (${config.nonces.capacity} unexpired nonces): try again later`;
    }
    this.fullLogged.delete(config.nonces);
    const certificate = peerCertificateOf(invocation);
    setCallerIdentity(invocation, certificate === undefined ? { principal: keyId, via: 'signature' } : { principal: keyId, via: 'signature', certificate });
    for (const key of Object.values(AuthAttachments)) invocation.removeAttachment(key);
    return undefined;
  }

  /** Stops polling the key files. */
  close(): void {
    for (const file of this.files.values()) file.close();
    this.files.clear();
  }

  private keysFile(path: string): KeysFile {
    let file = this.files.get(path);
    if (file === undefined) {
      file = new KeysFile(path, {
        onChange: (problem) =>
          safeLog(this.logger, problem === undefined ? 'info' : 'warn', problem === undefined ? `auth: re-read ${path}` : `auth: signed calls are refused: ${problem}`),
      });
      if (file.problem !== undefined) safeLog(this.logger, 'warn', `auth: signed calls are refused: ${file.problem}`);
      this.files.set(path, file);
    }
    return file;
  }

  private configOf(url: URL): VerifierConfig | null {
    let config = this.configs.get(url);
    if (config === undefined) {
      config = this.readConfig(url);
      this.configs.set(url, config);
    }
    return config;
  }

  private readConfig(url: URL): VerifierConfig | null {
    const rawKeys = url.getParameter(AuthParameters.KEYS)?.trim();
    const rawFile = url.getParameter(AuthParameters.KEYS_FILE)?.trim();
    const keys = isConfigNotEmpty(rawKeys) ? rawKeys : '';
    const file = isConfigNotEmpty(rawFile) ? rawFile : '';
    if (keys === '' && file === '') return null;
    const listed = splitCommaList(keys).filter((k) => k !== '');
    const accepted = listed.length === 0 || listed.some((k) => ALL.has(k.toLowerCase())) ? '*' : new Set(listed);
    const window = positive(url.getParameter(AuthParameters.REPLAY_WINDOW), AuthDefaults.REPLAY_WINDOW);
    const capacity = positive(url.getParameter(AuthParameters.NONCE_CACHE), AuthDefaults.NONCE_CACHE);
    const cacheKey = `${window}/${capacity}`;
    let nonces = this.caches.get(cacheKey);
    if (nonces === undefined) this.caches.set(cacheKey, (nonces = new NonceCache(window, capacity)));
    return { accepted, file: file === '' ? undefined : resolve(file), nonces };
  }
}

/**
 * A value from the wire, quoted and cut short for a message.
 * @internal
 */
export function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}

function positive(raw: string | undefined, fallback: number): number {
  const value = Number(raw);
  return raw !== undefined && raw.trim() !== '' && Number.isInteger(value) && value > 0 ? value : fallback;
}
