import { safeLog, type Logger } from '../common/logger.js';
import type { URL } from '../rpc/url.js';
import { Configurator } from './configurator.js';
import { startsWithList } from './list-prefix.js';
import type { TimeSlicer } from './time-slicer.js';

/** Registry URL keys bounding the rules a consumer accepts from that registry. */
export const RuleLimitKeys = {
  /** Most rules (override or routing URLs) one notification may carry; more are refused as a whole. */
  MAX_COUNT: 'rule.max-count',
  /** Longest rule, in bytes: one rule URL, one registry entry, one config-centre value. */
  MAX_BYTES: 'rule.max-bytes',
  /** Largest YAML (or JSON) rule document read from a config centre, in bytes. */
  YAML_MAX_BYTES: 'rule.yaml.max-bytes',
  /** Deepest nesting of collections in a YAML rule document. */
  YAML_MAX_DEPTH: 'rule.yaml.max-depth',
  /** Most alias references (`*name`) a YAML rule document may use. */
  YAML_MAX_ALIASES: 'rule.yaml.max-aliases',
} as const;

/** Defaults of the {@link RuleLimitKeys}. */
export const RuleLimitDefaults = {
  MAX_COUNT: 20_000,
  MAX_BYTES: 65_536,
  YAML_MAX_BYTES: 65_536,
  YAML_MAX_DEPTH: 32,
  YAML_MAX_ALIASES: 100,
} as const;

/** The rule limits a registry URL sets (its {@link RuleLimitKeys}, else the {@link RuleLimitDefaults}). */
export interface RuleLimits {
  readonly maxCount: number;
  readonly maxBytes: number;
  readonly yamlMaxBytes: number;
  readonly yamlMaxDepth: number;
  readonly yamlMaxAliases: number;
}

/**
 * Reads the rule limits of a registry (or config-centre) URL.
 * @example
 * ```ts
 * ruleLimitsOf(URL.parse('zookeeper://127.0.0.1:2181?rule.max-count=5000')).maxCount; // 5000
 * ```
 */
export function ruleLimitsOf(url: URL): RuleLimits {
  // Literal keys (the RuleLimitKeys values): the registries' README tests read the keys out of the sources.
  return {
    maxCount: url.getPositiveParameter('rule.max-count', RuleLimitDefaults.MAX_COUNT),
    maxBytes: url.getPositiveParameter('rule.max-bytes', RuleLimitDefaults.MAX_BYTES),
    yamlMaxBytes: url.getPositiveParameter('rule.yaml.max-bytes', RuleLimitDefaults.YAML_MAX_BYTES),
    yamlMaxDepth: url.getPositiveParameter('rule.yaml.max-depth', RuleLimitDefaults.YAML_MAX_DEPTH),
    yamlMaxAliases: url.getPositiveParameter('rule.yaml.max-aliases', RuleLimitDefaults.YAML_MAX_ALIASES),
  };
}

/**
 * What {@link readOverrideRules} read last for one subscriber, so that a list starting with the same URL objects (a
 * registry appending rules) is read from where the last one ended. A scope object: one per directory.
 * @internal
 */
export class OverrideRulesMemo {
  /** The last list read in full without a refusal (a copy), and its rules in notification order. */
  urls: readonly URL[] = [];
  rules: readonly Configurator[] = [];
  /** The `rule.max-bytes` it was read with. */
  maxBytes = 0;
}

/**
 * Turns a `configurators` notification into its override rules, in notification order (`Configurator.compare` gives
 * the application order), within the limits of `source` and in time slices: `undefined` to keep the previous rules
 * (an empty list, or a notification refused for carrying more than `rule.max-count` rules), `[]` for `empty://`, else
 * the rules without those longer than `rule.max-bytes`. `memo` keeps the last list read: a list that starts with it
 * is read from where it ended. `known` gives the configurator already made for a rule's string form (the rules in
 * force), so that an unchanged rule is not parsed again. Every refusal is logged at `error`, naming the rule (its
 * start) and the source.
 * @internal
 */
export async function readOverrideRules(
  urls: readonly URL[],
  source: URL,
  what: string,
  logger: Logger,
  slicer: TimeSlicer,
  memo?: OverrideRulesMemo,
  known?: (key: string) => Configurator | undefined,
): Promise<Configurator[] | undefined> {
  if (urls.length === 0) return undefined;
  const limits = ruleLimitsOf(source);
  const from = source.toIdentityString();
  if (urls.length > limits.maxCount) {
    safeLog(
      logger,
      'error',
      `Refused ${urls.length} ${what} from ${from}: more than ${RuleLimitKeys.MAX_COUNT}=${limits.maxCount} in one notification. ` +
        `The previous rules stay; raise ${RuleLimitKeys.MAX_COUNT} on the registry URL if this many are intended.`,
    );
    return undefined;
  }
  let start = 0;
  let out: Configurator[] = [];
  if (memo !== undefined && memo.maxBytes === limits.maxBytes && startsWithList(urls, memo.urls)) {
    start = memo.urls.length;
    out = memo.rules.slice();
  }
  let refused = false;
  for (let i = start; i < urls.length; i++) {
    const url = urls[i] as URL;
    if (url.protocol === 'empty') {
      if (memo !== undefined) memo.urls = [];
      return [];
    }
    const text = url.toString();
    if (text.length > limits.maxBytes && Buffer.byteLength(text) > limits.maxBytes) {
      refused = true;
      safeLog(
        logger,
        'error',
        `Refused a rule of ${what} from ${from}: ${text.slice(0, 120)}… is ${Buffer.byteLength(text)} bytes, more than ` +
          `${RuleLimitKeys.MAX_BYTES}=${limits.maxBytes}. The other rules apply; this one is ignored.`,
      );
      continue;
    }
    const configurator = known?.(text) ?? Configurator.from(url);
    if (configurator !== undefined) out.push(configurator);
    if (slicer.due()) await slicer.pause();
  }
  if (memo !== undefined) {
    // A list with a refused rule is read in full again next time (and the refusal logged again).
    memo.urls = refused ? [] : urls.slice();
    memo.rules = refused ? [] : out.slice();
    memo.maxBytes = limits.maxBytes;
  }
  return out;
}

/**
 * Dubbo's enabled test of a configured provider URL: with `disabled` set, enabled unless it is `true` (any case);
 * else enabled unless `enabled` is set to anything but `true`.
 * @internal
 */
export function isProviderEnabled(provider: URL): boolean {
  const disabled = provider.getParameter('disabled');
  if (disabled) return disabled.toLowerCase() !== 'true';
  const enabled = provider.getParameter('enabled');
  return !enabled || enabled.toLowerCase() === 'true';
}
