/**
 * URL keys read by the `auth` filter.
 *
 * @remarks
 * Consumer: `auth.key-id` (activates signing), `auth.secret` (a secret: masked in messages, never registered),
 * `auth.sign-arguments`. Provider: `auth.keys`, `auth.keys-file` (either activates verification),
 * `auth.replay-window`, `auth.nonce-cache`, and `auth.callers` (service or method level; activates the filter on
 * its own, for mTLS-only authorisation). Provider secrets never travel in URL parameters: they come from the
 * key file or from {@link AuthKeys}. Defaults are in {@link AuthDefaults}.
 *
 * @example
 * ```ts
 * await app.refer(Billing, { parameters: { [AuthParameters.KEY_ID]: 'shop', [AuthParameters.SECRET]: process.env.SHOP_KEY } });
 * ```
 */
export const AuthParameters = {
  /** Consumer: the key id it signs with; activates signing. */
  KEY_ID: 'auth.key-id',
  /** Consumer: the secret of that key (else looked up in the application's `AuthKeys`). */
  SECRET: 'auth.secret',
  /** Consumer: whether the arguments' digest is signed. */
  SIGN_ARGUMENTS: 'auth.sign-arguments',
  /** Provider: the key ids it accepts (`*` or `true`: every key of its key store); activates verification. */
  KEYS: 'auth.keys',
  /** Provider: a JSON file `{"keyId": "secret", …}` (mode 0600 or stricter), re-read when it changes. */
  KEYS_FILE: 'auth.keys-file',
  /** Provider: how far a request's timestamp may be from the provider's clock, either way, in ms. */
  REPLAY_WINDOW: 'auth.replay-window',
  /** Provider: the most nonces remembered at once. */
  NONCE_CACHE: 'auth.nonce-cache',
  /** Provider, service or method level: the principals allowed to call (`*`: any authenticated caller). */
  CALLERS: 'auth.callers',
} as const;

/**
 * Defaults of the {@link AuthParameters}.
 *
 * @example
 * ```ts
 * const window = Number(url.getParameter(AuthParameters.REPLAY_WINDOW) ?? AuthDefaults.REPLAY_WINDOW);
 * ```
 */
export const AuthDefaults = {
  /** Five minutes, either way. */
  REPLAY_WINDOW: 300_000,
  /** Nonces remembered at most (about 100 bytes each). */
  NONCE_CACHE: 100_000,
  /** Arguments are signed. */
  SIGN_ARGUMENTS: true,
} as const;

/**
 * The attachments a signed call carries (signature scheme `v1`).
 *
 * @remarks Lower-case, ASCII values: they travel as HTTP/2 headers over `tri` and as attachments over `dubbo`.
 * The provider removes them once verified. The wire format is in the package README.
 * @example
 * ```ts
 * invocation.getAttachment(AuthAttachments.KEY_ID); // 'shop'
 * ```
 */
export const AuthAttachments = {
  /** The key id. */
  KEY_ID: 'weft-auth-key',
  /** Milliseconds since the epoch, decimal. */
  TIMESTAMP: 'weft-auth-ts',
  /** 16 random bytes, base64url without padding (22 characters). */
  NONCE: 'weft-auth-nonce',
  /** `sha256` (the arguments' digest is signed) or `unsigned`. */
  ARGUMENTS: 'weft-auth-args',
  /** `v1=` and the HMAC-SHA256, base64url without padding (43 characters). */
  SIGNATURE: 'weft-auth-sig',
} as const;
