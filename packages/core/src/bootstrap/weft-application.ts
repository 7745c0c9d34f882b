import { randomUUID } from 'node:crypto';
import { networkInterfaces } from 'node:os';

import { ApplicationEvents } from '../common/application-events.js';
import { safeLog, type Logger } from '../common/logger.js';
import { maskedIdentity, maskSecrets, maskUrlText } from '../common/mask-secrets.js';
import type { ServiceStatus } from './service-status.js';
import { Cluster } from '../cluster/cluster.js';
import type { Directory } from '../cluster/directory.js';
import { ConfigValidator } from '../config/config-validator.js';
import { ParameterRegistry } from '../config/parameter-registry.js';
import { LoadBalance } from '../cluster/load-balance.js';
import { RouterFactory } from '../cluster/router.js';
import { StaticDirectory } from '../cluster/static-directory.js';
import type { ApplicationModel } from '../extension/application-model.js';
import { ExtensionError, ExtensionErrorCode } from '../extension/extension-error.js';
import { FrameworkModel } from '../extension/framework-model.js';
import { Filter } from '../filter/filter.js';
import type { Exporter } from '../protocol/exporter.js';
import type { Registry } from '../registry/registry.js';
import { RegistryDirectory } from '../registry/registry-directory.js';
import { RegistryFactory } from '../registry/registry-factory.js';
import { Protocol } from '../protocol/protocol.js';
import { ServiceInvoker } from '../protocol/service-invoker.js';
import type { Invoker } from '../rpc/invoker.js';
import { RpcError, RpcErrorCode } from '../rpc/rpc-error.js';
import { RpcStatusRegistry } from '../rpc/rpc-status.js';
import { URL, type ParameterValue } from '../rpc/url.js';
import type { MethodSpec, ServiceDefinition, ServiceImplementation } from '../service/service-definition.js';
import { createServiceProxy, type CallableProxy, type CallGate } from '../service/service-proxy.js';
import { resolveServiceAddress, type AddressEnvironment } from './service-address.js';
import { reportUnknownKeys, ServiceUrlChecker } from './service-url-checker.js';
import { assertNotReserved, joinList, localHost, providerUrls, registeredConsumerUrl, registeredProviderUrl, serviceParameters } from './service-urls.js';

/** Options of {@link WeftApplication.start}. */
export interface WeftApplicationOptions {
  /** Directory of the application's package.json (extension discovery starts there). */
  readonly root: string;
  /** Application name (the `application` URL parameter). @defaultValue `'weft-application'` */
  readonly name?: string;
  /** Logger. @defaultValue a `ConsoleLogger` */
  readonly logger?: Logger;
  /** Use an existing framework instead of creating one (several applications in one framework). */
  readonly framework?: FrameworkModel;
  /** How long loading waits for one extension module to import, in ms (ignored with `framework`). @defaultValue 10000 */
  readonly importTimeout?: number;
  /**
   * The registry providers register with and consumers discover from, as a URL: `embedded://` (the default
   * registry of `@weft/registry-embedded`, no server), `zookeeper://127.0.0.1:2181`… Without one, services are
   * referred in-process (`injvm`) or by `url`.
   */
  readonly registry?: string;
  /**
   * Strict mode: an unknown URL key (a typo such as `tsp`, a key of a plugin that is not installed) is an
   * `ExtensionError` (`ERR_SPI_UNKNOWN_PARAMETER`) at start, export, refer and override time instead of a
   * warning, and an override rule with an unknown key is refused as a whole. @defaultValue false
   */
  readonly strict?: boolean;
  /** The application's own URL keys. */
  readonly parameters?: ApplicationParameterOptions;
  /**
   * The environment the addresses of exports are read from, once, at start: `DUBBO_IP_TO_REGISTRY`,
   * `DUBBO_PORT_TO_REGISTRY`, `DUBBO_IP_TO_BIND`, `DUBBO_PORT_TO_BIND` (or `WEFT_…`, or `<PROTOCOL>_DUBBO_…`).
   * See {@link resolveServiceAddress}. @defaultValue `process.env`
   */
  readonly env?: AddressEnvironment;
}

/** The application's own URL keys, in {@link WeftApplicationOptions.parameters}. */
export interface ApplicationParameterOptions {
  /**
   * Keys the application reads itself (from `invoker.getUrl()`, attachments…), never reported as unknown; each
   * may also be set per method (`<method>.<key>`). Keys starting with `x-` never need declaring.
   */
  readonly declare?: readonly string[];
  /**
   * The application's own keys whose values are secrets (declared too): masked as `***` in messages and left out of
   * registered URLs, like `token` and `password`.
   */
  readonly secret?: readonly string[];
}

/** URL parameters common to exports and references. */
export interface CommonOptions {
  /** Service version (part of the service key). */
  readonly version?: string;
  /** Service group (part of the service key). */
  readonly group?: string;
  /** Filter list: names, `-name`, `default` (written to `service.filter` / `reference.filter`). */
  readonly filter?: string | readonly string[];
  /** Timeout in ms (provider: the timeout filter's budget; consumer: the call timeout). @defaultValue 1000 */
  readonly timeout?: number;
  /** Any other URL parameter. */
  readonly parameters?: Readonly<Record<string, ParameterValue>>;
  /** Method-level parameters: `{ sayHello: { timeout: 200 } }` becomes `sayHello.timeout=200`. */
  readonly methods?: Readonly<Record<string, Readonly<Record<string, ParameterValue>>>>;
}

/** Options of {@link WeftApplication.export}. */
export interface ExportOptions extends CommonOptions {
  /** Protocol to export with. @defaultValue `'injvm'` */
  readonly protocol?: string;
  /**
   * The address registered for consumers; also the address listened on unless `bind.ip` is given. A wildcard
   * (`0.0.0.0`, `::`) listens on every address and registers this machine's first non-loopback IPv4 address.
   * @defaultValue `'127.0.0.1'`
   */
  readonly host?: string;
  /** The port registered; also the port listened on unless `bind.port` is given (0: the protocol's default). */
  readonly port?: number;
  /**
   * Where the server listens, when not `host`/`port` (Dubbo's `bind.ip`/`bind.port`): e.g. `{ ip: '0.0.0.0' }`
   * behind NAT or in a container, with `host` the address consumers reach. The URL keys `bind.ip`/`bind.port` in
   * `parameters` do the same.
   */
  readonly bind?: { readonly ip?: string; readonly port?: number };
  /** Register with the application's registry. @defaultValue true (injvm exports are never registered) */
  readonly register?: boolean;
}

/** Options of {@link WeftApplication.refer}. */
export interface ReferOptions extends CommonOptions {
  /** Retries of `failover`. @defaultValue 2 */
  readonly retries?: number;
  /** Cluster strategy. @defaultValue `'failover'` */
  readonly cluster?: string;
  /** Load balance. @defaultValue `'random'` */
  readonly loadbalance?: string;
  /** Mock expression (needs `@weft/mock`): `force:return x`, `fail:throw`, `return empty`… */
  readonly mock?: string;
  /** Direct provider URL(s), separated by `;`: skips discovery (`tri://127.0.0.1:50051`). */
  readonly url?: string;
  /** With a registry: fail the refer when no provider is registered yet. @defaultValue true */
  readonly check?: boolean;
  /** With a registry: register this consumer under the service's `consumers`. @defaultValue true */
  readonly register?: boolean;
}

/** An exported service. */
export interface ExportedService {
  /** The provider URL. */
  readonly url: URL;
  /** Stops exporting it. */
  unexport(): Promise<void>;
}

class Gate implements CallGate {
  active = 0;
  closing: RpcError | undefined;
  private idle: (() => void) | undefined;

  enter(): RpcError | undefined {
    if (this.closing !== undefined) return this.closing;
    this.active++;
    return undefined;
  }

  exit(): void {
    if (--this.active === 0 && this.idle !== undefined) this.idle();
  }

  whenIdle(timeoutMs: number): Promise<boolean> {
    if (this.active === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.idle = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }
}

type ReferenceDirectory = StaticDirectory | RegistryDirectory;

/**
 * The one obvious way to run Weft: configure an application, export services, refer typed proxies, shut down.
 *
 * @remarks
 * `start` discovers installed extensions from `root` and loads the core extension points (protocols, filters,
 * clusters, load balancing). `export` and `refer` build URLs from their options, validate them — a bad value is
 * reported at export/refer time with the offending key, never on the first call — and go through the
 * extension points: provider filter chain → protocol on export; protocol → consumer filter chain → cluster
 * (with its wrappers) → typed proxy on refer. `shutdown` refuses new calls, lets in-flight calls finish (up to
 * a timeout), then un-exports, disconnects and destroys the application scope.
 *
 * @example
 * ```ts
 * const app = await WeftApplication.start({ root: process.cwd(), name: 'shop' });
 * await app.export(Greeter, { sayHello: (name) => `hello ${name}` }, { version: '1.0.0' });
 * const greeter = await app.refer(Greeter, { version: '1.0.0', timeout: 500 });
 * console.log(await greeter.sayHello('ann'));
 * await app.shutdown();
 * ```
 */
export class WeftApplication {
  private readonly exporters: Exporter[] = [];
  private readonly registrations: URL[] = [];
  private readonly exportedUrls = new Map<Exporter, URL>();
  /** Each registered export's provider URL as registered, and whether it is online (registered now). */
  private readonly providerRegistrations = new Map<Exporter, { readonly url: URL; online: boolean }>();
  /** Exports and refers in progress (readiness waits for them). */
  private inProgress = 0;
  private readonly directories: ReferenceDirectory[] = [];
  private readonly references = new WeakMap<object, ReferenceDirectory>();
  private readonly gate = new Gate();
  private stopped: Promise<void> | undefined;
  /** The export/refer/override checks. */
  private readonly checker: ServiceUrlChecker;

  private constructor(
    /** The application scope (extension loaders, services). */
    readonly model: ApplicationModel,
    private readonly ownsFramework: boolean,
    /** The registry, when the application was started with one. */
    readonly registry: Registry | undefined,
    /** The URL keys this application knows (Weft's, its extensions', its own). */
    readonly parameterKeys: ParameterRegistry,
    /** Whether unknown URL keys are errors ({@link WeftApplicationOptions.strict}). */
    readonly strict: boolean,
    /** The address variables of the environment, read at start. */
    private readonly env: AddressEnvironment,
  ) {
    this.checker = new ServiceUrlChecker(model, parameterKeys, strict);
    model.registerService(APPLICATION_SERVICE, this);
  }

  /**
   * The application that owns `model`, for extensions that operate on it (QoS `online`/`offline`, consoles).
   * @example
   * ```ts
   * const app = WeftApplication.of(model); // inside an extension with @Inject(ApplicationModel) model
   * ```
   */
  static of(model: ApplicationModel): WeftApplication | undefined {
    return model.hasService(APPLICATION_SERVICE) ? model.getService<WeftApplication>(APPLICATION_SERVICE) : undefined;
  }

  /** Creates the application, loads the core extension points and connects to the registry, if any. */
  static async start(options: WeftApplicationOptions): Promise<WeftApplication> {
    const framework = options.framework ?? FrameworkModel.create({ root: options.root, logger: options.logger, importTimeout: options.importTimeout });
    const name = options.name ?? 'weft-application';
    const model = framework.newApplication(name);
    let registry: Registry | undefined;
    const strict = options.strict === true;
    const keys = ParameterRegistry.fromIndex(model.index, { declare: options.parameters?.declare ?? [], secret: options.parameters?.secret ?? [] });
    try {
      await model.loadExtensions(Protocol, Filter, Cluster, LoadBalance, RouterFactory, ConfigValidator, RegistryFactory);
      if (options.registry !== undefined) {
        let registryUrl: URL;
        try {
          registryUrl = URL.parse(options.registry);
        } catch (error) {
          throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `start(): registry=${maskUrlText(options.registry, keys.secretKeys)} is not a valid URL: ${(error as Error).message}`, {
            cause: error,
          });
        }
        reportUnknownKeys(keys, strict, model.logger, registryUrl.parameters.keys(), [], `start(): registry=${maskUrlText(options.registry, keys.secretKeys)}`);
        const factories = model.getExtensionLoader(RegistryFactory);
        if (!factories.hasExtension(registryUrl.protocol)) {
          throw new ExtensionError(
            ExtensionErrorCode.INVALID_PARAMETER,
            `start(): registry=${maskUrlText(options.registry, keys.secretKeys)} needs a "${registryUrl.protocol}" registry. ${factories.describeMissing(registryUrl.protocol)}`,
          );
        }
        registry = factories.getExtension(registryUrl.protocol).getRegistry(registryUrl.addParameterIfAbsent('application', name));
        const connected = registry;
        model.onDestroy(() => connected.destroy());
      }
    } catch (error) {
      await (options.framework === undefined ? framework.destroy() : model.destroy());
      throw error;
    }
    return new WeftApplication(model, options.framework === undefined, registry, keys, strict, addressEnvironment(options.env ?? process.env));
  }

  /** The application name. */
  get name(): string {
    return this.model.name;
  }

  /**
   * Exports a service implementation.
   * @throws `ERR_SPI_INVALID_PARAMETER` naming the offending option or parameter.
   */
  async export<M extends Record<string, MethodSpec>>(
    service: ServiceDefinition<M>,
    implementation: ServiceImplementation<M>,
    options: ExportOptions = {},
  ): Promise<ExportedService> {
    this.inProgress++;
    try {
      return await this.exportNow(service, implementation, options);
    } finally {
      this.inProgress--;
    }
  }

  private async exportNow<M extends Record<string, MethodSpec>>(
    service: ServiceDefinition<M>,
    implementation: ServiceImplementation<M>,
    options: ExportOptions,
  ): Promise<ExportedService> {
    this.assertRunning();
    const protocols = this.model.getExtensionLoader(Protocol);
    const protocolName = options.protocol ?? protocols.getDefaultExtensionName() ?? 'injvm';
    const where = `export(${service.name})`;
    this.checker.requireExtension(protocols, protocolName, where, 'protocol');
    const protocol = protocols.getExtension(protocolName);
    const parameters = serviceParameters(service, this.name, 'provider', options, { 'service.filter': joinList(options.filter), anyhost: 'true' });
    let url: URL;
    if (protocolName === 'injvm') {
      url = new URL({
        protocol: protocolName,
        host: options.host ?? '127.0.0.1',
        port: options.port !== undefined && options.port > 0 ? options.port : protocol.getDefaultPort(),
        path: service.name,
        parameters,
      });
    } else {
      const address = resolveServiceAddress(
        {
          protocol: protocolName,
          host: options.host,
          port: options.port,
          bindIp: options.bind?.ip ?? parameters.get('bind.ip'),
          bindPort: options.bind?.port ?? portParameter(parameters.get('bind.port'), where),
          defaultPort: protocol.getDefaultPort(),
        },
        this.env,
        machineInterfaces(),
      );
      if (address.warning !== undefined) safeLog(this.model.logger, 'warn', `${where}: ${address.warning}`);
      parameters.set('bind.ip', address.bindIp);
      parameters.set('bind.port', String(address.bindPort));
      parameters.set('anyhost', String(address.anyhost));
      url = new URL({ protocol: protocolName, host: address.host, port: address.port, path: service.name, parameters });
    }
    const token = url.getParameter('token');
    if (token !== undefined && (token.toLowerCase() === 'true' || token.toLowerCase() === 'default')) {
      // Dubbo's rule: token=true (or default) means a random token per export (the registry gets token=true, not it).
      url = url.addParameter('token', randomUUID());
    }
    this.checker.checkKeys(url.parameters.keys(), service, where);
    this.checker.validate(url, where, 'service.filter', service, 'provider');
    const exporter = await protocol.export(new ServiceInvoker(service, implementation, url));
    this.exporters.push(exporter);
    this.exportedUrls.set(exporter, url);
    const registry = this.registry;
    const registered = registry !== undefined && protocolName !== 'injvm' && options.register !== false ? registeredProviderUrl(url, process.pid, this.parameterKeys.secretKeys, service) : undefined;
    if (registered !== undefined) {
      try {
        await registry?.register(registered);
      } catch (error) {
        await exporter.unexport();
        this.exporters.splice(this.exporters.indexOf(exporter), 1);
        throw error;
      }
      this.registrations.push(registered);
      this.providerRegistrations.set(exporter, { url: registered, online: true });
    }
    safeLog(this.model.logger, 'info', `exported ${service.name} at ${maskSecrets(url, this.parameterKeys.secretKeys)}`);
    return {
      url,
      unexport: async () => {
        const at = this.exporters.indexOf(exporter);
        if (at >= 0) this.exporters.splice(at, 1);
        const registration = this.providerRegistrations.get(exporter);
        this.providerRegistrations.delete(exporter);
        if (registered !== undefined && registration?.online !== false) {
          this.registrations.splice(this.registrations.indexOf(registered), 1);
          await registry?.unregister(registered);
        }
        await exporter.unexport();
        this.exportedUrls.delete(exporter);
        this.model.getService(RpcStatusRegistry).remove(url);
      },
    };
  }

  /**
   * Refers a service: returns a typed proxy.
   * @remarks When it fails, nothing is left behind: provider invokers already created are destroyed.
   * @throws `ERR_SPI_INVALID_PARAMETER` naming the offending option or parameter.
   */
  async refer<M extends Record<string, MethodSpec>>(service: ServiceDefinition<M>, options: ReferOptions = {}): Promise<CallableProxy<M>> {
    this.inProgress++;
    try {
      return await this.referNow(service, options);
    } finally {
      this.inProgress--;
    }
  }

  private async referNow<M extends Record<string, MethodSpec>>(service: ServiceDefinition<M>, options: ReferOptions): Promise<CallableProxy<M>> {
    this.assertRunning();
    const where = `refer(${service.name})`;
    const consumerUrl = new URL({
      protocol: 'consumer',
      host: localHost(),
      path: service.name,
      parameters: serviceParameters(service, this.name, 'consumer', options, {
        'reference.filter': joinList(options.filter),
        retries: options.retries,
        cluster: options.cluster,
        loadbalance: options.loadbalance,
        mock: options.mock,
      }),
    });
    this.checker.checkKeys(consumerUrl.parameters.keys(), service, where);
    this.checker.validate(consumerUrl, where, 'reference.filter', service, 'consumer');
    const clusters = this.model.getExtensionLoader(Cluster);
    this.checker.requireExtension(clusters, consumerUrl.getParameter('cluster', clusters.getDefaultExtensionName() ?? 'failover'), where, 'cluster');

    const protocols = this.model.getExtensionLoader(Protocol);
    if (this.registry !== undefined && (options.url === undefined || options.url.trim() === '')) {
      return this.referFromRegistry(service, consumerUrl, options, this.registry);
    }
    const providers = providerUrls(service, consumerUrl, options.url, where, (keys, at) => this.checker.checkKeys(keys, service, at), this.parameterKeys.secretKeys);
    for (const providerUrl of providers) this.checker.requireExtension(protocols, providerUrl.protocol, where, 'url');
    const invokers: Invoker[] = [];
    try {
      for (const providerUrl of providers) invokers.push(await protocols.getExtension(providerUrl.protocol).refer(service, providerUrl));
    } catch (error) {
      // A failed refer leaves nothing behind: release the invokers (connections) already created.
      await Promise.allSettled(invokers.map(async (i) => i.destroy()));
      throw error;
    }
    const directory = new StaticDirectory(service, consumerUrl, invokers, this.model.getService(RpcStatusRegistry));
    this.directories.push(directory);
    const invoker = clusters.getAdaptiveExtension().join(directory);
    const proxy = createServiceProxy(service, invoker, this.gate);
    this.references.set(proxy, directory);
    return proxy;
  }

  private async referFromRegistry<M extends Record<string, MethodSpec>>(
    service: ServiceDefinition<M>,
    consumerUrl: URL,
    options: ReferOptions,
    registry: Registry,
  ): Promise<CallableProxy<M>> {
    const directory = new RegistryDirectory({
      service,
      consumerUrl,
      registry,
      protocols: this.model.getExtensionLoader(Protocol),
      logger: this.model.logger,
      validate: (url, where) => this.checker.validate(url, where, 'reference.filter', service, 'consumer'),
      checkKeys: (keys, where) => this.checker.checkKeys(keys, service, where),
      statuses: this.model.getService(RpcStatusRegistry),
      events: this.model.getService(ApplicationEvents),
      routers: this.model.getExtensionLoader(RouterFactory),
    });
    const registeredConsumer = registeredConsumerUrl(consumerUrl, process.pid, Date.now(), this.parameterKeys.secretKeys, service);
    try {
      await directory.subscribe();
      if (options.check !== false && directory.getAllInvokers().length === 0) {
        throw new RpcError(
          RpcErrorCode.NO_INVOKER,
          `refer(${service.name}): no provider of ${consumerUrl.getServiceKey()} is registered at ${maskedIdentity(registry.getUrl())}. ` +
            'Start a provider first, or refer with check: false to wait for one.',
        );
      }
      if (options.register !== false) await registry.register(registeredConsumer);
    } catch (error) {
      await directory.destroy();
      throw error;
    }
    this.directories.push(directory);
    if (options.register !== false) this.registrations.push(registeredConsumer);
    const invoker = this.model.getExtensionLoader(Cluster).getAdaptiveExtension().join(directory);
    const proxy = createServiceProxy(service, invoker, this.gate);
    this.references.set(proxy, directory);
    return proxy;
  }

  /**
   * Whether a reference can be called now: some provider is available (its connection is up, or it is exported
   * in-process). Degrading references answer even when it is false.
   */
  isAvailable(proxy: object): boolean {
    return this.references.get(proxy)?.isAvailable() ?? false;
  }

  /** The directory behind a proxy (registry or static): for tools and tests. */
  getDirectory(proxy: object): Directory | undefined {
    return this.references.get(proxy);
  }

  /**
   * Overrides parameters of a reference at runtime; the next call obeys them (no re-refer).
   *
   * @remarks Each call replaces the previous override: the effective URL is the referred consumer URL plus
   * `parameters` (a `null` value removes a key); `cluster` is chosen at refer time and not re-read. The result is
   * validated first (numeric keys, extension names,
   * and every activated `ConfigValidator` — e.g. mock expressions); if invalid, it throws and the previous
   * configuration stays. `override(proxy, {})` restores the configuration as referred. Registries push their
   * override rules through the same path.
   * @example
   * ```ts
   * app.override(greeter, { 'sayHello.mock': 'force:return "degraded"' }); // next sayHello is mocked
   * app.override(greeter, {});                                           // back to normal
   * ```
   * @returns the effective URL.
   * @throws `ERR_SPI_INVALID_PARAMETER` naming the offending key; nothing is applied.
   */
  override(proxy: object, parameters: Readonly<Record<string, ParameterValue | null>>): URL {
    this.assertRunning();
    const directory = this.references.get(proxy);
    if (directory === undefined) {
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, 'override(): the proxy was not referred by this application.');
    }
    let url = directory.getConsumerUrl();
    const where = `override(${directory.service.name})`;
    for (const [key, value] of Object.entries(parameters)) {
      assertNotReserved(key, where);
      url = value === null ? url.removeParameter(key) : url.addParameter(key, value);
    }
    this.checker.checkKeys(
      Object.keys(parameters).filter((key) => parameters[key] !== null),
      directory.service,
      where,
    );
    this.checker.validate(url, where, 'reference.filter', directory.service, 'consumer');
    directory.configure(url);
    return url;
  }

  /** The effective URL of a reference (consumer URL with overrides). */
  getReferenceUrl(proxy: object): URL | undefined {
    return this.references.get(proxy)?.getUrl();
  }

  /**
   * Shuts down gracefully: new calls are refused, in-flight calls finish (up to `timeout` ms), then services are
   * un-exported, references destroyed and the application scope released. Idempotent.
   * @remarks Extensions see the deadline as `ApplicationModel.shutdownDeadline` (what is left of `timeout`, at least
   * 250 ms after the calls drained); those that wait on something outside in `destroy()` stop by then.
   */
  shutdown(options: { readonly timeout?: number } = {}): Promise<void> {
    this.stopped ??= this.doShutdown(options.timeout ?? 10_000);
    return this.stopped;
  }

  private async doShutdown(timeout: number): Promise<void> {
    const deadline = Date.now() + timeout;
    this.model.shuttingDown = true;
    this.gate.closing = new RpcError(RpcErrorCode.NO_INVOKER, `Application "${this.name}" is shutting down; no new calls are accepted.`);
    const drained = await this.gate.whenIdle(timeout);
    if (!drained) this.model.logger.warn(`shutdown of "${this.name}": ${this.gate.active} call(s) still in flight after ${timeout} ms; closing anyway.`);
    const registry = this.registry;
    if (registry !== undefined) await Promise.allSettled(this.registrations.splice(0).map((u) => registry.unregister(u)));
    const statuses = this.model.getService(RpcStatusRegistry);
    await Promise.allSettled(
      this.exporters.splice(0).map(async (e) => {
        await e.unexport();
        const url = this.exportedUrls.get(e);
        if (url !== undefined) statuses.remove(url);
      }),
    );
    await Promise.allSettled(this.directories.splice(0).map((d) => d.destroy()));
    // Extensions' destroy() (flushing a log, closing a pool) gets what is left of the timeout, and at least
    // SHUTDOWN_GRACE_MS even when draining calls used it all.
    this.model.shutdownDeadline = Math.max(deadline, Date.now() + SHUTDOWN_GRACE_MS);
    if (this.ownsFramework) await this.model.framework.destroy();
    else await this.model.destroy();
  }

  /**
   * What the application exports and refers, with registration state: for tools (QoS `ls`, consoles).
   * @example
   * ```ts
   * for (const p of app.serviceStatus().providers) console.log(p.serviceKey, p.registered ? 'online' : 'offline');
   * ```
   */
  serviceStatus(): ServiceStatus {
    const providers = [...this.exportedUrls.entries()].map(([exporter, url]) => {
      const registration = this.providerRegistrations.get(exporter);
      return { serviceKey: url.getServiceKey() ?? url.path, url, registrable: registration !== undefined, registered: registration?.online === true };
    });
    const consumers = this.directories.map((directory) => ({
      serviceKey: directory.getConsumerUrl().getServiceKey() ?? directory.service.name,
      fromRegistry: directory instanceof RegistryDirectory,
      providers: directory.getAllInvokers().length,
    }));
    const byKey = (a: { serviceKey: string }, b: { serviceKey: string }) => (a.serviceKey < b.serviceKey ? -1 : a.serviceKey > b.serviceKey ? 1 : 0);
    return { registry: this.registry?.getUrl().protocol, providers: providers.sort(byKey), consumers: consumers.sort(byKey) };
  }

  /**
   * Whether the application is ready for traffic (Dubbo's readiness probe): started, not shutting down, no export or
   * refer in progress, and — if it registers providers — at least one of them online.
   */
  isReady(): boolean {
    if (this.stopped !== undefined || this.inProgress > 0) return false;
    const registrations = [...this.providerRegistrations.values()];
    return registrations.length === 0 || registrations.some((r) => r.online);
  }

  /**
   * Takes the registered providers whose service key `matches` out of the registry without stopping them (Dubbo's
   * QoS `offline`): consumers stop routing to them once the registry tells them, calls in flight complete, and
   * direct or in-process callers still reach them. Resolves with how many were taken offline.
   * @example
   * ```ts
   * await app.offline((key) => key === 'org.acme.Greeter'); // 1
   * ```
   */
  async offline(matches: (serviceKey: string) => boolean = () => true): Promise<number> {
    this.assertRunning();
    let count = 0;
    for (const [exporter, registration] of this.providerRegistrations) {
      const key = this.exportedUrls.get(exporter)?.getServiceKey();
      if (!registration.online || key === undefined || !matches(key)) continue;
      await this.registry?.unregister(registration.url);
      registration.online = false;
      const at = this.registrations.indexOf(registration.url);
      if (at >= 0) this.registrations.splice(at, 1);
      count++;
    }
    return count;
  }

  /** Registers again the providers {@link offline} took out (Dubbo's QoS `online`). Resolves with how many. */
  async online(matches: (serviceKey: string) => boolean = () => true): Promise<number> {
    this.assertRunning();
    let count = 0;
    for (const [exporter, registration] of this.providerRegistrations) {
      const key = this.exportedUrls.get(exporter)?.getServiceKey();
      if (registration.online || key === undefined || !matches(key)) continue;
      await this.registry?.register(registration.url);
      registration.online = true;
      this.registrations.push(registration.url);
      count++;
    }
    return count;
  }

  private assertRunning(): void {
    if (this.stopped !== undefined) {
      throw new ExtensionError(ExtensionErrorCode.DESTROYED, `Application "${this.name}" has been shut down.`);
    }
  }

}

/** The model service under which an application registers itself ({@link WeftApplication.of}). */
const APPLICATION_SERVICE = 'weft.WeftApplication';

/** The time extensions get to finish their destroy() after the calls drained, even when draining used the whole timeout. */
const SHUTDOWN_GRACE_MS = 250;

/** The address variables of an environment (`DUBBO_…`, `WEFT_…`, `<PROTOCOL>_DUBBO_…`), copied once. */
function addressEnvironment(env: AddressEnvironment): AddressEnvironment {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && /(?:^|_)(?:DUBBO|WEFT)_(?:IP|PORT)_TO_(?:BIND|REGISTRY)$/.test(key)) out[key] = value;
  }
  return Object.freeze(out);
}

/** A `bind.port` parameter as a number. @throws `ERR_SPI_INVALID_PARAMETER` for one that is not a port. */
function portParameter(value: string | undefined, where: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 65535) {
    throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `${where}: bind.port=${value} is not a port (1-65535).`);
  }
  return n;
}

/** The machine's network interfaces (none when the platform cannot list them). */
function machineInterfaces(): ReturnType<typeof networkInterfaces> {
  try {
    return networkInterfaces();
  } catch {
    return {};
  }
}
