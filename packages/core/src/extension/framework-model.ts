import { ConsoleLogger, Logger, safeLog } from '../common/logger.js';
import { ApplicationModel } from './application-model.js';
import { discoverManifests, type ManifestIndex } from './discovery.js';
import type { ServiceToken } from './injector.js';
import { ExtensionError, ExtensionErrorCode } from './extension-error.js';
import { DEFAULT_IMPORT_TIMEOUT, ScopeModel } from './scope-model.js';

/** Options of {@link FrameworkModel.create}. */
export interface FrameworkOptions {
  /**
   * Directory of the application's package.json: discovery starts there. Required — the working directory is
   * not a reliable guess (test runners and task runners change it).
   */
  readonly root: string;
  /** Logger for the framework and its applications. @defaultValue a {@link ConsoleLogger} */
  readonly logger?: Logger;
  /**
   * How long `load()` waits for one extension module to import (a top-level await that never settles fails
   * the load with `ERR_SPI_LOAD_TIMEOUT` naming the module), in ms.
   * @defaultValue 10000 ({@link DEFAULT_IMPORT_TIMEOUT})
   */
  readonly importTimeout?: number;
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
    private readonly timeout: number,
  ) {
    super(undefined, logger);
    this.registerSelf(FrameworkModel as unknown as ServiceToken<FrameworkModel>, Logger);
  }

  /**
   * Discovers manifests from `options.root` and returns a new framework scope.
   *
   * @remarks Discovery problems that belong to no extension point (a dangling symlink, an unreadable
   * package.json, an unknown `weft.*` manifest id, a plugin only in devDependencies, two copies of
   * `@weft/core`) are logged as warnings here, once; `WEFT_LOG=debug` also logs the packages and manifests found.
   * @throws `ERR_SPI_INVALID_PARAMETER` when `importTimeout` is not a positive number.
   */
  static create(options: FrameworkOptions): FrameworkModel {
    const timeout = options.importTimeout ?? DEFAULT_IMPORT_TIMEOUT;
    if (!Number.isFinite(timeout) || timeout <= 0) {
      throw new ExtensionError(ExtensionErrorCode.INVALID_PARAMETER, `FrameworkModel.create(): importTimeout must be a positive number of ms (got ${String(options.importTimeout)}).`);
    }
    const logger = options.logger ?? new ConsoleLogger();
    const index = discoverManifests(options.root);
    logDiscovery(index, logger);
    return new FrameworkModel(index, logger, timeout);
  }

  override get importTimeout(): number {
    return this.timeout;
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

/** Debug: what discovery found. Warning: every problem that no extension point's load() will report. */
function logDiscovery(index: ManifestIndex, logger: Logger): void {
  safeLog(logger, 'debug', `discovery from ${index.root}: ${index.packages.length} packages: ${index.packages.map((p) => `${p.name}@${p.version}`).join(', ')}`);
  for (const pkg of index.packages) {
    for (const [pointId, file] of pkg.manifests) {
      const entries = (index.records.get(pointId) ?? []).filter((r) => r.manifestPath === file).map((r) => r.entry.name);
      safeLog(logger, 'debug', `discovery: ${pkg.name}@${pkg.version} manifest ${pointId} (${file}): ${entries.join(', ') || 'no entries'}`);
    }
  }
  for (const problem of index.problems) {
    if (problem.pointId === undefined) safeLog(logger, 'warn', `discovery: ${problem.error.message} [${problem.error.code}]`);
  }
}
