/**
 * URL keys read by the `metrics` filter.
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl, { parameters: { [MetricsKeys.LEVEL]: 'service' } });
 * ```
 */
export const MetricsKeys = {
  /** `method` (default): one series per method; `service`: one per service, with `method=""` (Dubbo's `rpc-level`). */
  LEVEL: 'metrics.level',
} as const;

/**
 * Defaults of the `metrics` filter and its endpoint.
 *
 * @example
 * ```ts
 * await metricsOf(app).listen({ port: MetricsDefaults.PORT });
 * ```
 */
export const MetricsDefaults = {
  /** Series per method. */
  LEVEL: 'method',
  /** The endpoint's port: Dubbo 3.1's `prometheus.exporter.metrics.port`. */
  PORT: 20888,
  /** The endpoint binds to loopback only. */
  HOST: '127.0.0.1',
  /** The scrape path. */
  PATH: '/metrics',
} as const;
