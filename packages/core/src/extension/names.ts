import { ExtensionError, ExtensionErrorCode } from './extension-error.js';

/** Pattern every extension name must match: lowercase kebab-case (`tps`, `active-limit`, `injvm`). */
export const EXTENSION_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Pattern every extension point id must match: dotted, at least two segments (`weft.rpc.Filter`). */
export const EXTENSION_POINT_ID_PATTERN = /^[A-Za-z][A-Za-z0-9_-]*(?:\.[A-Za-z][A-Za-z0-9_-]*)+$/;

/** Names with a meaning of their own in lookups and `filter=` lists; never usable as extension names. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['default', 'true']);

/**
 * Why `name` cannot be an extension name, or `undefined` when it can.
 * @internal
 */
export function extensionNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || name.length === 0) return 'an extension name must be a non-empty string';
  if (name.startsWith('-')) return `"${name}" starts with "-", which is reserved for removal in filter lists`;
  if (RESERVED_NAMES.has(name)) return `"${name}" is reserved (it means "the default extension")`;
  if (!EXTENSION_NAME_PATTERN.test(name)) {
    return `"${name}" is not lowercase kebab-case (letters a-z, digits and single dashes, e.g. "active-limit")`;
  }
  return undefined;
}

/**
 * Throws `ERR_SPI_INVALID_NAME` unless `name` is a usable extension name.
 * @internal
 */
export function assertExtensionName(name: unknown, where: string): asserts name is string {
  const problem = extensionNameProblem(name);
  if (problem !== undefined) {
    throw new ExtensionError(ExtensionErrorCode.INVALID_NAME, `Invalid extension name in ${where}: ${problem}.`);
  }
}

/**
 * Splits a comma list the way Dubbo does: optional blanks, one or more commas, optional blanks.
 *
 * @remarks Runs of commas collapse; a leading comma yields a leading `""` element (as Dubbo's regex split).
 * Trailing empty elements are dropped, as Java's `String.split` does. The loader splits filter lists with it.
 * @example
 * ```ts
 * splitCommaList('-tps, default,,audit'); // ['-tps', 'default', 'audit']
 * ```
 */
export function splitCommaList(value: string): string[] {
  const parts = value.split(/\s*,+\s*/);
  while (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/**
 * Dubbo's `camelToSplitName(name, '.')`: `LoadBalance` → `load.balance`, `Protocol` → `protocol`.
 * @internal
 */
export function camelToDotted(name: string): string {
  if (!/^[A-Za-z0-9]+$/.test(name)) return name;
  let out = '';
  for (let i = 0; i < name.length; i++) {
    const ch = name[i] as string;
    if (i > 0 && ch >= 'A' && ch <= 'Z') out += '.';
    out += ch.toLowerCase();
  }
  return out;
}

/**
 * Edit distance, for "did you mean" hints in error messages.
 * @internal
 */
export function closestName(wanted: string, names: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of names) {
    const d = levenshtein(wanted, candidate);
    if (d < bestDistance) {
      bestDistance = d;
      best = candidate;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(wanted.length / 3)) ? best : undefined;
}

function levenshtein(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let previous = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const current = row[j] as number;
      row[j] = Math.min(
        (row[j] as number) + 1,
        (row[j - 1] as number) + 1,
        previous + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      previous = current;
    }
  }
  return row[b.length] as number;
}
