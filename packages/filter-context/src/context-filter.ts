import { Filter, RpcContext, type Invocation, type Invoker, type Result } from '@weft/core';

import { AsyncContextFlag } from './async-context.js';
import { ContextKeys } from './context-keys.js';

/**
 * Makes the call being handled visible to the implementation: runs the rest of the provider chain inside an
 * `RpcContext`, so `RpcContext.current()` works anywhere in the implementation's async flow.
 *
 * @remarks
 * `weft.rpc.Filter` extension `context`, activated in group `provider` with order `-2147483648` (Java's
 * `Integer.MIN_VALUE`, as Dubbo): the outermost provider filter, so every inner filter and the implementation
 * see the context. One instance per application, stateless.
 * ```
 *  exporter → [ context → … → fn ] → implementation
 *               └─ RpcContext.run(new RpcContext('provider', invocation, url), …)
 *                  RpcContext.current(): side, methodName, attachments, remoteApplication, deadline, signal
 * ```
 * Per call it creates one `RpcContext` (`side` `provider`, the provider's invocation and URL, no parent — an
 * in-process caller's context is never linked, as it would not be over a network) and runs the chain in it;
 * everything the implementation awaits inherits it, and concurrent calls never see each other's. The filter
 * answers as the rest of the chain does: a call that completes synchronously (a synchronous implementation)
 * ran entirely inside `RpcContext.run` and its `Result` is returned as is, with no promise. When the call
 * has no deadline but carries Dubbo's `_TO` attachment (remaining ms, also `_to`), the deadline is set from it
 * first (Dubbo's `TimeoutCountDown`). User attachments, without the reserved keys, are read with
 * {@link getServerAttachments}; nested calls pass them on through `consumercontext`. Without this filter
 * (`service.filter=-context`) `RpcContext.current()` is `undefined` in implementations — or, for an in-process
 * call, the caller's own context.
 *
 * @example
 * ```ts
 * await app.export(Greeter, {
 *   sayHello(name: string) {
 *     const ctx = RpcContext.current();
 *     return `hello ${name}, from ${ctx?.remoteApplication} (trace ${ctx?.getAttachment('traceId')})`;
 *   },
 * });
 * ```
 */
export class ContextFilter extends Filter {
  private readonly async = new AsyncContextFlag();

  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    if (invocation.deadline === undefined && invocation.hasAttachments()) deadlineFromAttachment(invocation);
    const url = invoker.getUrl();
    const context = new RpcContext('provider', invocation, url);
    if (this.async.of(url)) return RpcContext.runAsync(context, () => invoker.invoke(invocation));
    return RpcContext.invokeIn(context, invoker, invocation);
  }
}

/** Sets the deadline from a numeric `_TO` (or `_to`) attachment: whole milliseconds left, as Dubbo sends it. */
function deadlineFromAttachment(invocation: Invocation): void {
  const raw = invocation.getAttachment(ContextKeys.TIMEOUT_ATTACHMENT) ?? invocation.getAttachment('_to');
  let ms: number;
  if (typeof raw === 'number') ms = raw;
  else if (typeof raw === 'string' && /^\s*\d+\s*$/.test(raw)) ms = Number(raw);
  else return;
  if (Number.isFinite(ms) && ms >= 0) invocation.deadline = Date.now() + ms;
}
