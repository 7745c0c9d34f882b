import { Filter, Result, RpcError, RpcErrorCode, type Invocation, type Invoker } from '@weft/core';

/** The method name of the echo test (what `proxy.$echo(value)` calls). */
export const ECHO_METHOD = '$echo';

/**
 * Answers Dubbo's echo test: a `$echo` call returns its argument without reaching the implementation.
 *
 * @remarks
 * Extension `echo` of `weft.rpc.Filter` (`@weft/filter-echo`), activated in group `provider` for every export,
 * order `-110000` (Dubbo's): outermost among the standard provider filters, so an echo proves the provider is
 * reachable without paying for the others (timeout watch, limits) — and, as in Dubbo, without a `token` check:
 * it only returns what the caller sent. No URL keys.
 *
 * - `$echo` with exactly one argument resolves with a `Result` whose value is that argument (copied back like
 *   any result).
 * - `$echo` with any other number of arguments rejects with `RpcError` `method-not-found` (Dubbo 11): the
 *   method that exists is `$echo(value)`, and a `$echo` nobody answers ends with that code anyway.
 * - Every other method passes through.
 *
 * Consumers call it with `proxy.$echo(value)` (every proxy has it).
 *
 * @example
 * ```ts
 * const greeter = await app.refer(Greeter);
 * assert.equal(await greeter.$echo('ping'), 'ping'); // the implementation is not called
 * ```
 */
export class EchoFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
    if (invocation.methodName !== ECHO_METHOD) return invoker.invoke(invocation);
    const args = invocation.args;
    if (args.length === 1) return Promise.resolve(Result.of(args[0]));
    const service = invoker.getUrl().getServiceKey() ?? invoker.getUrl().path;
    return Promise.reject(
      new RpcError(
        RpcErrorCode.METHOD_NOT_FOUND,
        `Echo test of ${service} takes exactly one argument: ${ECHO_METHOD}(value) was called with ${args.length}.`,
      ),
    );
  }
}
