import { Filter, Result, RpcError, RpcErrorCode, type Invocation, type Invoker } from '@weft/core';

/**
 * The method name of the echo test.
 *
 * @remarks What `proxy.$echo(value)` calls; service definitions cannot declare it (names starting with `$` are
 * reserved), so it never collides with a real method. {@link EchoFilter} answers it.
 * @example
 * ```ts
 * const answer = await invoker.invoke(new Invocation({ methodName: ECHO_METHOD, args: ['ping'], service: Greeter }));
 * answer.value; // 'ping' (the echo filter answers synchronously: `await` is only needed for other methods)
 * ```
 */
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
 * - `$echo` with exactly one argument answers at once with a completed `Result` (no promise) whose value is
 *   that argument (copied back like any result).
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
  /** Answers `$echo(value)` with `value`; passes every other call on. */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    if (invocation.methodName !== ECHO_METHOD) return invoker.invoke(invocation);
    const args = invocation.args;
    if (args.length === 1) return Result.of(args[0]);
    const service = invoker.getUrl().getServiceKey() ?? invoker.getUrl().path;
    return Promise.reject(
      new RpcError(
        RpcErrorCode.METHOD_NOT_FOUND,
        `Echo test of ${service} takes exactly one argument: ${ECHO_METHOD}(value) was called with ${args.length}.`,
      ),
    );
  }
}
