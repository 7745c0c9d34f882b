/**
 * `@weft/filter-tracing`: OpenTelemetry client and server spans for Weft calls, context propagated in attachments.
 *
 * @packageDocumentation
 */
export { TracingFilter } from './tracing-filter.js';
export { TracingDefaults } from './tracing-keys.js';
