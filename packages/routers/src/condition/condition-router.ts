import { Router, RouterFactory, URL, type Invocation, type Invoker, type RouterContext } from '@weft/core';
import { safeLog } from '@weft/core/spi';

import { routerOf, RuleUrlKeys, sentence, sourceOf } from '../rule-source.js';
import { isConfigCentreRule, parseConditionUrl, parseConditionYaml, type ConditionRuleSet } from './condition-rule-parser.js';
import { ConditionRule } from './condition-rule.js';
import type { MultiDestinationRule } from './multi-destination-rule.js';

/** A config-centre rule set and the text it was parsed from (re-parsed only when the text changes). */
interface YamlEntry {
  readonly text: string;
  readonly set: ConditionRuleSet | undefined;
}

/** A rule in force, with the providers that satisfy its then-part (computed when providers or rules change). */
type Compiled =
  | { readonly rule: ConditionRule; readonly selected: ReadonlySet<Invoker> }
  | { readonly rule: MultiDestinationRule; readonly subsets: readonly (ReadonlySet<Invoker> | undefined)[] };

/**
 * Dubbo's condition routes for one reference: config-centre rules (service, provider application, consumer
 * application scope) and legacy `routers` URLs, applied in that order.
 *
 * @remarks Each rule's then-part is evaluated against every provider when providers or rules change, so a call
 * only evaluates when-parts — and when no when-part reads `arguments[…]` or `attachments[…]` the chain caches
 * the result per method; otherwise per method and when-part outcomes. Refused rules are logged with their source; that source's previous rules stay.
 * @example
 * ```ts
 * const router = new ConditionRouter(context);
 * router.setRules([URL.parse('condition://0.0.0.0/org.acme.Greeter?category=routers&rule=' + URL.encode('=> host = 10.0.0.1'))]);
 * ```
 */
export class ConditionRouter extends Router {
  private readonly yaml = new Map<string, YamlEntry>();
  private readonly legacy = new Map<string, ConditionRuleSet | undefined>();
  private sets: readonly ConditionRuleSet[] = [];
  private compiled: readonly Compiled[] = [];
  private readsInvocation = false;
  /** A v3.1 rule draws a destination at random: results are then not cached. */
  private random = false;
  private url: URL | undefined;

  constructor(private readonly context: RouterContext) {
    super();
  }

  override setRules(rules: readonly URL[]): void {
    const seenYaml = new Set<string>();
    const seenLegacy = new Set<string>();
    for (const url of rules) {
      if (routerOf(url) !== 'condition') continue;
      if (isConfigCentreRule(url)) {
        const source = sourceOf(url);
        seenYaml.add(source);
        const text = url.getParameter(RuleUrlKeys.YAML) ?? '';
        const previous = this.yaml.get(source);
        if (previous?.text === text) continue;
        try {
          this.yaml.set(source, { text, set: parseConditionYaml(text, url.getParameter(RuleUrlKeys.SCOPE) ?? 'service', source) });
        } catch (error) {
          this.refuse(`the condition rule at ${source}`, error, previous?.set);
          // keep the previous rules; remember the text so the same bad text is not reported again
          this.yaml.set(source, { text, set: previous?.set });
        }
      } else {
        if (url.getParameter('compatible_config') !== undefined) continue; // dubbo-admin's copy of a YAML rule
        const key = url.toString();
        seenLegacy.add(key);
        if (this.legacy.has(key)) continue;
        try {
          this.legacy.set(key, parseConditionUrl(url, sourceOf(url)));
        } catch (error) {
          this.refuse(`the routing rule ${key} (routers category of ${url.getServiceInterface() ?? url.path})`, error, undefined);
          this.legacy.set(key, undefined);
        }
      }
    }
    for (const source of [...this.yaml.keys()]) if (!seenYaml.has(source)) this.yaml.delete(source);
    for (const key of [...this.legacy.keys()]) if (!seenLegacy.has(key)) this.legacy.delete(key);
    const sets: ConditionRuleSet[] = [];
    for (const { set } of this.yaml.values()) if (set !== undefined && set.enabled) sets.push(set);
    for (const set of this.legacy.values()) if (set !== undefined && set.enabled) sets.push(set);
    // Scope order (service, provider app, app, legacy); legacy URLs by descending priority, as Dubbo 2.7 sorted them.
    sets.sort((a, b) => a.rank - b.rank || b.priority - a.priority || (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
    this.sets = sets;
  }

  private refuse(what: string, error: unknown, previous: ConditionRuleSet | undefined): void {
    const kept = previous === undefined ? 'nothing was in force from it' : `its previous ${previous.rules.length} condition(s) stay in force`;
    safeLog(this.context.logger, 'error', `Rejected ${what}: ${sentence(error)} ${kept[0]!.toUpperCase()}${kept.slice(1)}.`);
  }

  override notify(invokers: readonly Invoker[], url: URL): void {
    const compiled: Compiled[] = [];
    let reads = false;
    let random = false;
    const registered = (invoker: Invoker): URL => this.context.providerUrlOf(invoker) ?? invoker.getUrl();
    for (const set of this.sets) {
      for (const rule of set.rules) {
        if (!(rule instanceof ConditionRule)) {
          compiled.push({ rule, subsets: rule.prepare(invokers, url, registered) });
          random = true;
          continue;
        }
        const selected = new Set<Invoker>();
        if (rule.then !== undefined) {
          for (const invoker of invokers) {
            const providerUrl = this.context.providerUrlOf(invoker) ?? invoker.getUrl();
            if (rule.matchThen(providerUrl, url)) selected.add(invoker);
          }
        }
        compiled.push({ rule, selected });
        reads ||= rule.readsInvocation;
      }
    }
    this.compiled = compiled;
    this.readsInvocation = reads;
    this.random = random;
    this.url = url;
  }

  override isActive(): boolean {
    return this.compiled.length > 0;
  }

  /**
   * `''` when no when-part reads arguments or attachments (the method decides); otherwise which when-parts hold
   * for this call (`'101'`): given the same input, the same outcomes give the same result, so even rules on
   * arguments are answered from the chain's cache after their when-parts are evaluated.
   */
  override cacheKey(invocation: Invocation): string | undefined {
    if (this.random) return undefined;
    if (!this.readsInvocation) return '';
    const url = this.url;
    if (url === undefined) return undefined;
    let key = '';
    for (const { rule } of this.compiled) key += rule.matchWhen(url, invocation) ? '1' : '0';
    return key;
  }

  route(invokers: readonly Invoker[], url: URL, invocation: Invocation): readonly Invoker[] {
    let current = invokers;
    for (const step of this.compiled) {
      current = 'selected' in step ? step.rule.route(current, url, invocation, step.selected) : step.rule.route(current, url, invocation, step.subsets, Math.random);
      if (current.length === 0) break;
    }
    return current;
  }

  override describe(): readonly string[] {
    return this.sets.flatMap((set) => set.rules.map((rule) => `${rule.text}${rule.force ? ' (force)' : ''}  [${set.source}]`));
  }
}

/**
 * Creates the `condition` router of each reference.
 *
 * @remarks `weft.rpc.Router` extension `condition`, activated in group `consumer` with order 140 (after `tag`,
 * as Dubbo's service condition router). See {@link ConditionRouter}.
 * @example
 * ```ts
 * app.model.getExtensionLoader(RouterFactory).getExtension('condition');
 * ```
 */
export class ConditionRouterFactory extends RouterFactory {
  getRouter(context: RouterContext): Router {
    return new ConditionRouter(context);
  }
}
