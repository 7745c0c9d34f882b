var __decorate = (this && this.__decorate) || function (decorators, target, key, desc) {
    var c = arguments.length, r = c < 3 ? target : desc === null ? desc = Object.getOwnPropertyDescriptor(target, key) : desc, d;
    if (typeof Reflect === "object" && typeof Reflect.decorate === "function") r = Reflect.decorate(decorators, target, key, desc);
    else for (var i = decorators.length - 1; i >= 0; i--) if (d = decorators[i]) r = (c < 3 ? d(r) : c > 3 ? d(target, key, r) : d(target, key)) || r;
    return c > 3 && r && Object.defineProperty(target, key, r), r;
};
var __metadata = (this && this.__metadata) || function (k, v) {
    if (typeof Reflect === "object" && typeof Reflect.metadata === "function") return Reflect.metadata(k, v);
};
var __param = (this && this.__param) || function (paramIndex, decorator) {
    return function (target, key) { decorator(target, key, paramIndex); }
};
import { Logger as LoggerToken } from '../common/logger.js';
import { Inject, InjectLoader, InjectWrapped } from '../extension/injector.js';
import { Filter } from '../filter/filter.js';
import { buildFilterChain } from '../filter/filter-chain.js';
import { Protocol } from './protocol.js';
/** Whether a URL is a registry URL, which passes through without filters (Dubbo's rule). */
function isRegistry(url) {
    const protocol = url.protocol.toLowerCase();
    return protocol === 'registry' || protocol === 'service-discovery-registry' || protocol.endsWith('-registry-protocol');
}
/**
 * The protocol wrapper that builds filter chains: provider chain on export, consumer chain on refer.
 *
 * @remarks
 * Wrapper (order 100) of every `weft.rpc.Protocol` extension. On `export` it wraps the invoker in the filters
 * `getActivateExtensions(url, 'service.filter', 'provider')` selects; on `refer`, the protocol's invoker in
 * `getActivateExtensions(url, 'reference.filter', 'consumer')`. Each chain is built once per export/refer —
 * nothing is recomputed per call. Registry URLs pass through unfiltered.
 *
 * @example
 * ```ts
 * // Nothing to call: getExtension('injvm') already returns the injvm protocol wrapped by this class.
 * ```
 */
let ProtocolFilterWrapper = class ProtocolFilterWrapper extends Protocol {
    protocol;
    filters;
    logger;
    constructor(protocol, filters, logger) {
        super();
        this.protocol = protocol;
        this.filters = filters;
        this.logger = logger;
    }
    getDefaultPort() {
        return this.protocol.getDefaultPort();
    }
    async export(invoker) {
        const url = invoker.getUrl();
        if (isRegistry(url))
            return this.protocol.export(invoker);
        return this.protocol.export(this.chain(invoker, url, 'service.filter', 'provider'));
    }
    async refer(service, url) {
        const invoker = await this.protocol.refer(service, url);
        if (isRegistry(url))
            return invoker;
        return this.chain(invoker, invoker.getUrl(), 'reference.filter', 'consumer');
    }
    destroy() {
        return this.protocol.destroy();
    }
    chain(invoker, url, key, group) {
        const filters = this.filters.getActivateExtensions(url, key, group);
        return buildFilterChain(invoker, filters, (f) => this.filters.getExtensionName(f) ?? f.constructor.name, this.logger);
    }
};
ProtocolFilterWrapper = __decorate([
    __param(0, InjectWrapped()),
    __param(1, InjectLoader(Filter)),
    __param(2, Inject(LoggerToken)),
    __metadata("design:paramtypes", [Protocol, Function, Function])
], ProtocolFilterWrapper);
export { ProtocolFilterWrapper };
//# sourceMappingURL=protocol-filter-wrapper.js.map