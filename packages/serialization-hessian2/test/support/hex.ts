import { Hessian2Serialization } from '@weft/serialization-hessian2';
import type { TypeDescriptor } from '@weft/core';

/** The codec under test. */
export const hessian2 = new Hessian2Serialization();

/** Bytes as spaced hex (`90 c8 30`). */
export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex').replace(/(..)(?!$)/g, '$1 ');
}

/** Hex (spaces and `"ascii"` strings allowed, as the spec writes them) to bytes. */
export function bytesOf(text: string): Uint8Array {
  let out = '';
  for (const part of text.match(/"[^"]*"|[0-9a-f]{2}/gi) ?? []) {
    out += part.startsWith('"') ? Buffer.from(part.slice(1, -1), 'latin1').toString('hex') : part;
  }
  return Uint8Array.from(Buffer.from(out, 'hex'));
}

/** One value written as `type` (or untyped), as hex. */
export function encodeHex(value: unknown, type?: TypeDescriptor): string {
  const out = hessian2.createOutput();
  out.writeObject(value, type);
  return hex(out.finish());
}

/** One value read from hex, realised to `type` when given. */
export function decodeHex(text: string, type?: TypeDescriptor): unknown {
  return hessian2.createInput(bytesOf(text)).readObject(type);
}
