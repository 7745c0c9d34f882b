/**
 * The logging contract every scope carries; applications plug in their own.
 *
 * @remarks
 * Registered in each scope under the `Logger` token, so extensions can `@Inject(Logger)` it. The default
 * writes warnings and errors to the console and drops debug output. A logger must not throw; Weft guards
 * its own calls anyway (a throwing logger never corrupts the work it reports on).
 *
 * @example
 * ```ts
 * class PinoLogger extends Logger {
 *   debug(msg: string) { pino.debug(msg); } info(msg: string) { pino.info(msg); }
 *   warn(msg: string, err?: unknown) { pino.warn({ err }, msg); } error(msg: string, err?: unknown) { pino.error({ err }, msg); }
 * }
 * const framework = FrameworkModel.create({ root, logger: new PinoLogger() });
 * ```
 */
export abstract class Logger {
  abstract debug(message: string): void;
  abstract info(message: string): void;
  abstract warn(message: string, error?: unknown): void;
  abstract error(message: string, error?: unknown): void;
}

/**
 * The default {@link Logger}: `warn`/`error` to `console.error`, `info` to `console.log`, `debug` dropped.
 *
 * @remarks Set `WEFT_LOG=debug` to see debug output, `WEFT_LOG=silent` to see nothing.
 * @example
 * ```ts
 * const logger = new ConsoleLogger('weft');
 * ```
 */
export class ConsoleLogger extends Logger {
  private readonly level: number;

  constructor(private readonly prefix = 'weft') {
    super();
    const setting = (process.env['WEFT_LOG'] ?? 'info').toLowerCase();
    this.level = setting === 'debug' ? 0 : setting === 'info' ? 1 : setting === 'warn' ? 2 : setting === 'error' ? 3 : 4;
  }

  debug(message: string): void {
    if (this.level <= 0) console.log(`[${this.prefix}] debug: ${message}`);
  }

  info(message: string): void {
    if (this.level <= 1) console.log(`[${this.prefix}] ${message}`);
  }

  warn(message: string, error?: unknown): void {
    if (this.level <= 2) console.error(`[${this.prefix}] warn: ${message}`, ...(error === undefined ? [] : [error]));
  }

  error(message: string, error?: unknown): void {
    if (this.level <= 3) console.error(`[${this.prefix}] error: ${message}`, ...(error === undefined ? [] : [error]));
  }
}

/**
 * Calls a logger method, swallowing anything it throws: a broken logger never breaks the work it reports on.
 *
 * @example
 * ```ts
 * safeLog(logger, 'warn', `fail-mock ${service}.${method}`, error);
 * ```
 */
export function safeLog(logger: Logger, level: 'debug' | 'info' | 'warn' | 'error', message: string, error?: unknown): void {
  try {
    logger[level](message, error);
  } catch {
    // A broken logger must never break the caller.
  }
}
