import type { Invoker } from '../rpc/invoker.js';
import type { URL } from '../rpc/url.js';
import type { ExtensionLoader } from '../extension/extension-loader.js';
import { Serialization } from '../serialization/serialization.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import { Exporter } from './exporter.js';
import { Protocol } from './protocol.js';
/**
 * The in-process protocol (`injvm`): exports and refers services within one application.
 *
 * @remarks
 * Extension `injvm` of `weft.rpc.Protocol` (the default protocol). Calls behave as remote ones do: arguments,
 * results and business errors are **copied** through the codec named by the URL key `serialization` (default
 * `json`) and realised against the method's declared types, so a service behaves the same in-process and over
 * the network; timeouts, deadlines and cancellation apply as for any consumer invoker. `copy=false` on the
 * reference (or export) URL opts out: arguments and results are passed by reference (zero-copy). Exporters are
 * per application; exporting the same service key twice is an error. A referred invoker is available while its
 * service is exported.
 *
 * @example
 * ```ts
 * await app.export(Greeter, impl);                      // injvm by default
 * const greeter = await app.refer(Greeter, { parameters: { copy: 'false' } });
 * ```
 */
export declare class InjvmProtocol extends Protocol {
    private readonly serializations;
    private readonly exporters;
    constructor(serializations: ExtensionLoader<Serialization>);
    getDefaultPort(): number;
    export(invoker: Invoker): Promise<Exporter>;
    refer(service: ServiceDefinition, url: URL): Promise<Invoker>;
    destroy(): Promise<void>;
}
//# sourceMappingURL=injvm-protocol.d.ts.map