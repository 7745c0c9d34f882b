/**
 * `@weft/filter-auth`: HMAC-signed requests with replay protection, and per-method authorisation of callers.
 *
 * @packageDocumentation
 */
export { AuthFilter } from './auth-filter.js';
export { AuthConfigValidator } from './auth-config-validator.js';
export { AuthKeys } from './auth-keys.js';
export { AuthAttachments, AuthDefaults, AuthParameters } from './auth-parameters.js';
export { CANONICAL_LIMITS, CanonicalLimitError, canonicalArguments, canonicalArgumentsDigest, type CanonicalLimits } from './canonical-arguments.js';
export { canonicalRequest, newNonce, signatureOf, SIGNATURE_VERSION, type SignedRequest } from './request-signature.js';
export { KeysFile, MAX_KEYS_FILE_BYTES, readKeysFile } from './keys-file.js';
export { NonceCache } from './nonce-cache.js';
