import type { Invocation, Invoker, URL } from '@weft/core';

import { describe, RuleError, type Plain } from '../rule-source.js';
import { parseCondition, type Condition } from './condition-rule.js';

/** One `to` entry of a v3.1 rule: a then-condition (`undefined`: every provider) and its weight. */
export interface Destination {
  readonly then: Condition | undefined;
  readonly weight: number;
}

function isPlain(value: unknown): value is Plain {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parseSide(text: string, where: string): Condition {
  try {
    return parseCondition(text);
  } catch (error) {
    throw new RuleError(`${where} "${text}": ${(error as Error).message}`);
  }
}

/**
 * One condition of a `configVersion: v3.1` rule: `from.match` selects the calls, and one of the `to` subsets is
 * drawn by weight (Dubbo's `MultiDestConditionRouter`).
 *
 * @remarks No `consumer.`/`provider.` stripping; a missing or blank (`true`) `from.match` matches every call; a
 * missing, blank or `false` `to[].match` matches every provider; a missing or non-positive weight is 100. Among
 * the destinations whose subset is non-empty, one is drawn: `r` uniform in `[0, Σw)`, the first whose running
 * sum reaches `r` (Dubbo's walk). No non-empty destination: nobody with `force`, else the input unchanged.
 * @example
 * ```ts
 * MultiDestinationRule.parse({ from: { match: 'region=hz' }, to: [{ match: 'region=$region', weight: 90 }, { match: 'region=sh', weight: 10 }] }, false, 'conditions[0]');
 * ```
 */
export class MultiDestinationRule {
  private constructor(
    readonly text: string,
    readonly when: Condition,
    readonly destinations: readonly Destination[],
    readonly force: boolean,
  ) {}

  /** Parses one `{from, to}` condition. @throws {@link RuleError} */
  static parse(raw: unknown, force: boolean, where: string): MultiDestinationRule {
    if (!isPlain(raw)) throw new RuleError(`${where} must be a map {from: {match}, to: [{match, weight}]}; got ${describe(raw)}`);
    const from = raw['from'];
    if (from !== undefined && from !== null && !isPlain(from)) throw new RuleError(`${where}.from must be a map {match}; got ${describe(from)}`);
    const fromMatch = from?.['match'];
    const whenText = fromMatch === undefined || fromMatch === null ? '' : String(fromMatch).trim();
    const when = whenText === '' || whenText === 'true' ? new Map() : parseSide(whenText, `${where}.from.match`);
    const to = raw['to'] ?? [];
    if (!Array.isArray(to)) throw new RuleError(`${where}.to must be a list of {match, weight}; got ${describe(to)}`);
    const destinations = to.map((entry: unknown, i: number): Destination => {
      const at = `${where}.to[${i}]`;
      if (!isPlain(entry)) throw new RuleError(`${at} must be a map {match, weight}; got ${describe(entry)}`);
      const match = entry['match'];
      const thenText = match === undefined || match === null ? '' : String(match).trim();
      const weightRaw = entry['weight'];
      let weight = 100;
      if (weightRaw !== undefined && weightRaw !== null) {
        const n = typeof weightRaw === 'string' && /^[+-]?\d+$/.test(weightRaw.trim()) ? Number(weightRaw) : weightRaw;
        if (typeof n !== 'number' || !Number.isInteger(n)) throw new RuleError(`${at}.weight must be an integer; got ${describe(weightRaw)}`);
        weight = n > 0 ? n : 100;
      }
      return { then: thenText === '' || thenText === 'false' ? undefined : parseSide(thenText, `${at}.match`), weight };
    });
    const text = `${whenText} => ${destinations.map((d) => `${d.then === undefined ? '*' : [...d.then.values()].join(' & ')} (${d.weight})`).join(' | ')}`;
    return new MultiDestinationRule(text, when, destinations, force);
  }

  /** Whether a when-part reads arguments or attachments. */
  get readsInvocation(): boolean {
    for (const clause of this.when.values()) if (clause.kind !== 'url') return true;
    return false;
  }

  /** Whether a call is concerned. */
  matchWhen(consumerUrl: URL, invocation: Invocation): boolean {
    for (const clause of this.when.values()) if (!clause.isMatch(consumerUrl, undefined, invocation, true)) return false;
    return true;
  }

  /** The providers of each destination (`undefined`: every provider), computed when providers or rules change. */
  prepare(invokers: readonly Invoker[], consumerUrl: URL, registered: (invoker: Invoker) => URL): (ReadonlySet<Invoker> | undefined)[] {
    return this.destinations.map((d) => {
      const then = d.then;
      if (then === undefined) return undefined;
      const set = new Set<Invoker>();
      for (const invoker of invokers) {
        const url = registered(invoker);
        let all = then.size > 0;
        for (const clause of then.values()) {
          if (!clause.isMatch(url, consumerUrl, undefined, false)) {
            all = false;
            break;
          }
        }
        if (all) set.add(invoker);
      }
      return set;
    });
  }

  /** Routes one call; `random()` is uniform in [0, 1). */
  route(invokers: readonly Invoker[], consumerUrl: URL, invocation: Invocation, subsets: readonly (ReadonlySet<Invoker> | undefined)[], random: () => number): readonly Invoker[] {
    if (invokers.length === 0 || !this.matchWhen(consumerUrl, invocation)) return invokers;
    if (this.destinations.length === 0) return [];
    const candidates: { readonly invokers: readonly Invoker[]; readonly weight: number }[] = [];
    let total = 0;
    this.destinations.forEach((d, i) => {
      const subset = subsets[i];
      const chosen = subset === undefined ? invokers : invokers.filter((x) => subset.has(x));
      if (chosen.length > 0) {
        candidates.push({ invokers: chosen, weight: d.weight });
        total += d.weight;
      }
    });
    if (candidates.length === 0) return this.force ? [] : invokers;
    if (candidates.length === 1) return candidates[0]!.invokers;
    const r = Math.floor(random() * total);
    let sum = 0;
    for (const c of candidates) {
      sum += c.weight;
      if (r - sum <= 0) return c.invokers;
    }
    return candidates[candidates.length - 1]!.invokers;
  }

  toString(): string {
    return this.text;
  }
}
