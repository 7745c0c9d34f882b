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
export class StaticDirectory extends Directory {
    service;
    url;
    invokers;
    destroyed = false;
    routable;
    current;
    constructor(service, url, invokers) {
        super();
        this.service = service;
        this.url = url;
        this.invokers = invokers;
        this.current = url;
        this.routable = invokers.filter((i) => i.getUrl().protocol !== 'mock');
    }
    /** The consumer URL with the configured overrides. */
    getUrl() {
        return this.current;
    }
    /** The consumer URL as referred. */
    getConsumerUrl() {
        return this.url;
    }
    /**
     * Replaces the effective URL (the consumer URL with overrides applied); the next call reads it.
     * Callers validate first: `WeftApplication.override` does.
     */
    configure(url) {
        this.current = url;
    }
    list(_invocation) {
        return this.routable;
    }
    getAllInvokers() {
        return this.invokers;
    }
    isDestroyed() {
        return this.destroyed;
    }
    async destroy() {
        if (this.destroyed)
            return;
        this.destroyed = true;
        await Promise.all(this.invokers.map((i) => i.destroy()));
    }
}
//# sourceMappingURL=static-directory.js.map