import { boundedEditDistance } from '@weft/core/spi';

/** A service interface name: dotted identifiers (`org.acme.Greeter`). */
export const SERVICE_NAME = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;

/**
 * The candidate closest to `name` by bounded edit distance (or containing it / contained by it), if any is close.
 *
 * @remarks Allows 1 edit for names of up to 4 characters, 2 up to 8, else 3; ties keep the first candidate. A
 * candidate sharing the last dotted segment wins when no edit distance is close enough.
 * @example
 * ```ts
 * closestName('org.acme.Greter', ['org.acme.Greeter']); // 'org.acme.Greeter'
 * ```
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const max = name.length <= 4 ? 1 : name.length <= 8 ? 2 : 3;
  let best: string | undefined;
  let bestDistance = max + 1;
  const list = [...candidates];
  for (const candidate of list) {
    const distance = boundedEditDistance(name, candidate, max);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  if (best !== undefined) return best;
  const last = name.slice(name.lastIndexOf('.') + 1).toLowerCase();
  return list.find((c) => c.slice(c.lastIndexOf('.') + 1).toLowerCase() === last) ?? list.find((c) => c.toLowerCase().includes(name.toLowerCase()));
}
