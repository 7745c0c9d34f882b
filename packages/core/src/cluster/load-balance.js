var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
import { SPI } from '../extension/decorators.js';
/**
 * Chooses one provider among several: the `weft.rpc.LoadBalance` extension point.
 *
 * @remarks
 * Extension point `weft.rpc.LoadBalance`, default `random`, application scope (state such as round-robin
 * counters lives in the instance, so two applications never share it), `select` adaptive on the method-level
 * URL key `loadbalance`. Called with a non-empty list; returns one of its elements.
 *
 * @example
 * ```ts
 * const chosen = app.getExtensionLoader(LoadBalance).getExtension('roundrobin').select(invokers, url, invocation);
 * ```
 */
let LoadBalance = class LoadBalance {
};
LoadBalance = __decorate([
    SPI({ id: 'weft.rpc.LoadBalance', default: 'random', adaptive: { select: ['loadbalance'] } })
], LoadBalance);
export { LoadBalance };
//# sourceMappingURL=load-balance.js.map