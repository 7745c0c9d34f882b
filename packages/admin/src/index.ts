/**
 * The Weft console: a web UI and a JSON API over a registry to find services, force mocks, drain providers, route
 * and watch metrics, writing the rules `weft override` and `weft route` write.
 *
 * @packageDocumentation
 */
export { startAdmin, METRICS_PORT_KEY } from './server/start-admin.js';
export type { AdminOptions, AdminServer } from './server/admin-options.js';
export type { AuditEntry } from './audit/audit-log.js';
export { ERROR_KINDS, type MetricsPoint, type ErrorKind, type BreakerState } from './metrics/metrics-scraper.js';
