import type { Logger } from '../common/logger.js';
import type { ApplicationModel } from '../extension/application-model.js';
import { FrameworkModel } from '../extension/framework-model.js';
import { URL, type ParameterValue } from '../rpc/url.js';
import type { MethodSpec, ServiceDefinition, ServiceImplementation } from '../service/service-definition.js';
import { type CallableProxy } from '../service/service-proxy.js';
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
}
/** URL parameters common to exports and references. */
interface CommonOptions {
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
    /** Host to bind. @defaultValue `'127.0.0.1'` */
    readonly host?: string;
    /** Port (0: the protocol's default). */
    readonly port?: number;
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
}
/** An exported service. */
export interface ExportedService {
    /** The provider URL. */
    readonly url: URL;
    /** Stops exporting it. */
    unexport(): Promise<void>;
}
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
export declare class WeftApplication {
    /** The application scope (extension loaders, services). */
    readonly model: ApplicationModel;
    private readonly ownsFramework;
    private readonly exporters;
    private readonly directories;
    private readonly references;
    private readonly gate;
    private stopped;
    private constructor();
    /** Creates the application and loads the core extension points. */
    static start(options: WeftApplicationOptions): Promise<WeftApplication>;
    /** The application name. */
    get name(): string;
    /**
     * Exports a service implementation.
     * @throws `ERR_SPI_INVALID_PARAMETER` naming the offending option or parameter.
     */
    export<M extends Record<string, MethodSpec>>(service: ServiceDefinition<M>, implementation: ServiceImplementation<M>, options?: ExportOptions): Promise<ExportedService>;
    /**
     * Refers a service: returns a typed proxy.
     * @throws `ERR_SPI_INVALID_PARAMETER` naming the offending option or parameter.
     */
    refer<M extends Record<string, MethodSpec>>(service: ServiceDefinition<M>, options?: ReferOptions): Promise<CallableProxy<M>>;
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
    override(proxy: object, parameters: Readonly<Record<string, ParameterValue | null>>): URL;
    /** The effective URL of a reference (consumer URL with overrides). */
    getReferenceUrl(proxy: object): URL | undefined;
    /**
     * Shuts down gracefully: new calls are refused, in-flight calls finish (up to `timeout` ms), then services are
     * un-exported, references destroyed and the application scope released. Idempotent.
     */
    shutdown(options?: {
        readonly timeout?: number;
    }): Promise<void>;
    private doShutdown;
    private assertRunning;
    private parameters;
    /** Checks typed keys and extension names at export/refer time, naming the offending key. */
    private validate;
    private requireExtension;
    private providerUrls;
}
export {};
//# sourceMappingURL=weft-application.d.ts.map