/**
 * `@weft/filter-executelimit`: the provider `executelimit` filter, which limits concurrent executions per method.
 *
 * @packageDocumentation
 */
export { ExecuteLimitFilter } from './execute-limit-filter.js';
