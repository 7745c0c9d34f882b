/**
 * Signing keys given in code: key id → secret, registered on the application model.
 *
 * @remarks
 * Register one per application **before** exporting or referring: `app.model.registerService(AuthKeys, keys)`.
 * A provider with `auth.keys` (and no `auth.keys-file`) verifies with these secrets; a consumer with `auth.key-id`
 * and no `auth.secret` signs with the secret of its key id from here. Keys may be added and removed at any time
 * (rotation); the next call sees the change. Secrets are held as bytes and never appear in messages or in
 * `toString()`/`JSON.stringify`.
 *
 * @example
 * ```ts
 * app.model.registerService(AuthKeys, new AuthKeys({ shop: process.env.SHOP_KEY as string }));
 * await app.export(Billing, impl, { parameters: { 'auth.keys': 'shop' } });
 * ```
 */
export class AuthKeys {
  readonly #secrets = new Map<string, Buffer>();

  constructor(secrets: Readonly<Record<string, string | Uint8Array>> | ReadonlyMap<string, string | Uint8Array> = {}) {
    const entries = secrets instanceof Map ? [...secrets] : Object.entries(secrets);
    for (const [keyId, secret] of entries) this.set(keyId, secret);
  }

  /**
   * Adds or replaces a key.
   * @throws TypeError when the key id or the secret is empty.
   */
  set(keyId: string, secret: string | Uint8Array): this {
    if (typeof keyId !== 'string' || keyId === '') throw new TypeError('AuthKeys: a key id must be a non-empty string.');
    const bytes = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
    if (bytes.length === 0) throw new TypeError(`AuthKeys: the secret of key id "${keyId}" is empty.`);
    this.#secrets.set(keyId, bytes);
    return this;
  }

  /** Removes a key; whether it was there. */
  delete(keyId: string): boolean {
    return this.#secrets.delete(keyId);
  }

  /** Whether the key id is known. */
  has(keyId: string): boolean {
    return this.#secrets.has(keyId);
  }

  /** The key ids (never the secrets). */
  keyIds(): string[] {
    return [...this.#secrets.keys()];
  }

  /** The secret of a key id, or `undefined`. */
  secretOf(keyId: string): Buffer | undefined {
    return this.#secrets.get(keyId);
  }

  /** Names the key ids only. */
  toString(): string {
    return `AuthKeys(${this.keyIds().join(', ')})`;
  }

  /** Names the key ids only. */
  toJSON(): { keyIds: string[] } {
    return { keyIds: this.keyIds() };
  }
}
