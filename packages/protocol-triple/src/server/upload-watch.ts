/**
 * A request body being uploaded, watched for progress by {@link UploadWatch}.
 *
 * @example
 * ```ts
 * const upload: Upload = { lastProgress: Date.now(), stalled: () => call.stall() };
 * ```
 */
export interface Upload {
  /** `Date.now()` of the last DATA received (or of the start). */
  lastProgress: number;
  /** Whether the upload cannot progress by the peer's fault right now (the server paused reading): not a stall. */
  readonly paused?: () => boolean;
  /** No progress for the timeout: refuse the call and free its buffer. */
  stalled(): void;
}

/**
 * The stalled-body timeout of one Triple server: one timer (every quarter of `timeout`) checks the uploads in
 * progress, so a call costs a `Set` insertion and deletion, not a timer of its own.
 *
 * @remarks
 * An upload whose last DATA is `timeout` ms old (or more, up to 1.25 × `timeout`) is `stalled()`. Unary and
 * server-streaming requests are watched from their headers to their END_STREAM; client and bidi streams only while
 * a message is partly received (a stream may rest between messages as long as it likes).
 *
 * @example
 * ```ts
 * const watch = new UploadWatch(30_000);
 * watch.add(upload); // … on each DATA: upload.lastProgress = Date.now(); on END_STREAM: watch.delete(upload)
 * ```
 */
export class UploadWatch {
  private readonly uploads = new Set<Upload>();
  private readonly timer: NodeJS.Timeout;

  constructor(readonly timeout: number) {
    this.timer = setInterval(() => this.sweep(), Math.max(10, timeout / 4));
    this.timer.unref();
  }

  add(upload: Upload): void {
    this.uploads.add(upload);
  }

  delete(upload: Upload): void {
    this.uploads.delete(upload);
  }

  /** Stops the timer (the server closed). */
  stop(): void {
    clearInterval(this.timer);
    this.uploads.clear();
  }

  private sweep(): void {
    if (this.uploads.size === 0) return;
    const now = Date.now();
    const limit = now - this.timeout;
    for (const upload of this.uploads) {
      if (upload.lastProgress > limit) continue;
      if (upload.paused?.() === true) {
        upload.lastProgress = now;
        continue;
      }
      this.uploads.delete(upload);
      upload.stalled();
    }
  }
}
