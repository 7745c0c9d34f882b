import { AsyncLocalStorage } from 'node:async_hooks';

import { RpcContext, type AttachmentValue } from '@weft/core';

import { requestScope } from './request-scope.js';

/** Client attachments in force in an async flow, and the incoming call (if any) they were set for. */
interface ClientScope {
  readonly owner: RpcContext | undefined;
  readonly attachments: ReadonlyMap<string, AttachmentValue>;
}

const storage = new AsyncLocalStorage<ClientScope>();

/**
 * Runs `fn` with client attachments: every call made in its async flow (through a reference whose consumer chain
 * has the `consumercontext` filter) carries them.
 *
 * @remarks
 * Dubbo's `RpcContext.getClientAttachment().setAttachment(…)`, scoped to a function instead of a thread.
 * - Precedence on each outgoing call: attachments set on the call itself (`$call(…, { attachments })`) win over
 *   these, which win over the incoming attachments passed through from the call being handled.
 * - Nested `withAttachments` merge, the inner value winning; the attachments apply until `fn` (and what it
 *   awaits) completes — returned promises included — and never leak to concurrent flows.
 * - They belong to the incoming call they were set in (or to none, at top level): an in-process (`injvm`)
 *   provider reached by one of these calls does not see them — its own nested calls carry its caller's
 *   attachments only as passed-through attachments, as they would over a network. That isolation relies on
 *   the `context` filter in the provider chain.
 * - Reserved keys are allowed (you may send a `token`), but `remote.application` is always overwritten by
 *   `consumercontext`.
 *
 * @returns what `fn` returns.
 * @example
 * ```ts
 * const order = await withAttachments({ tenant: 'acme', traceId: 't-42' }, async () => {
 *   const user = await users.find(7);          // carries tenant and traceId
 *   return orders.create(user);                // so does this one
 * });
 * ```
 */
export function withAttachments<T>(
  attachments: Readonly<Record<string, AttachmentValue>> | ReadonlyMap<string, AttachmentValue>,
  fn: () => T,
): T {
  const owner = requestScope(RpcContext.current());
  const outer = storage.getStore();
  const merged = new Map<string, AttachmentValue>(outer !== undefined && outer.owner === owner ? outer.attachments : undefined);
  const entries = attachments instanceof Map ? attachments.entries() : Object.entries(attachments);
  for (const [key, value] of entries) merged.set(key, value);
  return storage.run({ owner, attachments: merged }, fn);
}

/**
 * The client attachments {@link withAttachments} set for calls made from the current async flow.
 *
 * @remarks A new map; empty outside `withAttachments`, or inside an incoming call handled within a
 * `withAttachments` flow of its caller (in-process calls).
 * @example
 * ```ts
 * withAttachments({ tenant: 'acme' }, () => getClientAttachments().get('tenant')); // 'acme'
 * ```
 */
export function getClientAttachments(): ReadonlyMap<string, AttachmentValue> {
  const attachments = clientAttachmentsFor(requestScope(RpcContext.current()));
  return new Map(attachments);
}

/**
 * The client attachments in force for a call made while handling `scope` (the provider context of the incoming
 * call, or `undefined` at top level), without copying; `undefined` when there are none.
 * @internal
 */
export function clientAttachmentsFor(scope: RpcContext | undefined): ReadonlyMap<string, AttachmentValue> | undefined {
  const client = storage.getStore();
  return client !== undefined && client.owner === scope && client.attachments.size > 0 ? client.attachments : undefined;
}
