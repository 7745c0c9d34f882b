import type { Duplex } from 'node:stream';

import { decompress, type InflateBudget } from '../codec/compression.js';

/**
 * Where a server stream accounts the bytes its unread messages hold (raw and inflated), released as they are read.
 *
 * @example
 * ```ts
 * const budget: MessageBudget = new CallBuffer(connectionBudget);
 * ```
 */
export interface MessageBudget extends InflateBudget {
  release(bytes: number): void;
}

/** Messages buffered before the HTTP/2 stream is paused (its flow-control window then closes on the peer). */
export const INBOUND_HIGH_WATER = 16;

interface Pending {
  readonly bytes: Buffer;
  readonly compressed: boolean;
}

interface Waiter<T> {
  readonly resolve: (step: IteratorResult<T, undefined>) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * The messages arriving on one HTTP/2 stream, read as an async iterator, with back-pressure: when
 * {@link INBOUND_HIGH_WATER} messages wait unread the stream is paused — Node then stops consuming its DATA, so the
 * peer's HTTP/2 flow-control window closes and the peer stops sending — and it resumes once the reader caught up.
 *
 * @remarks
 * Messages are decompressed and decoded when read (so they stay in order and a slow reader holds raw bytes only).
 * `end()` ends the iteration after the buffered messages, `fail()` throws from it. The reader's `return()` (a
 * `break` out of `for await`) calls `onStop` — the consumer cancels the call; a provider that stopped reading its
 * requests keeps answering, and later requests are dropped as they arrive.
 *
 * @example
 * ```ts
 * const inbound = new InboundMessages(stream, (bytes) => codec.decodeResult(bytes, method), encoding, payload, () => cancel());
 * reader = new GrpcMessageReader(payload, true, Infinity, (bytes, compressed) => inbound.push(bytes, compressed));
 * for await (const message of inbound) use(message);
 * ```
 */
export class InboundMessages<T> implements AsyncIterableIterator<T, undefined, undefined> {
  private readonly buffered: Pending[] = [];
  private waiter: Waiter<T> | undefined = undefined;
  private ended = false;
  /** The reader was told the iteration is done (an `end()` can no longer be turned into a failure). */
  private endSeen = false;
  private failure: { readonly error: unknown } | undefined = undefined;
  private stopped = false;

  constructor(
    private readonly stream: Duplex,
    private readonly decode: (bytes: Uint8Array) => T,
    /** The `grpc-encoding` compressed messages are inflated with. */
    public encoding: string | undefined,
    private readonly payload: number,
    private readonly onStop: () => void,
    /** Server side: the buffered-bytes account (each message's frame bytes were reserved by the caller). */
    private readonly budget?: MessageBudget,
  ) {}

  /** Messages waiting to be read (the back-pressure tests read it). */
  get size(): number {
    return this.buffered.length;
  }

  push(bytes: Buffer, compressed: boolean): void {
    if (this.ended || this.stopped) {
      this.budget?.release(bytes.length + 5);
      return;
    }
    const waiter = this.waiter;
    if (waiter !== undefined && this.buffered.length === 0) {
      this.waiter = undefined;
      this.deliver({ bytes, compressed }, waiter);
      return;
    }
    this.buffered.push({ bytes, compressed });
    if (this.buffered.length >= INBOUND_HIGH_WATER && !this.stream.isPaused()) this.stream.pause();
  }

  /** No more messages: the iteration ends after the buffered ones. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.wake();
  }

  /**
   * The stream failed: the iteration throws `error` (after the buffered messages). With `overEnd`, this also replaces
   * an `end()` the reader has not seen yet — a provider's requests reset right after their half-close (Node's http2,
   * so grpc-js, half-closes before it resets on cancel) must not look like a complete upload.
   */
  fail(error: unknown, overEnd = false): void {
    if (this.failure !== undefined || this.endSeen || (this.ended && !overEnd)) return;
    this.ended = true;
    this.failure = { error };
    this.wake();
  }

  next(): Promise<IteratorResult<T, undefined>> {
    const first = this.buffered.shift();
    if (first !== undefined) {
      if (this.buffered.length <= INBOUND_HIGH_WATER / 2 && this.stream.isPaused() && !this.stopped) this.stream.resume();
      // An uncompressed message is decoded at once: one settled promise, no executor or waiter to allocate.
      if (!first.compressed) return this.decodeNow(first.bytes);
      return new Promise((resolve, reject) => this.deliver(first, { resolve, reject }));
    }
    if (this.ended) {
      this.endSeen = true;
      return this.failure === undefined ? Promise.resolve({ done: true, value: undefined }) : Promise.reject(this.failure.error);
    }
    if (this.stream.isPaused() && !this.stopped) this.stream.resume();
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  /** The reader stopped early: drop what is buffered and cancel the call. */
  return(): Promise<IteratorResult<T, undefined>> {
    if (!this.stopped && !this.ended) {
      this.stopped = true;
      if (this.budget !== undefined) for (const message of this.buffered) this.budget.release(message.bytes.length + 5);
      this.buffered.length = 0;
      this.onStop();
      // Whatever still arrives is dropped as it comes, not held back by a closed window.
      if (!this.stream.destroyed && this.stream.isPaused()) this.stream.resume();
    }
    this.stopped = true;
    return Promise.resolve({ done: true, value: undefined });
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private wake(): void {
    const waiter = this.waiter;
    if (waiter === undefined || this.buffered.length > 0) return;
    this.waiter = undefined;
    this.endSeen = true;
    if (this.failure === undefined) waiter.resolve({ done: true, value: undefined });
    else waiter.reject(this.failure.error);
  }

  private deliver(message: Pending, waiter: Waiter<T>): void {
    const budget = this.budget;
    if (!message.compressed) {
      budget?.release(message.bytes.length + 5);
      this.decodeTo(message.bytes, waiter);
      return;
    }
    decompress(message.bytes, this.encoding, this.payload, budget).then(
      (inflated) => {
        budget?.release(message.bytes.length + 5 + inflated.length);
        this.decodeTo(inflated, waiter);
      },
      (error: unknown) => {
        budget?.release(message.bytes.length + 5);
        waiter.reject(error);
      },
    );
  }

  private decodeNow(bytes: Buffer): Promise<IteratorResult<T, undefined>> {
    this.budget?.release(bytes.length + 5);
    let value: T;
    try {
      value = this.decode(bytes);
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.resolve({ done: false, value });
  }

  private decodeTo(bytes: Uint8Array, waiter: Waiter<T>): void {
    let value: T;
    try {
      value = this.decode(bytes);
    } catch (error) {
      waiter.reject(error);
      return;
    }
    waiter.resolve({ done: false, value });
  }
}
