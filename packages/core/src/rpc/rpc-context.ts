import { AsyncLocalStorage } from 'node:async_hooks';

import type { AttachmentValue, Invocation } from './invocation.js';
import type { URL } from './url.js';

/**
 * The context of the call being handled — or being made — in the current async flow.
 *
 * @remarks
 * Set by the `context` filter (provider side: around the implementation) and `consumercontext` (consumer side:
 * around the outgoing call), from `@weft/filter-context`; without them `RpcContext.current()` is `undefined` and
 * costs nothing. The implementation reads the incoming attachments, the caller, the deadline and the abort
 * signal (set by the timeout filter) from it; nested calls it makes inherit what the context filters propagate.
 *
 * The storage is one `AsyncLocalStorage` for the process: it holds no data itself (each call's context lives in
 * that call's async scope), so two applications — or two concurrent calls — never see each other's context.
 *
 * @example
 * ```ts
 * const impl = {
 *   async sayHello(name: string) {
 *     const ctx = RpcContext.current();
 *     console.log(ctx?.getAttachment('traceId'), ctx?.remoteApplication);
 *     await work({ signal: ctx?.signal });
 *     return `hello ${name}`;
 *   },
 * };
 * ```
 */
export class RpcContext {
  /** Set by the filter that created the context; read by nested calls (e.g. attachments to pass through). */
  readonly values = new Map<string, unknown>();

  constructor(
    /** `provider` when handling an incoming call, `consumer` while making an outgoing one. */
    readonly side: 'provider' | 'consumer',
    /** The invocation being handled or made. */
    readonly invocation: Invocation,
    /** The URL of the invoker handling it (provider URL, or the provider's URL as seen by the consumer). */
    readonly url: URL,
    /** The context this one was created in (a provider context, for a nested consumer call). */
    readonly parent: RpcContext | undefined = undefined,
  ) {}

  /** The context of the current async flow, if a context filter set one. */
  static current(): RpcContext | undefined {
    return storage.getStore();
  }

  /** Runs `fn` with `context` as the current context (for filters). */
  static run<T>(context: RpcContext, fn: () => T): T {
    return storage.run(context, fn);
  }

  /** The method called. */
  get methodName(): string {
    return this.invocation.methodName;
  }

  /** Aborts when the call is cancelled or times out (set by the timeout filter on the provider side). */
  get signal(): AbortSignal | undefined {
    return this.invocation.signal;
  }

  /** Absolute deadline in epoch ms, if any. */
  get deadline(): number | undefined {
    return this.invocation.deadline;
  }

  /** An attachment of the call. */
  getAttachment(key: string): AttachmentValue | undefined {
    return this.invocation.getAttachment(key);
  }

  /** The caller's application (`remote.application` attachment), if known. */
  get remoteApplication(): string | undefined {
    const value = this.invocation.getAttachment('remote.application');
    return value === undefined ? undefined : String(value);
  }
}

const storage = new AsyncLocalStorage<RpcContext>();
