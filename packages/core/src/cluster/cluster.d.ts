import type { Invoker } from '../rpc/invoker.js';
import type { Directory } from './directory.js';
/**
 * Turns a directory of providers into one invoker with a fault-tolerance strategy: the `weft.rpc.Cluster`
 * extension point.
 *
 * @remarks
 * Extension point `weft.rpc.Cluster`, default `failover`, application scope, `join` adaptive on the URL key
 * `cluster` of the directory's URL. Wrappers apply around every cluster: `MockClusterWrapper` (from
 * `@weft/mock`) wraps the joined invoker so that degradation works with any strategy. The joined invoker's
 * `getUrl()` is the directory's URL; it lists invokers per call, selects with the `loadbalance` extension named
 * by the URL (default `random`), and must never retry a business error.
 *
 * @example
 * ```ts
 * const invoker = app.getExtensionLoader(Cluster).getAdaptiveExtension().join(directory);
 * ```
 */
export declare abstract class Cluster {
    /** Joins a directory into one invoker. */
    abstract join(directory: Directory): Invoker;
}
//# sourceMappingURL=cluster.d.ts.map