import type { ServiceSummary } from './types.js';

/** A service's health at a glance. */
export interface Health {
  readonly level: 'healthy' | 'degraded' | 'down';
  /** Why, for people (`force mock`, `2 of 3 providers enabled`, `7.5 % errors`). */
  readonly reasons: readonly string[];
}

/** Error ratio from which a service counts as degraded. */
export const DEGRADED_ERROR_RATE = 0.05;

/**
 * Judges a service from its summary: `down` with no enabled provider, `degraded` with a mock, disabled providers
 * or an error rate of 5 % or more, `healthy` otherwise.
 *
 * @example
 * ```ts
 * healthOf(summary).level; // 'degraded'
 * ```
 */
export function healthOf(service: ServiceSummary): Health {
  const reasons: string[] = [];
  if (service.providers.enabled === 0) reasons.push(service.providers.total === 0 ? 'no provider' : 'every provider disabled');
  else if (service.providers.enabled < service.providers.total) reasons.push(`${service.providers.enabled} of ${service.providers.total} providers enabled`);
  if (service.mock !== null) reasons.push(service.mock.startsWith('force') ? 'force mock' : 'fail mock');
  if (service.errorRate !== null && service.errorRate >= DEGRADED_ERROR_RATE) reasons.push(`${(service.errorRate * 100).toFixed(1)} % errors`);
  const level = service.providers.enabled === 0 ? 'down' : reasons.length > 0 ? 'degraded' : 'healthy';
  return { level, reasons };
}
