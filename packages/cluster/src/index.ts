/**
 * `@weft/cluster`: Dubbo's cluster strategies and load balances for Weft.
 *
 * @remarks
 * Contributes `weft.rpc.Cluster` extensions (`failover`, `failfast`, `failsafe`, `failback`, `forking`,
 * `broadcast`, `available`) and `weft.rpc.LoadBalance` extensions (`random`, `roundrobin`, `leastactive`,
 * `consistenthash`, `shortestresponse`) through its manifests: installing the package is enough. The classes
 * are exported for extension authors who build their own strategies on {@link AbstractClusterInvoker} and
 * {@link AbstractLoadBalance}.
 * @packageDocumentation
 */
export { AbstractCluster, type ClusterInvokerParts } from './abstract-cluster.js';
export { AbstractClusterInvoker, type ProviderSettings } from './abstract-cluster-invoker.js';
export { LeastScoreLoadBalance } from './least-score-load-balance.js';
export { AbstractLoadBalance } from './abstract-load-balance.js';
export { ClusterDefaults, ClusterKeys } from './cluster-keys.js';
export { RetryPolicy } from './retry-policy.js';
export { FailoverCluster } from './failover-cluster.js';
export { FailoverClusterInvoker } from './failover-cluster-invoker.js';
export { FailfastCluster } from './failfast-cluster.js';
export { FailfastClusterInvoker } from './failfast-cluster-invoker.js';
export { FailsafeCluster } from './failsafe-cluster.js';
export { FailsafeClusterInvoker } from './failsafe-cluster-invoker.js';
export { FailbackCluster } from './failback-cluster.js';
export { FailbackClusterInvoker } from './failback-cluster-invoker.js';
export { ForkingCluster } from './forking-cluster.js';
export { ForkingClusterInvoker } from './forking-cluster-invoker.js';
export { BroadcastCluster } from './broadcast-cluster.js';
export { BroadcastClusterInvoker } from './broadcast-cluster-invoker.js';
export { AvailableCluster } from './available-cluster.js';
export { AvailableClusterInvoker } from './available-cluster-invoker.js';
export { RandomLoadBalance } from './random-load-balance.js';
export { RoundRobinLoadBalance } from './round-robin-load-balance.js';
export { LeastActiveLoadBalance } from './least-active-load-balance.js';
export { ConsistentHashLoadBalance } from './consistent-hash-load-balance.js';
export { ShortestResponseLoadBalance } from './shortest-response-load-balance.js';
