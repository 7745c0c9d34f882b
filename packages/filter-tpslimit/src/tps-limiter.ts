import type { Invocation, URL } from '@weft/core';
import { SPI } from '@weft/core/spi';

import type { MemoryTpsLimiter } from './memory-tps-limiter.js';
import type { tpsRuleOf } from './tps-rule.js';

/**
 * Decides whether a call fits its rate limit: the `weft.filter.TpsLimiter` extension point.
 *
 * @remarks
 * Extension point `weft.filter.TpsLimiter`, default `memory` ({@link MemoryTpsLimiter}), application scope (one
 * instance per application and name, shared by all its services). The `tps` filter asks the limiter named by the
 * provider URL key `tps.limiter` (default `memory`) once per call, with the invoker's current URL, so a
 * cluster-wide limiter (tokens leased from a shared store, refreshed in the background) plugs in by name
 * without touching the filter. `isAllowable` answers `true`/`false` synchronously when it can (the in-process
 * limiters: the filter then adds no promise), or a promise when it must ask a shared store (`redis`): the call
 * waits for that answer, so such a limiter bounds how long it may take. Read the limit with {@link tpsRuleOf} so
 * every limiter agrees on the keys; a call whose rule has `rate: 0` is unlimited. A limiter that throws or
 * rejects makes the call reject (fail closed): with its own `RpcError` as is, else `RpcError` `unknown`.
 *
 * @example
 * ```ts
 * // META-INF/weft/weft.filter.TpsLimiter.json: { "shared": { "module": "./dist/shared-tps-limiter.js", "export": "SharedTpsLimiter" } }
 * export class SharedTpsLimiter extends TpsLimiter {
 *   isAllowable(url: URL, invocation: Invocation): boolean {
 *     const { rate } = tpsRuleOf(url, invocation.methodName);
 *     return rate === 0 || leases.take(url.getServiceKey() ?? url.path);
 *   }
 * }
 * // provider: tps=1000&tps.limiter=shared
 * ```
 */
@SPI({ id: 'weft.filter.TpsLimiter', default: 'memory' })
export abstract class TpsLimiter {
  /** Whether the call may proceed (now, or once a shared store answered); `true` consumes one admission of the current window. */
  abstract isAllowable(url: URL, invocation: Invocation): boolean | Promise<boolean>;
}
