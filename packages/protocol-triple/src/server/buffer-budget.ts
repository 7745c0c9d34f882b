import type { MessageBudget } from '../stream/inbound-messages.js';

/**
 * A cap on bytes buffered but not yet consumed (raw request bytes and inflated messages), one per connection and one
 * per server; a connection's budget draws from the server's.
 *
 * @example
 * ```ts
 * const server = new BufferBudget(64 << 20, 'server', 'max-server-buffer');
 * const connection = new BufferBudget(32 << 20, 'connection', 'max-connection-buffer', server);
 * ```
 */
export class BufferBudget {
  /** Bytes accounted now. */
  used = 0;

  constructor(
    readonly limit: number,
    /** `connection` or `server`, for messages. */
    readonly scope: string,
    /** The URL key that sets {@link BufferBudget.limit}. */
    readonly key: string,
    private readonly parent?: BufferBudget,
  ) {}

  /** Accounts `bytes` here and in the parent; returns the budget that refused them, or `undefined`. */
  reserve(bytes: number): BufferBudget | undefined {
    if (this.used + bytes > this.limit) return this;
    const refused = this.parent?.reserve(bytes);
    if (refused !== undefined) return refused;
    this.used += bytes;
    return undefined;
  }

  release(bytes: number): void {
    this.used -= bytes;
    this.parent?.release(bytes);
  }
}

/**
 * The bytes one call holds against its connection's {@link BufferBudget}; released as its messages are consumed,
 * and all at once when the call ends.
 *
 * @example
 * ```ts
 * const held = new CallBuffer(connectionBudget);
 * if (!held.reserve(chunk.length)) refuse(held.refusal());
 * ```
 */
export class CallBuffer implements MessageBudget {
  /** Bytes held now. */
  held = 0;
  private refusedBy: BufferBudget | undefined = undefined;
  private refusedBytes = 0;

  constructor(
    private readonly budget: BufferBudget,
    /** The server's inflation queue. */
    readonly schedule?: <T>(task: () => Promise<T>) => Promise<T>,
  ) {}

  reserve(bytes: number): boolean {
    const refused = this.budget.reserve(bytes);
    if (refused === undefined) {
      this.held += bytes;
      return true;
    }
    this.refusedBy = refused;
    this.refusedBytes = bytes;
    return false;
  }

  release(bytes: number): void {
    const n = bytes < this.held ? bytes : this.held;
    if (n <= 0) return;
    this.held -= n;
    this.budget.release(n);
  }

  releaseAll(): void {
    this.release(this.held);
  }

  /** The RESOURCE_EXHAUSTED message of the last refusal. */
  refusal(): string {
    const by = this.refusedBy;
    if (by === undefined) return 'Request refused: the buffered-bytes cap is reached.';
    return (
      `Request refused: ${this.refusedBytes} more buffered bytes would pass the cap of ${by.limit} bytes per ${by.scope} ` +
      `(URL key "${by.key}", ${by.used} bytes held by calls not yet consumed); other calls continue.`
    );
  }
}

/**
 * A queue running at most `concurrency` tasks at once (the server's inflations: each may produce up to `payload`
 * bytes, so a burst of compressed messages is inflated a few at a time instead of all together).
 *
 * @example
 * ```ts
 * const gate = new TaskGate(2);
 * const inflated = await gate.run(() => inflate(message));
 * ```
 */
export class TaskGate {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly concurrency: number) {}

  readonly run = <T>(task: () => Promise<T>): Promise<T> => {
    if (this.running < this.concurrency) return this.start(task);
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => this.start(task).then(resolve, reject));
    });
  };

  private start<T>(task: () => Promise<T>): Promise<T> {
    this.running++;
    const done = () => {
      this.running--;
      this.waiting.shift()?.();
    };
    const promise = task();
    promise.then(done, done);
    return promise;
  }
}
