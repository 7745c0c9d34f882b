var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
import { SPI } from '../extension/decorators.js';
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
 * short-circuit). It resolves with a {@link Result} — which may carry a business error — or rejects with an
 * `RpcError`. The optional listener hooks fire once per call after it settles: `onResponse` when it resolved
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
let Filter = class Filter {
};
Filter = __decorate([
    SPI({ id: 'weft.rpc.Filter' })
], Filter);
export { Filter };
//# sourceMappingURL=filter.js.map