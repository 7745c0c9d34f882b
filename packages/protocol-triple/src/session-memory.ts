/**
 * The `maxSessionMemory` (in MB, as `node:http2` takes it) of a Triple HTTP/2 session, sized from the limits that
 * already bound what the session may hold, instead of Node's default of 10 MB.
 *
 * @remarks
 * Node counts, against `maxSessionMemory`, everything a session holds in nghttp2: DATA written and queued behind
 * flow control, DATA received and not yet read, header blocks. Past it, nghttp2 resets streams with
 * `ENHANCE_YOUR_CALM` on **this** side — on a client, typically when the response headers of a call the provider
 * already ran arrive, so the call fails after it ran. Ten megabytes is passed by a burst of ten 1 MiB calls, so
 * the bound is computed from Weft's own limits, which already bound the memory: up to `streams` calls in flight,
 * each sending or receiving at most `payload` bytes plus one flow-control window, plus `buffered` bytes the
 * server's buffer cap admits. The result is what those limits allow; it does not add a tighter one.
 *
 * @example
 * ```ts
 * sessionMemory({ payload: 8 << 20, streams: 1000, window: 1 << 20, buffered: 0 }); // 9000 (MB)
 * ```
 */
export function sessionMemory(limits: {
  /** Largest message, in bytes (URL key `payload`). */
  readonly payload: number;
  /** Calls that may be in flight on one session (`max-concurrent-streams`). */
  readonly streams: number;
  /** Per-stream flow-control window, in bytes. */
  readonly window: number;
  /** Bytes a server's buffer cap admits on one connection (`max-connection-buffer`), 0 on a client. */
  readonly buffered: number;
}): number {
  const MiB = 1024 * 1024;
  const bytes = limits.streams * (limits.payload + limits.window) + limits.buffered;
  // Node's own default (10 MB) stays the floor; Number.MAX_SAFE_INTEGER bounds an absurd configuration.
  return Math.max(10, Math.min(Math.ceil(bytes / MiB), Math.floor(Number.MAX_SAFE_INTEGER / MiB)));
}
