import { Result } from './result.js';

const PENDING = 0;
const FULFILLED = 1;
const REJECTED = 2;

type OnFulfilled = ((value: never) => unknown) | null | undefined;
type OnRejected = ((error: unknown) => unknown) | null | undefined;

/** What a caller's promise is settled through: counted out of the application's gate first. */
export interface DeliverySink {
  exit(): void;
}

/** Marks a reaction whose callbacks are a native promise's resolving functions (see `deliverTo`). */
const DELIVER = Object.freeze({}) as unknown as PendingResult<unknown>;

/** A reaction past the second (the first two live in the pending result's own fields: no allocation). */
interface Reaction {
  readonly onFulfilled: OnFulfilled;
  readonly onRejected: OnRejected;
  readonly next: PendingResult<unknown> | undefined;
}

/**
 * The answer of a call that really waits: a callback-chained pending outcome, as Dubbo's `AsyncRpcResult` is —
 * one per call, through every layer, instead of a promise per layer.
 *
 * @remarks
 * It is what `Invoker.invoke` answers with when a call does not complete synchronously: the service invoker
 * creates it for an implementation that returns a promise, protocol invokers for calls on the wire. It has the
 * `Promise` interface, so filters keep writing `await invoker.invoke(invocation)`, `whenSettled(…)` or returning
 * the answer as is; but `then` runs its callbacks **synchronously when the outcome arrives** (not in a microtask)
 * and answers with another `PendingResult`, so the post-processing of every layer — filters, timeouts, cluster,
 * proxy — runs in the one turn in which the call completed, with no promise and no microtask per layer. A `then`
 * on an outcome that already arrived runs in a microtask, as a promise's would (and answers with a native
 * promise). {@link PendingResult.whenComplete}
 * adds a listener that produces nothing (a breaker counting the outcome, a deadline being cancelled) without the
 * derived result. The consumer's proxy turns it into one native promise for the caller. It is not
 * `instanceof Promise`: code that must have a native promise uses `Promise.resolve(answer)`. A callback that
 * throws rejects the derived result, as with `then`; a `whenComplete` listener that throws is reported as an
 * uncaught exception and changes nothing.
 *
 * @example
 * ```ts
 * const pending = new PendingResult<Result>();
 * setTimeout(() => pending.resolve(Result.of('late')), 10);
 * const result = await pending; // Result.of('late')
 * ```
 */
export class PendingResult<T = unknown> implements Promise<T> {
  declare readonly [Symbol.toStringTag]: string;
  // Fields are declared (not initialised) and assigned once each by the constructor: no field-definition pass,
  // which with subclasses (timed and watched calls) goes megamorphic. Keep the subclasses few: more than four
  // classes make every `resolve`/`reject` call site of the chain megamorphic (closures on `then` cost less).
  private declare state: number;
  private declare outcome: unknown;
  // The first reaction, inline: most pending results have exactly one.
  private declare onFulfilled: OnFulfilled;
  private declare onRejected: OnRejected;
  private declare next: PendingResult<unknown> | undefined;
  private declare hasFirst: boolean;
  // The second, inline too: a listener (a breaker, a timeout) plus the caller's `then` is the usual pair.
  private declare onFulfilled2: OnFulfilled;
  private declare onRejected2: OnRejected;
  private declare next2: PendingResult<unknown> | undefined;
  private declare hasSecond: boolean;
  private declare more: Reaction[] | undefined;
  private declare sink: DeliverySink | undefined;

  constructor() {
    this.state = PENDING;
    this.outcome = undefined;
    this.onFulfilled = undefined;
    this.onRejected = undefined;
    this.next = undefined;
    this.hasFirst = false;
    this.onFulfilled2 = undefined;
    this.onRejected2 = undefined;
    this.next2 = undefined;
    this.hasSecond = false;
    this.more = undefined;
    this.sink = undefined;
  }

  /**
   * A pending result that settles as `promise` does (one reaction on it: the only promise a call then needs).
   * @example
   * ```ts
   * const pending = PendingResult.from(fetchResult());
   * ```
   */
  static from<T>(promise: PromiseLike<T>): PendingResult<T> {
    const pending = new PendingResult<T>();
    void adopt(pending, promise);
    return pending;
  }

  /** Whether the outcome arrived (or the result was rejected). */
  get settled(): boolean {
    return this.state !== PENDING;
  }

  /** Settles with `value` (a thenable is followed); later calls are ignored. */
  resolve(value: T | PromiseLike<T>): void {
    if (this.state !== PENDING) return;
    // The usual outcome — a Result, or any non-object — settles at once, without looking for a `then`.
    if (value instanceof Result || value === null || (typeof value !== 'object' && typeof value !== 'function')) {
      this.settle(FULFILLED, value);
      return;
    }
    if (value instanceof PendingResult) {
      if (value === this) {
        this.reject(new TypeError('A PendingResult cannot be resolved with itself.'));
        return;
      }
      if (value.state === PENDING) value.subscribe(undefined, undefined, this as PendingResult<unknown>);
      else value.react(undefined, undefined, this as PendingResult<unknown>);
      return;
    }
    if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof (value as { then?: unknown }).then === 'function') {
      void adopt(this, value as PromiseLike<T>);
      return;
    }
    this.settle(FULFILLED, value);
  }

  /** Settles as failed with `error`; later calls are ignored. */
  reject(error: unknown): void {
    if (this.state !== PENDING) return;
    this.settle(REJECTED, error);
  }

  private settle(state: number, outcome: unknown): void {
    this.state = state;
    this.outcome = outcome;
    this.onSettled();
    this.flush();
  }

  /** Called once when the outcome arrives, before the callbacks run (for subclasses). */
  protected onSettled(): void {}

  /**
   * Calls `onFulfilled` or `onRejected` when the outcome arrives (synchronously then; at once if it already has),
   * producing nothing: the zero-allocation way to observe a call.
   */
  whenComplete(onFulfilled: (value: T) => void, onRejected: (error: unknown) => void): void {
    if (this.state === PENDING) this.subscribe(onFulfilled as OnFulfilled, onRejected, undefined);
    else this.react(onFulfilled as OnFulfilled, onRejected, undefined);
  }

  /**
   * @internal Settles a caller's native promise when the outcome arrives: `resolve` with a {@link Result}'s value,
   * `reject` with its business error or with the rejection — `sink.exit()` first. The consumer proxy's one bridge
   * to a native promise: no derived result, no closure. Called at most once per pending result.
   */
  deliverTo(resolve: (value: unknown) => void, reject: (error: unknown) => void, sink: DeliverySink | undefined): void {
    this.sink = sink;
    if (this.state === PENDING) this.subscribe(resolve as OnFulfilled, reject, DELIVER);
    else this.react(resolve as OnFulfilled, reject, DELIVER);
  }

  then<R1 = T, R2 = never>(
    onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    if (this.state === PENDING) {
      const next = new PendingResult<R1 | R2>();
      this.subscribe(onFulfilled as OnFulfilled, onRejected, next as PendingResult<unknown>);
      return next;
    }
    // Already settled (e.g. an `await` that came after the outcome): the callbacks run in a microtask, as for a
    // promise — by a native one, the cheapest way to get there.
    const settled = this.state === FULFILLED ? Promise.resolve(this.outcome as T) : Promise.reject(this.outcome);
    return settled.then(onFulfilled, onRejected);
  }

  catch<R = never>(onRejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.then(undefined, onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<T> {
    if (typeof onFinally !== 'function') return this.then();
    return this.then(
      (value) => {
        onFinally();
        return value;
      },
      (error: unknown) => {
        onFinally();
        throw error;
      },
    );
  }

  private subscribe(onFulfilled: OnFulfilled, onRejected: OnRejected, next: PendingResult<unknown> | undefined): void {
    if (!this.hasFirst) {
      this.hasFirst = true;
      this.onFulfilled = onFulfilled;
      this.onRejected = onRejected;
      this.next = next;
    } else if (!this.hasSecond) {
      this.hasSecond = true;
      this.onFulfilled2 = onFulfilled;
      this.onRejected2 = onRejected;
      this.next2 = next;
    } else {
      (this.more ??= []).push({ onFulfilled, onRejected, next });
    }
  }

  private flush(): void {
    if (!this.hasFirst) return;
    const onFulfilled = this.onFulfilled;
    const onRejected = this.onRejected;
    const next = this.next;
    this.onFulfilled = this.onRejected = this.next = undefined;
    this.react(onFulfilled, onRejected, next);
    if (!this.hasSecond) return;
    const onFulfilled2 = this.onFulfilled2;
    const onRejected2 = this.onRejected2;
    const next2 = this.next2;
    this.onFulfilled2 = this.onRejected2 = this.next2 = undefined;
    this.react(onFulfilled2, onRejected2, next2);
    const more = this.more;
    if (more !== undefined) {
      this.more = undefined;
      for (let i = 0; i < more.length; i++) {
        const reaction = more[i] as Reaction;
        this.react(reaction.onFulfilled, reaction.onRejected, reaction.next);
      }
    }
  }

  private react(onFulfilled: OnFulfilled, onRejected: OnRejected, next: PendingResult<unknown> | undefined): void {
    if (next === DELIVER) {
      this.deliver(onFulfilled as (value: unknown) => void, onRejected as (error: unknown) => void);
      return;
    }
    const fulfilled = this.state === FULFILLED;
    const handler = fulfilled ? onFulfilled : onRejected;
    if (typeof handler !== 'function') {
      if (next === undefined) return;
      if (fulfilled) next.resolve(this.outcome);
      else next.reject(this.outcome);
      return;
    }
    let out: unknown;
    try {
      out = (handler as (value: unknown) => unknown)(this.outcome);
    } catch (error) {
      if (next === undefined) reportUncaught(error);
      else next.reject(error);
      return;
    }
    if (next !== undefined) next.resolve(out);
  }

  private deliver(resolve: (value: unknown) => void, reject: (error: unknown) => void): void {
    const sink = this.sink;
    this.sink = undefined;
    sink?.exit();
    const outcome = this.outcome;
    if (this.state !== FULFILLED) reject(outcome);
    else if (!(outcome instanceof Result)) resolve(outcome);
    else if (outcome.hasException()) reject(outcome.exception);
    else resolve(outcome.value);
  }
}

/** Settles `pending` as `promise` does: one async function, so one promise and no closure. */
async function adopt<T>(pending: PendingResult<T>, promise: PromiseLike<T>): Promise<void> {
  let value: T;
  try {
    value = await promise;
  } catch (error) {
    pending.reject(error);
    return;
  }
  pending.resolve(value);
}

/** A `whenComplete` listener threw: surfaced as an uncaught exception (as a failing promise branch would be). */
function reportUncaught(error: unknown): void {
  queueMicrotask(() => {
    throw error;
  });
}

Object.defineProperty(PendingResult.prototype, Symbol.toStringTag, { value: 'PendingResult' });
