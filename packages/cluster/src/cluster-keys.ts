/**
 * The URL keys read by `@weft/cluster`, with their defaults.
 *
 * @remarks
 * Method-level keys (`<method>.<key>`) are marked so in the README table; the others are read at service level
 * from the cluster invoker's URL (the directory's consumer URL, configurators applied). Defaults follow Dubbo
 * except `failback.interval`, which Dubbo hard-codes to 5 s.
 *
 * @example
 * ```ts
 * const retries = url.getMethodParameter('sayHello', ClusterKeys.RETRIES, ClusterDefaults.FAILOVER_RETRIES);
 * ```
 */
export const ClusterKeys = {
  /** Cluster strategy name, read by the adaptive `Cluster`. */
  CLUSTER: 'cluster',
  /** Load balance name (method level, read from the first provider's URL). */
  LOADBALANCE: 'loadbalance',
  /** Retries after the first attempt (failover: method level; failback: service level). */
  RETRIES: 'retries',
  /** Ceiling of `retries` (consumer, service level): larger values are clamped to it, with a warning. */
  RETRIES_MAX: 'retries.max',
  /** Reuse the last chosen provider while it stays listed and available (method level). */
  STICKY: 'sticky',
  /** Skip unavailable providers when selecting. */
  AVAILABLE_CHECK: 'cluster.availablecheck',
  /** How many random candidates reselection considers when there are many providers. */
  RESELECT_COUNT: 'reselect.count',
  /** Failback: most pending background retries per cluster invoker. */
  FAILBACK_TASKS: 'failbacktasks',
  /** Failback: milliseconds between background retries. */
  FAILBACK_INTERVAL: 'failback.interval',
  /** Forking: how many providers to call in parallel. */
  FORKS: 'forks',
  /** Forking: milliseconds to wait for the first success. */
  TIMEOUT: 'timeout',
  /** Broadcast: percentage of failed providers after which the broadcast stops. */
  BROADCAST_FAIL_PERCENT: 'broadcast.fail.percent',
  /** Provider weight (method level). */
  WEIGHT: 'weight',
  /** Provider start time in epoch ms, for warmup. */
  TIMESTAMP: 'timestamp',
  /** Warmup duration in ms. */
  WARMUP: 'warmup',
  /** Consistent hash: virtual nodes per provider (method level). */
  HASH_NODES: 'hash.nodes',
  /** Consistent hash: comma-separated argument indexes forming the key (method level). */
  HASH_ARGUMENTS: 'hash.arguments',
  /**
   * Consumer concurrency limit of the `active-limit` filter (method level). Read, not enforced, here: when it is
   * set, that filter counts calls, so cluster invokers do not count them a second time.
   */
  ACTIVES: 'actives',
  /** Shortest response: sliding window of the response-time average, in ms. */
  SHORTEST_RESPONSE_SLIDE_PERIOD: 'shortestResponseSlidePeriod',
} as const;

/**
 * The defaults of {@link ClusterKeys}.
 *
 * @remarks Dubbo's values, plus `FAILBACK_INTERVAL` (Dubbo's fixed 5 s, made configurable).
 * @example
 * ```ts
 * const forks = url.getParameter(ClusterKeys.FORKS, ClusterDefaults.FORKS);
 * ```
 */
export const ClusterDefaults = {
  /** Default strategy. */
  CLUSTER: 'failover',
  /** Default load balance. */
  LOADBALANCE: 'random',
  /** `failover` retries after the first attempt. */
  FAILOVER_RETRIES: 2,
  /**
   * Ceiling of `retries`: 10 retries (11 attempts) already try every provider of a typical service, and bound one
   * call's load on the fleet; beyond that, retrying only amplifies an outage.
   */
  RETRIES_MAX: 10,
  /** `failback` background retries. */
  FAILBACK_RETRIES: 3,
  /** Sticky selection is off. */
  STICKY: false,
  /** Unavailable providers are skipped. */
  AVAILABLE_CHECK: true,
  /** Random candidates considered by reselection. */
  RESELECT_COUNT: 10,
  /** Pending background retries per invoker. */
  FAILBACK_TASKS: 100,
  /** Milliseconds between background retries (Dubbo: fixed 5 s). */
  FAILBACK_INTERVAL: 5000,
  /** Parallel calls of `forking`. */
  FORKS: 2,
  /** Milliseconds `forking` waits for an answer. */
  TIMEOUT: 1000,
  /** `broadcast` calls every provider whatever fails. */
  BROADCAST_FAIL_PERCENT: 100,
  /** Provider weight. */
  WEIGHT: 100,
  /** Warmup duration in ms (10 minutes). */
  WARMUP: 600_000,
  /** Virtual nodes per provider on the hash ring. */
  HASH_NODES: 160,
  /** The first argument is the hash key. */
  HASH_ARGUMENTS: '0',
  /** Response-time window in ms. */
  SHORTEST_RESPONSE_SLIDE_PERIOD: 30_000,
} as const;
