import type { Writable } from 'node:stream';

import { encodeCompressedFrame } from '../codec/compression.js';
import { encodeFrame } from '../codec/grpc-frame.js';

/** Why {@link writeMessages} stopped before the source's end. */
export interface WriteControl {
  /** Set when the call ended (cancelled, deadline, reset): the loop stops and the source's `return()` is called. */
  stopped: boolean;
  /** Wakes a write waiting for `drain` (set by the loop while it waits). */
  wake: (() => void) | undefined;
}

/**
 * Writes the messages of `source` to an HTTP/2 stream as gRPC frames, pulling the next message only when the stream
 * is writable: when `write()` reports a full buffer the loop waits for `drain`, so a slow reader (whose HTTP/2
 * window closed) keeps the writer's memory bounded — the producer is simply not asked for more.
 *
 * @remarks
 * `beforeFirst` runs before the first frame (to send the response headers); `encoding` compresses each message. Stops when `control.stopped` is set
 * (the source's `return()` is then called, so a generator's `finally` runs); resolves with the number of messages
 * written; rejects with what the source or `encode` threw.
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
      const frame = encoding === undefined ? encodeFrame(payload) : encodeCompressedFrame(payload, encoding);
      if (written === 0) beforeFirst?.();
      written++;
      // Past the stream's 16 KiB mark `write()` says false; waiting for `drain` there costs a loop turn per 16 KiB.
      // Buffer up to WRITE_BUDGET instead: still bounded (a closed window stops the flush, so the wait comes).
      stream.write(frame);
      if (stream.writableLength > WRITE_BUDGET && !control.stopped) await drained(stream, control);
    }
  } catch (error) {
    finished = true;
    throw error;
  } finally {
    if (!finished) {
      // Not awaited: a generator busy in an `await` runs its `finally` once that settles.
      iterator.return?.()?.then(undefined, ignore);
    }
  }
  return written;
}

/** Bytes a stream may hold unsent before the writer waits for `drain`. */
const WRITE_BUDGET = 256 * 1024;

function ignore(): void {}

function drained(stream: Writable, control: WriteControl): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.removeListener('drain', done);
      stream.removeListener('close', done);
      control.wake = undefined;
      resolve();
    };
    control.wake = done;
    stream.once('drain', done);
    stream.once('close', done);
  });
}
