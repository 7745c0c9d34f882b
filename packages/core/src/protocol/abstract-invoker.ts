import type { Invocation } from '../rpc/invocation.js';
import { Invoker } from '../rpc/invoker.js';
import { PendingResult } from '../rpc/pending-result.js';
import { Result } from '../rpc/result.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import type { URL } from '../rpc/url.js';
import { DeadlineWheel, type DeadlineEntry, type WheelEntry } from './deadline-wheel.js';
import { maskedIdentity } from '../common/mask-secrets.js';

/** Dubbo's default consumer timeout, in ms. */
export const DEFAULT_TIMEOUT = 1000;

/**
 * Base of consumer-side protocol invokers: enforces the call's timeout, deadline and cancellation.
 *
 * @remarks
 * Per attempt, the effective timeout is the method-level `timeout` URL key (default 1000 ms; 0 disables),
 * shortened by the invocation's absolute `deadline` when one was propagated from upstream (or set per call).
 * The effective deadline is written back on the invocation so the protocol can send it (Triple's
 * `grpc-timeout`); a deadline written by an earlier attempt of the same invocation (a cluster retry) does not
 * count as upstream, so each retry gets its own timeout, still bounded by the upstream deadline. When it passes, the
 * call rejects with `RpcError` `timeout` — checked on a 10 ms {@link DeadlineWheel} as Dubbo does, not with a
 * timer per call, so a timeout fires at most one tick late; the pending call is answered with one
 * {@link PendingResult} that is also its slot on the wheel (no closure, no extra promise); when the invocation's `signal` aborts, with
 * `cancelled`. Subclasses
 * implement `doInvoke`, answering synchronously when the call completed synchronously: such a call cannot time
 * out any more and pays no timer, listener or promise — only the deadline is computed (it travels with the
 * call). A call with no timeout and no signal pays nothing at all for this.
 *
 * @example
 * ```ts
 * class LoopbackInvoker extends AbstractInvoker {
 *   protected doInvoke(invocation: Invocation) { return target.invoke(invocation); }
 * }
 * ```
 */
export abstract class AbstractInvoker extends Invoker {
  private destroyed = false;
  private readonly timeouts = new Map<string, number>();
  private lastTimeoutMethod: string | undefined = undefined;
  private lastTimeout = 0;
  private readonly wheel = new DeadlineWheel(10);
  /**
   * The token sent with every call (the provider's `token` filter checks it): the reference's own `token`, which
   * wins the URL merge, else the provider URL's. `true`/`default` is what registries carry — "a token is
   * required", not one — and is never sent.
   */
  private readonly token: string | undefined;

  constructor(protected readonly url: URL) {
    super();
    const token = url.getParameter('token');
    this.token = token && !/^(true|default)$/i.test(token) ? token : undefined;
  }

  getUrl(): URL {
    return this.url;
  }

  override isAvailable(): boolean {
    return !this.destroyed;
  }

  /** Whether `destroy()` ran. */
  isDestroyed(): boolean {
    return this.destroyed;
  }

  /**
   * Refuses new calls. Calls already in flight keep their timeout: each still settles by its deadline (the
   * deadline wheel stops by itself once nothing is pending).
   */
  override destroy(): void | Promise<void> {
    this.destroyed = true;
  }

  /** The configured timeout of a method in ms (0: none). */
  protected timeoutOf(method: string): number {
    // One-entry inline cache in front of the map: consecutive calls usually name the same method.
    if (method === this.lastTimeoutMethod) return this.lastTimeout;
    return this.loadTimeout(method);
  }

  private loadTimeout(method: string): number {
    let timeout = this.timeouts.get(method);
    if (timeout === undefined) {
      timeout = this.url.getMethodParameter(method, 'timeout', DEFAULT_TIMEOUT);
      this.timeouts.set(method, timeout);
    }
    this.lastTimeoutMethod = method;
    this.lastTimeout = timeout;
    return timeout;
  }

  invoke(invocation: Invocation): Result | Promise<Result> {
    if (this.destroyed) return this.destroyedError(invocation);
    if (this.token !== undefined) this.attachToken(invocation);
    const timeout = invocation.timeout ?? this.timeoutOf(invocation.methodName);
    // No timeout, no deadline, no signal: nothing to enforce (kept small, so that it inlines into its callers).
    if (timeout <= 0 && invocation.deadline === undefined && invocation.signal === undefined) return this.call(invocation);
    return this.invokeBounded(invocation, timeout);
  }

  /** A call with a timeout, a deadline or a signal to honour. */
  private invokeBounded(invocation: Invocation, configured: number): Result | Promise<Result> {
    let timeout = configured;
    let byDeadline = false;
    let deadline: number | undefined;
    let startedAt: number | undefined;
    const own = invocation.deadline !== undefined && invocation.attemptDeadline === invocation.deadline;
    const upstream = own ? invocation.attemptUpstream : invocation.deadline;
    if (upstream !== undefined) {
      const now = Date.now();
      const remaining = upstream - now;
      if (remaining <= 0) return Promise.reject(timeoutError(this.url, invocation, 0, true, true));
      if (timeout <= 0 || remaining < timeout) {
        timeout = remaining;
        byDeadline = true;
      }
      deadline = byDeadline ? upstream : now + timeout;
      startedAt = now;
      if (deadline !== invocation.deadline) {
        invocation.deadline = deadline;
        invocation.attemptDeadline = deadline;
        invocation.attemptUpstream = upstream;
      }
    } else if (timeout > 0) {
      const now = Date.now();
      deadline = now + timeout;
      invocation.deadline = deadline;
      invocation.attemptDeadline = deadline;
      invocation.attemptUpstream = undefined;
      startedAt = now;
    } else if (invocation.deadline !== undefined) {
      // An earlier attempt (on an invoker with a timeout) wrote it; this one has none.
      invocation.deadline = undefined;
    }
    const signal = invocation.signal;
    if (signal?.aborted) return Promise.reject(cancelledError(this.url, invocation, signal));
    // The clock reading, for what runs within this synchronous dispatch (see Invocation.startedAt).
    invocation.startedAt = startedAt;
    const answer = this.call(invocation);
    invocation.startedAt = undefined;
    // Completed synchronously: nothing can time out or be cancelled any more — no timer, no listener, no promise.
    if (answer instanceof Result || (deadline === undefined && signal === undefined)) return answer;
    return this.guard(answer, invocation, deadline, timeout, byDeadline, signal);
  }

  private attachToken(invocation: Invocation): void {
    if (!invocation.hasAttachment('token')) invocation.setAttachment('token', this.token as string);
  }

  private destroyedError(invocation: Invocation): Promise<Result> {
    return Promise.reject(
      new RpcError(RpcErrorCode.NO_INVOKER, `Invoker for ${maskedIdentity(this.url)} is destroyed; cannot call ${invocation.methodName}.`, {
        unsent: true,
      }),
    );
  }

  /** Races a pending call against its deadline (on the wheel) and its caller's abort signal. */
  private guard(
    pending: Promise<Result>,
    invocation: Invocation,
    deadline: number | undefined,
    timeout: number,
    byDeadline: boolean,
    signal: AbortSignal | undefined,
  ): Promise<Result> {
    if (signal === undefined) {
      // The common case: the call itself is the wheel's entry and the caller's pending result — no closure, no promise.
      const timed = new TimedCall(this.wheel, this.url, invocation, deadline as number, timeout, byDeadline);
      this.wheel.arm(timed);
      timed.resolve(pending);
      return timed;
    }
    return this.guardSignalled(pending, invocation, deadline, timeout, byDeadline, signal);
  }

  /** With an abort signal: a listener on it, so closures (only here, for calls given a signal). */
  private guardSignalled(
    pending: Promise<Result>,
    invocation: Invocation,
    deadline: number | undefined,
    timeout: number,
    byDeadline: boolean,
    signal: AbortSignal,
  ): Promise<Result> {
    const guarded = new PendingResult<Result>();
    let entry: DeadlineEntry | undefined;
    const onAbort = () => {
      entry?.cancel();
      guarded.reject(cancelledError(this.url, invocation, signal));
    };
    if (deadline !== undefined) {
      entry = this.wheel.add(deadline, () => {
        signal.removeEventListener('abort', onAbort);
        guarded.reject(timeoutError(this.url, invocation, timeout, byDeadline));
      });
    }
    signal.addEventListener('abort', onAbort, { once: true });
    const done = (): void => {
      entry?.cancel();
      signal.removeEventListener('abort', onAbort);
    };
    const settled = pending instanceof PendingResult ? pending : PendingResult.from(pending);
    settled.whenComplete(
      (result) => {
        done();
        guarded.resolve(result);
      },
      (error: unknown) => {
        done();
        guarded.reject(error);
      },
    );
    return guarded;
  }

  private call(invocation: Invocation): Result | Promise<Result> {
    try {
      return this.doInvoke(invocation);
    } catch (error) {
      return rejection(error);
    }
  }

  /** Performs the call (no timeout handling needed). */
  protected abstract doInvoke(invocation: Invocation): Result | Promise<Result>;
}

/** A synchronous throw of `doInvoke`, as the rejection callers expect (out of line: off the hot path). */
function rejection(error: unknown): Promise<never> {
  return Promise.reject(RpcError.from(error));
}

/**
 * A pending call with an armed deadline: at once the caller's pending result and the call's slot on the wheel,
 * so arming a timeout allocates this one object (Dubbo's `DefaultFuture` with its `TimeoutCheckTask`).
 */
class TimedCall extends PendingResult<Result> implements WheelEntry {
  // Declared and assigned in the constructor (see PendingResult): no field-definition pass per call.
  declare wheelBucket: object | undefined;
  declare wheelPrev: WheelEntry | undefined;
  declare wheelNext: WheelEntry | undefined;
  declare readonly deadline: number;
  private declare readonly wheel: DeadlineWheel;
  private declare readonly url: URL;
  private declare readonly invocation: Invocation;
  private declare readonly timeout: number;
  private declare readonly byDeadline: boolean;

  constructor(wheel: DeadlineWheel, url: URL, invocation: Invocation, deadline: number, timeout: number, byDeadline: boolean) {
    super();
    this.wheelBucket = undefined;
    this.wheelPrev = undefined;
    this.wheelNext = undefined;
    this.deadline = deadline;
    this.wheel = wheel;
    this.url = url;
    this.invocation = invocation;
    this.timeout = timeout;
    this.byDeadline = byDeadline;
  }

  /** The deadline passed first. */
  expire(): void {
    this.reject(timeoutError(this.url, this.invocation, this.timeout, this.byDeadline));
  }

  /** The call settled (or expired): off the wheel. */
  protected override onSettled(): void {
    if (this.wheelBucket !== undefined) this.wheel.remove(this);
  }
}

function timeoutError(url: URL, invocation: Invocation, timeout: number, byDeadline: boolean, unsent = false): RpcError {
  return new RpcError(
    RpcErrorCode.TIMEOUT,
    `Call ${url.getServiceKey() ?? url.path}.${invocation.methodName}() to ${url.getAddress()} timed out after ` +
      `${timeout} ms${byDeadline ? ' (deadline)' : ''}.`,
    { unsent },
  );
}

function cancelledError(url: URL, invocation: Invocation, signal: AbortSignal): RpcError {
  return new RpcError(RpcErrorCode.CANCELLED, `Call ${url.getServiceKey() ?? url.path}.${invocation.methodName}() was cancelled by its caller.`, {
    cause: signal.reason,
  });
}
