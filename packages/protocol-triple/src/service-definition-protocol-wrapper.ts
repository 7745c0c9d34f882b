import { InjectLoader, InjectWrapped, Protocol, ServiceInvoker, type Exporter, type ExtensionLoader, type Invoker, type ServiceDefinition, type URL } from '@weft/core/spi';

import { TripleProtocol } from './triple-protocol.js';

/**
 * Tells the `tri` protocol which service definition an export serves, so the server decodes arguments and encodes
 * results against the declared types.
 *
 * @remarks
 * Wrapper (label `tri-service-definition`, order 50, matching `tri` only) of `weft.rpc.Protocol`: it sits outside
 * core's `ProtocolFilterWrapper` (order 100), where the exported invoker is still the `ServiceInvoker` that
 * `WeftApplication.export` built — the filter chain around it does not expose its `ServiceDefinition`. It records
 * the definition under the export URL on the bare `TripleProtocol`, then delegates every method unchanged.
 *
 * @example
 * ```ts
 * // Nothing to call: getExtension('tri') already returns the tri protocol wrapped by this class.
 * ```
 */
export class ServiceDefinitionProtocolWrapper extends Protocol {
  constructor(
    @InjectWrapped() private readonly protocol: Protocol,
    @InjectLoader(Protocol) private readonly protocols: ExtensionLoader<Protocol>,
  ) {
    super();
  }

  getDefaultPort(): number {
    return this.protocol.getDefaultPort();
  }

  export(invoker: Invoker): Promise<Exporter> {
    if (invoker instanceof ServiceInvoker) {
      const url = invoker.getUrl();
      const bare = this.protocols.getExtension(url.protocol, false);
      if (bare instanceof TripleProtocol) bare.defineService(url, invoker.service);
    }
    return this.protocol.export(invoker);
  }

  refer(service: ServiceDefinition, url: URL): Promise<Invoker> {
    return this.protocol.refer(service, url);
  }

  destroy(): Promise<void> {
    return this.protocol.destroy();
  }
}
