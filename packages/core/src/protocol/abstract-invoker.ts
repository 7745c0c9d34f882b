import type { Invocation } from '../rpc/invocation.js';
import { Invoker } from '../rpc/invoker.js';
import type { Result } from '../rpc/result.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import type { URL } from '../rpc/url.js';

/** Dubbo's default consumer timeout, in ms. */
export const DEFAULT_TIMEOUT = 1000;

/**
 * Base of consumer-side protocol invokers: enforces the call's timeout, deadline and cancellation.
 *
 * @remarks
 * Per call, the effective timeout is the method-level `timeout` URL key (default 1000 ms; 0 disables),
 * shortened by the invocation's absolute `deadline` when one was propagated from upstream. The deadline is
 * written back on the invocation so the protocol can send it (Triple's `grpc-timeout`). When it passes, the
 * call rejects with `RpcError` `timeout`; when the invocation's `signal` aborts, with `cancelled`. Subclasses
 * implement `doInvoke`. A call with no timeout and no signal pays nothing for this.
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

  constructor(protected readonly url: URL) {
    super();
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

  override destroy(): void | Promise<void> {
    this.destroyed = true;
  }

  /** The configured timeout of a method in ms (0: none). */
  protected timeoutOf(method: string): number {
    let timeout = this.timeouts.get(method);
    if (timeout === undefined) {
      timeout = this.url.getMethodParameter(method, 'timeout', DEFAULT_TIMEOUT);
      this.timeouts.set(method, timeout);
    }
    return timeout;
  }

  invoke(invocation: Invocation): Promise<Result> {
    if (this.destroyed) {
      return Promise.reject(
        new RpcError(RpcErrorCode.NO_INVOKER, `Invoker for ${this.url.toIdentityString()} is destroyed; cannot call ${invocation.methodName}.`),
      );
    }
    let timeout = this.timeoutOf(invocation.methodName);
    if (invocation.deadline !== undefined) {
      const remaining = invocation.deadline - Date.now();
      if (remaining <= 0) return Promise.reject(this.timeoutError(invocation, 0, true));
      if (timeout <= 0 || remaining < timeout) timeout = remaining;
    } else if (timeout > 0) {
      invocation.deadline = Date.now() + timeout;
    }
    const signal = invocation.signal;
    if (timeout <= 0 && signal === undefined) return this.call(invocation);
    if (signal?.aborted) return Promise.reject(this.cancelledError(invocation, signal));
    return new Promise<Result>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => {
        if (timer !== undefined) clearTimeout(timer);
        reject(this.cancelledError(invocation, signal as AbortSignal));
      };
      if (timeout > 0) {
        timer = setTimeout(() => {
          signal?.removeEventListener('abort', onAbort);
          reject(this.timeoutError(invocation, timeout, invocation.deadline !== undefined));
        }, timeout);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.call(invocation).then(
        (result) => {
          if (timer !== undefined) clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        },
        (error: unknown) => {
          if (timer !== undefined) clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
      );
    });
  }

  private call(invocation: Invocation): Promise<Result> {
    try {
      return this.doInvoke(invocation);
    } catch (error) {
      return Promise.reject(RpcError.from(error));
    }
  }

  private timeoutError(invocation: Invocation, timeout: number, byDeadline: boolean): RpcError {
    return new RpcError(
      RpcErrorCode.TIMEOUT,
      `Call ${this.url.getServiceKey() ?? this.url.path}.${invocation.methodName}() to ${this.url.getAddress()} timed out after ` +
        `${timeout} ms${byDeadline ? ' (deadline)' : ''}.`,
    );
  }

  private cancelledError(invocation: Invocation, signal: AbortSignal): RpcError {
    return new RpcError(
      RpcErrorCode.CANCELLED,
      `Call ${this.url.getServiceKey() ?? this.url.path}.${invocation.methodName}() was cancelled by its caller.`,
      { cause: signal.reason },
    );
  }

  /** Performs the call (no timeout handling needed). */
  protected abstract doInvoke(invocation: Invocation): Promise<Result>;
}
