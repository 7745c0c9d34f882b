import { timingSafeEqual } from 'node:crypto';

/**
 * Compares a secret with a candidate in time that depends only on the secret's length.
 *
 * @remarks
 * Both strings are compared as UTF-8 bytes. The candidate is copied into a buffer of the secret's length
 * (truncated or zero-padded) and compared with `crypto.timingSafeEqual`, which needs equal lengths; the length
 * check is computed as well and combined without a short circuit. So the time taken does not reveal how many
 * leading bytes matched, nor whether the lengths differ — only the secret's length, which is fixed per provider,
 * and the candidate's, which the caller knows. An empty secret equals only an empty candidate.
 *
 * @example
 * ```ts
 * constantTimeEqual('s3cret', 's3cret'); // true
 * constantTimeEqual('s3cret', 's3cre');  // false, in the same time as any other 6-byte mismatch
 * ```
 */
export function constantTimeEqual(secret: string | Uint8Array, candidate: string | Uint8Array): boolean {
  const expected = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret;
  const given = typeof candidate === 'string' ? Buffer.from(candidate, 'utf8') : candidate;
  const padded = Buffer.alloc(expected.length);
  padded.set(given.length > expected.length ? given.subarray(0, expected.length) : given);
  const sameBytes = timingSafeEqual(padded, expected);
  const sameLength = given.length === expected.length;
  // `&` (not `&&`): both are always evaluated, whichever fails.
  return (Number(sameBytes) & Number(sameLength)) === 1;
}
