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
 * header plus at most `payload` bytes whatever a peer announces. A frame entirely inside one read is passed on as a
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
  private body: Buffer | undefined = undefined;
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
      const body = this.body;
      if (body !== undefined) {
        const n = Math.min(body.length - this.bodyFill, end - offset);
        chunk.copy(body, this.bodyFill, offset, offset + n);
        this.bodyFill += n;
        offset += n;
        if (this.bodyFill === body.length) this.complete(body);
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
      this.fail(`bad magic 0x${bytes.toString('hex', at, at + 2)} (expected 0xdabb): not a Dubbo frame`);
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
    this.body = Buffer.allocUnsafe(length);
    this.bodyFill = 0;
  }

  private complete(body: Buffer): void {
    this.body = undefined;
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
    this.bodyFill = 0;
    this.sink.corrupt(reason);
  }
}

const EMPTY = Buffer.alloc(0);
