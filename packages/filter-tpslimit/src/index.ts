/**
 * `@weft/filter-tpslimit`: the provider `tps` filter, which limits calls per time window, and the
 * `weft.filter.TpsLimiter` extension point that decides (default `memory`).
 *
 * @packageDocumentation
 */
export { TpsLimitFilter } from './tps-limit-filter.js';
export { TpsLimiter } from './tps-limiter.js';
export { MemoryTpsLimiter } from './memory-tps-limiter.js';
export { TpsConfigValidator } from './tps-config-validator.js';
export { tpsRuleOf, type TpsRule } from './tps-rule.js';
export { TpsDefaults, TpsKeys } from './tps-keys.js';
