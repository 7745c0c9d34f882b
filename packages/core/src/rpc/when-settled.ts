import type { PendingResult } from './pending-result.js';
import { Result } from './result.js';

/**
 * Continues a call's answer — a completed {@link Result} or a promise of one — without a promise hop when it
 * is already complete.
 *
 * @remarks
 * `Invoker.invoke` and `Filter.invoke` return `Result | Promise<Result>`: a call that completed synchronously
 * (a synchronous implementation behind injvm, a short-circuiting filter, a mock) hands its `Result` straight
 * back, as Dubbo's completed `AsyncRpcResult` does, and only calls that really wait pay for promises.
 * `whenSettled` is the one way to post-process such an answer:
 *
 * - a completed `Result` → `onResult(result)` runs now, and its return value is returned as is;
 * - a promise → `answer.then(onResult, onError)` (`onError` omitted: the rejection passes through); for Weft's
 *   own {@link PendingResult} that chains the callbacks, run synchronously when the outcome arrives, with no
 *   promise.
 *
 * It never throws: an exception thrown by `onResult` on the synchronous path is returned as a rejected promise,
 * exactly as `.then` would have turned it into one, so failures keep travelling as rejections. `onError` is
 * only ever called for a rejected promise — a completed `Result` carrying a business error goes to `onResult`
 * (check `result.hasException()`).
 *
 * @example
 * ```ts
 * class CountingFilter extends Filter {
 *   calls = 0;
 *   invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
 *     return whenSettled(invoker.invoke(invocation), (result) => {
 *       this.calls++;
 *       return result;
 *     });
 *   }
 * }
 * ```
 */
export function whenSettled<T>(
  answer: Result | Promise<Result>,
  onResult: (result: Result) => T | Promise<T>,
  onError?: (error: unknown) => T | Promise<T>,
): T | Promise<T> {
  if (answer instanceof Result) {
    try {
      return onResult(answer);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  return answer.then(onResult, onError);
}
