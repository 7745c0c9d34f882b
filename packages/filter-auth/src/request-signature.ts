import { createHmac, randomBytes } from 'node:crypto';

/**
 * What a `v1` signature covers: the service, the method, the key, the time, a nonce and the arguments' digest.
 *
 * @remarks `group` and `version` are `''` when the service has none; `argumentsDigest` is the base64url SHA-256 of
 * the canonical arguments, or `undefined` when the consumer signs without them (`auth.sign-arguments=false`).
 * @example
 * ```ts
 * const request: SignedRequest = { keyId: 'shop', service: 'org.acme.Billing', group: '', version: '1.0.0',
 *   method: 'charge', timestamp: Date.now(), nonce: newNonce(), argumentsDigest: undefined };
 * ```
 */
export interface SignedRequest {
  readonly keyId: string;
  /** The service interface. */
  readonly service: string;
  readonly group: string;
  readonly version: string;
  readonly method: string;
  /** Milliseconds since the epoch. */
  readonly timestamp: number;
  /** 16 random bytes, base64url (22 characters). */
  readonly nonce: string;
  readonly argumentsDigest: string | undefined;
}

/**
 * The version tag of the scheme, first in the canonical string and in the signature attachment.
 *
 * @example
 * ```ts
 * invocation.setAttachment('weft-auth-sig', `${SIGNATURE_VERSION}=${mac.toString('base64url')}`);
 * ```
 */
export const SIGNATURE_VERSION = 'v1';

/**
 * The text a `v1` signature is computed over: a JSON array (no white space) of `"weft-auth-v1"`, the key id, the
 * interface, group, version, method, the timestamp as decimal text, the nonce and `sha256:<digest>` or `unsigned`.
 *
 * @remarks JSON quoting makes the fields unambiguous whatever characters they hold.
 * @example
 * ```ts
 * canonicalRequest(request); // '["weft-auth-v1","shop","org.acme.Billing","","1.0.0","charge","1767225600000","…","sha256:…"]'
 * ```
 */
export function canonicalRequest(request: SignedRequest): string {
  return JSON.stringify([
    `weft-auth-${SIGNATURE_VERSION}`,
    request.keyId,
    request.service,
    request.group,
    request.version,
    request.method,
    String(request.timestamp),
    request.nonce,
    request.argumentsDigest === undefined ? 'unsigned' : `sha256:${request.argumentsDigest}`,
  ]);
}

/**
 * The HMAC-SHA256 of {@link canonicalRequest} with `secret` (its UTF-8 bytes when a string).
 *
 * @example
 * ```ts
 * const mac = signatureOf(request, 's3cret'); // 32 bytes
 * ```
 */
export function signatureOf(request: SignedRequest, secret: string | Uint8Array): Buffer {
  return createHmac('sha256', secret).update(canonicalRequest(request), 'utf8').digest();
}

/**
 * A fresh nonce: 16 random bytes, base64url without padding.
 *
 * @example
 * ```ts
 * newNonce(); // 'q3ZL0c1m9fGxY2aPq8h6Ww'
 * ```
 */
export function newNonce(): string {
  return randomBytes(16).toString('base64url');
}
