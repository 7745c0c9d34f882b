import { ConsoleLogger, Logger } from '../common/logger.js';
import { ApplicationModel } from './application-model.js';
import { discoverManifests } from './discovery.js';
import { ScopeModel } from './scope-model.js';
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
export class FrameworkModel extends ScopeModel {
    index;
    kind = 'framework';
    applications = new Set();
    constructor(
    /** What discovery found. */
    index, logger) {
        super(undefined, logger);
        this.index = index;
        this.registerSelf(FrameworkModel, Logger);
    }
    /** Discovers manifests from `options.root` and returns a new framework scope. */
    static create(options) {
        return new FrameworkModel(discoverManifests(options.root), options.logger ?? new ConsoleLogger());
    }
    get description() {
        return `framework (root ${this.index.root})`;
    }
    /** Creates an application scope under this framework. */
    newApplication(name = 'application') {
        this.assertAlive();
        const app = new ApplicationModel(this, name, (a) => this.applications.delete(a));
        this.applications.add(app);
        return app;
    }
    /** The live applications of this framework. */
    getApplications() {
        return [...this.applications];
    }
    async destroyChildren() {
        for (const app of [...this.applications].reverse())
            await app.destroy();
    }
}
//# sourceMappingURL=framework-model.js.map