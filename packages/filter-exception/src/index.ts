/**
 * `@weft/filter-exception`: declared business errors reach the consumer as thrown; undeclared ones become an
 * `UndeclaredError` carrying the original name and message (the stack trace stays in the provider's log).
 *
 * @packageDocumentation
 */
export { ExceptionFilter } from './exception-filter.js';
export { UndeclaredError } from './undeclared-error.js';
