/**
 * `@weft/filter-timeout`: the provider's time budget — aborts the implementation at the deadline (its own
 * `timeout` or the consumer's propagated deadline) and fails the call with `RpcError` `timeout`.
 *
 * @packageDocumentation
 */
export { DEFAULT_PROVIDER_TIMEOUT, TimeoutFilter } from './timeout-filter.js';
