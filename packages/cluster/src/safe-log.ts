import type { Logger } from '@weft/core';

/**
 * Calls a logger method, swallowing anything it throws: a broken logger must never change the outcome of the
 * call it reports on.
 *
 * @remarks Internal helper of `@weft/cluster`; not exported from the package entry point.
 * @example
 * ```ts
 * safeLog(logger, 'warn', 'retrying sayHello on 10.0.0.2:20880', error);
 * ```
 * @internal
 */
export function safeLog(logger: Logger, level: 'debug' | 'info' | 'warn' | 'error', message: string, error?: unknown): void {
  try {
    if (error === undefined) logger[level](message);
    else logger[level](message, error);
  } catch {
    // ignored on purpose
  }
}
