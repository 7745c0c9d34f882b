import type { Invocation } from './invocation.js';
import type { Invoker } from './invoker.js';
import type { Result } from './result.js';
import { RpcError } from './rpc-error.js';

/**
 * Calls `invoker.invoke(invocation)` and never throws: a synchronous throw becomes a rejection.
 *
 * @remarks
 * Invokers should report framework failures as rejected promises, but a synchronous throw is tolerated by every
 * caller in Weft; this is how they tolerate it. The answer is returned as is — a completed `Result` stays
 * synchronous — and a thrown value is mapped with `RpcError.from`, so the rejection always carries an
 * `RpcError`. Kept small on purpose: it sits on the per-call path of proxies and clusters.
 *
 * @example
 * ```ts
 * const answer = invokeSafely(provider, invocation); // Result | Promise<Result>, never a throw
 * return answer instanceof Result ? answer : answer.then(undefined, retry);
 * ```
 */
export function invokeSafely(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
  try {
    return invoker.invoke(invocation);
  } catch (error) {
    return rejection(error);
  }
}

/** Out of line, so that the per-call function stays small enough to inline. */
function rejection(error: unknown): Promise<never> {
  return Promise.reject(RpcError.from(error));
}
