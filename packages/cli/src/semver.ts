/** A parsed semantic version. */
interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  readonly prerelease: readonly (string | number)[];
}

/** One primitive comparison; `synthetic` bounds (`<2.0.0-0` from `^1.2.3`) never admit prereleases. */
interface Comparator {
  readonly op: '<' | '<=' | '>' | '>=' | '=';
  readonly version: Version;
  readonly synthetic: boolean;
}

const VERSION = /^\s*[v=]?\s*(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?\s*$/;
const PARTIAL = /^[v=]?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(?:-([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?(?:\+[0-9A-Za-z.-]+)?$/;

function parseVersion(text: string): Version | undefined {
  const m = VERSION.exec(text);
  if (m === null) return undefined;
  return {
    major: Number(m[1]),
    minor: Number(m[2]),
    patch: Number(m[3]),
    prerelease: m[4] === undefined ? [] : m[4].split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)),
  };
}

function compare(a: Version, b: Version): number {
  const core = a.major - b.major || a.minor - b.minor || a.patch - b.patch;
  if (core !== 0) return core;
  if (a.prerelease.length === 0 || b.prerelease.length === 0) return b.prerelease.length - a.prerelease.length;
  for (let i = 0; i < Math.max(a.prerelease.length, b.prerelease.length); i++) {
    const x = a.prerelease[i];
    const y = b.prerelease[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    if (typeof x === 'number' && typeof y === 'number') return x - y;
    if (typeof x === 'number') return -1;
    if (typeof y === 'number') return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

const v = (major: number, minor: number, patch: number, prerelease: readonly (string | number)[] = []): Version => ({ major, minor, patch, prerelease });
/** The lowest version of a release line (`2.0.0-0`): an exclusive upper bound that also excludes its prereleases. */
const lowest = (major: number, minor: number, patch: number): Version => v(major, minor, patch, [0]);
const ge = (version: Version): Comparator => ({ op: '>=', version, synthetic: false });
const ltSynthetic = (version: Version): Comparator => ({ op: '<', version, synthetic: true });

/** A partial version (`1`, `1.2`, `1.x`, `*`): its numbers, undefined for wildcards/missing parts. */
interface Partial {
  readonly major: number | undefined;
  readonly minor: number | undefined;
  readonly patch: number | undefined;
  readonly prerelease: readonly (string | number)[];
}

function parsePartial(text: string): Partial | undefined {
  const m = PARTIAL.exec(text);
  if (m === null) return undefined;
  const num = (s: string | undefined) => (s === undefined || /^[xX*]$/.test(s) ? undefined : Number(s));
  const major = num(m[1]);
  const minor = major === undefined ? undefined : num(m[2]);
  const patch = minor === undefined ? undefined : num(m[3]);
  const prerelease = patch !== undefined && m[4] !== undefined ? m[4].split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)) : [];
  return { major, minor, patch, prerelease };
}

/** The comparators of one range element (`^1.2.3`, `>=1.2`, `1.x`…), or undefined when it is not understood. */
function comparatorsOf(token: string): Comparator[] | undefined {
  const m = /^(\^|~>?|>=|<=|>|<|=)?\s*(.*)$/.exec(token);
  if (m === null) return undefined;
  const op = m[1] ?? '';
  const p = parsePartial(m[2] as string);
  if (p === undefined) return undefined;
  const { major, minor, patch, prerelease } = p;
  if (major === undefined) return op === '<' || op === '>' ? [{ op: '<', version: v(0, 0, 0, [0]), synthetic: true }] : [];
  const full = minor !== undefined && patch !== undefined ? v(major, minor, patch, prerelease) : undefined;
  const floor = v(major, minor ?? 0, patch ?? 0, prerelease);
  switch (op) {
    case '^': {
      const upper =
        major > 0 || minor === undefined
          ? lowest(major + 1, 0, 0)
          : minor > 0 || patch === undefined
            ? lowest(0, minor + 1, 0)
            : lowest(0, 0, patch + 1);
      return [ge(floor), ltSynthetic(upper)];
    }
    case '~':
    case '~>':
      return [ge(floor), ltSynthetic(minor === undefined ? lowest(major + 1, 0, 0) : lowest(major, minor + 1, 0))];
    case '>=':
      return [ge(floor)];
    case '>':
      if (full !== undefined) return [{ op: '>', version: full, synthetic: false }];
      return [{ op: '>=', version: minor === undefined ? lowest(major + 1, 0, 0) : lowest(major, minor + 1, 0), synthetic: true }];
    case '<':
      return [{ op: '<', version: full ?? lowest(major, minor ?? 0, 0), synthetic: full === undefined }];
    case '<=':
      if (full !== undefined) return [{ op: '<=', version: full, synthetic: false }];
      return [ltSynthetic(minor === undefined ? lowest(major + 1, 0, 0) : lowest(major, minor + 1, 0))];
    default:
      if (full !== undefined) return [{ op: '=', version: full, synthetic: false }];
      return [ge(floor), ltSynthetic(minor === undefined ? lowest(major + 1, 0, 0) : lowest(major, minor + 1, 0))];
  }
}

function test(c: Comparator, version: Version): boolean {
  const d = compare(version, c.version);
  switch (c.op) {
    case '<':
      return d < 0;
    case '<=':
      return d <= 0;
    case '>':
      return d > 0;
    case '>=':
      return d >= 0;
    default:
      return d === 0;
  }
}

/** The comparator sets of a range (`||` alternatives), or undefined when any part is not understood. */
function parseRange(range: string): Comparator[][] | undefined {
  const sets: Comparator[][] = [];
  for (const alternative of range.split('||')) {
    const text = alternative.trim();
    const hyphen = /^(\S+)\s+-\s+(\S+)$/.exec(text);
    if (hyphen !== null) {
      const from = comparatorsOf(`>=${hyphen[1] as string}`);
      const to = comparatorsOf(`<=${hyphen[2] as string}`);
      if (from === undefined || to === undefined) return undefined;
      sets.push([...from, ...to]);
      continue;
    }
    const tokens = text.replace(/(\^|~>?|>=|<=|>|<|=)\s+/g, '$1').split(/\s+/).filter((t) => t !== '');
    const set: Comparator[] = [];
    for (const token of tokens) {
      const comparators = comparatorsOf(token);
      if (comparators === undefined) return undefined;
      set.push(...comparators);
    }
    sets.push(set);
  }
  return sets;
}

/**
 * Whether `version` satisfies the npm-style `range`; `undefined` when either cannot be understood.
 *
 * @remarks
 * A small implementation of node-semver's range grammar, enough for the ranges packages declare on
 * `@weft/core`: exact versions (`1.2.3`), `^`, `~`, comparators (`>=`, `>`, `<=`, `<`, `=`) joined by spaces,
 * x-ranges (`1.x`, `1.2`, `*`, empty), hyphen ranges (`1.2.3 - 2.0.0`) and `||` alternatives. As in npm, a
 * prerelease version (`1.3.0-beta.1`) satisfies a range only when a comparator of the same release line names
 * a prerelease too. Protocol ranges (`workspace:*`, `file:…`, `npm:…`, URLs) are not understood.
 * @example
 * ```ts
 * satisfiesRange('0.1.4', '^0.1.0');        // true
 * satisfiesRange('0.2.0', '^0.1.0');        // false
 * satisfiesRange('1.0.0', '>=0.1.0 <1.0.0'); // false
 * satisfiesRange('1.0.0', 'workspace:*');   // undefined
 * ```
 */
export function satisfiesRange(version: string, range: string): boolean | undefined {
  const parsed = parseVersion(version);
  const sets = parseRange(range);
  if (parsed === undefined || sets === undefined) return undefined;
  return sets.some((set) => {
    if (!set.every((c) => test(c, parsed))) return false;
    if (parsed.prerelease.length === 0) return true;
    return set.some(
      (c) =>
        !c.synthetic &&
        c.version.prerelease.length > 0 &&
        c.version.major === parsed.major &&
        c.version.minor === parsed.minor &&
        c.version.patch === parsed.patch,
    );
  });
}
