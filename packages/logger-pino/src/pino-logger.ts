import { Logger, RpcError } from '@weft/core';
import type { Logger as Pino } from 'pino';

/** The structured fields a {@link PinoLogger} adds to a record (only those it knows). */
export interface WeftLogFields {
  /** The service (interface name), e.g. `org.acme.Greeter`. */
  service?: string;
  /** The method. */
  method?: string;
  /** A provider or peer address, `host:port`. */
  address?: string;
  /** The `RpcError` code (`timeout`, `limit-exceeded`, …) or `ExtensionError` code (`ERR_SPI_*`). */
  code?: string;
  /** Dubbo's numeric code, for an `RpcError`. */
  dubboCode?: number;
}

/** `org.acme.Greeter.sayHello()` — Weft's messages name a call this way. */
const CALL = /\b([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\.([A-Za-z_$][\w$]*)\(\)/;
/** `provider 127.0.0.1:20880`, `to 127.0.0.1:50051`, `at tri://127.0.0.1:50051/…` */
const ADDRESS = /\b(?:provider|providers \[|to|at|from) (?:[a-z][\w+.-]*:\/\/)?(\[[0-9a-fA-F:]+\]|[\w.-]+):(\d{1,5})\b/;
const SERVICE_CODE = /^[A-Z][A-Z0-9_]+$/;

/**
 * Weft's {@link Logger} on a pino logger: one JSON record per message, with `service`, `method`, `address` and the
 * error `code` as fields.
 *
 * @remarks
 * Levels map one to one (`debug`, `info`, `warn`, `error`). The error, when given, goes under pino's `err` key
 * (its serializer prints name, message, stack and `code`). Fields come from, in order: the bindings of
 * {@link PinoLogger.child}, the error (`code` and `dubboCode` of an `RpcError`, the `code` of an `ExtensionError`),
 * and Weft's message forms (`org.acme.Greeter.sayHello()` → service and method; `provider 10.0.0.1:20880`,
 * `to …`, `at tri://…` → address). A throwing pino destination never reaches the caller (Weft guards its logger
 * calls, and so does this class).
 *
 * @example
 * ```ts
 * import pino from 'pino';
 * const app = await WeftApplication.start({ root, logger: new PinoLogger(pino()) });
 * ```
 */
export class PinoLogger extends Logger {
  constructor(
    /** The pino logger records go to. */
    readonly pino: Pino,
    private readonly bindings: WeftLogFields = {},
  ) {
    super();
  }

  /** A logger whose records all carry `fields` (e.g. the service an extension works for). */
  child(fields: WeftLogFields): PinoLogger {
    return new PinoLogger(this.pino, { ...this.bindings, ...fields });
  }

  debug(message: string): void {
    if (this.pino.isLevelEnabled('debug')) this.write('debug', message, undefined);
  }

  info(message: string): void {
    if (this.pino.isLevelEnabled('info')) this.write('info', message, undefined);
  }

  warn(message: string, error?: unknown): void {
    if (this.pino.isLevelEnabled('warn')) this.write('warn', message, error);
  }

  error(message: string, error?: unknown): void {
    if (this.pino.isLevelEnabled('error')) this.write('error', message, error);
  }

  /** The fields of one record (exposed for tests and for custom formatters). */
  fieldsOf(message: string, error?: unknown): WeftLogFields & { err?: unknown } {
    const fields: WeftLogFields & { err?: unknown } = {};
    const call = CALL.exec(message);
    if (call !== null) {
      fields.service = call[1];
      fields.method = call[2];
    }
    const address = ADDRESS.exec(message);
    if (address !== null) fields.address = `${address[1] ?? ''}:${address[2] ?? ''}`;
    if (error instanceof RpcError) {
      fields.code = error.code;
      fields.dubboCode = error.dubboCode;
    } else if (error instanceof Error && 'code' in error && typeof error.code === 'string' && SERVICE_CODE.test(error.code)) {
      fields.code = error.code;
    }
    Object.assign(fields, this.bindings);
    if (error !== undefined) fields.err = error;
    return fields;
  }

  private write(level: 'debug' | 'info' | 'warn' | 'error', message: string, error: unknown): void {
    try {
      this.pino[level](this.fieldsOf(message, error), message);
    } catch {
      // A logger never breaks the work it reports on.
    }
  }
}
