import { HEADER_LENGTH, MAGIC_HIGH, MAGIC_LOW, type Frame } from './header.js';

/**
 * What a {@link FrameDecoder} reports besides frames.
 *
 * @example
 * ```ts
 * const sink: FrameSink = { frame: (f) => handle(f), oversized: (h, n) => refuse(h, n), corrupt: (why) => socket.destroy() };
 * ```
 */
export interface FrameSink {
  /** A complete frame. */
  frame(frame: Frame): void;
  /**
   * A header announced a body over the limit: the body is skipped without being buffered (the stream stays in step);
   * `header` is the frame with an empty body.
   */
  oversized(header: Frame, length: number): void;
  /** The stream cannot be framed any more (wrong magic, negative length): the connection must close. */
  corrupt(reason: string): void;
}

/**
 * Splits a TCP byte stream into Dubbo frames: several frames per read, frames split across reads, at any offset.
 *
 * @remarks
 * The body length is checked against `payload` from the header, before a byte of the body is buffered: a longer
 * body is counted off as it arrives and dropped ({@link FrameSink.oversized}), so memory per connection stays at one
 * header plus at most `payload` bytes whatever a peer announces (and a long body is held only as far as its bytes
 * actually arrived). A frame entirely inside one read is passed on as a
 * view of that read (no copy). Once {@link FrameSink.corrupt} was reported, later input is ignored.
 *
 * @example
 * ```ts
 * const decoder = new FrameDecoder(8 << 20, sink);
 * socket.on('data', (chunk) => decoder.push(chunk));
 * ```
 */
export class FrameDecoder {
  private readonly header = Buffer.alloc(HEADER_LENGTH);
  private headerFill = 0;
  /** The body being read: preallocated when small, else collected as it arrives (memory follows bytes received, not announced). */
  private body: Buffer | undefined = undefined;
  private readonly parts: Buffer[] = [];
  private bodyLength = 0;
  private bodyFill = 0;
  private pending: Omit<Frame, 'body'> | undefined = undefined;
  /** Bytes of an oversized body still to skip. */
  private skipping = 0;
  private broken = false;

  constructor(
    private readonly payload: number,
    private readonly sink: FrameSink,
  ) {}

  /** Bytes buffered for a partial frame (tests and memory checks). */
  get buffered(): number {
    return this.headerFill + this.bodyFill;
  }

  push(chunk: Buffer): void {
    let offset = 0;
    const end = chunk.length;
    while (offset < end && !this.broken) {
      if (this.skipping > 0) {
        const n = Math.min(this.skipping, end - offset);
        this.skipping -= n;
        offset += n;
        continue;
      }
      if (this.bodyLength > 0) {
        const n = Math.min(this.bodyLength - this.bodyFill, end - offset);
        const body = this.body;
        if (body !== undefined) chunk.copy(body, this.bodyFill, offset, offset + n);
        else this.parts.push(Buffer.from(chunk.subarray(offset, offset + n)));
        this.bodyFill += n;
        offset += n;
        if (this.bodyFill === this.bodyLength) this.complete();
        continue;
      }
      // A whole header in this read: parsed in place.
      if (this.headerFill === 0 && end - offset >= HEADER_LENGTH) {
        const length = this.parseHeader(chunk, offset);
        offset += HEADER_LENGTH;
        if (length < 0) continue;
        if (end - offset >= length) {
          this.emit(chunk.subarray(offset, offset + length));
          offset += length;
        } else {
          this.startBody(length);
        }
        continue;
      }
      const n = Math.min(HEADER_LENGTH - this.headerFill, end - offset);
      chunk.copy(this.header, this.headerFill, offset, offset + n);
      this.headerFill += n;
      offset += n;
      if (this.headerFill < HEADER_LENGTH) continue;
      this.headerFill = 0;
      const length = this.parseHeader(this.header, 0);
      if (length === 0) this.emit(EMPTY);
      else if (length > 0) this.startBody(length);
    }
  }

  /** Reads a header; returns the body length to read, or -1 when the body is skipped or the stream is broken. */
  private parseHeader(bytes: Buffer, at: number): number {
    if (bytes[at] !== MAGIC_HIGH || bytes[at + 1] !== MAGIC_LOW) {
      const first = bytes[at] as number;
      // A TLS record starts with its content type (handshake 0x16, alert 0x15, data 0x17) and major version 3.
      const tlsRecord = (first === 0x16 || first === 0x15 || first === 0x17) && bytes[at + 1] === 0x03;
      this.fail(`bad magic 0x${bytes.toString('hex', at, at + 2)} (expected 0xdabb): not a Dubbo frame${tlsRecord ? ` (${TLS_RECORD})` : ''}`);
      return -1;
    }
    const length = bytes.readInt32BE(at + 12);
    const header = { flag: bytes[at + 2] as number, status: bytes[at + 3] as number, idHigh: bytes.readUInt32BE(at + 4), idLow: bytes.readUInt32BE(at + 8) };
    if (length < 0) {
      this.fail(`negative body length ${length} in a frame header`);
      return -1;
    }
    if (this.payload > 0 && length > this.payload) {
      this.skipping = length;
      this.sink.oversized({ ...header, body: EMPTY }, length);
      return -1;
    }
    this.pending = header;
    return length;
  }

  private startBody(length: number): void {
    this.bodyLength = length;
    this.bodyFill = 0;
    this.body = length <= PREALLOCATE ? Buffer.allocUnsafe(length) : undefined;
  }

  private complete(): void {
    const body = this.body ?? Buffer.concat(this.parts, this.bodyLength);
    this.body = undefined;
    this.parts.length = 0;
    this.bodyLength = 0;
    this.bodyFill = 0;
    this.emit(body);
  }

  private emit(body: Buffer): void {
    const header = this.pending as Omit<Frame, 'body'>;
    this.pending = undefined;
    this.sink.frame({ flag: header.flag, status: header.status, idHigh: header.idHigh, idLow: header.idLow, body });
  }

  private fail(reason: string): void {
    this.broken = true;
    this.body = undefined;
    this.parts.length = 0;
    this.bodyLength = 0;
    this.bodyFill = 0;
    this.sink.corrupt(reason);
  }
}

/**
 * What a bad-magic reason says when the bytes are a TLS record (the peer speaks TLS where plaintext was expected).
 *
 * @example
 * ```ts
 * if (reason.includes(TLS_RECORD)) hint = 'the provider speaks TLS: refer with ssl-enabled=true';
 * ```
 */
export const TLS_RECORD = 'a TLS record: the peer speaks TLS';

const EMPTY = Buffer.alloc(0);
/** Bodies up to this size are preallocated from their header; longer ones grow with the bytes that arrive. */
const PREALLOCATE = 64 * 1024;
