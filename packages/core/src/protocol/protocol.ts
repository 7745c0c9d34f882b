import { SPI } from '../extension/decorators.js';
import type { Invoker } from '../rpc/invoker.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import type { Exporter } from './exporter.js';

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
@SPI({ id: 'weft.rpc.Protocol', default: 'injvm', adaptive: { export: ['protocol'], refer: ['protocol'] } })
export abstract class Protocol {
  /** The port used when a URL names none (0 when the protocol has no port). */
  abstract getDefaultPort(): number;
  /** Exports a provider invoker. */
  abstract export(invoker: Invoker): Promise<Exporter>;
  /** Refers a provider: returns an invoker that calls it. */
  abstract refer(service: ServiceDefinition, url: URL): Promise<Invoker>;
  /** Un-exports everything and releases resources (in-flight calls finish first). */
  abstract destroy(): Promise<void>;

  /**
   * Whether this protocol honours `ssl-enabled=true` (reads the `ssl.*` certificate keys and speaks TLS). Export and
   * refer refuse `ssl-enabled=true` on a protocol that does not, so a service that asks for TLS is never served or
   * called in plaintext. Default `false`; a wrapper delegates to the protocol it wraps.
   */
  supportsTls(): boolean {
    return false;
  }
}
