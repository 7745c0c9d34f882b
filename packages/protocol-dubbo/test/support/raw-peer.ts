import net from 'node:net';

import { FrameDecoder, type Frame } from '@weft/protocol-dubbo';

/** A raw TCP peer of a dubbo:// server: writes bytes, collects the frames it answers, tells when it closed. */
export class RawPeer {
  readonly frames: Frame[] = [];
  readonly closed: Promise<void>;
  private readonly socket: net.Socket;

  private constructor(socket: net.Socket) {
    this.socket = socket;
    const decoder = new FrameDecoder(0, { frame: (f) => this.frames.push(f), oversized: () => undefined, corrupt: () => undefined });
    socket.on('data', (chunk: Buffer) => decoder.push(chunk));
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
  }

  static connect(port: number): Promise<RawPeer> {
    return new Promise((resolve, reject) => {
      const socket = net.connect({ host: '127.0.0.1', port }, () => resolve(new RawPeer(socket)));
      socket.once('error', reject);
    });
  }

  write(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** Waits for the `n`-th answered frame. */
  async frame(n = 1, timeoutMs = 2000): Promise<Frame> {
    const end = Date.now() + timeoutMs;
    while (this.frames.length < n) {
      if (Date.now() > end) throw new Error(`no frame #${n} within ${timeoutMs} ms (got ${this.frames.length})`);
      await new Promise((r) => setTimeout(r, 5));
    }
    return this.frames[n - 1] as Frame;
  }

  destroy(): void {
    this.socket.destroy();
  }
}
