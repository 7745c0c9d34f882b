import { Protocol, type Exporter, type Invoker, type ServiceDefinition, type URL } from '@weft/core';

/** Test-only transport `loop`: JSON over HTTP/1.1 on loopback (see loop-protocol.mjs). */
export declare class LoopProtocol extends Protocol {
  getDefaultPort(): number;
  export(invoker: Invoker): Promise<Exporter>;
  refer(service: ServiceDefinition, url: URL): Promise<Invoker>;
  destroy(): Promise<void>;
}
