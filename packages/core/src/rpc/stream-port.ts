import type { Invocation } from './invocation.js';

/**
 * How a method streams: `server` (one request, many responses), `client` (many requests, one response), `bidi`.
 *
 * @example
 * ```ts
 * const kind: StreamKind | undefined = Ticker.getMethod('countdown')?.stream; // 'server'
 * ```
 */
export type StreamKind = 'server' | 'client' | 'bidi';

const PORT = Symbol('weft.stream-port');

/**
 * The hand-over point of a streaming call's responses, carried by its invocation while the call's `Result` is still
 * pending: the call's `Result` settles only when the stream has ended, with its final status.
 *
 * @remarks
 * A stream call passes the filter chain once, at its start, and its listener hooks fire once, at its end (so
 * `executelimit`/`active-limit` count it in flight for its whole life, `accesslog` logs its final status and the
 * timeout covers the whole stream). In between, the responses travel outside the chain: the side that produces them
 * (the provider's service invoker, or a protocol's consumer invoker) calls {@link StreamPort.open} with them, the
 * side that reads them (the consumer proxy, or a protocol's server) awaits {@link StreamPort.opened}, reads, and
 * calls {@link StreamPort.close} when it stopped reading — with the reason when it did not read to the end (the
 * consumer broke out of its `for await`, a write failed). The producer learns that through {@link StreamPort.closed}.
 *
 * @example
 * ```ts
 * const port = StreamPort.attach(invocation);
 * const pending = invoker.invoke(invocation);          // settles when the stream ended
 * for await (const reply of await port.opened) console.log(reply);
 * port.close();
 * ```
 */
export class StreamPort<T = unknown> {
  /** Resolves with the responses once the producing side opened them. */
  readonly opened: Promise<AsyncIterable<T>>;
  /** Resolves once the reading side stopped reading: `undefined` after reading to the end, else the reason. */
  readonly closed: Promise<unknown>;
  /** Whether {@link StreamPort.open} was called. */
  isOpen = false;
  /** Whether {@link StreamPort.close} was called. */
  isClosed = false;
  private resolveOpened!: (source: AsyncIterable<T>) => void;
  private resolveClosed!: (reason: unknown) => void;

  constructor() {
    this.opened = new Promise((resolve) => (this.resolveOpened = resolve));
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
  }

  /** Creates a port and attaches it to `invocation` (replacing one an earlier attempt left). */
  static attach<T = unknown>(invocation: Invocation): StreamPort<T> {
    const port = new StreamPort<T>();
    invocation.setAttribute(PORT, port);
    return port;
  }

  /** The port attached to `invocation`, if any. */
  static of<T = unknown>(invocation: Invocation): StreamPort<T> | undefined {
    return invocation.getAttribute(PORT) as StreamPort<T> | undefined;
  }

  /** Hands the responses over (once; later calls are ignored). */
  open(source: AsyncIterable<T>): void {
    if (this.isOpen) return;
    this.isOpen = true;
    this.resolveOpened(source);
  }

  /** Tells the producer that reading stopped: `reason` undefined after the end, else why (once). */
  close(reason?: unknown): void {
    if (this.isClosed) return;
    this.isClosed = true;
    this.resolveClosed(reason);
  }
}

/**
 * Whether a value can be read with `for await` (an async iterable, or a sync iterable that is not a string).
 *
 * @example
 * ```ts
 * isStreamSource([1, 2]); // true
 * isStreamSource('ab');   // false
 * ```
 */
export function isStreamSource(value: unknown): value is AsyncIterable<unknown> | Iterable<unknown> {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return false;
  return typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function' ||
    typeof (value as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function';
}
