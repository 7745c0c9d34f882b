import { safeLog, type Logger } from '../common/logger.js';
import { Logger as LoggerToken } from '../common/logger.js';
import type { ExtensionLoader } from '../extension/extension-loader.js';
import { Inject, InjectLoader, InjectWrapped } from '../extension/injector.js';
import { Filter } from '../filter/filter.js';
import { buildFilterChain, releaseFilterChain } from '../filter/filter-chain.js';
import type { Invoker } from '../rpc/invoker.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import { Exporter } from './exporter.js';
import { Protocol } from './protocol.js';
import { maskedIdentity } from '../common/mask-secrets.js';
import { refuseUnhonouredTls } from '../transport/tls-keys.js';

/** Whether a URL is a registry URL, which passes through without filters (Dubbo's rule). */
function isRegistry(url: URL): boolean {
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
export class ProtocolFilterWrapper extends Protocol {
  constructor(
    @InjectWrapped() private readonly protocol: Protocol,
    @InjectLoader(Filter) private readonly filters: ExtensionLoader<Filter>,
    @Inject(LoggerToken) private readonly logger: Logger,
  ) {
    super();
  }

  getDefaultPort(): number {
    return this.protocol.getDefaultPort();
  }

  async export(invoker: Invoker): Promise<Exporter> {
    const url = invoker.getUrl();
    if (isRegistry(url)) return this.protocol.export(invoker);
    refuseUnhonouredTls(url, `export(${url.getServiceKey() ?? url.path})`, 'provider', this.protocol);
    const chain = this.chain(invoker, url, 'service.filter', 'provider');
    const exporter = await this.protocol.export(chain);
    return chain === invoker ? exporter : new ChainExporter(exporter, chain);
  }

  async refer(service: ServiceDefinition, url: URL): Promise<Invoker> {
    if (!isRegistry(url)) refuseUnhonouredTls(url, `refer(${service.name}): ${maskedIdentity(url)}`, 'consumer', this.protocol);
    const invoker = await this.protocol.refer(service, url);
    if (isRegistry(url)) return invoker;
    return this.chain(invoker, invoker.getUrl(), 'reference.filter', 'consumer');
  }

  destroy(): Promise<void> {
    return this.protocol.destroy();
  }

  override supportsTls(): boolean {
    return this.protocol.supportsTls();
  }

  private chain(invoker: Invoker, url: URL, key: string, group: string): Invoker {
    const filters = this.filters.getActivateExtensions(url, key, group);
    const nameOf = (f: Filter) => this.filters.getExtensionName(f) ?? f.constructor.name;
    safeLog(
      this.logger,
      'debug',
      `filter chain for ${group === 'provider' ? 'export' : 'refer'} of ${url.getServiceKey() ?? url.path} (${url.protocol}://${url.getAddress()}): ` +
        `${filters.map(nameOf).join(' → ') || '(no filters)'}`,
    );
    return buildFilterChain(invoker, filters, nameOf, this.logger);
  }
}

/** An export through a filter chain: unexporting releases the chain (its filters' `onChainReleased`) once done. */
class ChainExporter extends Exporter {
  constructor(
    private readonly exporter: Exporter,
    private readonly chain: Invoker,
  ) {
    super();
  }

  getInvoker(): Invoker {
    return this.exporter.getInvoker();
  }

  async unexport(): Promise<void> {
    try {
      await this.exporter.unexport();
    } finally {
      releaseFilterChain(this.chain);
    }
  }
}
