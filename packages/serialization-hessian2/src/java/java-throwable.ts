/** One frame of a Java stack trace (`java.lang.StackTraceElement`). */
export interface JavaStackFrame {
  readonly declaringClass: string;
  readonly methodName: string;
  readonly fileName: string | null;
  readonly lineNumber: number;
}

/**
 * A Java `Throwable` read from Hessian: `name` is the Java class (`java.lang.IllegalStateException`), `message` its
 * `detailMessage`, `cause` the nested Throwable when it has a real one.
 *
 * @remarks The Java stack trace is kept in {@link JavaThrowable.javaStackTrace} and printed in `stack`; subclass
 * fields (a `RpcException`'s `code`) are copied as own properties. Writing it back sends the same class.
 *
 * @example
 * ```ts
 * const error = input.readThrowable();
 * if (error instanceof JavaThrowable) console.log(error.javaClass, error.javaStackTrace[0]?.methodName);
 * ```
 */
export class JavaThrowable extends Error {
  /** The Java stack trace, innermost frame first. */
  javaStackTrace: readonly JavaStackFrame[] = [];

  constructor(
    /** The Java class name. */
    readonly javaClass: string,
    message = '',
  ) {
    super(message);
    this.name = javaClass;
  }
}

function frameOf(value: unknown): JavaStackFrame | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const f = value as Record<string, unknown>;
  return {
    declaringClass: typeof f.declaringClass === 'string' ? f.declaringClass : '',
    methodName: typeof f.methodName === 'string' ? f.methodName : '',
    fileName: typeof f.fileName === 'string' ? f.fileName : null,
    lineNumber: typeof f.lineNumber === 'number' ? f.lineNumber : -1,
  };
}

const THROWABLE_FIELDS: ReadonlySet<string> = new Set([
  'detailMessage',
  'cause',
  'stackTrace',
  'suppressedExceptions',
  'name',
  'message',
  'stack',
  'javaClass',
  'javaStackTrace',
  '__proto__',
  'constructor',
  'prototype',
]);

/** Fills a {@link JavaThrowable} from the fields read off the wire (`cause` referring to itself means no cause). */
export function fillThrowable(error: JavaThrowable, fields: Record<string, unknown>): void {
  const message = fields.detailMessage;
  error.message = typeof message === 'string' ? message : '';
  const cause = fields.cause;
  if (cause instanceof Error && cause !== error) (error as { cause?: unknown }).cause = cause;
  const trace = fields.stackTrace;
  const frames = Array.isArray(trace) ? trace.map(frameOf).filter((f): f is JavaStackFrame => f !== undefined) : [];
  error.javaStackTrace = frames;
  let stack = message === undefined || message === null ? error.javaClass : `${error.javaClass}: ${error.message}`;
  for (const f of frames) stack += `\n    at ${f.declaringClass}.${f.methodName}(${f.fileName === null ? 'Unknown Source' : `${f.fileName}:${f.lineNumber}`})`;
  error.stack = stack;
  for (const key of Object.keys(fields)) {
    if (!THROWABLE_FIELDS.has(key)) (error as unknown as Record<string, unknown>)[key] = fields[key];
  }
}
