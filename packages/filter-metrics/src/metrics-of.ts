import type { WeftApplication } from '@weft/core';

import { WeftMetrics } from './weft-metrics.js';

/**
 * The metrics of an application: its prom-client registry, `listen()` for a `/metrics` endpoint, and
 * `registerInto()` for an existing registry.
 *
 * @remarks Created on first use (the `metrics` filter creates it when the application's first chain is built), one
 * per application; works whether or not a call was made yet.
 * @example
 * ```ts
 * const server = await metricsOf(app).listen({ port: 9464 }); // http://127.0.0.1:9464/metrics
 * ```
 */
export function metricsOf(app: WeftApplication): WeftMetrics {
  return WeftMetrics.of(app.model);
}
