import type { Invocation } from '../rpc/invocation.js';
import type { Invoker } from '../rpc/invoker.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';
import { Directory } from './directory.js';
/**
 * A directory over a fixed list of invokers (direct connections, tests).
 *
 * @remarks `list()` returns the fixed list without `mock://` providers (clusters check availability when they
 * select); `destroy()` destroys the invokers.
 * @example
 * ```ts
 * const directory = new StaticDirectory(Greeter, consumerUrl, [a, b]);
 * ```
 */
export declare class StaticDirectory extends Directory {
    readonly service: ServiceDefinition;
    private readonly url;
    private readonly invokers;
    private destroyed;
    private readonly routable;
    private current;
    constructor(service: ServiceDefinition, url: URL, invokers: readonly Invoker[]);
    /** The consumer URL with the configured overrides. */
    getUrl(): URL;
    /** The consumer URL as referred. */
    getConsumerUrl(): URL;
    /**
     * Replaces the effective URL (the consumer URL with overrides applied); the next call reads it.
     * Callers validate first: `WeftApplication.override` does.
     */
    configure(url: URL): void;
    list(_invocation: Invocation): readonly Invoker[];
    getAllInvokers(): readonly Invoker[];
    isDestroyed(): boolean;
    destroy(): Promise<void>;
}
//# sourceMappingURL=static-directory.d.ts.map