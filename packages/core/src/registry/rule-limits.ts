import { safeLog, type Logger } from '../common/logger.js';
import type { URL } from '../rpc/url.js';
import { Configurator } from './configurator.js';
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
 * Turns a `configurators` notification into the ordered override rules (as `Configurator.toConfigurators` does),
 * within the limits of `source` and in time slices: `undefined` to keep the previous rules (an empty list, or a
 * notification refused for carrying more than `rule.max-count` rules), `[]` for `empty://`, else the rules without
 * those longer than `rule.max-bytes`. `cache` keeps the configurator of each URL object seen (registries hand the
 * same objects again for unchanged entries). Every refusal is logged at `error`, naming the rule (its start) and the source.
 * @internal
 */
export async function readOverrideRules(
  urls: readonly URL[],
  source: URL,
  what: string,
  logger: Logger,
  slicer: TimeSlicer,
  cache?: WeakMap<URL, Configurator | null>,
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
  const out: Configurator[] = [];
  for (const url of urls) {
    if (url.protocol === 'empty') return [];
    const known = cache?.get(url);
    if (known !== undefined) {
      if (known !== null) out.push(known);
      continue;
    }
    const text = url.toString();
    if (text.length > limits.maxBytes && Buffer.byteLength(text) > limits.maxBytes) {
      safeLog(
        logger,
        'error',
        `Refused a rule of ${what} from ${from}: ${text.slice(0, 120)}… is ${Buffer.byteLength(text)} bytes, more than ` +
          `${RuleLimitKeys.MAX_BYTES}=${limits.maxBytes}. The other rules apply; this one is ignored.`,
      );
      continue;
    }
    const configurator = Configurator.from(url);
    cache?.set(url, configurator ?? null);
    if (configurator !== undefined) out.push(configurator);
    if (slicer.due()) await slicer.pause();
  }
  return out.sort(Configurator.compare);
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
