import { ApplicationModel, ExtensionError, ExtensionErrorCode, maskSecrets, Protocol, type Exporter, type Invoker, type ServiceDefinition, type URL } from '@weft/core';
import { Inject } from '@weft/core/spi';

import { MockExpressionCache } from './mock-expression-cache.js';
import { MockInvoker } from './mock-invoker.js';
import { MockRegistry } from './mock-registry.js';

/**
 * The `mock` protocol: hosts `mock://` provider URLs as mock invokers.
 *
 * @remarks Extension `mock` of `weft.rpc.Protocol`. `refer(service, url)` returns a {@link MockInvoker} on the
 * URL (its `<method>.mock` keys supply the values); `export` is refused. A `mock://` provider in a directory is
 * never routed to by normal calls; the mock cluster invoker prefers it when it degrades a call.
 * @example
 * ```ts
 * await app.refer(Greeter, { mock: 'force', url: 'mock://0.0.0.0/org.acme.Greeter?sayHello.mock=return+hi' });
 * ```
 */
export class MockProtocol extends Protocol {
  constructor(@Inject(ApplicationModel) private readonly app: ApplicationModel) {
    super();
  }

  getDefaultPort(): number {
    return 0;
  }

  async export(invoker: Invoker): Promise<Exporter> {
    throw new ExtensionError(
      ExtensionErrorCode.INVALID_PARAMETER,
      `The mock protocol cannot export services (${maskSecrets(invoker.getUrl())}); it only hosts mock:// providers for consumers.`,
    );
  }

  async refer(service: ServiceDefinition, url: URL): Promise<Invoker> {
    return new MockInvoker(url, service, MockRegistry.of(this.app), MockExpressionCache.of(this.app));
  }

  async destroy(): Promise<void> {}
}
