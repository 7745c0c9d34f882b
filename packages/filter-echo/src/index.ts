/**
 * `@weft/filter-echo`: answers `proxy.$echo(value)` on the provider without reaching the implementation.
 *
 * @packageDocumentation
 */
export { ECHO_METHOD, EchoFilter } from './echo-filter.js';
