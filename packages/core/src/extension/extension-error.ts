/**
 * Codes carried by {@link ExtensionError}.
 *
 * @remarks
 * A closed set: every code has a row in `docs/reference/errors.md`, and a test fails when the two diverge.
 *
 * @example
 * ```ts
 * import { ExtensionError, ExtensionErrorCode } from '@weft/core';
 * try { loader.getExtension('nope'); } catch (e) {
 *   if (e instanceof ExtensionError && e.code === ExtensionErrorCode.NOT_FOUND) console.log(e.message);
 * }
 * ```
 */
export const ExtensionErrorCode = {
  /** No extension is registered under the requested name. */
  NOT_FOUND: 'ERR_SPI_NOT_FOUND',
  /** An extension's module could not be imported, or its export is missing or not a class. */
  LOAD_FAILED: 'ERR_SPI_LOAD_FAILED',
  /** Two packages (or registrations) claim the same extension name for one extension point. */
  DUPLICATE_NAME: 'ERR_SPI_DUPLICATE_NAME',
  /** A `META-INF/weft/*.json` manifest is not valid JSON or does not match the manifest schema. */
  INVALID_MANIFEST: 'ERR_SPI_INVALID_MANIFEST',
  /** An extension name is empty, reserved (`default`, `true`, leading `-`) or not lowercase kebab-case. */
  INVALID_NAME: 'ERR_SPI_INVALID_NAME',
  /** An adaptive extension found no extension name in the URL and the extension point has no default. */
  NO_ADAPTIVE_NAME: 'ERR_SPI_NO_ADAPTIVE_NAME',
  /** An adaptive extension cannot be built or called: no adaptive methods, or no URL among the arguments. */
  ADAPTIVE_FAILED: 'ERR_SPI_ADAPTIVE_FAILED',
  /** A dependency cycle: between injected extensions, or between `before`/`after` activation constraints. */
  CYCLE: 'ERR_SPI_CYCLE',
  /** A class registered for an extension point does not extend that point's abstract class. */
  NOT_SUBCLASS: 'ERR_SPI_NOT_SUBCLASS',
  /** A class used as an extension point is not marked with `@SPI`. */
  NOT_AN_SPI: 'ERR_SPI_NOT_AN_SPI',
  /** An extension point was used before its extensions were loaded with `await loader.load()`. */
  NOT_LOADED: 'ERR_SPI_NOT_LOADED',
  /** An extension point was requested from a scope that cannot own it (e.g. an application point from the framework). */
  SCOPE_MISMATCH: 'ERR_SPI_SCOPE_MISMATCH',
  /** An extension (or one of its wrappers or dependencies) threw while being constructed. */
  INSTANTIATION_FAILED: 'ERR_SPI_INSTANTIATION_FAILED',
  /** The scope that owns the extension loader has been destroyed. */
  DESTROYED: 'ERR_SPI_DESTROYED',
  /** A URL string cannot be parsed. */
  INVALID_URL: 'ERR_SPI_INVALID_URL',
  /** Discovery met a file it cannot use in an installed package (a dangling symlink, an unreadable `package.json`), or a plugin only in devDependencies; the other packages are discovered. */
  DISCOVERY: 'ERR_SPI_DISCOVERY',
  /** Two copies of `@weft/core` are installed: extensions built against one do not extend the other's classes. */
  DUPLICATE_CORE: 'ERR_SPI_DUPLICATE_CORE',
  /** An extension module did not finish loading (e.g. a top-level await that never settles) within the import timeout. */
  LOAD_TIMEOUT: 'ERR_SPI_LOAD_TIMEOUT',
  /** A URL parameter has a value of the wrong type (e.g. `timeout=abc` where a number is expected). */
  INVALID_PARAMETER: 'ERR_SPI_INVALID_PARAMETER',
  /** Strict mode: a URL key that neither Weft, an installed extension nor the application reads. */
  UNKNOWN_PARAMETER: 'ERR_SPI_UNKNOWN_PARAMETER',
} as const;

/** One of the {@link ExtensionErrorCode} values. */
export type ExtensionErrorCode = (typeof ExtensionErrorCode)[keyof typeof ExtensionErrorCode];

/**
 * The error raised for problems in loading, configuring or resolving extensions.
 *
 * @remarks
 * Configuration-time problems (manifests, names, injection, URLs) raise `ExtensionError`; problems of a call
 * in flight raise `RpcError`. The message composes the resolution chain hop by hop (wrapper → extension →
 * dependency → root cause) and ends with what to do. `cause` keeps the original error.
 *
 * @example
 * ```ts
 * throw new ExtensionError(ExtensionErrorCode.NOT_FOUND, 'No extension "x" of weft.rpc.Filter. Available: a, b.');
 * ```
 */
export class ExtensionError extends Error {
  /** The machine-readable code. */
  readonly code: ExtensionErrorCode;

  constructor(code: ExtensionErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ExtensionError';
    this.code = code;
  }
}

/** Human-readable one-line description of any thrown value, for composing messages. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message ? `${error.name}: ${error.message}` : error.name;
  return String(error);
}
