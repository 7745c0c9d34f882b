import type { ActivateMetadata } from './decorators.js';
import { ExtensionError, ExtensionErrorCode } from './extension-error.js';

/** What activation needs to read from a URL. */
export interface ActivateUrl {
  getParameter(key: string): string | undefined;
  getAnyMethodParameter(key: string): string | undefined;
}

/** An extension taking part in activation. */
export interface ActivateCandidate {
  readonly name: string;
  /** Its activation metadata; `undefined` for an extension without `@Activate` (activated only by name). */
  readonly activate: ActivateMetadata | undefined;
}

/**
 * `ConfigUtils.isNotEmpty`: set, and not `""`, `false`, `0`, `null` or `N/A` (case-insensitive).
 * @example
 * ```ts
 * isConfigNotEmpty('N/A'); // false
 * ```
 */
export function isConfigNotEmpty(value: string | undefined): value is string {
  if (value === undefined || value === '') return false;
  const lower = value.toLowerCase();
  return lower !== 'false' && lower !== '0' && lower !== 'null' && lower !== 'n/a';
}

/**
 * Selects and orders the names of the extensions to activate, with Dubbo 3.x semantics.
 *
 * @remarks
 * 1. Automatic activation (skipped when `-default` is listed): an extension with activation metadata is
 *    included when its groups contain `group` (any extension when no group is asked), it is neither listed
 *    nor removed (`-name`), and it has no `value` conditions or any of them holds: `key` set to a
 *    ConfigUtils-not-empty value (plain, else any method-level `method.key`), or `key:expected` equal.
 * 2. Explicit names: with `default` in the list, the result follows the list, `default` expanding to the
 *    automatic set (duplicates kept, as Dubbo); without it, listed names join the automatic set and are sorted
 *    with it. `-name` removes; unknown names are skipped (3.x). Group and value are not checked for them.
 *
 * Ordering is a total order, unlike Dubbo's comparator: ascending `order`, `before`/`after` as real
 * topological constraints (a cycle is an `ERR_SPI_CYCLE` error naming it), then extension name.
 * @example
 * ```ts
 * const names = selectActivated('weft.rpc.Filter', candidates, url, ['-tps', 'default'], 'provider');
 * ```
 * @throws `ERR_SPI_CYCLE` when the before/after constraints of the selected extensions form a cycle.
 */
export function selectActivated(
  pointId: string,
  candidates: readonly ActivateCandidate[],
  url: ActivateUrl,
  values: readonly string[] | undefined,
  group: string | undefined,
): string[] {
  const names = (values ?? []).map((v) => v.trim());
  const namesSet = new Set(names);
  const byName = new Map<string, ActivateCandidate>();
  for (const c of candidates) byName.set(c.name, c);

  const automatic: string[] = [];
  if (!namesSet.has('-default')) {
    for (const c of candidates) {
      const meta = c.activate;
      if (meta === undefined) continue;
      if (group !== undefined && group !== '' && !meta.groups.includes(group)) continue;
      if (namesSet.has(c.name) || namesSet.has(`-${c.name}`)) continue;
      if (!conditionsHold(meta, url)) continue;
      automatic.push(c.name);
    }
  }

  if (namesSet.has('default')) {
    const sortedAutomatic = sortActivated(pointId, automatic, byName);
    const result: string[] = [];
    for (const name of names) {
      if (name.startsWith('-') || namesSet.has(`-${name}`)) continue;
      if (name === 'default') result.push(...sortedAutomatic);
      else if (byName.has(name)) result.push(name);
    }
    return result;
  }
  const merged = new Set(automatic);
  for (const name of names) {
    if (name === '' || name.startsWith('-') || namesSet.has(`-${name}`)) continue;
    if (byName.has(name)) merged.add(name);
  }
  return sortActivated(pointId, [...merged], byName);
}

function conditionsHold(meta: ActivateMetadata, url: ActivateUrl): boolean {
  if (meta.conditions.length === 0) return true;
  for (const { key, expected } of meta.conditions) {
    let real = url.getParameter(key);
    if (real === undefined || real === '') real = url.getAnyMethodParameter(key);
    if (expected !== undefined ? expected === real : isConfigNotEmpty(real)) return true;
  }
  return false;
}

/**
 * Orders extension names: ascending `order`, then `before`/`after` constraints, then name.
 *
 * @remarks Kahn's algorithm that always takes the smallest `(order, name)` among the names whose
 * predecessors are placed, so without constraints it is a plain sort, and with them the result is the
 * sorted order disturbed as little as the constraints require. Constraints naming absent extensions are
 * ignored. A cycle is reported as `ERR_SPI_CYCLE` naming its members in order and the constraints that form it
 * (names stuck only behind the cycle are not named).
 * @internal
 */
export function sortActivated(
  pointId: string,
  names: readonly string[],
  byName: ReadonlyMap<string, ActivateCandidate>,
): string[] {
  const orderOf = (n: string) => byName.get(n)?.activate?.order ?? 0;
  const compare = (a: string, b: string) => orderOf(a) - orderOf(b) || (a < b ? -1 : a > b ? 1 : 0);
  const present = new Set(names);
  const successors = new Map<string, Set<string>>();
  const inDegree = new Map<string, number>();
  for (const n of present) {
    successors.set(n, new Set());
    inDegree.set(n, 0);
  }
  const edge = (from: string, to: string) => {
    if (from === to || !present.has(from) || !present.has(to)) return;
    const set = successors.get(from) as Set<string>;
    if (!set.has(to)) {
      set.add(to);
      inDegree.set(to, (inDegree.get(to) as number) + 1);
    }
  };
  let constrained = false;
  for (const n of present) {
    const meta = byName.get(n)?.activate;
    if (meta === undefined) continue;
    for (const b of meta.before) {
      edge(n, b);
      constrained = true;
    }
    for (const a of meta.after) {
      edge(a, n);
      constrained = true;
    }
  }
  const sorted = [...present].sort(compare);
  if (!constrained) return sorted;

  const result: string[] = [];
  const ready = sorted.filter((n) => inDegree.get(n) === 0);
  while (ready.length > 0) {
    ready.sort(compare);
    const next = ready.shift() as string;
    result.push(next);
    for (const s of successors.get(next) as Set<string>) {
      const d = (inDegree.get(s) as number) - 1;
      inDegree.set(s, d);
      if (d === 0) ready.push(s);
    }
  }
  if (result.length < present.size) {
    const stuck = new Set(sorted.filter((n) => !result.includes(n)));
    const cycle = findCycle(sorted.filter((n) => stuck.has(n)), stuck, successors);
    throw new ExtensionError(
      ExtensionErrorCode.CYCLE,
      `The before/after constraints of ${pointId} extensions form a cycle: ${cycle.join(' → ')} ` +
        `(${describeCycle(cycle, byName)}). Remove one of these constraints.`,
    );
  }
  return result;
}

/**
 * One cycle among the names Kahn's algorithm could not place, as a closed path `[a, b, …, a]` following the
 * constraint edges and starting at its smallest member (in sort order), so the message is deterministic.
 *
 * @remarks Every stuck name has a stuck predecessor, so walking predecessors must revisit a name; the names
 * from that revisit on form a cycle. Names stuck only because they come after a cycle are not part of it.
 */
function findCycle(
  stuckSorted: readonly string[],
  stuck: ReadonlySet<string>,
  successors: ReadonlyMap<string, ReadonlySet<string>>,
): string[] {
  const predecessors = new Map<string, string[]>();
  for (const n of stuckSorted) predecessors.set(n, []);
  for (const from of stuckSorted) {
    for (const to of successors.get(from) ?? []) {
      if (stuck.has(to)) (predecessors.get(to) as string[]).push(from);
    }
  }
  const walk: string[] = [];
  const seenAt = new Map<string, number>();
  let current = stuckSorted[0] as string;
  while (!seenAt.has(current)) {
    seenAt.set(current, walk.length);
    walk.push(current);
    current = (predecessors.get(current) as string[])[0] as string;
  }
  // walk[seenAt(current)..] follows edges backwards; reverse it to follow them forwards.
  const backwards = walk.slice(seenAt.get(current));
  const forwards = [backwards[0] as string, ...backwards.slice(1).reverse()];
  const rank = new Map(stuckSorted.map((n, i) => [n, i]));
  let start = 0;
  for (let i = 1; i < forwards.length; i++) {
    if ((rank.get(forwards[i] as string) as number) < (rank.get(forwards[start] as string) as number)) start = i;
  }
  const rotated = [...forwards.slice(start), ...forwards.slice(0, start)];
  return [...rotated, rotated[0] as string];
}

/** The constraints behind each edge of a closed path, e.g. `a: before b; c: after b`. */
function describeCycle(cycle: readonly string[], byName: ReadonlyMap<string, ActivateCandidate>): string {
  const parts: string[] = [];
  for (let i = 0; i + 1 < cycle.length; i++) {
    const from = cycle[i] as string;
    const to = cycle[i + 1] as string;
    if (byName.get(from)?.activate?.before.includes(to)) parts.push(`${from}: before ${to}`);
    if (byName.get(to)?.activate?.after.includes(from)) parts.push(`${to}: after ${from}`);
  }
  return parts.join('; ');
}

/** Why an extension is, or is not, in an activated list. */
export type ActivationReason =
  | 'activated'
  | 'explicit'
  | 'removed'
  | 'default-removed'
  | 'group-mismatch'
  | 'no-group'
  | 'key-missing'
  | 'not-activatable';

/** One extension's verdict in {@link explainActivation}. */
export interface ActivationVerdict {
  readonly name: string;
  /** Position in the resulting list (0-based), or -1 when it is out. */
  readonly position: number;
  readonly reason: ActivationReason;
  /** A sentence a user can read: why it is in or out. */
  readonly detail: string;
}

/**
 * Explains `selectActivated`: the resulting order, and for every candidate why it is in or out.
 *
 * @remarks Works on activation metadata alone (manifests), so tools can explain a chain without importing any
 * extension code. Uses exactly the rules of {@link selectActivated}.
 * @example
 * ```ts
 * const verdicts = explainActivation('weft.rpc.Filter', candidates, url, ['-tps', 'default'], 'provider');
 * ```
 */
export function explainActivation(
  pointId: string,
  candidates: readonly ActivateCandidate[],
  url: ActivateUrl,
  values: readonly string[] | undefined,
  group: string | undefined,
): { readonly order: readonly string[]; readonly verdicts: readonly ActivationVerdict[] } {
  const order = selectActivated(pointId, candidates, url, values, group);
  const names = new Set((values ?? []).map((v) => v.trim()));
  const verdicts = candidates.map((c): ActivationVerdict => {
    const position = order.indexOf(c.name);
    const meta = c.activate;
    const explicit = names.has(c.name);
    if (position >= 0) {
      if (explicit) return { name: c.name, position, reason: 'explicit', detail: `named explicitly in the list` };
      const keys = meta?.conditions.map((k) => (k.expected === undefined ? k.key : `${k.key}:${k.expected}`)) ?? [];
      return {
        name: c.name,
        position,
        reason: 'activated',
        detail:
          `activated automatically (group ${meta?.groups.join('/') || 'any'}` +
          (keys.length > 0 ? `, URL key ${keys.join(' or ')} set` : ', no URL key needed') +
          `, order ${meta?.order ?? 0})`,
      };
    }
    if (names.has(`-${c.name}`)) return { name: c.name, position, reason: 'removed', detail: `removed by "-${c.name}"` };
    if (meta === undefined) {
      return { name: c.name, position, reason: 'not-activatable', detail: 'has no activation metadata: only used when named explicitly' };
    }
    if (names.has('-default')) return { name: c.name, position, reason: 'default-removed', detail: 'automatic activation disabled by "-default"' };
    if (group !== undefined && group !== '') {
      if (meta.groups.length === 0) {
        return { name: c.name, position, reason: 'no-group', detail: `declares no group, so it never activates in group "${group}"` };
      }
      if (!meta.groups.includes(group)) {
        return { name: c.name, position, reason: 'group-mismatch', detail: `activates in group ${meta.groups.join('/')}, not "${group}"` };
      }
    }
    const keys = meta.conditions.map((k) => (k.expected === undefined ? k.key : `${k.key}=${k.expected}`));
    return { name: c.name, position, reason: 'key-missing', detail: `needs URL key ${keys.join(' or ')} (at interface or method level)` };
  });
  return { order, verdicts };
}
