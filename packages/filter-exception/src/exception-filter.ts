import { Filter, Logger, Result, RpcError, type Invocation, type Invoker, type URL } from '@weft/core';
import { Inject, safeLog } from '@weft/core/spi';

import { UndeclaredError } from './undeclared-error.js';

/**
 * The standard error classes every consumer can rebuild by name (the ones `errorFromData` of `@weft/core` knows).
 * Only exact instances count: a subclass carries a name the consumer may not know.
 */
const STANDARD_PROTOTYPES: ReadonlySet<object> = new Set([
  Error.prototype,
  TypeError.prototype,
  RangeError.prototype,
  SyntaxError.prototype,
  ReferenceError.prototype,
  EvalError.prototype,
  URIError.prototype,
]);

/**
 * Keeps undeclared business errors from reaching consumers as classes they cannot rebuild: declared ones pass,
 * the rest become an {@link UndeclaredError} with the original name and message.
 *
 * @remarks
 * Extension `exception` of `weft.rpc.Filter` (`@weft/filter-exception`), activated in group `provider` for every
 * export (group only, order 0, as in Dubbo). It looks only at results carrying a business error (what the
 * implementation threw); values and framework failures (rejections: `timeout`, `limit-exceeded`,
 * `method-not-found`…) pass untouched. In order, the first matching rule wins:
 * 1. the error is an instance (`instanceof`, so subclasses count) of a class the method declares in `throws` →
 *    passes;
 * 2. it is an `RpcError` → passes;
 * 3. its class is exactly `Error`, `TypeError`, `RangeError`, `SyntaxError`, `ReferenceError`, `EvalError` or
 *    `URIError` (classes every consumer rebuilds), whatever its `name` → passes;
 * 4. the called method is unknown (no service definition on the invocation) → passes (nothing to check against);
 * 5. anything else — an undeclared custom error, a `DOMException`, a thrown string — is logged as a warning with
 *    its stack trace (service, method, caller) and replaced by an `UndeclaredError` whose message is
 *    `<name>: <message>`, without the stack. The result's attachments are kept.
 * If classifying fails (a hostile getter), the error passes as is and the failure is logged. A call that
 * completed synchronously is checked at once and answered synchronously (no promise); a synchronous throw of the
 * inner chain is a framework failure and passes through untouched, like a rejection.
 *
 * @example
 * ```ts
 * class OutOfStock extends Error { name = 'OutOfStock'; }
 * const Inventory = defineService('org.acme.Inventory', {
 *   reserve: { args: [String], returns: Boolean, throws: [OutOfStock] },   // OutOfStock (and subclasses) pass
 * });
 * // An implementation throwing `new StockDbError('pool exhausted')` makes the consumer see an Error named
 * // 'UndeclaredError' with message 'StockDbError: pool exhausted'.
 * ```
 */
export class ExceptionFilter extends Filter {
  constructor(@Inject(Logger) private readonly logger: Logger) {
    super();
  }

  /**
   * Passes the call on, then checks the business error its result carries, if any — at once when the call
   * completed synchronously (the answer is then a `Result` too), else when its promise resolves.
   */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const answer = invoker.invoke(invocation);
    if (answer instanceof Result) return answer.hasException() ? this.check(answer, invoker.getUrl(), invocation) : answer;
    return this.checkWhenSettled(answer, invoker, invocation);
  }

  // The closure lives here, not in `invoke`: there it would cost a context allocation on every call.
  private checkWhenSettled(pending: Promise<Result>, invoker: Invoker, invocation: Invocation): Promise<Result> {
    return pending.then((result) => (result.hasException() ? this.check(result, invoker.getUrl(), invocation) : result));
  }

  private check(result: Result, url: URL, invocation: Invocation): Result {
    const error = result.exception;
    let wrap: boolean;
    try {
      wrap = !passes(error, invocation);
    } catch (failure) {
      safeLog(this.logger, 'warn', `exception filter: could not classify the error of ${serviceOf(url)}.${invocation.methodName}(); passing it as is.`, failure);
      return result;
    }
    if (!wrap) return result;
    const undeclared = new UndeclaredError(error);
    safeLog(
      this.logger,
      'warn',
      `Undeclared error from ${serviceOf(url)}.${invocation.methodName}() called by ${callerOf(invocation)}: ${undeclared.message} ` +
        `(the consumer receives an UndeclaredError; ${
          error instanceof Error ? `declare ${undeclared.originalName} in the method's "throws" to pass it through` : 'throw an Error instead'
        })`,
      error,
    );
    const replaced = Result.ofException(undeclared);
    if (result.hasAttachments()) for (const [key, value] of result.getAttachments()) replaced.setAttachment(key, value);
    return replaced;
  }
}

/** Whether a business error may reach the consumer as it is. */
function passes(error: unknown, invocation: Invocation): boolean {
  const method = invocation.method;
  if (method !== undefined) {
    for (const declared of method.throws) if (error instanceof declared) return true;
  }
  if (error instanceof RpcError) return true;
  if (error instanceof Error && STANDARD_PROTOTYPES.has(Object.getPrototypeOf(error) as object)) return true;
  return method === undefined;
}

function serviceOf(url: URL): string {
  return url.getServiceKey() ?? url.path;
}

function callerOf(invocation: Invocation): string {
  const application = invocation.getAttachment('remote.application');
  const address = invocation.getAttachment('remote.address');
  if (application !== undefined && address !== undefined) return `${String(application)} (${String(address)})`;
  if (application !== undefined) return String(application);
  if (address !== undefined) return String(address);
  return 'an unknown consumer';
}
