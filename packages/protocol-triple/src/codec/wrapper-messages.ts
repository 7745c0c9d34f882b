import { RpcError, RpcErrorCode } from '@weft/core/spi';

/**
 * Dubbo's `TripleRequestWrapper` (package `org.apache.dubbo.triple`): the serialization name, one serialized blob
 * per argument, and the arguments' Java class names.
 *
 * @example
 * ```ts
 * const wrapper: RequestWrapper = { serializeType: 'hessian4', args: [blob], argTypes: ['java.lang.String'] };
 * ```
 */
export interface RequestWrapper {
  readonly serializeType: string;
  readonly args: readonly Uint8Array[];
  readonly argTypes: readonly string[];
}

/**
 * Dubbo's `TripleResponseWrapper`: the serialization name, the serialized return value (or `Throwable`), and the
 * method's declared return class name.
 *
 * @example
 * ```ts
 * const wrapper: ResponseWrapper = { serializeType: 'hessian4', data: Uint8Array.of(0x4e), type: 'void' };
 * ```
 */
export interface ResponseWrapper {
  readonly serializeType: string;
  readonly data: Uint8Array;
  readonly type: string;
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** A length-delimited field (wire type 2) to write: its number and its bytes, or a string written as UTF-8. */
type OutField = readonly [number: number, value: Uint8Array | string];

function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 128)) size++;
  return size;
}

function writeVarint(out: Buffer, at: number, value: number): number {
  let rest = value;
  while (rest >= 0x80) {
    out[at++] = (rest & 0x7f) | 0x80;
    rest = Math.floor(rest / 128);
  }
  out[at++] = rest;
  return at;
}

/**
 * The fields, in order, as one message: sized first, then written into one buffer (from Node's pool when small —
 * a `Uint8Array` of its own per part would allocate an ArrayBuffer each, about 1–2 µs apiece).
 */
function encodeFields(fields: readonly OutField[]): Uint8Array {
  const lengths = new Array<number>(fields.length);
  let total = 0;
  for (let i = 0; i < fields.length; i++) {
    const [number, value] = fields[i] as OutField;
    const length = typeof value === 'string' ? Buffer.byteLength(value, 'utf8') : value.length;
    lengths[i] = length;
    total += varintSize((number << 3) | 2) + varintSize(length) + length;
  }
  const out = Buffer.allocUnsafe(total);
  let at = 0;
  for (let i = 0; i < fields.length; i++) {
    const [number, value] = fields[i] as OutField;
    const length = lengths[i] as number;
    at = writeVarint(out, at, (number << 3) | 2);
    at = writeVarint(out, at, length);
    if (typeof value === 'string') out.write(value, at, length, 'utf8');
    else out.set(value, at);
    at += length;
  }
  return out;
}

/**
 * Encodes a request wrapper as Java does: field 1, then every field-2 entry, then every field-3 entry (all
 * length-delimited; nothing else — Dubbo's hand-written parser refuses any other field or wire type).
 *
 * @example
 * ```ts
 * encodeRequestWrapper({ serializeType: 'hessian4', args: [], argTypes: [] }); // 0a 08 'hessian4'
 * ```
 */
export function encodeRequestWrapper(wrapper: RequestWrapper): Uint8Array {
  const fields: OutField[] = [[1, wrapper.serializeType]];
  for (const arg of wrapper.args) fields.push([2, arg]);
  for (const type of wrapper.argTypes) fields.push([3, type]);
  return encodeFields(fields);
}

/**
 * Encodes a response wrapper: field 1, field 2 (always present: a `null` result is the Hessian byte `4e`), field 3.
 *
 * @example
 * ```ts
 * encodeResponseWrapper({ serializeType: 'hessian4', data: Uint8Array.of(0x4e), type: 'void' });
 * ```
 */
export function encodeResponseWrapper(wrapper: ResponseWrapper): Uint8Array {
  return encodeFields([
    [1, wrapper.serializeType],
    [2, wrapper.data],
    [3, wrapper.type],
  ]);
}

/** Reads the fields of a wrapper message, refusing what Dubbo's parser refuses. */
function readFields(bytes: Uint8Array, what: string, visit: (number: number, value: Uint8Array) => void): void {
  let at = 0;
  const readVarint = (): number => {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 5; i++) {
      if (at >= bytes.length) throw malformed(what, 'it ends inside a varint');
      const byte = bytes[at++] as number;
      value += (byte & 0x7f) * scale;
      if ((byte & 0x80) === 0) return value;
      scale *= 128;
    }
    throw malformed(what, 'a varint is longer than 5 bytes');
  };
  while (at < bytes.length) {
    const tag = readVarint();
    const number = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (wireType !== 2 || number < 1 || number > 3) {
      throw malformed(what, `field ${number} has wire type ${wireType} (only fields 1–3, length-delimited, are allowed)`);
    }
    const length = readVarint();
    if (length > bytes.length - at) throw malformed(what, `field ${number} claims ${length} bytes but only ${bytes.length - at} remain`);
    visit(number, bytes.subarray(at, at + length));
    at += length;
  }
}

function text(value: Uint8Array, what: string): string {
  try {
    return utf8Decoder.decode(value);
  } catch {
    throw malformed(what, 'a string field is not UTF-8');
  }
}

function malformed(what: string, why: string): RpcError {
  return new RpcError(RpcErrorCode.SERIALIZATION, `Malformed ${what}: ${why}.`);
}

/**
 * Decodes a `TripleRequestWrapper`.
 * @throws `RpcError` `serialization` for any field or wire type Dubbo does not write, or truncated bytes.
 * @example
 * ```ts
 * decodeRequestWrapper(bytes).args.length; // one blob per argument
 * ```
 */
export function decodeRequestWrapper(bytes: Uint8Array): RequestWrapper {
  let serializeType = '';
  const args: Uint8Array[] = [];
  const argTypes: string[] = [];
  readFields(bytes, 'TripleRequestWrapper', (number, value) => {
    if (number === 1) serializeType = text(value, 'TripleRequestWrapper');
    else if (number === 2) args.push(value);
    else argTypes.push(text(value, 'TripleRequestWrapper'));
  });
  return { serializeType, args, argTypes };
}

/**
 * Decodes a `TripleResponseWrapper`.
 * @throws `RpcError` `serialization` for any field or wire type Dubbo does not write, or truncated bytes.
 * @example
 * ```ts
 * decodeResponseWrapper(bytes).data; // the Hessian2 bytes of the result
 * ```
 */
export function decodeResponseWrapper(bytes: Uint8Array): ResponseWrapper {
  let serializeType = '';
  let data: Uint8Array | undefined;
  let type = '';
  readFields(bytes, 'TripleResponseWrapper', (number, value) => {
    if (number === 1) serializeType = text(value, 'TripleResponseWrapper');
    else if (number === 2) data = value;
    else type = text(value, 'TripleResponseWrapper');
  });
  // Java never omits field 2 (a null result is the Hessian byte 4e); Go may: treat it as null.
  return { serializeType, data: data ?? Uint8Array.of(0x4e), type };
}
