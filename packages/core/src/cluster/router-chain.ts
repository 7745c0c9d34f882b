import { safeLog, type Logger } from '../common/logger.js';
import type { Invocation } from '../rpc/invocation.js';
import type { Invoker } from '../rpc/invoker.js';
import type { URL } from '../rpc/url.js';
import type { Router } from './router.js';

/** Cached routing results per chain (method × router keys); the cache is emptied when full. */
const MAX_CACHED_RESULTS = 1024;

/** A router of a chain, with the extension name it was created by. */
export interface NamedRouter {
  readonly name: string;
  readonly router: Router;
}

/** What one router did to a sample call, as {@link RouterChain.explain} reports it. */
export interface RouterStep {
  readonly name: string;
  /** The router's rules in force (one line each). */
  readonly rules: readonly string[];
  /** Whether the router had anything to do (idle routers pass everything). */
  readonly active: boolean;
  readonly input: readonly Invoker[];
  readonly output: readonly Invoker[];
}

/** The method name routing sees: the real method of a generic `$invoke` call. */
function methodNameOf(invocation: Invocation): string {
  const name = invocation.methodName;
  if ((name === '$invoke' || name === '$invokeAsync') && typeof invocation.args?.[0] === 'string') return invocation.args[0];
  return name;
}

/**
 * The routers of one reference, run on every call between the directory and the load balance.
 *
 * @remarks
 * Rebuilt only when providers or rules change ({@link RouterChain.setInvokers}, {@link RouterChain.setRules}):
 * each router precomputes then, and the chain forgets its cached results. Per call, {@link RouterChain.route}
 * asks each active router for its cache key (`''`: the method name decides) and answers from the cache; only
 * routers that read arguments (or decline caching) run on every call. Each router gets the previous one's
 * output; an empty result ends the chain (Dubbo's fail-fast). A router that throws is logged (once until the
 * next rebuild) and passes its input unchanged. With no active router the directory's list is returned as is.
 *
 * @example
 * ```ts
 * const chain = new RouterChain([{ name: 'condition', router }], logger);
 * chain.setInvokers(invokers, directoryUrl);
 * const candidates = chain.route(invocation);
 * ```
 */
export class RouterChain {
  private invokers: readonly Invoker[] = [];
  private url: URL | undefined;
  private active: readonly NamedRouter[] = [];
  private readonly cache = new Map<string, readonly Invoker[]>();
  private readonly failed = new Set<Router>();

  constructor(
    readonly routers: readonly NamedRouter[],
    private readonly logger: Logger,
  ) {}

  /** The providers changed (or the effective consumer URL did): every router precomputes again. */
  setInvokers(invokers: readonly Invoker[], url: URL): void {
    this.invokers = invokers;
    this.url = url;
    this.rebuild();
  }

  /** The rules changed: every router takes the ones it understands, then precomputes again. */
  setRules(rules: readonly URL[]): void {
    for (const { name, router } of this.routers) {
      try {
        router.setRules(rules);
      } catch (error) {
        safeLog(this.logger, 'error', `router "${name}" failed to take the new rules; its previous rules stay`, error);
      }
    }
    this.rebuild();
  }

  private rebuild(): void {
    this.cache.clear();
    this.failed.clear();
    const url = this.url;
    if (url === undefined) return;
    for (const { name, router } of this.routers) {
      try {
        router.notify(this.invokers, url);
      } catch (error) {
        safeLog(this.logger, 'error', `router "${name}" failed to prepare for ${this.invokers.length} provider(s)`, error);
      }
    }
    this.active = this.routers.filter(({ router }) => router.isActive());
  }

  /** Whether some router has something to do. */
  hasActiveRouters(): boolean {
    return this.active.length > 0;
  }

  /** The providers this call may reach. */
  route(invocation: Invocation): readonly Invoker[] {
    const active = this.active;
    const invokers = this.invokers;
    if (active.length === 0 || invokers.length === 0) return invokers;
    let key: string | undefined = methodNameOf(invocation);
    for (let i = 0; i < active.length; i++) {
      const part = active[i]!.router.cacheKey(invocation);
      if (part === undefined) {
        key = undefined;
        break;
      }
      if (part !== '') key += `\u0000${i}:${part}`;
    }
    if (key !== undefined) {
      const hit = this.cache.get(key);
      if (hit !== undefined) return hit;
    }
    const result = this.run(active, invokers, invocation, undefined);
    if (key !== undefined) {
      if (this.cache.size >= MAX_CACHED_RESULTS) this.cache.clear();
      this.cache.set(key, result);
    }
    return result;
  }

  /** Routes a sample call through every router (idle ones too) and reports each step, for tools. */
  explain(invocation: Invocation): readonly RouterStep[] {
    const steps: RouterStep[] = [];
    this.run(this.routers, this.invokers, invocation, steps);
    return steps;
  }

  private run(routers: readonly NamedRouter[], invokers: readonly Invoker[], invocation: Invocation, steps: RouterStep[] | undefined): readonly Invoker[] {
    const url = this.url;
    if (url === undefined) return invokers;
    let current = invokers;
    for (const { name, router } of routers) {
      const input = current;
      const active = router.isActive();
      if (current.length > 0 && (active || steps !== undefined)) {
        try {
          current = router.route(current, url, invocation);
        } catch (error) {
          if (!this.failed.has(router)) {
            this.failed.add(router);
            safeLog(this.logger, 'error', `router "${name}" failed on ${invocation.methodName}(); its input passes unchanged`, error);
          }
        }
      }
      steps?.push({ name, rules: router.describe(), active, input, output: current });
    }
    return current;
  }

  /** Destroys every router. */
  destroy(): void {
    for (const { router } of this.routers) {
      try {
        router.destroy();
      } catch {
        // a router's cleanup never fails the reference's destruction
      }
    }
    this.cache.clear();
  }
}
