import { Logger } from '../common/logger.js';
import { ApplicationModel } from './application-model.js';
import { type ManifestIndex } from './discovery.js';
import { ScopeModel } from './scope-model.js';
/** Options of {@link FrameworkModel.create}. */
export interface FrameworkOptions {
    /**
     * Directory of the application's package.json: discovery starts there. Required — the working directory is
     * not a reliable guess (test runners and task runners change it).
     */
    readonly root: string;
    /** Logger for the framework and its applications. @defaultValue a {@link ConsoleLogger} */
    readonly logger?: Logger;
}
/**
 * The top scope: what discovery found, framework-scoped extension points, and applications.
 *
 * @remarks
 * Creating one discovers installed packages and reads their manifests synchronously — no extension code is
 * imported until an extension point is loaded. Framework-scoped extension points (`@SPI({ scope:
 * 'framework' })`) have one loader here, shared by every application.
 *
 * @example
 * ```ts
 * const framework = FrameworkModel.create({ root: new URL('..', import.meta.url).pathname });
 * const app = framework.newApplication('orders');
 * ```
 */
export declare class FrameworkModel extends ScopeModel {
    /** What discovery found. */
    readonly index: ManifestIndex;
    readonly kind: "framework";
    private readonly applications;
    private constructor();
    /** Discovers manifests from `options.root` and returns a new framework scope. */
    static create(options: FrameworkOptions): FrameworkModel;
    get description(): string;
    /** Creates an application scope under this framework. */
    newApplication(name?: string): ApplicationModel;
    /** The live applications of this framework. */
    getApplications(): readonly ApplicationModel[];
    protected destroyChildren(): Promise<void>;
}
//# sourceMappingURL=framework-model.d.ts.map