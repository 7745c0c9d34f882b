var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
import { SPI } from '../extension/decorators.js';
/**
 * How values are encoded on the wire: the `weft.rpc.Serialization` extension point.
 *
 * @remarks
 * Extension point `weft.rpc.Serialization`, default `json`, framework scope (codecs are stateless). Protocols
 * pick the codec named by the URL key `serialization`; `injvm` uses it to copy arguments and results so
 * in-process calls behave like remote ones. `deserialize` returns plain data; callers realise it against the
 * declared types (`realize`). A codec never instantiates classes named by the data.
 *
 * @example
 * ```ts
 * const json = app.getExtensionLoader(Serialization).getExtension('json');
 * json.deserialize(json.serialize({ a: 1 })); // { a: 1 }
 * ```
 */
let Serialization = class Serialization {
    /** An independent copy of `value` as it would arrive after a trip over the wire. */
    copy(value) {
        return this.deserialize(this.serialize(value));
    }
};
Serialization = __decorate([
    SPI({ id: 'weft.rpc.Serialization', default: 'json', scope: 'framework' })
], Serialization);
export { Serialization };
//# sourceMappingURL=serialization.js.map