/**
 * `@weft/filter-circuitbreaker`: the consumer `circuitbreaker` filter — Sentinel's degrade rules (slow-call ratio,
 * error ratio, error count) over a sliding window, failing fast with `circuit-open` so a fail mock degrades.
 *
 * @packageDocumentation
 */
export { CircuitBreakerFilter } from './circuit-breaker-filter.js';
export { CircuitBreakerConfigValidator } from './circuit-breaker-config-validator.js';
export { CircuitBreaker, Outcome, REJECT, type CircuitBreakerState, type CircuitBreakerTransitionReason, type TransitionSink } from './circuit-breaker.js';
export {
  CircuitBreakerRegistry,
  type CircuitBreakerListener,
  type CircuitBreakerStateChange,
} from './circuit-breaker-registry.js';
export { circuitBreakerRuleOf, describeRule, type CircuitBreakerRule } from './circuit-breaker-rule.js';
export { CIRCUIT_BREAKER_STRATEGIES, CircuitBreakerDefaults, CircuitBreakerKeys, MAX_BUCKETS, type CircuitBreakerStrategy } from './circuit-breaker-keys.js';
export { SlidingWindow } from './sliding-window.js';
export { circuitBreakersOf } from './circuit-breakers-of.js';
