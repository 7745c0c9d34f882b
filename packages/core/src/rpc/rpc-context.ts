import { AsyncLocalStorage } from 'node:async_hooks';

import { callerIdentityOf, type CallerIdentity } from './caller-identity.js';
import type { AttachmentValue, Invocation } from './invocation.js';
import type { Invoker } from './invoker.js';
import type { Result } from './result.js';
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
 * Two ways to carry it, chosen by the filter that sets it ({@link RpcContext.run} or {@link RpcContext.runAsync}):
 *
 * - **the call's synchronous part** (`run`, the default of the context filters): `current()` answers while the
 *   filters and the implementation run synchronously — up to the implementation's first `await`. Capture it
 *   there (`const ctx = RpcContext.current()`) to use it later, and make a nested call after an `await` inside
 *   `RpcContext.run(ctx, () => …)` to pass the incoming attachments and deadline on. It costs one field write.
 * - **every await of the call** (`runAsync`, opted into with `context.async=true`): one `AsyncLocalStorage`
 *   for the process, so `current()` answers anywhere in the implementation's async flow — at the price of
 *   Node's promise hooks, which, once enabled, slow every `await` in the whole process (≈ 3× on Node 20).
 *
 * Neither holds data between calls (a context lives on the stack of its `run`, or in its call's async scope),
 * so two applications — or two concurrent calls — never see each other's context.
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
  // Declared and assigned once each by the constructor (two contexts per call with the context filters): no
  // field-definition pass, and no map until a filter stores a value.
  /** `provider` when handling an incoming call, `consumer` while making an outgoing one. */
  declare readonly side: 'provider' | 'consumer';
  /** The invocation being handled or made. */
  declare readonly invocation: Invocation;
  /** The URL of the invoker handling it (provider URL, or the provider's URL as seen by the consumer). */
  declare readonly url: URL;
  /** The context this one was created in (a provider context, for a nested consumer call). */
  declare readonly parent: RpcContext | undefined;
  private declare valueMap: Map<string, unknown> | undefined;

  constructor(side: 'provider' | 'consumer', invocation: Invocation, url: URL, parent: RpcContext | undefined = undefined) {
    this.side = side;
    this.invocation = invocation;
    this.url = url;
    this.parent = parent;
    this.valueMap = undefined;
  }

  /** Set by the filter that created the context; read by nested calls (e.g. attachments to pass through). */
  get values(): Map<string, unknown> {
    return (this.valueMap ??= new Map());
  }

  /**
   * The context of the call being handled or made: the one of the innermost `run` on the stack, else (once some
   * filter used `runAsync`) the one of the current async flow.
   */
  static current(): RpcContext | undefined {
    const context = slot.current;
    if (context !== undefined || !slot.async) return context;
    return storage.getStore();
  }

  /**
   * Runs `fn` with `context` as the current context while `fn` runs synchronously — no promise hooks: code that
   * `fn` resumes after an `await` no longer sees it (capture it first). For filters, and to make a nested call
   * in the context of the call being handled after an `await`.
   */
  static run<T>(context: RpcContext, fn: () => T): T {
    const outer = slot.current;
    slot.current = context;
    try {
      return fn();
    } finally {
      slot.current = outer;
    }
  }

  /**
   * `invoker.invoke(invocation)` with `context` current while it runs synchronously: {@link RpcContext.run} for a
   * filter, without a closure per call.
   * @example
   * ```ts
   * return RpcContext.invokeIn(new RpcContext('provider', invocation, invoker.getUrl()), invoker, invocation);
   * ```
   */
  static invokeIn(context: RpcContext, invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const outer = slot.current;
    slot.current = context;
    try {
      return invoker.invoke(invocation);
    } finally {
      slot.current = outer;
    }
  }

  /**
   * Runs `fn` with `context` as the current context in all of its async flow (every `await` of it), through
   * `AsyncLocalStorage`: from the first such run on, Node's promise hooks are on for the whole process.
   */
  static runAsync<T>(context: RpcContext, fn: () => T): T {
    slot.async = true;
    const outer = slot.current;
    slot.current = context;
    try {
      return storage.run(context, fn);
    } finally {
      slot.current = outer;
    }
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

  /**
   * Who is calling (provider side): the identity a verified request signature or mTLS client certificate established
   * (see `callerIdentityOf`), `undefined` for an anonymous caller.
   */
  get caller(): CallerIdentity | undefined {
    return callerIdentityOf(this.invocation);
  }

  /** The caller's application (`remote.application` attachment), if known. */
  get remoteApplication(): string | undefined {
    const value = this.invocation.getAttachment('remote.application');
    return value === undefined ? undefined : String(value);
  }
}

/** Enabled by the first `runAsync` (its `run`): before that, Node's promise hooks stay off. */
const storage = new AsyncLocalStorage<RpcContext>();

/**
 * The context of the innermost `run` on the stack. Process-wide like the storage above, and like it holding no
 * data between calls: a `run` sets it and restores the outer value before returning, so it is never seen by
 * code resumed later (microtasks run on an empty stack).
 */
const slot: { current: RpcContext | undefined; async: boolean } = { current: undefined, async: false };
