import type { ManifestIndex } from './discovery.js';
import type { FrameworkModel } from './framework-model.js';
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
export declare class ApplicationModel extends ScopeModel {
    /** The framework this application belongs to. */
    readonly framework: FrameworkModel;
    /** The application name (the `application` URL parameter). */
    readonly name: string;
    private readonly onDestroyed;
    readonly kind: "application";
    /** @internal Use `framework.newApplication()`. */
    constructor(
    /** The framework this application belongs to. */
    framework: FrameworkModel, 
    /** The application name (the `application` URL parameter). */
    name: string, onDestroyed: (app: ApplicationModel) => void);
    get index(): ManifestIndex;
    get description(): string;
    destroy(): Promise<void>;
}
//# sourceMappingURL=application-model.d.ts.map