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

/** A {@link ConsoleLogger} level: what it prints, from everything (`debug`) to nothing (`silent`). */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];

/**
 * The default {@link Logger}: `warn`/`error` to `console.error`, `info` and `debug` to `console.log`.
 *
 * @remarks The level is read once, when the logger is created (the framework creates one with the application
 * unless given a logger): the `level` argument, else the `WEFT_LOG` environment variable, else `info`.
 * `WEFT_LOG=debug` also shows discovery (packages found, manifests read) and every filter chain built;
 * `WEFT_LOG=silent` (or `off`) shows nothing. An unknown value means `info`.
 * @example
 * ```ts
 * const logger = new ConsoleLogger('weft', 'debug');
 * ```
 */
export class ConsoleLogger extends Logger {
  private readonly level: number;

  constructor(
    private readonly prefix = 'weft',
    level: LogLevel | string | undefined = process.env['WEFT_LOG'],
  ) {
    super();
    const setting = (level ?? 'info').toLowerCase();
    const at = LEVELS.indexOf((setting === 'off' || setting === 'none' ? 'silent' : setting) as LogLevel);
    this.level = at >= 0 ? at : 1;
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
