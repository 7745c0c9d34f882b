import { ObjectInput, RpcError, RpcErrorCode, type TypeDescriptor } from '@weft/core';
import { malformed } from './decoder/byte-source.js';
import type { StringTable } from './decoder/string-table.js';
import { HessianDecoder, JAVA_CLASS } from './decoder/hessian-decoder.js';
import type { ReaderCompiler } from './decoder/reader-compiler.js';
import { JavaThrowable } from './java/java-throwable.js';

/**
 * The values of one Hessian 2 body, read in order (Dubbo's `Hessian2ObjectInput`); made by
 * `Hessian2Serialization.createInput(bytes)`.
 *
 * @example
 * ```ts
 * const input = hessian2.createInput(body);
 * const version = input.readString();
 * const user = input.readObject(User);
 * ```
 */
export class Hessian2Input extends ObjectInput {
  private readonly decoder: HessianDecoder;

  /** @internal Made by `Hessian2Serialization`. */
  constructor(
    bytes: Uint8Array,
    private readonly compiler: ReaderCompiler,
    strings: StringTable,
  ) {
    super();
    this.decoder = new HessianDecoder(bytes, strings);
  }

  /** Reads an int; long and double tags convert as Java's `readInt` does, `N` reads as 0. */
  readInt(): number {
    const start = this.decoder.pos;
    const value = this.decoder.value();
    if (value === null) return 0;
    if (typeof value === 'number') return Math.trunc(value) | 0;
    if (typeof value === 'bigint') return Number(BigInt.asIntN(32, value));
    if (typeof value === 'boolean') return value ? 1 : 0;
    throw malformed(`expected an int, got ${describeValue(value)}`, start);
  }

  /** Reads a string or `null`; numbers and booleans read as their text, as Java's `readString` does. */
  readString(): string | null {
    const start = this.decoder.pos;
    const value = this.decoder.value();
    if (value === null || typeof value === 'string') return value;
    if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
    throw malformed(`expected a string, got ${describeValue(value)}`, start);
  }

  /** Reads one value, realised to `type` when given. */
  readObject(type?: TypeDescriptor): unknown {
    const start = this.decoder.pos;
    if (type === undefined) return this.decoder.value();
    this.decoder.markClasses = false;
    let value: unknown;
    try {
      value = this.decoder.value();
    } finally {
      this.decoder.markClasses = true;
    }
    return this.compiler.realize(type, value, `value at offset ${start}`);
  }

  /** Reads a Java `Throwable` as a {@link JavaThrowable}. */
  readThrowable(): Error {
    const start = this.decoder.pos;
    const value = this.decoder.value();
    if (value instanceof Error) return value;
    throw new RpcError(
      RpcErrorCode.SERIALIZATION,
      `hessian2: expected a Throwable at offset ${start}, got ${describeValue(value)} (a Java exception class the reader does not know arrives as a map).`,
    );
  }

  /** Whether bytes remain. */
  hasMore(): boolean {
    return this.decoder.hasMore();
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value instanceof JavaThrowable) return `a ${value.javaClass}`;
  if (typeof value === 'object') {
    const cls = (value as { [JAVA_CLASS]?: string })[JAVA_CLASS];
    if (cls !== undefined) return `an object of ${cls}`;
    return Array.isArray(value) ? 'a list' : 'a map';
  }
  return `a ${typeof value}`;
}
