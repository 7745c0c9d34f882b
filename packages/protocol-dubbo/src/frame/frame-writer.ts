import type net from 'node:net';

/**
 * Batches the frames written to one socket during a tick into one `write` (one buffer, one syscall), the way a
 * Netty channel flushes once per event-loop turn.
 *
 * @remarks Frames go out in the order written. With 64 calls in flight the responses of one read all leave together;
 * a lone frame is written as is, without a copy.
 *
 * @example
 * ```ts
 * const writer = new FrameWriter(socket);
 * writer.write(encodeFrame(0x02, 20, 0, 1, body));
 * ```
 */
export class FrameWriter {
  private pending: Buffer[] = [];
  private bytes = 0;
  private scheduled = false;
  private readonly flush = () => this.flushNow();

  constructor(private readonly socket: net.Socket) {}

  write(frame: Buffer): void {
    if (this.socket.destroyed) return;
    this.pending.push(frame);
    this.bytes += frame.length;
    if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(this.flush);
    }
  }

  /** Writes what is pending now. */
  flushNow(): void {
    this.scheduled = false;
    const pending = this.pending;
    if (pending.length === 0) return;
    this.pending = [];
    const bytes = this.bytes;
    this.bytes = 0;
    if (this.socket.destroyed) return;
    this.socket.write(pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending, bytes));
  }
}
