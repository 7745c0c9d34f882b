import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const RPC_CODES: ReadonlySet<string> = new Set(Object.values(RpcErrorCode));

/**
 * The field that marks the data of a real framework failure (an `RpcError` instance) with its code.
 *
 * @remarks Only {@link errorToData} of an `instanceof RpcError` writes it, and it drops the field from every
 * other error's own properties, so a business error cannot pass itself off as a framework failure — not even
 * one named `RpcError` or carrying a `code` that happens to be an `RpcErrorCode`.
 */
export const RPC_ERROR_MARK = '$weftRpcError';

/** Serialisable form of an error: its name, message and own enumerable data. */
export interface ErrorData {
  readonly name: string;
  readonly message: string;
  readonly [key: string]: unknown;
}

/**
 * Captures an error as plain data (name, message, own enumerable properties that are plain data).
 *
 * @remarks The name is the error's `name`, except for an error whose class only inherits the `name` of a
 * standard error (`class Declined extends Error {}` has `name` `'Error'`): its class name is used instead, so
 * the consumer can rebuild it as the declared class. A thrown non-`Error` value becomes `{ name: 'Error',
 * message: String(value) }`. A real `RpcError` (a framework failure a provider passed on in its result, e.g.
 * the timeout of its own downstream call) is written as `{ name: 'RpcError', message, code, $weftRpcError:
 * code }`; that mark (`RPC_ERROR_MARK` of `@weft/core/spi`) is never copied from any other error, so
 * {@link errorFromData} rebuilds an `RpcError` only from a real one.
 * @example
 * ```ts
 * errorToData(new RpcError(RpcErrorCode.TIMEOUT, 'slow')); // { name: 'RpcError', message: 'slow', code: 'timeout', $weftRpcError: 'timeout' }
 * errorToData(Object.assign(new Error('no'), { name: 'RpcError', code: 'timeout' })); // no $weftRpcError: stays a business error
 * ```
 */
export function errorToData(error: unknown): ErrorData {
  if (!(error instanceof Error)) return { name: 'Error', message: safeString(error) };
  if (error instanceof RpcError) return { name: 'RpcError', message: error.message, code: error.code, [RPC_ERROR_MARK]: error.code };
  const data: Record<string, unknown> = { name: errorName(error), message: safeString(error.message) };
  const classes = classChain(error);
  if (classes.length > 1) data['classes'] = classes.join(',');
  for (const key of Object.keys(error)) {
    if (UNSAFE_KEYS.has(key) || key === 'stack' || key === 'cause' || key === 'classes' || key === RPC_ERROR_MARK) continue;
    const v = (error as unknown as Record<string, unknown>)[key];
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) data[key] = v;
  }
  return data as ErrorData;
}

/** `String(value)`, or a tag when the value's own conversion throws (a null-prototype object, a hostile `toString`). */
function safeString(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return String(value);
  } catch {
    return Object.prototype.toString.call(value);
  }
}

const STANDARD_ERRORS: readonly (abstract new (...args: never[]) => Error)[] = [
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
];

/** The name an error travels under: its `name`, or its class name when it merely inherits a standard error's. */
/** The class names of an error, own class first, up to (excluding) `Error`: lets a subclass of a declared error be rebuilt as it. */
function classChain(error: Error): string[] {
  const names: string[] = [];
  for (let proto = Object.getPrototypeOf(error) as { constructor?: { name?: string } } | null; proto !== null && proto !== Error.prototype; proto = Object.getPrototypeOf(proto) as typeof proto) {
    const name = proto.constructor?.name;
    if (typeof name === 'string' && name !== '') names.push(name);
    if (names.length >= 8) break;
  }
  return names;
}

function errorName(error: Error): string {
  const name = error.name;
  const ctor = (error as { constructor?: unknown }).constructor;
  if (
    typeof ctor === 'function' &&
    ctor.name !== '' &&
    ctor.name !== name &&
    !Object.prototype.hasOwnProperty.call(error, 'name') &&
    STANDARD_ERRORS.some((c) => c.name === name && c !== ctor)
  ) {
    return ctor.name;
  }
  return name;
}

/**
 * Rebuilds an error from {@link ErrorData}: an instance of the first declared error class found in the error's
 * class chain (so a subclass of a declared error arrives as the declared class), or of the standard error class
 * (`TypeError`…) of that name — created without running its constructor; a real framework failure (marked by
 * {@link errorToData}) as an `RpcError` with its code; else a plain `Error` carrying the name.
 *
 * @remarks The other data properties become own properties of the error; `message` is non-enumerable as on a
 * native error, and `name` is an own property only when the class does not already answer it. A property whose
 * name the error already inherits (`toString`, `valueOf`, `hasOwnProperty`, a getter of the declared class…) is
 * dropped, so `String(error)` and the class's own methods keep working whatever the provider sent. An error named
 * `RpcError`, or carrying a `code`, without the mark stays a business error (a plain `Error` named `RpcError`).
 * @example
 * ```ts
 * errorFromData(errorToData(new RpcError(RpcErrorCode.TIMEOUT, 'slow'))); // RpcError, code timeout
 * errorFromData({ name: 'RpcError', message: 'mine', code: 'timeout' }); // Error named RpcError (business)
 * ```
 */
export function errorFromData(data: ErrorData, declared: readonly (abstract new (...args: never[]) => Error)[] = []): Error {
  const message = safeString(data.message);
  const mark = data[RPC_ERROR_MARK];
  if (typeof mark === 'string' && RPC_CODES.has(mark)) return new RpcError(mark as RpcErrorCode, message);
  const name = typeof data.name === 'string' ? data.name : 'Error';
  const chain = typeof data['classes'] === 'string' ? data['classes'].split(',') : [name];
  if (!chain.includes(name)) chain.unshift(name);
  let cls: (abstract new (...args: never[]) => Error) | undefined;
  for (const className of chain) {
    cls = declared.find((c) => c.name === className);
    if (cls !== undefined) break;
  }
  cls ??= STANDARD_ERRORS.find((c) => c.name === name);
  const error = (cls !== undefined ? Object.create(cls.prototype as object) : new Error(message)) as Error & Record<string, unknown>;
  const proto = Object.getPrototypeOf(error) as object;
  for (const key of Object.keys(data)) {
    if (UNSAFE_KEYS.has(key) || key === 'classes' || key === RPC_ERROR_MARK || key === 'message') continue;
    if (key === 'name') {
      if (error.name !== name) Object.defineProperty(error, 'name', { value: name, writable: true, configurable: true, enumerable: true });
      continue;
    }
    // Inherited names (methods, accessors) are not overwritten by data: `String(error)` must keep working.
    if (key in proto) continue;
    Object.defineProperty(error, key, { value: data[key], writable: true, configurable: true, enumerable: true });
  }
  if (cls !== undefined) {
    Object.defineProperty(error, 'message', { value: message, writable: true, configurable: true });
    Error.captureStackTrace?.(error);
  }
  return error;
}

/**
 * A decoded Java `Throwable` as the declared error class it names: matched by the class's `static javaClass`, else
 * by simple name (`com.acme.Declined` → `Declined`), keeping its own plain fields (a `code`, a `reason`); the error
 * itself when no declared class matches (or it already is one).
 *
 * @remarks For protocols whose serialization carries Java exceptions (`dubbo://`, Triple's Hessian2 wrapper): the
 * consumer sees the class its service definition declares, as with errors travelling as {@link ErrorData}.
 * @example
 * ```ts
 * const error = asDeclaredError(input.readThrowable(), method.throws); // a Declined, when `throws: [Declined]`
 * ```
 */
export function asDeclaredError(error: Error, declared: readonly (abstract new (...args: never[]) => Error)[] = []): Error {
  for (const cls of declared) if (error instanceof cls) return error;
  const name = error.name;
  const simple = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1) : name;
  const cls = declared.find((c) => (c as { javaClass?: unknown }).javaClass === name) ?? declared.find((c) => c.name === simple);
  if (cls === undefined) return error;
  const data: Record<string, unknown> = {};
  for (const key of Object.keys(error)) {
    const value = (error as unknown as Record<string, unknown>)[key];
    if (value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') data[key] = value;
  }
  delete data['javaClass'];
  return errorFromData({ ...data, name: cls.name, message: error.message }, [cls]);
}
