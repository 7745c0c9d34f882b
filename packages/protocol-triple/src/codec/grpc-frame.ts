import { FrameError } from './grpc-frame-error.js';
import { GrpcStatus } from './grpc-status.js';

export { FrameError } from './grpc-frame-error.js';
export { ACCEPT_ENCODING, decompress, isSupportedEncoding, SUPPORTED_ENCODINGS } from './compression.js';

const EMPTY = Buffer.alloc(0);

/**
 * Length of the gRPC message prefix: 1 flag byte and a 4-byte big-endian length.
 *
 * @example
 * ```ts
 * const payload = frame.subarray(FRAME_HEADER_LENGTH);
 * ```
 */
export const FRAME_HEADER_LENGTH = 5;

/** From this payload length on, a message is written as its prefix and itself (see {@link frameOf}). */
const SPLIT_FRAME_BYTES = 16 * 1024;

/**
 * A framed message as it is written: one buffer, or the 5-byte prefix and the payload as they are (large messages).
 *
 * @example
 * ```ts
 * writeFrameAndEnd(stream, frameOf(codec.encodeResult(value, method)));
 * ```
 */
export type Frame = Buffer | { readonly prefix: Buffer; readonly payload: Uint8Array };

/**
 * Frames one message (flag 0: uncompressed) for {@link writeFrameAndEnd}: a small one in one buffer; a large one as
 * its prefix and the payload itself, which is then neither copied nor given a second buffer of its size.
 *
 * @example
 * ```ts
 * const frame = frameOf(payload);
 * ```
 */
export function frameOf(payload: Uint8Array): Frame {
  if (payload.length < SPLIT_FRAME_BYTES) return encodeFrame(payload);
  const prefix = Buffer.allocUnsafe(FRAME_HEADER_LENGTH);
  prefix[0] = 0;
  prefix.writeUInt32BE(payload.length, 1);
  return { prefix, payload };
}

/**
 * Writes a frame and ends the stream. The prefix and payload of a split frame are written corked, so the stream hands
 * both to HTTP/2 at once and they share DATA frames.
 *
 * @example
 * ```ts
 * writeFrameAndEnd(stream, frameOf(payload));
 * ```
 */
export function writeFrameAndEnd(stream: NodeJS.WritableStream & { cork(): void }, frame: Frame): void {
  if (Buffer.isBuffer(frame)) {
    stream.end(frame);
    return;
  }
  stream.cork();
  stream.write(frame.prefix);
  stream.end(frame.payload); // end() uncorks
}

/**
 * Frames one message as a gRPC Length-Prefixed-Message (flag 0: uncompressed), in one buffer.
 *
 * @example
 * ```ts
 * stream.end(encodeFrame(codec.encodeValue(value, method)));
 * ```
 */
export function encodeFrame(payload: Uint8Array): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_HEADER_LENGTH + payload.length);
  frame[0] = 0;
  frame.writeUInt32BE(payload.length, 1);
  frame.set(payload, FRAME_HEADER_LENGTH);
  return frame;
}

/**
 * Reads gRPC Length-Prefixed-Messages from the DATA chunks of one HTTP/2 stream, enforcing a size limit
 * **before** buffering: a message is refused as soon as its 5-byte prefix declares more than the limit.
 *
 * @remarks
 * Validates each prefix: reserved flag bits must be 0; the compressed flag needs a `grpc-encoding` other than
 * `identity` (`compressionAllowed`); the declared length must not exceed `maxMessageSize`; at most `maxMessages`
 * messages (1 for unary calls). `end()` fails on a truncated message (END_STREAM mid-frame). A message that
 * arrives whole in one chunk is a view of that chunk (no copy); a fragmented one is concatenated once, when complete.
 *
 * Streaming calls would pass `onMessage` and `maxMessages: Infinity`: each message is then handed over as soon as
 * it is complete, instead of being kept as {@link GrpcMessageReader.message}.
 *
 * @example
 * ```ts
 * const reader = new GrpcMessageReader(8 << 20);
 * stream.on('data', (chunk) => reader.push(chunk));
 * stream.on('end', () => { reader.end(); handle(reader.message); });
 * ```
 */
export class GrpcMessageReader {
  /** The first complete message (unary calls), when no `onMessage` hook is set. */
  message: Buffer | undefined = undefined;
  /** Whether {@link GrpcMessageReader.message} was sent compressed. */
  compressed = false;
  /** Complete messages read so far. */
  count = 0;

  private headerRead = 0;
  private flags = 0;
  private length = 0;
  /** Bytes of the current message body read so far; -1 while reading a prefix. */
  private got = -1;
  private parts: Buffer[] | undefined = undefined;

  constructor(
    private readonly maxMessageSize: number,
    private readonly compressionAllowed = false,
    private readonly maxMessages = 1,
    private readonly onMessage?: (message: Buffer, compressed: boolean) => void,
  ) {}

  /** Whether a message has begun but is not complete (part of its prefix or body was read). */
  get partial(): boolean {
    return this.got >= 0 || this.headerRead > 0;
  }

  /**
   * Consumes one DATA chunk.
   * @throws FrameError for bad flags, a message over the limit, or more messages than allowed.
   */
  push(chunk: Buffer): void {
    let offset = 0;
    const size = chunk.length;
    while (offset < size) {
      if (this.got < 0) {
        while (this.headerRead < FRAME_HEADER_LENGTH && offset < size) {
          const byte = chunk[offset++] as number;
          if (this.headerRead === 0) this.flags = byte;
          else this.length = this.length * 256 + byte;
          this.headerRead++;
        }
        if (this.headerRead < FRAME_HEADER_LENGTH) return;
        this.checkPrefix();
        this.got = 0;
        if (this.length === 0) {
          this.complete(EMPTY);
          continue;
        }
      }
      const wanted = this.length - this.got;
      const available = size - offset;
      if (this.got === 0 && available >= wanted) {
        this.complete(chunk.subarray(offset, offset + wanted));
        offset += wanted;
        continue;
      }
      const take = available < wanted ? available : wanted;
      (this.parts ??= []).push(chunk.subarray(offset, offset + take));
      this.got += take;
      offset += take;
      if (this.got === this.length) {
        const parts = this.parts;
        this.parts = undefined;
        this.complete(Buffer.concat(parts, this.length));
      }
    }
  }

  /**
   * Marks the end of the stream.
   * @throws FrameError (INTERNAL) when a message was cut short.
   */
  end(): void {
    if (this.got >= 0) {
      throw new FrameError(GrpcStatus.INTERNAL, `Truncated gRPC message: END_STREAM after ${this.got} of the ${this.length} bytes its prefix declared.`);
    }
    if (this.headerRead > 0) {
      throw new FrameError(GrpcStatus.INTERNAL, `Truncated gRPC message: END_STREAM after ${this.headerRead} of the 5 prefix bytes.`);
    }
  }

  private checkPrefix(): void {
    const flags = this.flags;
    if ((flags & 0xfe) !== 0) {
      throw new FrameError(GrpcStatus.INTERNAL, `Malformed gRPC message: reserved flag bits are not zero (flags 0x${flags.toString(16)}).`);
    }
    if (flags === 1 && !this.compressionAllowed) {
      throw new FrameError(GrpcStatus.INTERNAL, 'Malformed gRPC message: the compressed flag is set but the stream declares no grpc-encoding.');
    }
    if (this.length > this.maxMessageSize) {
      throw new FrameError(
        GrpcStatus.RESOURCE_EXHAUSTED,
        `gRPC message of ${this.length} bytes exceeds the limit of ${this.maxMessageSize} bytes (URL key "payload").`,
      );
    }
    if (this.count >= this.maxMessages) {
      throw new FrameError(GrpcStatus.INTERNAL, `Malformed unary call: more than ${this.maxMessages} message(s) in one stream.`);
    }
  }

  private complete(message: Buffer): void {
    const compressed = this.flags === 1;
    this.count++;
    this.headerRead = 0;
    this.length = 0;
    this.got = -1;
    if (this.onMessage !== undefined) this.onMessage(message, compressed);
    else if (this.message === undefined) {
      this.message = message;
      this.compressed = compressed;
    }
  }
}
