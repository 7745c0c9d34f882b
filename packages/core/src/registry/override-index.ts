import type { URL } from '../rpc/url.js';
import { Configurator, RuleTarget } from './configurator.js';
import { startsWithList } from './list-prefix.js';
import type { TimeSlicer } from './time-slicer.js';

/** One rule of an {@link OverrideIndex}: the configurator, where it is indexed, and its arrival order. */
interface IndexedRule {
  readonly configurator: Configurator;
  /** The rule's string form (its identity across notifications). */
  readonly key: string;
  /** The buckets it lives in (see `bucketsOf`); `undefined` when it can never apply here. */
  readonly buckets: readonly string[] | undefined;
  /** Arrival order: among rules of equal host and priority, the later one wins. */
  readonly seq: number;
}

/** The configured form of one URL: the result, and the addressed parameters that changed it (in order). */
export interface ConfiguredUrl {
  readonly url: URL;
  /** Parameters set by rules naming a provider address (`host:port`) that changed this URL. */
  readonly addressed: ReadonlyArray<readonly [string, string]>;
  /** The rules that matched this URL. */
  readonly matched: readonly Configurator[];
}

/** What committing a plan changes in its index (the index's own bookkeeping). */
interface PlanChanges {
  /** The index the plan was made by, and its version then: a plan committed elsewhere or later is re-planned. */
  readonly owner: OverrideIndex;
  readonly version: number;
  /** The rule list planned (a copy): the next list that starts with it only adds rules. */
  readonly list: readonly Configurator[];
  readonly added: readonly IndexedRule[];
  /** The added rules by key (put in force as the index's own map when it had none). */
  readonly fresh: Map<string, IndexedRule>;
  readonly removed: readonly IndexedRule[];
  /** The new contents of the buckets the change touched, in application order. */
  readonly buckets: ReadonlyMap<string, readonly IndexedRule[]>;
}

/** What {@link OverrideIndex.plan} computed: the new rule set, not yet in force. */
export interface OverridePlan {
  readonly added: readonly Configurator[];
  readonly removed: number;
  /** Whether a rule that can reach every URL changed (then every URL was recomputed). */
  readonly general: boolean;
  /** The URL keys (see {@link OverrideIndex.urlKeyOf}) recomputed, and their new forms. */
  readonly recomputed: ReadonlyMap<string, ConfiguredUrl>;
  /** The rules that matched at least one recomputed URL. */
  readonly matched: ReadonlySet<Configurator>;
  /** @internal */
  readonly changes: PlanChanges;
}

const GENERAL = 'general';
const NEVER: readonly string[] | undefined = undefined;
const IN_GENERAL: readonly string[] = Object.freeze([GENERAL]);
const NO_BUCKETS: readonly string[] = Object.freeze([]);
const NO_RULES: readonly IndexedRule[] = Object.freeze([]);
const NO_CONFIGURATORS: readonly Configurator[] = Object.freeze([]);
const NO_PARAMETERS: ReadonlyArray<readonly [string, string]> = Object.freeze([]);

/**
 * The override rules of one consumer, indexed so that a URL meets only the rules that can match it, and updated
 * incrementally.
 *
 * @remarks
 * Every rule is put in the bucket(s) of the URLs it can reach, decided once from the rule and the consumer URL
 * (its host and application): `addr:<host>:<port>` / `*:<port>` (legacy rules naming a provider address),
 * `pa:<address or host>` (port-less rules with `providerAddresses`), `general` (port-less rules for this consumer —
 * they reach every URL), or none (a rule for another application, a provider-side rule, `enabled=false`, a rule for
 * another host). Each bucket is kept in application order (host string, `priority`, then arrival), so a URL's
 * candidates are its few buckets merged; the full Dubbo decision (`Configurator.configure`'s) then runs on each
 * candidate only, and the parameters are collected into one edit, so configuring a URL costs O(candidates), not
 * O(all rules).
 *
 * A new rule list (in any order) is diffed against the current one by the rules' string forms
 * ({@link OverrideIndex.plan}); a list that starts with the same rule objects as the last one committed only adds
 * the rest, and is diffed in O(new rules). Only the URLs in the buckets of added or removed rules are recomputed (all
 * of them when a `general` rule changed). The plan is computed in time slices ({@link TimeSlicer}) and does not touch
 * the index: the current rules stay in force until {@link OverrideIndex.commit}. {@link OverrideIndex.evaluations}
 * counts rule-vs-URL match evaluations.
 * @example
 * ```ts
 * const index = new OverrideIndex(consumerUrl);
 * const plan = await index.plan(Configurator.toConfigurators(urls) ?? [], providers, new TimeSlicer());
 * index.commit(plan);
 * ```
 */
export class OverrideIndex {
  private rules = new Map<string, IndexedRule>();
  /** Bucket name → its rules, in application order. */
  private readonly buckets = new Map<string, readonly IndexedRule[]>();
  private readonly results = new Map<string, ConfiguredUrl>();
  /** The rule list of the last plan committed. */
  private list: readonly Configurator[] = NO_CONFIGURATORS;
  /** Bumped by every commit: a plan made before it is re-planned when committed. */
  private version = 0;
  private seq = 0;
  /** The bucket list of the rules naming one address, by host then port (one array for all of them). */
  private readonly addressBuckets = new Map<string, Map<number, readonly string[]>>();
  /** Service keys shared by the rules and the URLs compared with them (see `Configurator.shareStrings`). */
  private readonly strings = new Map<string, string>();
  /** The bucket names each URL configured draws from. */
  private readonly urlBuckets = new WeakMap<URL, readonly string[]>();
  /** Rule-vs-URL match evaluations made so far (for tests and benchmarks). */
  evaluations = 0;

  constructor(private readonly consumerUrl: URL) {}

  /** Number of rules in force. */
  get size(): number {
    return this.rules.size;
  }

  /** The rules in force, in application order. */
  configurators(): Configurator[] {
    return [...this.rules.values()].sort(compareRules).map((r) => r.configurator);
  }

  /** The rule in force whose string form is `key`, if any. */
  configuratorOf(key: string): Configurator | undefined {
    return this.rules.get(key)?.configurator;
  }

  /** The key a URL's configured form is kept under. */
  urlKeyOf(url: URL): string {
    return url.toString();
  }

  /** The configured form of `url` under the rules in force (cached; computed on first use). */
  configured(url: URL): ConfiguredUrl {
    const key = this.urlKeyOf(url);
    let result = this.results.get(key);
    if (result === undefined) {
      result = this.compute(url, undefined, undefined);
      this.results.set(key, result);
    }
    return result;
  }

  /** Forgets the cached forms of URLs not in `keep` (vanished providers). */
  retain(keep: ReadonlySet<string>): void {
    const own = this.urlKeyOf(this.consumerUrl);
    for (const key of this.results.keys()) if (!keep.has(key) && key !== own) this.results.delete(key);
  }

  /**
   * Computes what `next` (the full new rule list) changes for `urls` (the URLs currently configured: the consumer
   * URL and the merged provider URLs), yielding to the event loop between slices. Nothing changes until `commit`.
   */
  async plan(next: readonly Configurator[], urls: readonly URL[], slicer: TimeSlicer): Promise<OverridePlan> {
    const steps = this.planSteps(next, urls, slicer);
    for (;;) {
      const step = steps.next();
      if (step.done === true) return step.value;
      await slicer.pause();
    }
  }

  /** As {@link OverrideIndex.plan}, in one synchronous step (small rule sets, programmatic changes). */
  planNow(next: readonly Configurator[], urls: readonly URL[]): OverridePlan {
    const steps = this.planSteps(next, urls, undefined);
    for (;;) {
      const step = steps.next();
      if (step.done === true) return step.value;
    }
  }

  private *planSteps(next: readonly Configurator[], urls: readonly URL[], slicer: TimeSlicer | undefined): Generator<void, OverridePlan> {
    const version = this.version;
    const list = next.slice();
    const last = this.list;
    const appended = last.length === 0 || startsWithList(list, last);
    const added: IndexedRule[] = [];
    const fresh = new Map<string, IndexedRule>();
    const removed: IndexedRule[] = [];
    const inForce = this.rules;
    if (appended) {
      // The rules in force, then new ones: nothing removed, only the tail to look at.
      for (let i = last.length; i < list.length; i++) {
        const configurator = list[i] as Configurator;
        const key = configurator.url.toString();
        if (!fresh.has(key) && (inForce.size === 0 || !inForce.has(key))) {
          const rule = this.indexed(configurator, key, added.length);
          fresh.set(key, rule);
          added.push(rule);
        }
        if (slicer?.due() === true) yield;
      }
    } else {
      const seen = new Set<string>();
      for (let i = 0; i < list.length; i++) {
        const configurator = list[i] as Configurator;
        const key = configurator.url.toString();
        if (!seen.has(key)) {
          seen.add(key);
          if (!inForce.has(key)) {
            const rule = this.indexed(configurator, key, added.length);
            fresh.set(key, rule);
            added.push(rule);
          }
        }
        if (slicer?.due() === true) yield;
      }
      if (seen.size !== this.rules.size + added.length) {
        // Some rules in force are not in the new list.
        for (const rule of this.rules.values()) {
          if (!seen.has(rule.key)) removed.push(rule);
          if (slicer?.due() === true) yield;
        }
      }
    }
    // Buckets are copied on write: only the touched ones, each kept in application order.
    const touched = new Set<string>();
    const addedTo = new Map<string, IndexedRule[]>();
    for (const rule of added) {
      for (const bucket of rule.buckets ?? NO_BUCKETS) {
        touched.add(bucket);
        const into = addedTo.get(bucket);
        if (into === undefined) addedTo.set(bucket, [rule]);
        else into.push(rule);
      }
    }
    for (const rule of removed) for (const bucket of rule.buckets ?? NO_BUCKETS) touched.add(bucket);
    const gone = removed.length > 0 ? new Set(removed) : undefined;
    const buckets = new Map<string, readonly IndexedRule[]>();
    for (const bucket of touched) {
      const old = this.buckets.get(bucket) ?? NO_RULES;
      const kept = gone === undefined ? old : old.filter((rule) => !gone.has(rule));
      const into = addedTo.get(bucket);
      buckets.set(bucket, into === undefined ? kept : merge(kept, into.sort(compareRules)));
      if (slicer?.due() === true) yield;
    }
    const general = touched.has(GENERAL);
    const recomputed = new Map<string, ConfiguredUrl>();
    for (const url of urls) {
      const key = this.urlKeyOf(url);
      if (recomputed.has(key)) continue;
      if (!general && this.results.has(key) && !this.bucketNamesOf(url).some((k) => touched.has(k))) continue;
      const result = this.compute(url, buckets, slicer);
      recomputed.set(key, result);
      if (slicer?.due() === true) yield;
    }
    const changes: PlanChanges = { owner: this, version, list, added, fresh, removed, buckets };
    let matched: Set<Configurator> | undefined;
    return {
      added: added.map((r) => r.configurator),
      removed: removed.length,
      general,
      recomputed,
      get matched(): ReadonlySet<Configurator> {
        // Collected on first use (most callers never ask).
        if (matched === undefined) {
          matched = new Set();
          for (const result of recomputed.values()) for (const configurator of result.matched) matched.add(configurator);
        }
        return matched;
      },
      changes,
    };
  }

  /** Puts a plan in force. */
  commit(plan: OverridePlan): void {
    const changes = plan.changes;
    if (changes.owner !== this || changes.version !== this.version) {
      // Made by another index, or before another commit: put its rule list in force from scratch.
      this.rules.clear();
      this.buckets.clear();
      this.results.clear();
      this.list = NO_CONFIGURATORS;
      this.version++;
      this.commit(this.planNow(changes.list, []));
      return;
    }
    if (this.rules.size === 0) this.rules = changes.fresh; // nothing to remove: the plan's map is the new one
    else {
      for (const rule of changes.removed) this.rules.delete(rule.key);
      for (const rule of changes.added) this.rules.set(rule.key, rule);
    }
    for (const [bucket, rules] of changes.buckets) {
      if (rules.length === 0) this.buckets.delete(bucket);
      else this.buckets.set(bucket, rules);
    }
    this.seq += changes.added.length;
    this.list = changes.list;
    this.version++;
    for (const [key, result] of plan.recomputed) this.results.set(key, result);
    if (plan.general) {
      // URLs not given to plan() (none normally) would keep stale forms: drop them.
      for (const key of this.results.keys()) if (!plan.recomputed.has(key)) this.results.delete(key);
    }
  }

  private indexed(configurator: Configurator, key: string, offset: number): IndexedRule {
    const buckets = this.bucketsOf(configurator);
    // The rule is compared with the URLs it can reach on every recompute: share its strings with theirs.
    if (buckets !== undefined) configurator.shareStrings(this.strings);
    return { configurator, key, buckets, seq: this.seq + offset };
  }

  /** Applies the candidate rules of `url` (from `overlay`, the buckets a plan changed, else those in force). */
  private compute(url: URL, overlay: ReadonlyMap<string, readonly IndexedRule[]> | undefined, slicer: TimeSlicer | undefined): ConfiguredUrl {
    let candidates: readonly IndexedRule[] | undefined;
    for (const name of this.bucketNamesOf(url)) {
      const bucket = overlay?.get(name) ?? this.buckets.get(name);
      if (bucket !== undefined && bucket.length > 0) candidates = candidates === undefined ? bucket : merge(candidates, bucket);
    }
    if (candidates === undefined) return { url, addressed: NO_PARAMETERS, matched: NO_CONFIGURATORS };
    const target = new RuleTarget(url, this.consumerUrl.host, this.strings);
    let addressed: Array<readonly [string, string]> | undefined;
    const matched: Configurator[] = [];
    for (const rule of candidates) {
      this.evaluations++;
      slicer?.count();
      const configurator = rule.configurator;
      if (!configurator.matches(target)) continue;
      matched.push(configurator);
      if (configurator.applyTo(target) && configurator.addressed) {
        addressed ??= [];
        for (const entry of configurator.appliedEntries) addressed.push(entry);
      }
    }
    return { url: target.configured(), addressed: addressed ?? NO_PARAMETERS, matched };
  }

  /** The buckets a URL draws its candidate rules from. */
  private bucketNamesOf(url: URL): readonly string[] {
    let names = this.urlBuckets.get(url);
    if (names === undefined) {
      const host = url.host;
      const port = url.port;
      const address = url.getAddress();
      names =
        address === host
          ? [`addr:${host}:${port}`, `*:${port}`, `pa:${host}`, GENERAL]
          : [`addr:${host}:${port}`, `*:${port}`, `pa:${address}`, `pa:${host}`, GENERAL];
      this.urlBuckets.set(url, names);
    }
    return names;
  }

  /**
   * The buckets of the URLs a rule can reach from this consumer (conservative: when unsure, `general`). The URLs a
   * consumer's directory configures all carry the consumer's `side` and `application` (the consumer's parameters win
   * in the provider merge), which is what lets rules for another side or application be set aside.
   */
  private bucketsOf(rule: Configurator): readonly string[] | undefined {
    if (!rule.isEnabled || rule.host === '') return NEVER;
    const consumer = this.consumerUrl;
    const side = consumer.getSide();
    const application = consumer.getApplication();
    const ruleApp = rule.targetApplication;
    if (application && ruleApp !== undefined && ruleApp !== '*' && ruleApp !== application) return NEVER;
    const versionedSide = rule.versionedSide;
    const port = rule.url.port;
    if (versionedSide === undefined && port !== 0) return this.addressBucket(rule.host, port);
    if (side !== 'consumer') return IN_GENERAL;
    if (versionedSide !== undefined && versionedSide !== 'consumer') return NEVER;
    if (rule.host !== '0.0.0.0' && rule.host !== consumer.host) return NEVER;
    const addresses = rule.targetAddresses;
    if (addresses === undefined) return IN_GENERAL;
    const out = new Set<string>();
    for (const a of addresses) {
      if (a === '0.0.0.0' || a === '0.0.0.0:*') return IN_GENERAL;
      if (a.startsWith('0.0.0.0:')) out.add(`*:${a.slice('0.0.0.0:'.length)}`);
      else out.add(`pa:${a}`);
    }
    return [...out];
  }

  /** `[addr:<host>:<port>]`, or `[*:<port>]` for `0.0.0.0`: one array shared by every rule naming that address. */
  private addressBucket(host: string, port: number): readonly string[] {
    let ports = this.addressBuckets.get(host);
    if (ports === undefined) this.addressBuckets.set(host, (ports = new Map()));
    let bucket = ports.get(port);
    if (bucket === undefined) {
      bucket = Object.freeze([host === '0.0.0.0' ? `*:${port}` : `addr:${host}:${port}`]);
      ports.set(port, bucket);
    }
    return bucket;
  }
}

function compareRules(a: IndexedRule, b: IndexedRule): number {
  return Configurator.compare(a.configurator, b.configurator) || a.seq - b.seq;
}

/** Merges two lists in application order (a new list, or one of them when the other is empty; never mutated). */
function merge(a: readonly IndexedRule[], b: readonly IndexedRule[]): readonly IndexedRule[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  if (compareRules(a[a.length - 1] as IndexedRule, b[0] as IndexedRule) < 0) return a.concat(b);
  if (compareRules(b[b.length - 1] as IndexedRule, a[0] as IndexedRule) < 0) return b.concat(a);
  const out: IndexedRule[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as IndexedRule;
    const y = b[j] as IndexedRule;
    if (compareRules(x, y) < 0) {
      out.push(x);
      i++;
    } else {
      out.push(y);
      j++;
    }
  }
  while (i < a.length) out.push(a[i++] as IndexedRule);
  while (j < b.length) out.push(b[j++] as IndexedRule);
  return out;
}
