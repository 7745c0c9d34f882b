import { timingSafeEqual } from 'node:crypto';

/**
 * Compares a secret with a candidate in time that depends only on the secret's length.
 *
 * @remarks
 * Two strings are compared code unit by code unit in a loop that always runs over the whole secret, OR-ing the
 * differences (and the length difference) together — no early exit. Otherwise both are compared as UTF-8
 * bytes: the candidate is copied into a zeroed buffer of the secret's length (truncated or padded) and compared
 * with `crypto.timingSafeEqual`, which needs equal lengths; the length check is computed as well and combined
 * without a short circuit. So the time taken does not reveal how many
 * leading bytes matched, nor whether the lengths differ — only the secret's length, which is fixed per provider,
 * and the candidate's, which the caller knows. An empty secret equals only an empty candidate.
 *
 * @example
 * ```ts
 * constantTimeEqual('s3cret', 's3cret'); // true
 * constantTimeEqual('s3cret', 's3cre');  // false, in the same time as every other 6-byte mismatch
 * ```
 */
export function constantTimeEqual(secret: string | Uint8Array, candidate: string | Uint8Array): boolean {
  if (typeof secret === 'string' && typeof candidate === 'string') return equalStrings(secret, candidate);
  return new SecretMatcher(secret).matches(candidate);
}

/**
 * Compares UTF-16 code units in a loop over the secret's length — no early exit, no buffer copy, no native call.
 * Every read stays inside the candidate (index clamped to its last unit; an empty candidate reads a one-unit
 * stand-in), so no read falls off V8's fast path into `NaN`, which made short candidates measurably slower. The
 * length difference is folded in, so a prefix never matches.
 */
function equalStrings(text: string, candidate: string): boolean {
  const n = candidate.length;
  const source = n === 0 ? '\u0000' : candidate;
  const last = n === 0 ? 0 : n - 1;
  let diff = text.length ^ n;
  for (let i = 0; i < text.length; i++) diff |= text.charCodeAt(i) ^ source.charCodeAt(i < last ? i : last);
  return diff === 0;
}

/**
 * A secret prepared for repeated constant-time comparisons, without allocating per comparison.
 *
 * @remarks Holds the secret's bytes and a scratch buffer of the same length that each comparison overwrites
 * (JavaScript runs one comparison at a time, so sharing it is safe).
 * @internal Used by the token filter, one per provider URL.
 */
export class SecretMatcher {
  private readonly text: string | undefined;
  private readonly secret: Buffer;
  private readonly scratch: Buffer;

  constructor(secret: string | Uint8Array) {
    this.text = typeof secret === 'string' ? secret : undefined;
    this.secret = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
    this.scratch = Buffer.alloc(this.secret.length);
  }

  /** Whether `candidate` equals the secret, in time independent of where they differ. */
  matches(candidate: string | Uint8Array): boolean {
    const text = this.text;
    if (text !== undefined && typeof candidate === 'string') {
      return equalStrings(text, candidate); // both strings: every token check
    }
    const scratch = this.scratch;
    scratch.fill(0);
    let length: number;
    if (typeof candidate === 'string') {
      length = Buffer.byteLength(candidate, 'utf8');
      scratch.write(candidate, 0, 'utf8');
    } else {
      length = candidate.length;
      scratch.set(candidate.length > scratch.length ? candidate.subarray(0, scratch.length) : candidate);
    }
    const sameBytes = timingSafeEqual(scratch, this.secret);
    const sameLength = length === this.secret.length;
    // `&` (not `&&`): both are always evaluated, whichever fails.
    return (Number(sameBytes) & Number(sameLength)) === 1;
  }
}
