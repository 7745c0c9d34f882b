/**
 * `@weft/filter-accesslog`: Dubbo's `accesslog` provider filter for Weft — one line per call to the application
 * logger or a file, recorded at completion, written asynchronously, and never lost.
 *
 * @packageDocumentation
 */
export { AccessLogFilter } from './access-log-filter.js';
export { AccessLogConfigValidator } from './access-log-config-validator.js';
export { AccessLogStats, type AccessLogFileStats } from './access-log-stats.js';
export { AccessLogDefaults, AccessLogKeys, type AccessLogJsonRecord, type AccessLogOutcome } from './access-log-keys.js';
