/**
 * The URL keys the `accesslog` filter and its validator read.
 *
 * @remarks
 * `accesslog` switches the filter on (Dubbo 2.7-style activation: group `provider`, value `accesslog`) and says
 * where lines go; it may also be set per method (`sayHello.accesslog=...`). The other keys are read at service
 * level, once per file: the first export that logs to a file sets that file's buffer, interval, back-pressure
 * limit and format.
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl, {
 *   parameters: { [AccessLogKeys.ACCESSLOG]: 'logs/access.jsonl', [AccessLogKeys.MAX_PENDING]: 10_000 },
 * });
 * ```
 */
export const AccessLogKeys = {
  /** `true`/`default`: the application logger; any other non-empty value: a file path; empty/`false`/`0`: off. */
  ACCESSLOG: 'accesslog',
  /** `text` (Dubbo's line format) or `json` (JSON lines); defaults to `json` for a `.jsonl` path, else `text`. */
  FORMAT: 'accesslog.format',
  /** Milliseconds between two background flushes of a file's queue. */
  FLUSH_INTERVAL: 'accesslog.flush.interval',
  /** Lines queued for a file that trigger an immediate (asynchronous) write; also the largest write. */
  BUFFER_SIZE: 'accesslog.buffer.size',
  /** With `accesslog.overflow=hold`: lines pending for a file at which new calls wait until the writer catches up. */
  MAX_PENDING: 'accesslog.max.pending',
  /** Milliseconds one write may take before the file counts as blocked (a FIFO nobody reads, a hung mount). */
  WRITE_TIMEOUT: 'accesslog.write.timeout',
  /** `spool` (default): calls proceed while lines wait, up to `accesslog.spool.max`; `hold`: calls wait at `accesslog.max.pending`. */
  OVERFLOW: 'accesslog.overflow',
  /** With `accesslog.overflow=spool`: lines kept for a file that cannot be written; beyond, lines are dropped and counted. */
  SPOOL_MAX: 'accesslog.spool.max',
  /** `true` (default): write what is queued on `SIGTERM`/`SIGINT`, `beforeExit` and `process.exit()`; `false`: only at shutdown. */
  EXIT_FLUSH: 'accesslog.exit-flush',
} as const;

/**
 * Defaults of the numeric {@link AccessLogKeys}.
 *
 * @example
 * ```ts
 * AccessLogDefaults.BUFFER_SIZE; // 5000, Dubbo's LOG_MAX_BUFFER
 * ```
 */
export const AccessLogDefaults = {
  /** Dubbo's `LOG_OUTPUT_INTERVAL`. @defaultValue 5000 */
  FLUSH_INTERVAL: 5000,
  /** Dubbo's `LOG_MAX_BUFFER`. @defaultValue 5000 */
  BUFFER_SIZE: 5000,
  /** No Dubbo equivalent (Dubbo never applies back-pressure). @defaultValue 50000 */
  MAX_PENDING: 50_000,
  /** @defaultValue 2000 */
  WRITE_TIMEOUT: 2000,
  /** About 40 MB of typical lines. @defaultValue 200000 */
  SPOOL_MAX: 200_000,
} as const;

/**
 * How one call ended, as recorded in JSON lines.
 *
 * @remarks `ok`: the call resolved with a value. `biz-error`: the implementation threw (the result carries the
 * error — seen in `onResponse` — or an `RpcError` with code `biz` rejected the call). `error`: a framework failure
 * (an `RpcError` such as `timeout`, `limit-exceeded`, `method-not-found`, or anything else that rejected the call).
 * The text format, like Dubbo's, has no outcome.
 *
 * @example
 * ```ts
 * const failed = records.filter((r) => r.outcome !== 'ok');
 * ```
 */
export type AccessLogOutcome = 'ok' | 'biz-error' | 'error';

/**
 * One line of the JSON-lines format (`accesslog.format=json`, or a `.jsonl` path), in field order.
 *
 * @remarks Written by the `accesslog` filter when the call completes; every field is always present (`null` when
 * it does not apply), so the lines have one schema.
 *
 * @example
 * ```ts
 * const records = text.trim().split('\n').map((line) => JSON.parse(line) as AccessLogJsonRecord);
 * ```
 */
export interface AccessLogJsonRecord {
  /** When the call reached the filter, ISO 8601 in UTC. */
  readonly timestamp: string;
  /** The caller's address: the `remote.address` attachment, else the provider URL's `host:port`. */
  readonly remote: string;
  /** The provider's address: the `local.address` attachment, else the provider URL's `host:port`. */
  readonly local: string;
  /** The interface name. */
  readonly service: string;
  /** The service version, or `null`. */
  readonly version: string | null;
  /** The service group, or `null`. */
  readonly group: string | null;
  /** The method called. */
  readonly method: string;
  /** Declared argument types (`String`, `Number`, a class name, `String[]`…), else the runtime types. */
  readonly argumentTypes: readonly string[];
  /** The arguments as received (as JSON; not JSON-serializable arguments are rendered as one string). */
  readonly arguments: unknown;
  /** Milliseconds from arrival at the filter to completion (including any back-pressure wait). */
  readonly elapsedMs: number;
  /** How the call ended. */
  readonly outcome: AccessLogOutcome;
  /** `<name>: <message>` of the error (`RpcError(<code>): …` for framework errors), or `null`. */
  readonly error: string | null;
}
