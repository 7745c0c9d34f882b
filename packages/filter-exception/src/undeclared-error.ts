/**
 * What the consumer receives instead of an error the called method does not declare.
 *
 * @remarks
 * Created by the `exception` filter on the provider side. Its `message` is `<original name>: <original
 * message>` — never a stack trace — and `originalName` keeps the original error's name as data, so both survive
 * serialization: a consumer rebuilds it as an `Error` whose `name` is `'UndeclaredError'` (an `UndeclaredError`
 * instance only in-process with `copy=false`). On the provider, `cause` holds the original error (it does not
 * travel); its stack trace is logged there. It is a business error: it travels in the `Result`, so clusters do
 * not retry it and fail-mock does not degrade it.
 *
 * @example
 * ```ts
 * try {
 *   await inventory.reserve('sku-1');
 * } catch (error) {
 *   if (error instanceof Error && error.name === 'UndeclaredError') console.warn(`provider bug: ${error.message}`);
 * }
 * ```
 */
export class UndeclaredError extends Error {
  /** The original error's name (`'TypeError'`, `'StockDbError'`…), or `'Error'` for a thrown non-error value. */
  readonly originalName: string;

  constructor(original: unknown) {
    const described = describe(original);
    super(described.message, { cause: original });
    this.name = 'UndeclaredError';
    this.originalName = described.name;
  }
}

/** Name and one-line message of a thrown value: `<name>: <message>` for an error, the value's text otherwise. */
function describe(value: unknown): { name: string; message: string } {
  if (value instanceof Error) {
    const name = nameOf(value);
    const message = safeString(() => value.message);
    return { name, message: message === '' ? name : `${name}: ${message}` };
  }
  return { name: 'Error', message: `non-error value thrown: ${safeString(() => String(value))}` };
}

const STANDARD_NAMES: ReadonlySet<string> = new Set(['Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'EvalError', 'URIError']);

/**
 * An error's `name`, or its class name when it merely inherits a standard error's (`class StockDbError extends
 * Error {}` has `name` `'Error'`): the name that tells the consumer what went wrong.
 */
function nameOf(error: Error): string {
  const name = safeString(() => error.name) || 'Error';
  const ctor = safeString(() => (error.constructor as { name?: unknown } | undefined)?.name ?? '');
  const own = Object.prototype.hasOwnProperty.call(error, 'name');
  return !own && ctor !== '' && ctor !== 'undefined' && ctor !== name && STANDARD_NAMES.has(name) ? ctor : name;
}

function safeString(read: () => unknown): string {
  try {
    const value = read();
    return typeof value === 'string' ? value : String(value);
  } catch {
    return '';
  }
}
