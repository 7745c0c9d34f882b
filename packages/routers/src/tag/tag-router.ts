import { Router, RouterFactory, RpcContext, type Invocation, type Invoker, type RouterContext, type URL } from '@weft/core';
import { safeLog } from '@weft/core/spi';

import { routerOf, RuleUrlKeys, sentence, sourceOf } from '../rule-source.js';
import { matchAddress } from './address-match.js';
import { parseTagRule, type TagRule } from './tag-rule.js';

/** URL and attachment keys of tag routing. */
export const TagKeys = {
  /** A provider's static tag (URL key), the reference's request tag (URL key), or one call's (attachment). */
  TAG: 'dubbo.tag',
  /** `true`: a tagged request never falls back to untagged providers (URL key, or attachment). */
  FORCE_TAG: 'dubbo.force.tag',
} as const;

/** The tag of the call being handled in this async flow (for tag propagation), if any. */
export function incomingTag(): string | undefined {
  let context = RpcContext.current();
  while (context !== undefined && context.side !== 'provider') context = context.parent;
  const value = context?.getAttachment(TagKeys.TAG);
  return value === undefined || value === null || value === '' ? undefined : String(value);
}

function attachment(invocation: Invocation, key: string): string | undefined {
  const value = invocation.getAttachment(key);
  return value === undefined || value === null || value === '' ? undefined : String(value);
}

interface YamlEntry {
  readonly text: string;
  readonly rule: TagRule | undefined;
}

/**
 * Dubbo's tag routing for one reference: static tags (`dubbo.tag` on provider URLs) and the dynamic rule of the
 * provider application (`<application>.tag-router`).
 *
 * @remarks The request tag is the call's `dubbo.tag` attachment, else the tag of the call being handled (tag
 * propagation), else the reference's `dubbo.tag` URL key; `dubbo.force.tag` likewise (attachment, then URL).
 * Groups are computed when providers or rules change; a call is a cached lookup per (method, tag, force).
 * The selection rules are in the package README.
 * @example
 * ```ts
 * const router = new TagRouter(context);
 * ```
 */
export class TagRouter extends Router {
  private readonly yaml = new Map<string, YamlEntry>();
  private rule: TagRule | undefined;
  private staticTags = new Map<Invoker, string>();
  /** Group name → members (among the providers); present only for groups that exist (Dubbo: non-empty address list). */
  private groups = new Map<string, ReadonlySet<Invoker>>();
  /** Providers in any group. */
  private grouped: ReadonlySet<Invoker> = new Set();

  constructor(private readonly context: RouterContext) {
    super();
  }

  override setRules(rules: readonly URL[]): void {
    const seen = new Set<string>();
    for (const url of rules) {
      if (routerOf(url) !== 'tag') continue;
      const text = url.getParameter(RuleUrlKeys.YAML);
      const source = sourceOf(url);
      if (text === undefined) {
        if (!this.yaml.has(source)) {
          safeLog(this.context.logger, 'error', `Rejected the tag rule ${url.toString()}: tag rules are YAML documents in the config centre (<application>.tag-router), not routers URLs.`);
          this.yaml.set(source, { text: '', rule: undefined });
        }
        seen.add(source);
        continue;
      }
      seen.add(source);
      const previous = this.yaml.get(source);
      if (previous?.text === text) continue;
      try {
        this.yaml.set(source, { text, rule: parseTagRule(text, source) });
      } catch (error) {
        const kept = previous?.rule === undefined ? 'Nothing was in force from it' : `Its previous rule (${previous.rule.tags.length} tag(s)) stays in force`;
        safeLog(this.context.logger, 'error', `Rejected the tag rule at ${source}: ${sentence(error)} ${kept}.`);
        this.yaml.set(source, { text, rule: previous?.rule });
      }
    }
    for (const source of [...this.yaml.keys()]) if (!seen.has(source)) this.yaml.delete(source);
    const sources = [...this.yaml.keys()].sort();
    this.rule = sources.map((s) => this.yaml.get(s)?.rule).find((r) => r !== undefined);
  }

  override notify(invokers: readonly Invoker[], _url: URL): void {
    const staticTags = new Map<Invoker, string>();
    for (const invoker of invokers) {
      const tag = invoker.getUrl().getParameter(TagKeys.TAG);
      if (tag !== undefined && tag !== '') staticTags.set(invoker, tag);
    }
    const groups = new Map<string, ReadonlySet<Invoker>>();
    const grouped = new Set<Invoker>();
    const rule = this.rule;
    if (rule !== undefined && rule.enabled) {
      for (const tag of rule.tags) {
        const members = new Set<Invoker>();
        for (const invoker of invokers) {
          const url = invoker.getUrl();
          const inGroup =
            tag.addresses.length > 0
              ? tag.addresses.some((a) => matchAddress(a, url.host, url.port))
              : tag.match.every((m) => m.test((this.context.providerUrlOf(invoker) ?? url).getParameter(m.key)));
          if (inGroup) members.add(invoker);
        }
        if (tag.addresses.length > 0 || members.size > 0) {
          const existing = groups.get(tag.name);
          groups.set(tag.name, existing === undefined ? members : new Set([...existing, ...members]));
          for (const m of members) grouped.add(m);
        }
      }
    }
    this.staticTags = staticTags;
    this.groups = groups;
    this.grouped = grouped;
  }

  override cacheKey(invocation: Invocation): string {
    const tag = attachment(invocation, TagKeys.TAG) ?? incomingTag();
    const force = attachment(invocation, TagKeys.FORCE_TAG);
    return tag === undefined && force === undefined ? '' : `${tag ?? ''}\u0001${force ?? ''}`;
  }

  route(invokers: readonly Invoker[], url: URL, invocation: Invocation): readonly Invoker[] {
    const tag = attachment(invocation, TagKeys.TAG) ?? incomingTag() ?? (url.getParameter(TagKeys.TAG) || undefined);
    const forceTag = (attachment(invocation, TagKeys.FORCE_TAG) ?? url.getParameter(TagKeys.FORCE_TAG)) === 'true';
    const untagged = (i: Invoker): boolean => !this.staticTags.has(i);
    const rule = this.rule;
    if (rule === undefined || !rule.enabled) {
      if (tag === undefined) return invokers.filter(untagged);
      const tagged = invokers.filter((i) => this.staticTags.get(i) === tag);
      if (tagged.length > 0 || forceTag) return tagged;
      return invokers.filter(untagged);
    }
    if (tag === undefined) {
      let rest = invokers;
      if (this.groups.size > 0) {
        rest = invokers.filter((i) => !this.grouped.has(i));
        if (rest.length === 0) return rest;
      }
      return rest.filter(untagged);
    }
    const group = this.selectGroup(tag, forceTag);
    let result: readonly Invoker[];
    if (group !== undefined) {
      result = invokers.filter((i) => group.has(i));
      if (result.length > 0 || rule.force) return result;
    } else {
      result = invokers.filter((i) => this.staticTags.get(i) === tag);
    }
    if (result.length > 0 || forceTag) return result;
    return invokers.filter((i) => !this.grouped.has(i) && untagged(i));
  }

  /** Dubbo's tag levels: `a|b|c`, then `a|b`, then `a` (not with force-tag). */
  private selectGroup(tag: string, forceTag: boolean): ReadonlySet<Invoker> | undefined {
    if (forceTag || !tag.includes('|')) return this.groups.get(tag);
    const levels = tag.split('|');
    for (let i = levels.length; i > 0; i--) {
      const group = this.groups.get(levels.slice(0, i).join('|'));
      if (group !== undefined) return group;
    }
    return undefined;
  }

  override describe(): readonly string[] {
    const lines = [...new Set(this.staticTags.values())].map((t) => `static tag ${t}: ${[...this.staticTags].filter(([, v]) => v === t).map(([i]) => i.getUrl().getAddress()).join(', ')}`);
    const rule = this.rule;
    if (rule !== undefined) {
      for (const tag of rule.tags) {
        const what = tag.addresses.length > 0 ? tag.addresses.join(', ') : tag.match.map((m) => m.key).join(' & ');
        lines.push(`tag ${tag.name} → ${what}${rule.force ? ' (force)' : ''}${rule.enabled ? '' : ' (disabled)'}  [${rule.source}]`);
      }
    }
    return lines;
  }
}

/**
 * Creates the `tag` router of each reference.
 *
 * @remarks `weft.rpc.Router` extension `tag`, activated in group `consumer` with order 100 (first, as in Dubbo).
 * See {@link TagRouter}.
 * @example
 * ```ts
 * app.model.getExtensionLoader(RouterFactory).getExtension('tag');
 * ```
 */
export class TagRouterFactory extends RouterFactory {
  getRouter(context: RouterContext): Router {
    return new TagRouter(context);
  }
}
