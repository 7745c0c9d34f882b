import { Filter, type Invocation, type Invoker, type Result } from '@weft/core';

import { incomingTag, TagKeys } from './tag-router.js';

/**
 * Passes the request tag on: a call made while handling a tagged call carries the same `dubbo.tag`.
 *
 * @remarks `weft.rpc.Filter` extension `tag`, activated in group `consumer`. When the outgoing call sets no
 * `dubbo.tag` attachment and the call being handled in this async flow (an `RpcContext` with side `provider`,
 * from the `context` filter of `@weft/filter-context`) carries one, it is copied — so a canary request stays on
 * canary providers hop after hop (Dubbo drops the tag at each hop). `reference.filter=-tag` turns it off. The
 * tag router reads the incoming tag the same way, so routing and the wire agree.
 * @example
 * ```ts
 * await app.refer(Inventory, { filter: ['-tag'] }); // do not propagate tags on this reference
 * ```
 */
export class TagPropagationFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    if (invocation.getAttachment(TagKeys.TAG) === undefined) {
      const tag = incomingTag();
      if (tag !== undefined) invocation.setAttachment(TagKeys.TAG, tag);
    }
    return invoker.invoke(invocation);
  }
}
