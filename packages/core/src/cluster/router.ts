import type { Logger } from '../common/logger.js';
import { SPI } from '../extension/decorators.js';
import type { Invocation } from '../rpc/invocation.js';
import type { Invoker } from '../rpc/invoker.js';
import type { URL } from '../rpc/url.js';
import type { ServiceDefinition } from '../service/service-definition.js';

/**
 * What a {@link Router} knows about the reference it routes for.
 *
 * @remarks Handed to {@link RouterFactory.getRouter} once per reference (registry directory).
 * @example
 * ```ts
 * const router = factory.getRouter(context);
 * context.providerUrlOf(invoker)?.getParameter('region');
 * ```
 */
export interface RouterContext {
  /** The service routed. */
  readonly service: ServiceDefinition;
  /** The consumer URL as referred (before override rules). */
  readonly consumerUrl: URL;
  /** Where routers report refused rules. */
  readonly logger: Logger;
  /**
   * The provider URL as **registered** (no consumer parameters merged, no overrides) for one of the routed
   * invokers: what condition routes match then-parts against. `undefined` for an invoker the directory does not list.
   */
  providerUrlOf(invoker: Invoker): URL | undefined;
}

/**
 * One reference's router: removes the providers a call must not reach.
 *
 * @remarks
 * Created per reference by a {@link RouterFactory}; kept in the reference's {@link RouterChain}, which runs the
 * routers in activation order between the directory and the load balance:
 *
 * ```text
 *   directory providers ─▶ router 1 ─▶ router 2 ─▶ … ─▶ load balance ─▶ provider
 * ```
 *
 * Contract:
 * - {@link Router.setRules} receives the full current list of rules (`routers` category URLs, config-centre rules
 *   delivered as URLs) whenever they change; a router keeps those it understands. A rule it cannot use is
 *   refused with a log line naming the rule and its source, and the router keeps its previous rules.
 * - {@link Router.notify} receives the providers whenever they (or the rules) change: do the expensive work there.
 * - {@link Router.route} returns a subset of its input (never a provider it was not given), on every call; it
 *   must not throw (a throw is logged and the input passes unchanged).
 * - {@link Router.cacheKey} lets the chain cache results: `''` when the result depends on the method name only,
 *   a string naming whatever else it reads (e.g. the request tag), `undefined` when it cannot be cached.
 *
 * @example
 * ```ts
 * class EvenPortRouter extends Router {
 *   route(invokers: readonly Invoker[]) { return invokers.filter((i) => i.getUrl().port % 2 === 0); }
 * }
 * ```
 */
export abstract class Router {
  /** Rules changed: the full current list of rule URLs of the reference. */
  setRules(_rules: readonly URL[]): void {}
  /** Providers (or rules) changed: the invokers calls will be routed among, and the effective consumer URL. */
  notify(_invokers: readonly Invoker[], _url: URL): void {}
  /** Whether this router has something to do (a rule, a tagged provider); an idle router is skipped. */
  isActive(): boolean {
    return true;
  }
  /** What the result depends on besides the method name; `undefined`: not cacheable. @defaultValue `undefined` */
  cacheKey(_invocation: Invocation): string | undefined {
    return undefined;
  }
  /** The providers this call may reach, among `invokers`. */
  abstract route(invokers: readonly Invoker[], url: URL, invocation: Invocation): readonly Invoker[];
  /** One line per rule in force, for `weft explain` and logs. @defaultValue none */
  describe(): readonly string[] {
    return [];
  }
  /** Releases what the router holds (called when the reference is destroyed). */
  destroy(): void {}
}

/**
 * Creates the routers of a reference: the `weft.rpc.Router` extension point.
 *
 * @remarks
 * Extension point `weft.rpc.Router`, no default, application scope (one factory instance per application).
 * The chain of a reference is the factories **activated** for the consumer URL in group `consumer`, ordered by
 * `@Activate` order (Dubbo's state routers: `tag` 100, `condition` 140); the URL key `router` adds and removes
 * names as `reference.filter` does for filters (`router=-tag`). A third-party router is a class and a manifest
 * entry in `META-INF/weft/weft.rpc.Router.json`.
 *
 * @example
 * ```ts
 * export class EvenPortRouterFactory extends RouterFactory {
 *   getRouter(): Router { return new EvenPortRouter(); }
 * }
 * // META-INF/weft/weft.rpc.Router.json: { "even": { "module": "./dist/even.js", "export": "EvenPortRouterFactory", "activate": { "group": ["consumer"], "order": 300 } } }
 * ```
 */
@SPI({ id: 'weft.rpc.Router' })
export abstract class RouterFactory {
  /** One router for one reference. */
  abstract getRouter(context: RouterContext): Router;
}
