import { Logger } from '../common/logger.js';
import { RandomSource } from '../rpc/random-source.js';
import { RpcStatusRegistry } from '../rpc/rpc-status.js';
import { ScopeModel } from './scope-model.js';
/**
 * An application scope: its own extension loaders, singleton extensions and services.
 *
 * @remarks
 * Created with `framework.newApplication(name)`. Application-scoped extension points (the default) get one
 * loader per application, so two applications in one process never share extension instances, counters or
 * caches. Framework-scoped points are delegated to the framework. Each application registers the services
 * `ApplicationModel`, `Logger`, `RpcStatusRegistry` and `RandomSource` (replaceable with `registerService`).
 *
 * @example
 * ```ts
 * const app = framework.newApplication('orders');
 * await app.loadExtensions(Filter);
 * await app.destroy();
 * ```
 */
export class ApplicationModel extends ScopeModel {
    framework;
    name;
    onDestroyed;
    kind = 'application';
    /** @internal Use `framework.newApplication()`. */
    constructor(
    /** The framework this application belongs to. */
    framework, 
    /** The application name (the `application` URL parameter). */
    name, onDestroyed) {
        super(framework, framework.logger);
        this.framework = framework;
        this.name = name;
        this.onDestroyed = onDestroyed;
        this.registerSelf(ApplicationModel, Logger);
        this.registerService(RpcStatusRegistry, new RpcStatusRegistry());
        this.registerService(RandomSource, new RandomSource());
    }
    get index() {
        return this.framework.index;
    }
    get description() {
        return `application "${this.name}"`;
    }
    async destroy() {
        await super.destroy();
        this.onDestroyed(this);
    }
}
//# sourceMappingURL=application-model.js.map