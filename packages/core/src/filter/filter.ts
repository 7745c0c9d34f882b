import { SPI } from '../extension/decorators.js';
import type { Invocation } from '../rpc/invocation.js';
import type { Invoker } from '../rpc/invoker.js';
import type { PendingResult } from '../rpc/pending-result.js';
import type { Result } from '../rpc/result.js';

/**
 * A step of the filter chain around every call: the `weft.rpc.Filter` extension point.
 *
 * @remarks
 * Extension point `weft.rpc.Filter`, no default, application scope (one instance per application, shared by
 * all its services: keep per-call state on the invocation, not on the filter).
 *
 * Chains are built once per export (group `provider`, key `service.filter`) and per refer (group `consumer`,
 * key `reference.filter`) from `getActivateExtensions`; the first filter is outermost:
 * ```
 *  consumer: proxy → cluster → [ f1 → f2 → … → fn ] → protocol invoker ══ network ══╗
 *  provider: ╔══════════════════════════════════════════════════════════════════════╝
 *            ╚→ exporter → [ f1 → f2 → … → fn ] → service implementation
 *  listeners:                 onResponse / onError fire fn … f1 (innermost first), once per call
 * ```
 * `invoke` must call `invoker.invoke(invocation)` to continue (or return a result without calling it to
 * short-circuit). It answers with a {@link Result} — which may carry a business error — or rejects with an
 * `RpcError`. The answer of `invoker.invoke` is the `Result` itself when the call completed synchronously and a
 * promise of it otherwise — from Weft's own invokers a {@link PendingResult}, which chains every layer's
 * callbacks without a promise: return it as is, `await` it in an `async invoke`, or post-process it with
 * {@link whenSettled} (which keeps a completed call free of promise hops) — never call `.then` on it directly.
 * The optional listener hooks fire once per call after it settles: `onResponse` when it resolved
 * (including a business error in the result), `onError` when it rejected or a filter threw. A throwing hook is
 * reported to the logger and never changes the call's outcome.
 *
 * @example
 * ```ts
 * export class TimingFilter extends Filter {
 *   async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
 *     const start = performance.now();
 *     try { return await invoker.invoke(invocation); }
 *     finally { console.log(invocation.methodName, performance.now() - start); }
 *   }
 * }
 * ```
 */
@SPI({ id: 'weft.rpc.Filter' })
export abstract class Filter {
  /** Handles the call: continue with `invoker.invoke(invocation)`, or answer without it. */
  abstract invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result>;

  /** Called once when the call resolved (the result may carry a business error). */
  onResponse?(result: Result, invoker: Invoker, invocation: Invocation): void;

  /** Called once when the call rejected, or when this or an inner filter threw. */
  onError?(error: unknown, invoker: Invoker, invocation: Invocation): void;

  /**
   * Called when a chain holding this filter is built around `invoker`: an export, a refer, or a provider re-referred
   * because its URL changed (an override); `invoker.getUrl()` is what the chain's calls will see.
   *
   * @remarks
   * With {@link Filter.onChainReleased}, this tells a filter which chains use it, so that state it keeps per
   * resource (a breaker, a label set) can be released when no chain needs it any more — for instance when an
   * override removes the keys that activated the filter, and the provider's chain is rebuilt without it. A
   * throwing hook is logged and does not stop the chain from being built.
   */
  onChainBuilt?(invoker: Invoker): void;

  /**
   * Called once when a chain built with {@link Filter.onChainBuilt} is released: its provider left or was replaced
   * (a consumer chain is destroyed after its replacement is built), the reference was destroyed, or the service was
   * unexported.
   */
  onChainReleased?(invoker: Invoker): void;
}
