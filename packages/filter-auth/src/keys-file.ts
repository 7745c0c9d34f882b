import { readFileSync, statSync, type Stats } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';

/**
 * The largest key file read, 1 MiB (a key file is a few hundred bytes per key).
 *
 * @example
 * ```ts
 * if (statSync(path).size > MAX_KEYS_FILE_BYTES) console.log('too large for auth.keys-file');
 * ```
 */
export const MAX_KEYS_FILE_BYTES = 1024 * 1024;

/**
 * Reads a key file — a JSON object `{"keyId": "secret", …}` — and refuses one that others could read.
 *
 * @remarks Throws an `Error` whose message names the path and what is wrong (never a secret): not a regular
 * file, larger than {@link MAX_KEYS_FILE_BYTES}, group or world permissions (mode `& 0o077`, as ssh refuses
 * private keys; not checked on Windows), not JSON, not an object of non-empty strings.
 * @example
 * ```ts
 * const secrets = readKeysFile('/etc/weft/keys.json'); // Map { 'shop' => <Buffer …> }
 * ```
 */
export function readKeysFile(path: string): Map<string, Buffer> {
  return parseKeys(path, statSync(path), readFileSync(path));
}

function checkStats(path: string, stats: Stats): void {
  if (!stats.isFile()) throw new Error(`auth.keys-file ${path} is not a regular file`);
  if (stats.size > MAX_KEYS_FILE_BYTES) throw new Error(`auth.keys-file ${path} is ${stats.size} bytes, more than the ${MAX_KEYS_FILE_BYTES} a key file may have`);
  if (process.platform !== 'win32' && (stats.mode & 0o077) !== 0) {
    throw new Error(
      `auth.keys-file ${path} has mode ${(stats.mode & 0o777).toString(8).padStart(4, '0')}: its group or other users may access it, ` +
        `so its secrets are not secret. Make it readable by its owner only (chmod 600 ${path}), as ssh requires of private keys`,
    );
  }
}

function parseKeys(path: string, stats: Stats, bytes: Buffer): Map<string, Buffer> {
  checkStats(path, stats);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    // JSON.parse's message may quote the text (a secret): say where only.
    const at = error instanceof Error ? /position \d+/.exec(error.message)?.[0] : undefined;
    throw new Error(`auth.keys-file ${path} is not valid JSON${at === undefined ? '' : ` (at ${at})`}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`auth.keys-file ${path} must hold a JSON object {"keyId": "secret", …}, not ${Array.isArray(parsed) ? 'an array' : parsed === null ? 'null' : typeof parsed}`);
  }
  const keys = new Map<string, Buffer>();
  for (const [keyId, secret] of Object.entries(parsed as Record<string, unknown>)) {
    if (keyId === '') throw new Error(`auth.keys-file ${path} has an empty key id`);
    if (typeof secret !== 'string' || secret === '') throw new Error(`auth.keys-file ${path}: the secret of key id "${keyId}" must be a non-empty string`);
    keys.set(keyId, Buffer.from(secret, 'utf8'));
  }
  return keys;
}

/**
 * A key file kept current: read once when created, then polled and re-read when it changes.
 *
 * @remarks
 * Every `interval` ms (an unref'd timer) the file is stat'ed; a change of modification time, size, inode or mode
 * re-reads it. While the file cannot be used (removed, made group/world-readable, invalid), {@link KeysFile.lookup}
 * answers `undefined` for every key id and {@link KeysFile.problem} says why — the filter then refuses every call
 * (fail closed) and logs the reason once per change. Replace the file atomically (write a new one, `rename` it over
 * the old) so that a poll never sees half a file. {@link KeysFile.close} stops the polling.
 *
 * @example
 * ```ts
 * const file = new KeysFile('/etc/weft/keys.json', { onChange: (problem) => console.log(problem ?? 'reloaded') });
 * file.lookup('shop'); // <Buffer …>
 * file.close();
 * ```
 */
export class KeysFile {
  private keys: Map<string, Buffer> = new Map();
  private error: string | undefined;
  private signature = '';
  private readonly timer: NodeJS.Timeout;
  private polling = false;

  constructor(
    readonly path: string,
    private readonly options: { readonly interval?: number; readonly onChange?: (problem: string | undefined) => void } = {},
  ) {
    try {
      const stats = statSync(path);
      this.signature = signatureOf(stats);
      this.keys = parseKeys(path, stats, readFileSync(path));
    } catch (error) {
      this.error = describe(error);
    }
    this.timer = setInterval(() => void this.poll(), options.interval ?? 1000);
    this.timer.unref();
  }

  /** The secret of a key id, or `undefined` (unknown, or the file cannot be used). */
  lookup(keyId: string): Buffer | undefined {
    return this.error === undefined ? this.keys.get(keyId) : undefined;
  }

  /** Why the file cannot be used right now, or `undefined`. */
  get problem(): string | undefined {
    return this.error;
  }

  /** Stats the file and re-reads it when it changed; resolves once done (the timer calls it). */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      let stats: Stats;
      try {
        stats = await stat(this.path);
      } catch (error) {
        this.update(undefined, describe(error), 'missing');
        return;
      }
      const signature = signatureOf(stats);
      if (signature === this.signature) return;
      try {
        this.update(parseKeys(this.path, stats, await readFile(this.path)), undefined, signature);
      } catch (error) {
        this.update(undefined, describe(error), signature);
      }
    } finally {
      this.polling = false;
    }
  }

  /** Stops polling. */
  close(): void {
    clearInterval(this.timer);
  }

  private update(keys: Map<string, Buffer> | undefined, error: string | undefined, signature: string): void {
    const changed = signature !== this.signature || error !== this.error;
    this.signature = signature;
    if (keys !== undefined) this.keys = keys;
    else this.keys = new Map();
    this.error = error;
    if (changed) this.options.onChange?.(error);
  }
}

function signatureOf(stats: Stats): string {
  return `${stats.ino}:${stats.size}:${stats.mtimeMs}:${stats.mode}`;
}

function describe(error: unknown): string {
  if (error instanceof Error && 'code' in error && typeof (error as NodeJS.ErrnoException).code === 'string') {
    const e = error as NodeJS.ErrnoException;
    return `auth.keys-file ${e.path ?? ''} cannot be read (${e.code})`;
  }
  return error instanceof Error ? error.message : String(error);
}
