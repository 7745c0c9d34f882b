import type { URL } from '../rpc/url.js';
import { Configurator } from './configurator.js';
import { TimeSlicer } from './time-slicer.js';

/** One rule of an {@link OverrideIndex}: the configurator, where it is indexed, and its arrival order. */
interface IndexedRule {
  readonly configurator: Configurator;
  /** The rule's string form (its identity across notifications). */
  readonly key: string;
  /** The bucket it lives in (see {@link bucketsOf}); `undefined` when it can never apply here. */
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
  readonly rules: Map<string, IndexedRule>;
  /** @internal */
  readonly buckets: Map<string, Set<IndexedRule>>;
}

const GENERAL = 'general';
const NEVER: readonly string[] | undefined = undefined;

/**
 * The override rules of one consumer, indexed so that a URL meets only the rules that can match it, and updated
 * incrementally.
 *
 * @remarks
 * Every rule is put in the bucket(s) of the URLs it can reach, decided once from the rule and the consumer URL
 * (its host and application): `addr:<host>:<port>` / `*:<port>` (legacy rules naming a provider address),
 * `pa:<address or host>` (port-less rules with `providerAddresses`), `general` (port-less rules for this consumer —
 * they reach every URL), or none (a rule for another application, a provider-side rule, `enabled=false`, a rule for
 * another host). A URL's candidates are the rules of its few buckets, sorted into application order (host string,
 * `priority`, then arrival); the full Dubbo decision (`Configurator.configure`'s) then runs on each candidate only,
 * and the parameters are collected into one edit, so configuring a URL costs O(candidates), not O(all rules).
 *
 * A new rule list is diffed against the current one by the rules' string forms ({@link OverrideIndex.plan}); only
 * the URLs in the buckets of added or removed rules are recomputed (all of them when a `general` rule changed).
 * The plan is computed in time slices ({@link TimeSlicer}) and does not touch the index: the current rules stay in
 * force until {@link OverrideIndex.commit}. {@link OverrideIndex.evaluations} counts rule-vs-URL match evaluations.
 * @example
 * ```ts
 * const index = new OverrideIndex(consumerUrl);
 * const plan = await index.plan(Configurator.toConfigurators(urls) ?? [], providers, new TimeSlicer());
 * index.commit(plan);
 * ```
 */
export class OverrideIndex {
  private rules = new Map<string, IndexedRule>();
  private buckets = new Map<string, Set<IndexedRule>>();
  private readonly results = new Map<string, ConfiguredUrl>();
  private seq = 0;
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

  /** The key a URL's configured form is kept under. */
  urlKeyOf(url: URL): string {
    return url.toString();
  }

  /** The configured form of `url` under the rules in force (cached; computed on first use). */
  configured(url: URL): ConfiguredUrl {
    const key = this.urlKeyOf(url);
    let result = this.results.get(key);
    if (result === undefined) {
      result = this.compute(url, this.rules, this.buckets, undefined);
      this.results.set(key, result);
    }
    return result;
  }

  /** Forgets the cached forms of URLs not in `keep` (vanished providers). */
  retain(keep: ReadonlySet<string>): void {
    for (const key of this.results.keys()) if (!keep.has(key) && key !== this.urlKeyOf(this.consumerUrl)) this.results.delete(key);
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
    const rules = new Map(this.rules);
    const seen = new Set<string>();
    const added: IndexedRule[] = [];
    const touched = new Set<string>();
    for (const configurator of next) {
      const key = configurator.url.toString();
      seen.add(key);
      if (!rules.has(key)) {
        const rule: IndexedRule = { configurator, key, buckets: this.bucketsOf(configurator), seq: this.seq + added.length };
        added.push(rule);
        rules.set(key, rule);
        for (const bucket of rule.buckets ?? []) touched.add(bucket);
      }
      if (slicer?.due() === true) yield;
    }
    let removed = 0;
    if (seen.size !== rules.size) {
      // Some rules in force are not in the new list.
      for (const [key, rule] of this.rules) {
        if (seen.has(key)) continue;
        rules.delete(key);
        removed++;
        for (const bucket of rule.buckets ?? []) touched.add(bucket);
        if (slicer?.due() === true) yield;
      }
    }
    const general = touched.has(GENERAL);
    // Buckets are copied on write: only the touched ones.
    const buckets = new Map(this.buckets);
    for (const bucket of touched) {
      const set = new Set<IndexedRule>();
      for (const rule of this.buckets.get(bucket) ?? []) if (rules.get(rule.key) === rule) set.add(rule);
      buckets.set(bucket, set);
    }
    for (const rule of added) for (const bucket of rule.buckets ?? []) buckets.get(bucket)?.add(rule);
    const recomputed = new Map<string, ConfiguredUrl>();
    const matched = new Set<Configurator>();
    for (const url of urls) {
      const key = this.urlKeyOf(url);
      if (recomputed.has(key)) continue;
      if (!general && this.results.has(key) && !this.keysOf(url).some((k) => touched.has(k))) continue;
      const result = this.compute(url, rules, buckets, slicer);
      recomputed.set(key, result);
      for (const configurator of result.matched) matched.add(configurator);
      if (slicer?.due() === true) yield;
    }
    return { added: added.map((r) => r.configurator), removed, general, recomputed, matched, rules, buckets };
  }

  /** Puts a plan in force. */
  commit(plan: OverridePlan): void {
    this.rules = plan.rules;
    this.buckets = plan.buckets;
    this.seq += plan.added.length;
    for (const [key, result] of plan.recomputed) this.results.set(key, result);
    if (plan.general) {
      // URLs not given to plan() (none normally) would keep stale forms: drop them.
      for (const key of this.results.keys()) if (!plan.recomputed.has(key)) this.results.delete(key);
    }
  }

  private compute(url: URL, rules: ReadonlyMap<string, IndexedRule>, buckets: ReadonlyMap<string, Set<IndexedRule>>, slicer: TimeSlicer | undefined): ConfiguredUrl {
    const candidates: IndexedRule[] = [];
    for (const key of this.keysOf(url)) {
      const bucket = buckets.get(key);
      if (bucket !== undefined) for (const rule of bucket) if (rules.get(rule.key) === rule) candidates.push(rule);
    }
    if (candidates.length === 0) return { url, addressed: [], matched: [] };
    candidates.sort(compareRules);
    const localHost = this.consumerUrl.host;
    const changes = new Map<string, string>();
    const get = (key: string): string | undefined => (changes.has(key) ? changes.get(key) : url.getParameter(key));
    const addressed: Array<readonly [string, string]> = [];
    const matched: Configurator[] = [];
    for (const rule of candidates) {
      this.evaluations++;
      slicer?.count();
      const configurator = rule.configurator;
      if (!configurator.matches(url, get, localHost)) continue;
      matched.push(configurator);
      if (configurator.applyTo(get, changes) && configurator.addressed) {
        for (const entry of configurator.appliedParameters) addressed.push(entry);
      }
    }
    return { url: changes.size === 0 ? url : url.addParameters(changes), addressed, matched };
  }

  /** The buckets a URL draws its candidate rules from. */
  private keysOf(url: URL): string[] {
    const host = url.host;
    const port = url.port;
    const address = url.getAddress();
    return address === host
      ? [`addr:${host}:${port}`, `*:${port}`, `pa:${host}`, GENERAL]
      : [`addr:${host}:${port}`, `*:${port}`, `pa:${address}`, `pa:${host}`, GENERAL];
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
    if (versionedSide === undefined && port !== 0) {
      return [rule.host === '0.0.0.0' ? `*:${port}` : `addr:${rule.host}:${port}`];
    }
    if (side !== 'consumer') return [GENERAL];
    if (versionedSide !== undefined && versionedSide !== 'consumer') return NEVER;
    if (rule.host !== '0.0.0.0' && rule.host !== consumer.host) return NEVER;
    const addresses = rule.targetAddresses;
    if (addresses === undefined) return [GENERAL];
    const out = new Set<string>();
    for (const a of addresses) {
      if (a === '0.0.0.0' || a === '0.0.0.0:*') return [GENERAL];
      if (a.startsWith('0.0.0.0:')) out.add(`*:${a.slice('0.0.0.0:'.length)}`);
      else out.add(`pa:${a}`);
    }
    return [...out];
  }
}

function compareRules(a: IndexedRule, b: IndexedRule): number {
  return Configurator.compare(a.configurator, b.configurator) || a.seq - b.seq;
}
