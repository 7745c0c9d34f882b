import type { Logger } from '../common/logger.js';
import type { ExtensionLoader } from '../extension/extension-loader.js';
import { Filter } from '../filter/filter.js';
import type { Invoker } from '../rpc/invoker.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import type { Exporter } from './exporter.js';
import { Protocol } from './protocol.js';
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
export declare class ProtocolFilterWrapper extends Protocol {
    private readonly protocol;
    private readonly filters;
    private readonly logger;
    constructor(protocol: Protocol, filters: ExtensionLoader<Filter>, logger: Logger);
    getDefaultPort(): number;
    export(invoker: Invoker): Promise<Exporter>;
    refer(service: ServiceDefinition, url: URL): Promise<Invoker>;
    destroy(): Promise<void>;
    private chain;
}
//# sourceMappingURL=protocol-filter-wrapper.d.ts.map