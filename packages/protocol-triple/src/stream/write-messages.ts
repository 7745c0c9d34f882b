import type { Writable } from 'node:stream';

import { encodeCompressedFrame } from '../codec/compression.js';
import { FRAME_HEADER_LENGTH } from '../codec/grpc-frame.js';

/** Why {@link writeMessages} stopped before the source's end. */
export interface WriteControl {
  /** Set when the call ended (cancelled, deadline, reset): the loop stops and the source's `return()` is called. */
  stopped: boolean;
  /** Wakes a write waiting for `drain` (set by the loop while it waits). */
  wake: (() => void) | undefined;
}

/**
 * Writes the messages of `source` to an HTTP/2 stream as gRPC frames, pulling the next message only when the stream
 * is writable: when more than {@link WRITE_BUDGET} bytes wait unsent the loop waits until half of them went out, so
 * a slow reader (whose HTTP/2 window closed) keeps the writer's memory bounded — the producer is simply not asked for
 * more — while a fast one finds the next frames already queued when the last ones leave (no stop-and-go).
 *
 * @remarks
 * Small frames are coalesced: every message the source yields within one turn of the event loop is framed (the
 * 5-byte prefix and the message, copied once) into a shared slab, and the slab's new bytes go out as **one**
 * `write()` when the turn's microtasks are done (`process.nextTick`) — before the loop goes back to I/O, so a lone
 * message (a ping-pong) is not delayed, while a generator yielding thousands of messages costs one stream write per
 * turn instead of one per message. Frames past {@link COALESCE_LIMIT} are written on their own. Unflushed bytes count
 * against the write budget.
 *
 * `beforeFirst` runs before the first frame (to send the response headers); `encoding` compresses each message. Stops
 * when `control.stopped` is set (the source's `return()` is then called, so a generator's `finally` runs); resolves
 * with the number of messages written (all of them flushed to the stream); rejects with what the source or `encode`
 * threw.
 *
 * @example
 * ```ts
 * const control: WriteControl = { stopped: false, wake: undefined };
 * await writeMessages(stream, replies, (reply) => codec.encodeResult(reply, method), control, () => stream.respond(headers));
 * ```
 */
export async function writeMessages(
  stream: Writable,
  source: AsyncIterable<unknown>,
  encode: (value: unknown) => Uint8Array,
  control: WriteControl,
  beforeFirst?: () => void,
  /** `grpc-encoding` to compress each message with (`undefined`: identity). */
  encoding?: string,
): Promise<number> {
  const iterator = source[Symbol.asyncIterator]();
  const batch = new FrameBatch(stream);
  let written = 0;
  let finished = false;
  try {
    while (!control.stopped) {
      const step = await iterator.next();
      if (step.done === true) {
        finished = true;
        break;
      }
      if (control.stopped) break;
      const payload = encode(step.value);
      if (written === 0) beforeFirst?.();
      written++;
      if (encoding === undefined) batch.add(payload);
      else batch.addFrame(encodeCompressedFrame(payload, encoding));
      if (stream.writableLength + batch.pending > WRITE_BUDGET && !control.stopped) {
        batch.flush();
        await batch.belowLowWater(control);
      }
    }
  } catch (error) {
    finished = true;
    throw error;
  } finally {
    batch.flush();
    if (!finished) {
      // Not awaited: a generator busy in an `await` runs its `finally` once that settles.
      iterator.return?.()?.then(undefined, ignore);
    }
  }
  return written;
}

/**
 * Bytes a stream may hold unsent before the writer waits for `drain`. Past the stream's 16 KiB mark `write()` says
 * false; waiting for `drain` there costs a loop turn per 16 KiB. This budget is still bounded: a closed HTTP/2 window
 * stops the flush, so the wait comes.
 */
const WRITE_BUDGET = 256 * 1024;

/** Unsent bytes below which a writer waiting for the stream is woken (half the budget: the rest keeps the pipe busy). */
const WRITE_LOW_WATER = WRITE_BUDGET / 2;

/** Frames up to this size are coalesced into the slab; larger ones are written as they are (no copy). */
const COALESCE_LIMIT = 16 * 1024;

/** Size of a coalescing slab (a new one is taken when the current one cannot hold the next frame). */
const SLAB_SIZE = 64 * 1024;

/**
 * The frames of one event-loop turn, gathered in a slab and written as one chunk on the next tick (or earlier, by
 * {@link FrameBatch.flush}). Bytes already handed to the stream are never touched again: the next batch starts
 * after them, and a full slab is replaced, not reused.
 */
class FrameBatch {
  private slab: Buffer | undefined = undefined;
  private start = 0;
  private end = 0;
  private scheduled = false;
  /** Wakes the writer waiting in {@link FrameBatch.belowLowWater}. */
  private waiting: (() => void) | undefined = undefined;
  private readonly onTick = (): void => {
    this.scheduled = false;
    this.flush();
  };
  /** A write completed: wake the waiting writer once the unsent bytes fell to the low-water mark. */
  private readonly onWritten = (): void => {
    const waiting = this.waiting;
    if (waiting !== undefined && this.stream.writableLength <= WRITE_LOW_WATER) waiting();
  };

  constructor(private readonly stream: Writable) {}

  /** Bytes framed but not yet written to the stream. */
  get pending(): number {
    return this.end - this.start;
  }

  /** Frames `payload` (flag 0, uncompressed). */
  add(payload: Uint8Array): void {
    const size = FRAME_HEADER_LENGTH + payload.length;
    if (size > COALESCE_LIMIT) {
      this.flush();
      const frame = Buffer.allocUnsafe(size);
      frame[0] = 0;
      frame.writeUInt32BE(payload.length, 1);
      frame.set(payload, FRAME_HEADER_LENGTH);
      this.stream.write(frame, this.onWritten);
      return;
    }
    const slab = this.room(size);
    const at = this.end;
    slab[at] = 0;
    slab.writeUInt32BE(payload.length, at + 1);
    slab.set(payload, at + FRAME_HEADER_LENGTH);
    this.end = at + size;
    this.schedule();
  }

  /** Adds an already framed message. */
  addFrame(frame: Buffer): void {
    if (frame.length > COALESCE_LIMIT) {
      this.flush();
      this.stream.write(frame, this.onWritten);
      return;
    }
    const slab = this.room(frame.length);
    slab.set(frame, this.end);
    this.end += frame.length;
    this.schedule();
  }

  /** Writes the gathered frames now (nothing when there are none or the stream can no longer be written). */
  flush(): void {
    if (this.end === this.start) return;
    const chunk = (this.slab as Buffer).subarray(this.start, this.end);
    this.start = this.end;
    const stream = this.stream;
    if (!stream.destroyed && !stream.writableEnded) stream.write(chunk, this.onWritten);
  }

  /**
   * Resolves once the stream's unsent bytes fell to {@link WRITE_LOW_WATER} (a write completed), it drained or closed,
   * or `control.wake` was called (the call ended). Call it after {@link FrameBatch.flush}.
   */
  belowLowWater(control: WriteControl): Promise<void> {
    const stream = this.stream;
    return new Promise((resolve) => {
      const done = () => {
        if (this.waiting !== done) return;
        this.waiting = undefined;
        stream.removeListener('drain', done);
        stream.removeListener('close', done);
        if (control.wake === done) control.wake = undefined;
        resolve();
      };
      this.waiting = done;
      control.wake = done;
      stream.once('drain', done);
      stream.once('close', done);
    });
  }

  private room(size: number): Buffer {
    const slab = this.slab;
    if (slab !== undefined && slab.length - this.end >= size) return slab;
    this.flush();
    const fresh = Buffer.allocUnsafe(SLAB_SIZE);
    this.slab = fresh;
    this.start = 0;
    this.end = 0;
    return fresh;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    process.nextTick(this.onTick);
  }
}

function ignore(): void {}
