/**
 * Whether `list` starts with every element of `prefix`, in order (compared by identity); false for an empty `prefix`.
 * Registries deliver full lists, mostly the previous one plus new entries: this is how an appended list is spotted.
 * @internal
 */
export function startsWithList<T>(list: readonly T[], prefix: readonly T[]): boolean {
  if (prefix.length === 0 || prefix.length > list.length) return false;
  for (let i = 0; i < prefix.length; i++) if (list[i] !== prefix[i]) return false;
  return true;
}
