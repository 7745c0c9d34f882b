/**
 * `@weft/filter-token`: providers refuse calls that do not carry their token, compared in constant time.
 *
 * @packageDocumentation
 */
export { TOKEN_KEY, TokenFilter } from './token-filter.js';
export { constantTimeEqual } from './constant-time-equal.js';
