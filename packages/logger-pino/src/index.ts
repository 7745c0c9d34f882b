/**
 * `@weft/logger-pino`: Weft's `Logger` on pino, with structured service, method, address and error-code fields.
 *
 * @packageDocumentation
 */
export { PinoLogger, type WeftLogFields } from './pino-logger.js';
