import { ApplicationModel, Filter, Logger, RpcError, RpcErrorCode, Serialization, type ExtensionLoader, type Invocation, type Invoker, type Result, type URL } from '@weft/core';
import { describeCaller, Inject, InjectLoader } from '@weft/core/spi';

import { AuthKeys } from './auth-keys.js';
import { CallerCheck } from './caller-check.js';
import { RequestSigner } from './request-signer.js';
import { RequestVerifier } from './request-verifier.js';

/**
 * Signed requests and per-method authorisation: consumers sign each call with HMAC-SHA256, providers verify the
 * signature and check `auth.callers`.
 *
 * @remarks
 * Extension `auth` of `weft.rpc.Filter` (`@weft/filter-auth`), application scope, order -100000 — inside `echo`
 * (-110000), outside `timeout` and every business filter:
 * ```
 *  consumer: cluster → [ … → auth: sign → … ] → protocol ══ weft-auth-* attachments ══╗
 *  provider: exporter → [ context → echo → auth: verify, then auth.callers → … ] → implementation
 * ```
 * Activated where the URL sets `auth.key-id` (consumer: signs), `auth.keys` or `auth.keys-file` (provider:
 * verifies) or `auth.callers` at any level (provider: authorises, with a signature identity or mTLS alone). The side
 * is the URL's `side`. A verified call carries `callerIdentityOf(invocation)` =
 * `{ principal: <key id>, via: 'signature', certificate }` and continues without the `weft-auth-*` attachments.
 * Refusals reject with `RpcError` `forbidden` saying what failed — never a secret, never the list of keys or
 * callers. The wire format, the canonical argument form and the threat model are in the package README.
 *
 * @example
 * ```ts
 * app.model.registerService(AuthKeys, new AuthKeys({ shop: process.env.SHOP_KEY as string }));
 * await app.export(Billing, impl, { parameters: { 'auth.keys': 'shop', 'charge.auth.callers': 'shop' } });
 * const billing = await app.refer(Billing, { parameters: { 'auth.key-id': 'shop' } }); // signs with AuthKeys' secret
 * ```
 */
export class AuthFilter extends Filter {
  private readonly signer: RequestSigner;
  private readonly verifier: RequestVerifier;
  private readonly callers = new CallerCheck();
  private keys: AuthKeys | undefined;

  constructor(
    @Inject(ApplicationModel) private readonly model: ApplicationModel,
    @Inject(Logger) logger: Logger,
    @InjectLoader(Serialization) serializations: ExtensionLoader<Serialization>,
  ) {
    super();
    const authKeys = (): AuthKeys | undefined => this.authKeys();
    this.signer = new RequestSigner(authKeys, serializations);
    this.verifier = new RequestVerifier(authKeys, logger);
  }

  /** Consumer: signs the call. Provider: verifies its signature, then its caller against `auth.callers`. */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const url = invoker.getUrl();
    if (url.getParameter('side') === 'consumer') {
      const refused = this.signer.sign(url, invocation);
      return refused === undefined ? invoker.invoke(invocation) : Promise.reject(refused);
    }
    const reason = this.verifier.verify(url, invocation) ?? this.callers.check(url, invocation);
    return reason === undefined ? invoker.invoke(invocation) : Promise.reject(refusal(url, invocation, reason));
  }

  /** Stops polling key files (the application is shutting down). */
  destroy(): void {
    this.verifier.close();
  }

  private authKeys(): AuthKeys | undefined {
    if (this.keys === undefined && this.model.hasService(AuthKeys)) this.keys = this.model.getService(AuthKeys);
    return this.keys;
  }
}

function refusal(url: URL, invocation: Invocation, reason: string): RpcError {
  return new RpcError(
    RpcErrorCode.FORBIDDEN,
    `auth: call to ${url.getServiceKey() ?? url.path}.${invocation.methodName}() from ${describeCaller(invocation)} refused: ${reason}.`,
  );
}
