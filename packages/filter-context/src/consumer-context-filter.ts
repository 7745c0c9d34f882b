import { Filter, RpcContext, RpcError, RpcErrorCode, type Invocation, type Invoker, type Result, type URL } from '@weft/core';

import { AsyncContextFlag } from './async-context.js';
import { ContextKeys } from './context-keys.js';
import { isReservedAttachmentKey } from './reserved-attachment-keys.js';
import { requestScope } from './request-scope.js';
import { clientAttachmentsFor } from './with-attachments.js';

/**
 * Carries the caller's context on outgoing calls: `remote.application`, client attachments, and — for calls made
 * while handling a call — the incoming attachments, deadline and cancellation (Dubbo's implicit passthrough and
 * timeout countdown).
 *
 * @remarks
 * `weft.rpc.Filter` extension `consumercontext`, activated in group `consumer` with order `-2147483648`
 * (outermost). Dubbo runs it once per call as a cluster filter; Weft has no cluster-level chain, so it runs in
 * each provider's consumer chain — once per attempt, and every step is idempotent. One instance per application,
 * stateless. Per call:
 * 1. Sets the attachment `remote.application` to the invoker URL's `application` (the caller's, merged into
 *    provider URLs at refer time), overwriting any value.
 * 2. Adds the client attachments of {@link withAttachments} that the call does not set itself.
 * 3. When the call is made while handling an incoming call (`RpcContext.current()` leads to a provider
 *    context — the implementation, or a filter, calling out), it adds the incoming user attachments the call
 *    does not set yet (never the reserved ones: {@link isReservedAttachmentKey}); and unless the method-level
 *    (then interface-level) URL key `enable-timeout-countdown` is `false`, it propagates the incoming deadline —
 *    the outgoing deadline becomes the earlier of the two — and, when the call has no signal, the incoming
 *    `signal`, so cancelling or timing out the incoming call aborts the nested ones. A deadline already passed
 *    rejects at once with `RpcError` `timeout-terminate` (`No time left for making the following call: …`). Then
 *    the call runs inside a consumer `RpcContext` whose `parent` is the current context. Its answer is
 *    returned as is: a `Result` when the call completed synchronously, else a promise.
 * 4. At top level (no current context) no context is created: the call costs one attachment and two lookups.
 *
 * ```
 *  implementation of A ── proxy(B) → cluster → [ consumercontext → … ] → protocol ══► B
 *    RpcContext: provider(A)             consumer(B call, parent = provider(A))
 *    attachments: traceId=t1 ─────────────► traceId=t1 (passed through), remote.application=<A's app>
 *    deadline:    A's ─────────────────────► min(B call's own, A's)
 * ```
 *
 * @example
 * ```ts
 * await app.export(Orders, {
 *   async place(order: Order) {
 *     // traceId sent to Orders reaches Stock too; Stock's deadline is no later than this call's.
 *     await stock.reserve(order.items);
 *   },
 * });
 * ```
 */
export class ConsumerContextFilter extends Filter {
  private readonly async = new AsyncContextFlag();

  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const url = invoker.getUrl();
    const application = url.getParameter('application');
    if (application) invocation.setAttachment(ContextKeys.REMOTE_APPLICATION, application);
    const current = RpcContext.current();
    const scope = current === undefined ? undefined : requestScope(current);
    const client = clientAttachmentsFor(scope);
    if (client !== undefined) {
      for (const [key, value] of client) if (!invocation.hasAttachment(key)) invocation.setAttachment(key, value);
    }
    if (current === undefined) return invoker.invoke(invocation);
    if (scope !== undefined) {
      const incoming = scope.invocation;
      if (incoming !== invocation && incoming.hasAttachments()) {
        for (const [key, value] of incoming.getAttachments()) {
          if (!invocation.hasAttachment(key) && !isReservedAttachmentKey(key)) invocation.setAttachment(key, value);
        }
      }
      const deadline = incoming.deadline;
      const signal = incoming.signal;
      if ((deadline !== undefined || signal !== undefined) && countdownEnabled(url, invocation.methodName)) {
        if (deadline !== undefined) {
          if (deadline <= Date.now()) return Promise.reject(noTimeLeft(url, invocation));
          if (invocation.deadline === undefined || invocation.deadline > deadline) invocation.deadline = deadline;
        }
        if (signal !== undefined && invocation.signal === undefined) invocation.signal = signal;
      }
    }
    const context = new RpcContext('consumer', invocation, url, current);
    if (this.async.of(url)) return RpcContext.runAsync(context, () => invoker.invoke(invocation));
    return RpcContext.invokeIn(context, invoker, invocation);
  }
}

/**
 * `enable-timeout-countdown` for a method: unset, empty or `true` (any case) enables, anything else disables.
 * Never throws: the `timeout-countdown` config validator rejects values other than `true`/`false` at refer and
 * override time.
 */
function countdownEnabled(url: URL, method: string): boolean {
  const raw = url.getMethodParameter(method, ContextKeys.ENABLE_TIMEOUT_COUNTDOWN);
  return raw === undefined || raw === '' || raw.toLowerCase() === 'true';
}

function noTimeLeft(url: URL, invocation: Invocation): RpcError {
  const service = invocation.service?.name ?? url.getServiceInterface() ?? url.path;
  return new RpcError(
    RpcErrorCode.TIMEOUT_TERMINATE,
    `No time left for making the following call: ${service}.${invocation.methodName}, terminate directly. ` +
      'The deadline of the call being handled has passed (set enable-timeout-countdown=false on the reference to call anyway).',
  );
}
