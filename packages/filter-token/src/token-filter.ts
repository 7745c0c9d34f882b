import { Filter, RpcError, RpcErrorCode, type Invocation, type Invoker, type Result, type URL } from '@weft/core';
import { describeCaller, isConfigNotEmpty } from '@weft/core/spi';

import { SecretMatcher } from './constant-time-equal.js';

/**
 * The URL key and the attachment that carry the token.
 *
 * @remarks On the provider URL it activates {@link TokenFilter} and holds the expected token; on a call, the
 * attachment holds the token the consumer sends (the filter removes it once checked).
 * @example
 * ```ts
 * await greeter.$call('sayHello', ['ann'], { attachments: { [TOKEN_KEY]: 's3cret' } });
 * ```
 */
export const TOKEN_KEY = 'token';

/**
 * Refuses calls that do not carry the provider's token: a shared secret between a provider and its consumers.
 *
 * @remarks
 * Extension `token` of `weft.rpc.Filter` (`@weft/filter-token`), activated in group `provider` when the
 * provider URL has the key `token` (Dubbo's value rule: `token=false`, `0`, `null`, `N/A` or empty do not
 * activate it), order 0.
 *
 * **Where tokens come from.** `app.export(service, impl, { parameters: { token: true } })` (or `default`)
 * puts a random UUID on the provider URL, new per export; any other value is used as is. Consumers send it as the
 * attachment `token`: `injvm` does this by itself; a remote consumer sends the `token` its reference is given
 * (registries carry `token=true`, "required", never the token).
 *
 * **The check.** The attachment `token` must equal the URL's, compared in constant time (as
 * `constantTimeEqual` does, without allocating per call). Otherwise the call rejects with `RpcError` `forbidden`
 * naming the service, the method and the caller (attachments `remote.application` and `remote.address`, when
 * present) — never either token. A call that passes continues with the `token` attachment removed, so the implementation (and anything
 * reading the call's attachments, like `RpcContext`) never sees the secret; the filter answers with the rest of
 * the chain's answer as is (a `Result` when the call completed synchronously), adding no promise.
 *
 * @example
 * ```ts
 * const exported = await app.export(Greeter, impl, { parameters: { token: true } }); // token=<random UUID>
 * const greeter = await app.refer(Greeter);                                         // injvm sends it
 * await greeter.sayHello('ann');                                                    // passes the check
 * ```
 */
export class TokenFilter extends Filter {
  /** The provider's token, prepared for comparison, per provider URL (URLs are immutable); `null`: none. */
  private readonly tokens = new WeakMap<URL, SecretMatcher | null>();

  /** Checks the call's token against the provider URL's, then passes the call on without it. */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const url = invoker.getUrl();
    const expected = this.tokenOf(url);
    if (expected === null) return invoker.invoke(invocation);
    const given = invocation.getAttachment(TOKEN_KEY);
    if (given === undefined || !expected.matches(String(given))) {
      return Promise.reject(
        new RpcError(
          RpcErrorCode.FORBIDDEN,
          `Invalid token: call to ${url.getServiceKey() ?? url.path}.${invocation.methodName}() from ${describeCaller(invocation)} refused ` +
            `(${given === undefined ? 'it carried no token' : "its token does not match the provider's"}).` +
            (given === undefined ? ' Remote consumers send the token their reference is given (parameters: { token }); registries carry only that one is required.' : ''),
        ),
      );
    }
    invocation.removeAttachment(TOKEN_KEY);
    return invoker.invoke(invocation);
  }

  private tokenOf(url: URL): SecretMatcher | null {
    let token = this.tokens.get(url);
    if (token === undefined) {
      const value = url.getParameter(TOKEN_KEY);
      token = isConfigNotEmpty(value) ? new SecretMatcher(value) : null;
      this.tokens.set(url, token);
    }
    return token;
  }
}
