/**
 * `@weft/filter-metrics`: Dubbo's Prometheus metrics for Weft services, through prom-client.
 *
 * @packageDocumentation
 */
export { MetricsFilter } from './metrics-filter.js';
export { metricsOf } from './metrics-of.js';
export { WeftMetrics, RPC_LABELS, type MetricsServer, type MetricsServerOptions, type MetricsSide } from './weft-metrics.js';
export { MethodStats, failureClassOf, DEFAULT_BUCKETS, type FailureClass } from './method-stats.js';
export { CollectedCounter, CollectedGauge, CollectedHistogram, type CollectedOptions, type Sample } from './collected-metric.js';
export { MetricsDefaults, MetricsKeys } from './metrics-keys.js';
