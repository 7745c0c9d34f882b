/** Length of a Dubbo frame header, in bytes. */
export const HEADER_LENGTH = 16;
/** The two magic bytes every frame starts with. */
export const MAGIC_HIGH = 0xda;
export const MAGIC_LOW = 0xbb;

/**
 * Bits of the flag byte (header byte 2).
 *
 * @example
 * ```ts
 * const flag = Flag.REQUEST | Flag.TWO_WAY | 2; // 0xc2: a two-way hessian2 request
 * ```
 */
export const Flag = {
  /** 1 = request, 0 = response. */
  REQUEST: 0x80,
  /** The caller waits for a response (requests only). */
  TWO_WAY: 0x40,
  /** Heartbeat, read-only or writeable notice. */
  EVENT: 0x20,
  /** The serialization id (hessian2: 2). */
  SERIALIZATION_MASK: 0x1f,
} as const;

/**
 * One decoded frame: the header fields and the body.
 *
 * @remarks The request id is kept as its two raw 32-bit halves (`idHigh`, `idLow`, unsigned), never as one JS number:
 * Java ids are random signed 64-bit values, and a server echoes them bit for bit.
 *
 * @example
 * ```ts
 * if ((frame.flag & Flag.REQUEST) !== 0) answer(frame);
 * ```
 */
export interface Frame {
  readonly flag: number;
  readonly status: number;
  readonly idHigh: number;
  readonly idLow: number;
  readonly body: Buffer;
}

/**
 * Writes a frame (header and body) into one buffer.
 *
 * @example
 * ```ts
 * socket.write(encodeFrame(0xe2, 0, 0, 5, Buffer.from([0x4e]))); // a heartbeat request, id 5
 * ```
 */
export function encodeFrame(flag: number, status: number, idHigh: number, idLow: number, body: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(HEADER_LENGTH + body.length);
  writeHeader(frame, 0, flag, status, idHigh, idLow, body.length);
  frame.set(body, HEADER_LENGTH);
  return frame;
}

/**
 * Writes the 16 header bytes of a frame at `at` in `out`: magic, flag, status, the request id's halves, the body length.
 *
 * @example
 * ```ts
 * writeHeader(batch, offset, 0xc2, 0, 0, 7, body.length);
 * ```
 */
export function writeHeader(out: Buffer, at: number, flag: number, status: number, idHigh: number, idLow: number, bodyLength: number): void {
  out[at] = MAGIC_HIGH;
  out[at + 1] = MAGIC_LOW;
  out[at + 2] = flag;
  out[at + 3] = status;
  out.writeUInt32BE(idHigh >>> 0, at + 4);
  out.writeUInt32BE(idLow >>> 0, at + 8);
  out.writeInt32BE(bodyLength, at + 12);
}

/**
 * The request id of a frame as a `bigint` (signed 64-bit, as Java reads it), for messages and tests.
 *
 * @example
 * ```ts
 * requestId({ idHigh: 0xffffffff, idLow: 0xffffffff }); // -1n
 * ```
 */
export function requestId(frame: Pick<Frame, 'idHigh' | 'idLow'>): bigint {
  return BigInt.asIntN(64, (BigInt(frame.idHigh >>> 0) << 32n) | BigInt(frame.idLow >>> 0));
}
