import { RpcError, RpcErrorCode } from '@weft/core';

import { StringTable } from './string-table.js';

/** A malformed or hostile body: an `RpcError` `serialization` naming the byte offset. */
export function malformed(message: string, offset: number): RpcError {
  return new RpcError(RpcErrorCode.SERIALIZATION, `hessian2: ${message} at offset ${offset}.`);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const MIN_SAFE = BigInt(Number.MIN_SAFE_INTEGER);

/** A long as a number when it is a safe integer, else a `bigint`. */
export function normalizeLong(value: bigint): number | bigint {
  return value <= MAX_SAFE && value >= MIN_SAFE ? Number(value) : value;
}

/**
 * The bytes of one body with bounds-checked reads of Hessian's fixed-width fields and UTF-8 string units.
 *
 * @remarks Every read checks the end of input first, so a truncated body fails with its offset, never with a
 * `RangeError`.
 */
export class ByteSource {
  readonly bytes: Uint8Array;
  private dataView: DataView | undefined;
  private text: Buffer | undefined;
  pos = 0;

  /** @param strings - where recent short strings are kept (the serialization's). */
  constructor(
    bytes: Uint8Array,
    private readonly strings: StringTable,
  ) {
    this.bytes = bytes;
  }

  /** A view for 64-bit reads, made on first use (most bodies have none). */
  private get view(): DataView {
    return (this.dataView ??= new DataView(this.bytes.buffer, this.bytes.byteOffset, this.bytes.byteLength));
  }

  get remaining(): number {
    return this.bytes.length - this.pos;
  }

  need(n: number, what: string): void {
    if (this.pos + n > this.bytes.length) throw malformed(`truncated ${what} (${n} bytes needed, ${this.bytes.length - this.pos} left)`, this.pos);
  }

  u8(what: string): number {
    if (this.pos >= this.bytes.length) throw malformed(`truncated ${what}`, this.pos);
    return this.bytes[this.pos++] as number;
  }

  u16(what: string): number {
    this.need(2, what);
    const value = ((this.bytes[this.pos] as number) << 8) | (this.bytes[this.pos + 1] as number);
    this.pos += 2;
    return value;
  }

  i32(what: string): number {
    this.need(4, what);
    const b = this.bytes;
    const p = this.pos;
    this.pos += 4;
    return ((b[p] as number) << 24) | ((b[p + 1] as number) << 16) | ((b[p + 2] as number) << 8) | (b[p + 3] as number);
  }

  i64(what: string): bigint {
    this.need(8, what);
    const value = this.view.getBigInt64(this.pos);
    this.pos += 8;
    return value;
  }

  f64(what: string): number {
    this.need(8, what);
    const value = this.view.getFloat64(this.pos);
    this.pos += 8;
    return value;
  }

  /** `count` UTF-16 units of (CESU-8 or UTF-8) text; a 4-byte UTF-8 sequence counts as two units (a surrogate pair). */
  utf8(count: number): string {
    if (count > this.bytes.length - this.pos) throw malformed(`truncated string (${count} characters announced, ${this.bytes.length - this.pos} bytes left)`, this.pos);
    const bytes = this.bytes;
    const start = this.pos;
    // ASCII fast path: `count` units are `count` bytes.
    let end = start;
    const asciiEnd = start + count;
    while (end < asciiEnd && (bytes[end] as number) < 0x80) end++;
    if (end === asciiEnd) {
      this.pos = end;
      if (StringTable.keeps(count)) return this.strings.ascii(bytes, start, count);
      this.text ??= Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      return this.text.toString('latin1', start, end);
    }
    const units: number[] = [];
    for (let i = start; i < end; i++) units.push(bytes[i] as number);
    let pos = end;
    let left = count - (end - start);
    while (left > 0) {
      if (pos >= bytes.length) throw malformed('truncated string', pos);
      const b = bytes[pos] as number;
      if (b < 0x80) {
        units.push(b);
        pos++;
        left--;
      } else if ((b & 0xe0) === 0xc0) {
        if (pos + 1 >= bytes.length) throw malformed('truncated string', pos);
        units.push(((b & 0x1f) << 6) | ((bytes[pos + 1] as number) & 0x3f));
        pos += 2;
        left--;
      } else if ((b & 0xf0) === 0xe0) {
        if (pos + 2 >= bytes.length) throw malformed('truncated string', pos);
        units.push(((b & 0x0f) << 12) | (((bytes[pos + 1] as number) & 0x3f) << 6) | ((bytes[pos + 2] as number) & 0x3f));
        pos += 3;
        left--;
      } else if ((b & 0xf8) === 0xf0 && left >= 2) {
        if (pos + 3 >= bytes.length) throw malformed('truncated string', pos);
        const cp =
          ((b & 0x07) << 18) | (((bytes[pos + 1] as number) & 0x3f) << 12) | (((bytes[pos + 2] as number) & 0x3f) << 6) | ((bytes[pos + 3] as number) & 0x3f);
        const v = cp - 0x10000;
        units.push(0xd800 + (v >> 10), 0xdc00 + (v & 0x3ff));
        pos += 4;
        left -= 2;
      } else {
        throw malformed(`bad UTF-8 byte 0x${b.toString(16).padStart(2, '0')} in a string`, pos);
      }
    }
    this.pos = pos;
    let out = '';
    for (let i = 0; i < units.length; i += 8192) out += String.fromCharCode.apply(null, units.slice(i, i + 8192));
    return out;
  }

  /** A copy of the next `n` bytes. */
  take(n: number, what: string): Uint8Array {
    this.need(n, what);
    // A plain Uint8Array copy, even from a Buffer (whose own slice would share the body's memory).
    const out = new Uint8Array(n);
    out.set(this.bytes.subarray(this.pos, this.pos + n));
    this.pos += n;
    return out;
  }
}
