var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
import { SPI } from '../extension/decorators.js';
/**
 * How services are exported and referred: the `weft.rpc.Protocol` extension point.
 *
 * @remarks
 * Extension point `weft.rpc.Protocol`, default `injvm`, application scope. `export` and `refer` are adaptive
 * on the URL's protocol, so `getAdaptiveExtension().refer(service, URL.parse('tri://…'))` reaches the `tri`
 * extension. Wrappers apply around every protocol: `ProtocolFilterWrapper` (order 100) builds the provider
 * filter chain on export and the consumer chain on refer.
 * - `export(invoker)` makes the invoker reachable at `invoker.getUrl()`; the resolved exporter un-exports it.
 * - `refer(service, url)` returns an invoker for the provider at `url` (connections may be lazy; its
 *   `isAvailable()` tells whether calling makes sense now).
 * - `destroy()` un-exports everything and closes connections, letting in-flight calls finish.
 *
 * @example
 * ```ts
 * export class LoopbackProtocol extends Protocol { … }
 * // META-INF/weft/weft.rpc.Protocol.json: { "loopback": { "module": "./dist/loopback-protocol.js", "export": "LoopbackProtocol" } }
 * ```
 */
let Protocol = class Protocol {
};
Protocol = __decorate([
    SPI({ id: 'weft.rpc.Protocol', default: 'injvm', adaptive: { export: ['protocol'], refer: ['protocol'] } })
], Protocol);
export { Protocol };
//# sourceMappingURL=protocol.js.map