import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

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
 * message: String(value) }`.
 */
export function errorToData(error: unknown): ErrorData {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const data: Record<string, unknown> = { name: errorName(error), message: error.message };
  const classes = classChain(error);
  if (classes.length > 1) data['classes'] = classes.join(',');
  for (const key of Object.keys(error)) {
    if (UNSAFE_KEYS.has(key) || key === 'stack' || key === 'cause' || key === 'classes') continue;
    const v = (error as unknown as Record<string, unknown>)[key];
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) data[key] = v;
  }
  return data as ErrorData;
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
 * (`TypeError`…) of that name — created without running its constructor; an `RpcError` as an `RpcError` with its
 * code; else a plain `Error` carrying the name.
 *
 * @remarks The other data properties become own properties of the error; `message` is non-enumerable as on a
 * native error, and `name` is an own property only when the class does not already answer it.
 */
export function errorFromData(data: ErrorData, declared: readonly (abstract new (...args: never[]) => Error)[] = []): Error {
  if (data.name === 'RpcError' && typeof data['code'] === 'string' && (Object.values(RpcErrorCode) as string[]).includes(data['code'])) {
    return new RpcError(data['code'] as RpcErrorCode, data.message);
  }
  const chain = typeof data['classes'] === 'string' ? data['classes'].split(',') : [data.name];
  if (!chain.includes(data.name)) chain.unshift(data.name);
  let cls: (abstract new (...args: never[]) => Error) | undefined;
  for (const name of chain) {
    cls = declared.find((c) => c.name === name);
    if (cls !== undefined) break;
  }
  cls ??= STANDARD_ERRORS.find((c) => c.name === data.name);
  const error = (cls !== undefined ? Object.create(cls.prototype as object) : new Error(data.message)) as Error & Record<string, unknown>;
  for (const key of Object.keys(data)) {
    if (UNSAFE_KEYS.has(key) || key === 'classes') continue;
    if (cls !== undefined && (key === 'message' || (key === 'name' && error.name === data.name))) continue;
    error[key] = data[key];
  }
  if (cls !== undefined) {
    Object.defineProperty(error, 'message', { value: data.message, writable: true, configurable: true });
    Error.captureStackTrace?.(error);
  }
  return error;
}
