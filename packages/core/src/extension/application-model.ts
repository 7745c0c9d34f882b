import { ApplicationEvents } from '../common/application-events.js';
import { Logger } from '../common/logger.js';
import { RandomSource } from '../rpc/random-source.js';
import { RpcStatusRegistry } from '../rpc/rpc-status.js';
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
 * `ApplicationModel`, `Logger`, `RpcStatusRegistry`, `RandomSource` and `ApplicationEvents` (replaceable with `registerService`).
 *
 * @example
 * ```ts
 * const app = framework.newApplication('orders');
 * await app.loadExtensions(Filter);
 * await app.destroy();
 * ```
 */
export class ApplicationModel extends ScopeModel {
  readonly kind = 'application' as const;
  /**
   * When the application's shutdown must be over (epoch ms): set by `WeftApplication.shutdown({ timeout })` before
   * the scope is destroyed, so extensions whose `destroy()` waits on something outside (a disk, a peer) stop by
   * then. `undefined`: no deadline was given (the scope was destroyed directly).
   */
  shutdownDeadline: number | undefined = undefined;
  /**
   * Whether `WeftApplication.shutdown()` has begun: chains released from then on are released because the
   * application is going, not because a provider or a rule changed (filters use it to stay quiet).
   */
  shuttingDown = false;

  /** @internal Use `framework.newApplication()`. */
  constructor(
    /** The framework this application belongs to. */
    readonly framework: FrameworkModel,
    /** The application name (the `application` URL parameter). */
    readonly name: string,
    private readonly onDestroyed: (app: ApplicationModel) => void,
  ) {
    super(framework, framework.logger);
    this.registerSelf(ApplicationModel, Logger);
    this.registerService(RpcStatusRegistry, new RpcStatusRegistry());
    this.registerService(RandomSource, new RandomSource());
    this.registerService(ApplicationEvents, new ApplicationEvents(this.logger));
  }

  get index(): ManifestIndex {
    return this.framework.index;
  }

  get description(): string {
    return `application "${this.name}"`;
  }

  override async destroy(): Promise<void> {
    await super.destroy();
    this.onDestroyed(this);
  }
}
