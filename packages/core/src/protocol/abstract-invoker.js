import { Invoker } from '../rpc/invoker.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
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
export class AbstractInvoker extends Invoker {
    url;
    destroyed = false;
    timeouts = new Map();
    constructor(url) {
        super();
        this.url = url;
    }
    getUrl() {
        return this.url;
    }
    isAvailable() {
        return !this.destroyed;
    }
    /** Whether `destroy()` ran. */
    isDestroyed() {
        return this.destroyed;
    }
    destroy() {
        this.destroyed = true;
    }
    /** The configured timeout of a method in ms (0: none). */
    timeoutOf(method) {
        let timeout = this.timeouts.get(method);
        if (timeout === undefined) {
            timeout = this.url.getMethodParameter(method, 'timeout', DEFAULT_TIMEOUT);
            this.timeouts.set(method, timeout);
        }
        return timeout;
    }
    invoke(invocation) {
        if (this.destroyed) {
            return Promise.reject(new RpcError(RpcErrorCode.NO_INVOKER, `Invoker for ${this.url.toIdentityString()} is destroyed; cannot call ${invocation.methodName}.`));
        }
        let timeout = this.timeoutOf(invocation.methodName);
        if (invocation.deadline !== undefined) {
            const remaining = invocation.deadline - Date.now();
            if (remaining <= 0)
                return Promise.reject(this.timeoutError(invocation, 0, true));
            if (timeout <= 0 || remaining < timeout)
                timeout = remaining;
        }
        else if (timeout > 0) {
            invocation.deadline = Date.now() + timeout;
        }
        const signal = invocation.signal;
        if (timeout <= 0 && signal === undefined)
            return this.call(invocation);
        if (signal?.aborted)
            return Promise.reject(this.cancelledError(invocation, signal));
        return new Promise((resolve, reject) => {
            let timer;
            const onAbort = () => {
                if (timer !== undefined)
                    clearTimeout(timer);
                reject(this.cancelledError(invocation, signal));
            };
            if (timeout > 0) {
                timer = setTimeout(() => {
                    signal?.removeEventListener('abort', onAbort);
                    reject(this.timeoutError(invocation, timeout, invocation.deadline !== undefined));
                }, timeout);
            }
            signal?.addEventListener('abort', onAbort, { once: true });
            this.call(invocation).then((result) => {
                if (timer !== undefined)
                    clearTimeout(timer);
                signal?.removeEventListener('abort', onAbort);
                resolve(result);
            }, (error) => {
                if (timer !== undefined)
                    clearTimeout(timer);
                signal?.removeEventListener('abort', onAbort);
                reject(error);
            });
        });
    }
    call(invocation) {
        try {
            return this.doInvoke(invocation);
        }
        catch (error) {
            return Promise.reject(RpcError.from(error));
        }
    }
    timeoutError(invocation, timeout, byDeadline) {
        return new RpcError(RpcErrorCode.TIMEOUT, `Call ${this.url.getServiceKey() ?? this.url.path}.${invocation.methodName}() to ${this.url.getAddress()} timed out after ` +
            `${timeout} ms${byDeadline ? ' (deadline)' : ''}.`);
    }
    cancelledError(invocation, signal) {
        return new RpcError(RpcErrorCode.CANCELLED, `Call ${this.url.getServiceKey() ?? this.url.path}.${invocation.methodName}() was cancelled by its caller.`, { cause: signal.reason });
    }
}
//# sourceMappingURL=abstract-invoker.js.map