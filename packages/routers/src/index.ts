/**
 * `@weft/routers`: Dubbo's condition routes and tag routes for Weft's `weft.rpc.Router` extension point.
 *
 * @packageDocumentation
 */
export { ConditionRouter, ConditionRouterFactory } from './condition/condition-router.js';
export { ConditionRule, ConditionSyntaxError, parseCondition, type Condition } from './condition/condition-rule.js';
export { ConditionClause, NOT_FOUND, type SampleKind } from './condition/condition-matcher.js';
export { MultiDestinationRule, type Destination } from './condition/multi-destination-rule.js';
export { parseConditionUrl, parseConditionYaml, type ConditionRuleSet } from './condition/condition-rule-parser.js';
export { TagRouter, TagRouterFactory, TagKeys, incomingTag } from './tag/tag-router.js';
export { TagPropagationFilter } from './tag/tag-propagation-filter.js';
export { parseTagRule, type TagRule, type TagGroup, type StringMatcher } from './tag/tag-rule.js';
export { matchAddress } from './tag/address-match.js';
export { RuleError, RuleUrlKeys, MAX_RULE_TEXT } from './rule-source.js';
export { validateRoutingRule, type RoutingRuleKind } from './validate-rule.js';
