var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
import { SPI } from '../extension/decorators.js';
/**
 * Turns a directory of providers into one invoker with a fault-tolerance strategy: the `weft.rpc.Cluster`
 * extension point.
 *
 * @remarks
 * Extension point `weft.rpc.Cluster`, default `failover`, application scope, `join` adaptive on the URL key
 * `cluster` of the directory's URL. Wrappers apply around every cluster: `MockClusterWrapper` (from
 * `@weft/mock`) wraps the joined invoker so that degradation works with any strategy. The joined invoker's
 * `getUrl()` is the directory's URL; it lists invokers per call, selects with the `loadbalance` extension named
 * by the URL (default `random`), and must never retry a business error.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getAdaptiveExtension().join(directory);
 * ```
 */
let Cluster = class Cluster {
};
Cluster = __decorate([
    SPI({ id: 'weft.rpc.Cluster', default: 'failover', adaptive: { join: ['cluster'] } })
], Cluster);
export { Cluster };
//# sourceMappingURL=cluster.js.map