import { callerIdentityOf, type Invocation, type URL } from '@weft/core';
import { splitCommaList } from '@weft/core/spi';

import { AuthParameters } from './auth-parameters.js';
import { quote } from './request-verifier.js';

/**
 * Per-method authorisation: whether the caller's principal is in `auth.callers` (method level first).
 *
 * @remarks The principal is `callerIdentityOf(invocation)`: a verified signature's key id, else the mTLS client
 * certificate's name. `*` admits any authenticated caller; an unset or empty list admits everyone. Parsed lists
 * are cached per URL and method.
 * @internal Used by `AuthFilter`.
 */
export class CallerCheck {
  private readonly lists = new WeakMap<URL, Map<string, ReadonlySet<string> | null>>();

  /** Why the call is not authorised, or `undefined` when it is. */
  check(url: URL, invocation: Invocation): string | undefined {
    const method = invocation.methodName;
    const allowed = this.listOf(url, method);
    if (allowed === null) return undefined;
    const identity = callerIdentityOf(invocation);
    if (identity === undefined) {
      return `the caller is anonymous (neither a verified signature nor a client certificate), and ${method}() admits listed callers only (${AuthParameters.CALLERS})`;
    }
    if (allowed.has('*') || allowed.has(identity.principal)) return undefined;
    return `principal ${quote(identity.principal)} (via ${identity.via}) is not allowed to call ${method}() (${AuthParameters.CALLERS})`;
  }

  private listOf(url: URL, method: string): ReadonlySet<string> | null {
    let byMethod = this.lists.get(url);
    if (byMethod === undefined) this.lists.set(url, (byMethod = new Map()));
    let list = byMethod.get(method);
    if (list === undefined) {
      const names = splitCommaList(url.getMethodParameter(method, AuthParameters.CALLERS) ?? '').map((n) => n.trim()).filter((n) => n !== '');
      list = names.length === 0 ? null : new Set(names);
      // Method names come from the wire: cap what is cached per URL.
      if (byMethod.size < 1024) byMethod.set(method, list);
    }
    return list;
  }
}
