import { resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

import {
  ApplicationModel,
  Filter,
  Logger,
  RpcError,
  type Invocation,
  type Invoker,
  type Result,
  type URL,
} from '@weft/core';
import { Inject, isConfigNotEmpty, safeLog } from '@weft/core/spi';

import { AccessLogExitHooks } from './access-log-exit-hooks.js';
import { AccessLogFileWriter, type AccessLogWriterOptions } from './access-log-file-writer.js';
import {
  argumentsJson,
  declaredTypes,
  describeFailure,
  DubboTimeFormatter,
  formatJson,
  formatText,
  IsoTimeFormatter,
  oneLine,
  runtimeTypes,
  serviceJson,
  type CallRecord,
} from './access-log-format.js';
import { AccessLogDefaults, AccessLogKeys, type AccessLogOutcome } from './access-log-keys.js';
import { AccessLogStats } from './access-log-stats.js';

/** Write attempts a writer makes at shutdown (mirrors the writer's own bound when no deadline is known). */
const CLOSE_ATTEMPTS = 3;

/** Where one (URL, method) logs to, resolved once. */
interface Target {
  readonly format: 'text' | 'json';
  /** The file's writer; undefined: the application logger. */
  readonly writer: AccessLogFileWriter | undefined;
  readonly service: string;
  readonly version: string;
  readonly group: string;
  /** The service fields of a JSON line. */
  readonly serviceJson: string;
  /** The provider URL's `host:port`, the fallback of both addresses. */
  readonly address: string;
  /** The method's declared argument types; undefined: use the runtime types of each call. */
  readonly types: readonly string[] | undefined;
}

/** What is known of a call when it reaches the filter. */
interface Arrival {
  readonly target: Target;
  readonly startMs: number;
  readonly startPerf: number;
  readonly remote: string;
  readonly local: string;
  readonly types: readonly string[];
  readonly args: { readonly text: string; readonly json: boolean };
  readonly argCount: number;
}

/** Cache key of calls to methods the service does not declare: they use the service-level `accesslog` value. */
const UNDECLARED = '\u0000undeclared';

function isDefault(value: string): boolean {
  const lower = value.toLowerCase();
  return lower === 'true' || lower === 'default';
}

function positiveInteger(url: URL, key: string, fallback: number): number {
  const raw = url.getParameter(key);
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

function address(invocation: Invocation, key: string, fallback: string): string {
  const value = invocation.getAttachment(key);
  return value === undefined || value === '' ? fallback : oneLine(String(value));
}

/**
 * Dubbo's access log: one line per call to a provider, to the application logger or to a file, recorded when the
 * call completes — and never lost.
 *
 * @remarks
 * **Contract.** `weft.rpc.Filter` extension `accesslog` (manifest `META-INF/weft/weft.rpc.Filter.json`), activated in
 * group `provider` when `accesslog` (or a method-level `<method>.accesslog`) is set to a ConfigUtils-not-empty
 * value (not `false`, `0`, `null`, `N/A`) — Dubbo 2.7's activation, so the filter costs nothing on services that do
 * not log. Never activated on the consumer side. Application scope: one instance per application, owning that
 * application's file queues (nothing is shared at module level). Default order (0); it sees the outcome produced by
 * the filters inside it, and calls rejected by a filter outside it are not logged (they never reach it).
 *
 * ```
 *  provider: exporter → [ … → accesslog → … ] → service implementation
 *                           │ invoke: note arrival time, addresses, argument types and arguments (as JSON);
 *                           │         wait here while the file has accesslog.max.pending lines pending
 *                           └ onResponse / onError: completion time, elapsed, outcome → one line
 * ```
 *
 * **Keys** ({@link AccessLogKeys}): `accesslog` = `true`/`default` → the application logger (`info`, one message
 * per call); any other value → a file path (relative to `process.cwd()`), one line per call. `accesslog.format`
 * (`text` | `json`; `.jsonl` paths default to `json`), `accesslog.flush.interval` (5000 ms),
 * `accesslog.buffer.size` (5000 lines), `accesslog.max.pending` (50 000 lines): read once per file, from the first
 * URL that logs to it.
 *
 * **Text format** (Dubbo 3.x, §5.1): `[<in>] -> [<out>] <remote> -> <local> - [<group>/]<service>[:<version>]
 * <method>(<types>) <args JSON>` with times `yyyy-MM-dd HH:mm:ss.SSSSS` in local time. The out-time is when the
 * call completed, not when `invoke` returned. **JSON lines**: see `AccessLogJsonRecord`. Addresses come from the
 * `remote.address` / `local.address` attachments when a protocol sets them, else the provider URL's `host:port`.
 *
 * **Files.** Lines are queued per file in an array (order kept, identical lines all kept) and written
 * asynchronously in append mode: when the queue reaches `accesslog.buffer.size`, every `accesslog.flush.interval`
 * ms (unref'd timer) and at shutdown. **A file that cannot keep up:** with `accesslog.overflow=spool` (default)
 * calls proceed and up to `accesslog.spool.max` lines wait (beyond, dropped and counted); with `hold`, once
 * `accesslog.max.pending` lines are pending `invoke` waits (before handing the call on) until a write brings the
 * count below the limit. A failed write (`ENOSPC`, `EACCES`…) or one slower than `accesslog.write.timeout` (a
 * blocked FIFO) keeps its lines queued for retry on the timer, counts in {@link AccessLogStats} `failedWrites`, and
 * is logged once per failure streak. {@link AccessLogFilter.destroy} — called and awaited by core when the
 * application shuts down — flushes everything by the shutdown's deadline and closes the files; with
 * `accesslog.exit-flush` (default) queued lines are also written on `SIGTERM`/`SIGINT`, `beforeExit` and `exit`.
 *
 * **Synchronous calls.** A call whose inner chain completes synchronously (answers with a `Result`, e.g. a
 * synchronous implementation) is answered synchronously and its line recorded before the answer returns; a
 * synchronous throw is recorded (`error`) before it propagates. Only back-pressure makes the filter answer with a
 * promise. Each call gets exactly one line either way.
 *
 * A throwing logger or an unprintable argument never breaks the call.
 *
 * @example
 * ```ts
 * const app = await WeftApplication.start({ root: process.cwd() });
 * await app.export(Greeter, impl, { parameters: { accesslog: 'logs/access.log' } });
 * const stats = app.model.getService(AccessLogStats);
 * // … calls …
 * await app.shutdown(); // every line is in logs/access.log
 * console.log(stats.written, stats.unwritable);
 * ```
 */
export class AccessLogFilter extends Filter {
  private readonly stats: AccessLogStats;
  private readonly writers = new Map<string, AccessLogFileWriter>();
  private readonly targets = new WeakMap<URL, Map<string, Target | null>>();
  private readonly arrivals = new WeakMap<Invocation, Arrival>();
  private readonly time = new DubboTimeFormatter();
  private readonly isoTime = new IsoTimeFormatter();
  private destroyed = false;
  /** Written on signals and at exit; installed with the first file (unless `accesslog.exit-flush=false`). */
  private readonly exitHooks = new AccessLogExitHooks(
    () => [...this.writers.values()],
    () => Math.max(AccessLogDefaults.WRITE_TIMEOUT, ...[...this.writers.values()].map((w) => w.options.writeTimeout)),
  );

  constructor(
    @Inject(Logger) private readonly logger: Logger,
    @Inject(ApplicationModel) private readonly app: ApplicationModel,
  ) {
    super();
    if (!app.hasService(AccessLogStats)) app.registerService(AccessLogStats, new AccessLogStats());
    this.stats = app.getService(AccessLogStats);
  }

  /**
   * Notes the call's arrival, waits while the file is over `accesslog.max.pending`, then continues the chain. The
   * inner answer is returned as is: a call completed synchronously stays synchronous (its line is recorded by
   * `onResponse`/`onError` before the chain answers); only a call held by back-pressure answers with a promise.
   */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    let target: Target | null;
    try {
      target = this.targetOf(invoker.getUrl(), invocation);
    } catch (error) {
      safeLog(this.logger, 'warn', `access log: cannot resolve where to log ${invocation.methodName}; the call is not logged.`, error);
      target = null;
    }
    if (target === null) return invoker.invoke(invocation);
    const arrival = this.arrive(target, invocation);
    if (arrival !== undefined) this.arrivals.set(invocation, arrival);
    const writer = target.writer;
    if (writer !== undefined && writer.overLimit) return this.invokeWhenBelowLimit(writer, invoker, invocation);
    return invoker.invoke(invocation);
  }
  // The closure lives here, not in `invoke`: there it would cost a context allocation on every call.
  private invokeWhenBelowLimit(writer: { waitBelowLimit(): Promise<void> }, invoker: Invoker, invocation: Invocation): Promise<Result> {
    return writer.waitBelowLimit().then(() => invoker.invoke(invocation));
  }


  /** Records the call: `ok`, or `biz-error` when the result carries the implementation's error. */
  override onResponse(result: Result, _invoker: Invoker, invocation: Invocation): void {
    if (result.hasException()) this.complete(invocation, 'biz-error', result.exception);
    else this.complete(invocation, 'ok', undefined);
  }

  /** Records the call as `error` (`biz-error` for an `RpcError` with code `biz`). */
  override onError(error: unknown, _invoker: Invoker, invocation: Invocation): void {
    this.complete(invocation, error instanceof RpcError && error.isBiz ? 'biz-error' : 'error', error);
  }

  /**
   * Flushes every file's queue and closes the files; called (and awaited) by core when the application is
   * destroyed. Lines that still cannot be written after three attempts are counted as `unwritable`.
   */
  async destroy(): Promise<void> {
    this.destroyed = true;
    this.exitHooks.remove();
    const writers = [...this.writers.values()];
    const deadline = this.app.shutdownDeadline ?? Date.now() + CLOSE_ATTEMPTS * (Math.max(0, ...writers.map((w) => w.options.writeTimeout)) + 100);
    await Promise.all(writers.map((writer) => writer.close(deadline)));
  }

  private targetOf(url: URL, invocation: Invocation): Target | null {
    const key = invocation.method === undefined ? UNDECLARED : invocation.methodName;
    let byMethod = this.targets.get(url);
    if (byMethod === undefined) this.targets.set(url, (byMethod = new Map()));
    let target = byMethod.get(key);
    if (target === undefined) {
      target = this.resolveTarget(url, invocation, key === UNDECLARED ? undefined : key);
      byMethod.set(key, target);
    }
    return target;
  }

  private resolveTarget(url: URL, invocation: Invocation, method: string | undefined): Target | null {
    const raw = method === undefined ? url.getParameter(AccessLogKeys.ACCESSLOG) : url.getMethodParameter(method, AccessLogKeys.ACCESSLOG);
    if (!isConfigNotEmpty(raw) || raw.trim() === '') return null;
    const value = raw.trim();
    const toLogger = isDefault(value);
    const path = toLogger ? undefined : resolve(value);
    const formatKey = url.getParameter(AccessLogKeys.FORMAT)?.trim().toLowerCase();
    const format = formatKey === 'json' || formatKey === 'text' ? formatKey : path?.toLowerCase().endsWith('.jsonl') ? 'json' : 'text';
    const service = oneLine(url.getParameter('interface') || url.path);
    const version = oneLine(url.getParameter('version') ?? '');
    const group = oneLine(url.getParameter('group') ?? '');
    return {
      format,
      writer: path === undefined ? undefined : this.writerFor(path, url),
      service,
      version,
      group,
      serviceJson: serviceJson(service, version, group),
      address: oneLine(`${url.host}:${url.port}`),
      types: method === undefined ? undefined : declaredTypes(invocation),
    };
  }

  private writerFor(path: string, url: URL): AccessLogFileWriter {
    let writer = this.writers.get(path);
    if (writer === undefined) {
      const options: AccessLogWriterOptions = {
        flushInterval: positiveInteger(url, AccessLogKeys.FLUSH_INTERVAL, AccessLogDefaults.FLUSH_INTERVAL),
        bufferSize: positiveInteger(url, AccessLogKeys.BUFFER_SIZE, AccessLogDefaults.BUFFER_SIZE),
        maxPending: positiveInteger(url, AccessLogKeys.MAX_PENDING, AccessLogDefaults.MAX_PENDING),
        writeTimeout: positiveInteger(url, AccessLogKeys.WRITE_TIMEOUT, AccessLogDefaults.WRITE_TIMEOUT),
        overflow: url.getParameter(AccessLogKeys.OVERFLOW)?.trim().toLowerCase() === 'hold' ? 'hold' : 'spool',
        spoolMax: positiveInteger(url, AccessLogKeys.SPOOL_MAX, AccessLogDefaults.SPOOL_MAX),
      };
      writer = new AccessLogFileWriter(path, options, this.stats.countersFor(path), this.logger);
      this.writers.set(path, writer);
      // A call that outlived the shutdown: its line is written directly.
      if (this.destroyed) void writer.close(Date.now());
      else if (url.getParameter(AccessLogKeys.EXIT_FLUSH)?.trim().toLowerCase() !== 'false') this.exitHooks.install();
    }
    return writer;
  }

  private arrive(target: Target, invocation: Invocation): Arrival | undefined {
    try {
      return {
        target,
        startMs: Date.now(),
        startPerf: performance.now(),
        remote: address(invocation, 'remote.address', target.address),
        local: address(invocation, 'local.address', target.address),
        types: target.types ?? runtimeTypes(invocation),
        args: argumentsJson(invocation.args),
        argCount: invocation.args.length,
      };
    } catch (error) {
      safeLog(this.logger, 'warn', `access log: cannot describe a call to ${target.service}.${invocation.methodName}; it is not logged.`, error);
      return undefined;
    }
  }

  private complete(invocation: Invocation, outcome: AccessLogOutcome, error: unknown): void {
    const arrival = this.arrivals.get(invocation);
    if (arrival === undefined) return;
    this.arrivals.delete(invocation);
    const { target } = arrival;
    try {
      const elapsedMs = performance.now() - arrival.startPerf;
      const record: CallRecord = {
        startMs: arrival.startMs,
        // Floored: startMs is a truncated Date.now(), so a rounded-up out-time could lie after the wall clock at completion.
        endMs: arrival.startMs + Math.floor(elapsedMs),
        elapsedMs,
        remote: arrival.remote,
        local: arrival.local,
        service: target.service,
        version: target.version,
        group: target.group,
        serviceJson: target.serviceJson,
        method: oneLine(invocation.methodName),
        types: arrival.types,
        args: arrival.args,
        argCount: arrival.argCount,
        outcome,
        error: outcome === 'ok' ? undefined : describeFailure(error),
      };
      const line = target.format === 'json' ? formatJson(record, this.isoTime) : formatText(record, this.time);
      if (target.writer !== undefined) target.writer.append(line);
      else safeLog(this.logger, 'info', line);
    } catch (failure) {
      safeLog(this.logger, 'warn', `access log: cannot record a call to ${target.service}.${invocation.methodName}.`, failure);
    }
  }
}
