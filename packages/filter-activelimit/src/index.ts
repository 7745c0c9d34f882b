/**
 * `@weft/filter-activelimit`: the consumer `active-limit` filter, which limits calls in flight per provider method
 * and makes the others wait, in order, for a free slot.
 *
 * @packageDocumentation
 */
export { ActiveLimitFilter } from './active-limit-filter.js';
