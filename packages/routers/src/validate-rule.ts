import { parseConditionYaml } from './condition/condition-rule-parser.js';
import { ConditionRule } from './condition/condition-rule.js';
import { parseTagRule } from './tag/tag-rule.js';

/** What {@link validateRoutingRule} checks: a condition text, a YAML condition rule, or a YAML tag rule. */
export type RoutingRuleKind = 'condition' | 'condition-yaml' | 'tag-yaml';

/**
 * Checks a routing rule as a consumer would parse it, without applying it.
 *
 * @remarks Tools (`weft route`) call it before writing. Returns the number of conditions or tags.
 * @example
 * ```ts
 * validateRoutingRule('condition', 'method = find* => host != 10.20.153.11'); // 1
 * ```
 * @throws `RuleError` or `ConditionSyntaxError` with the reason.
 */
export function validateRoutingRule(kind: RoutingRuleKind, text: string): number {
  if (kind === 'condition') {
    ConditionRule.parse(text, false);
    return 1;
  }
  if (kind === 'condition-yaml') return parseConditionYaml(text, 'service', 'validation')?.rules.length ?? 0;
  return parseTagRule(text, 'validation')?.tags.length ?? 0;
}
