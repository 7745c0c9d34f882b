import type { RpcContext } from '@weft/core';

/**
 * The provider context of the incoming call a context belongs to: the context itself when it is a provider
 * context, else the nearest provider context among its parents (a consumer context created for a nested call
 * has the provider context it was created in as parent); `undefined` outside any incoming call.
 * @internal
 */
export function requestScope(context: RpcContext | undefined): RpcContext | undefined {
  let at = context;
  while (at !== undefined && at.side !== 'provider') at = at.parent;
  return at;
}
