import { ConsoleLogger, Logger } from '../common/logger.js';
import { ApplicationModel } from './application-model.js';
import { discoverManifests, type ManifestIndex } from './discovery.js';
import type { ServiceToken } from './injector.js';
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
export class FrameworkModel extends ScopeModel {
  readonly kind = 'framework' as const;
  private readonly applications = new Set<ApplicationModel>();

  private constructor(
    /** What discovery found. */
    readonly index: ManifestIndex,
    logger: Logger,
  ) {
    super(undefined, logger);
    this.registerSelf(FrameworkModel as unknown as ServiceToken<FrameworkModel>, Logger);
  }

  /** Discovers manifests from `options.root` and returns a new framework scope. */
  static create(options: FrameworkOptions): FrameworkModel {
    return new FrameworkModel(discoverManifests(options.root), options.logger ?? new ConsoleLogger());
  }

  get description(): string {
    return `framework (root ${this.index.root})`;
  }

  /** Creates an application scope under this framework. */
  newApplication(name = 'application'): ApplicationModel {
    this.assertAlive();
    const app = new ApplicationModel(this, name, (a) => this.applications.delete(a));
    this.applications.add(app);
    return app;
  }

  /** The live applications of this framework. */
  getApplications(): readonly ApplicationModel[] {
    return [...this.applications];
  }

  protected override async destroyChildren(): Promise<void> {
    for (const app of [...this.applications].reverse()) await app.destroy();
  }
}
