import { RpcContext, type AttachmentValue } from '@weft/core';

import { isReservedAttachmentKey } from './reserved-attachment-keys.js';
import { requestScope } from './request-scope.js';

/**
 * The user attachments of the incoming call being handled — what `consumercontext` passes on to nested calls.
 *
 * @remarks
 * Dubbo's `RpcContext.getServerAttachment()`. Reads the provider context set by the `context` filter (from the
 * current async flow unless `context` is given; a consumer context of a nested call leads back to the provider
 * context it was created in). Returns a new map of the incoming attachments minus the reserved ones
 * ({@link isReservedAttachmentKey}: `token`, `timeout`, `_TO`, `remote.application`, transport headers…), read
 * when called — attachments an inner provider filter set are included. Empty outside an incoming call (or when
 * the `context` filter is not in the provider chain). The full, unfiltered set stays available as
 * `RpcContext.current()?.invocation.getAttachments()`.
 *
 * @example
 * ```ts
 * const impl = {
 *   async placeOrder(order: Order) {
 *     const traceId = getServerAttachments().get('traceId'); // sent by the caller
 *     logger.info(`order ${order.id}`, { traceId });
 *   },
 * };
 * ```
 */
export function getServerAttachments(context: RpcContext | undefined = RpcContext.current()): ReadonlyMap<string, AttachmentValue> {
  const out = new Map<string, AttachmentValue>();
  const scope = requestScope(context);
  if (scope === undefined || !scope.invocation.hasAttachments()) return out;
  for (const [key, value] of scope.invocation.getAttachments()) if (!isReservedAttachmentKey(key)) out.set(key, value);
  return out;
}
