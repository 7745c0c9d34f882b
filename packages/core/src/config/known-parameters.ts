/**
 * A URL key a first-party Weft package reads: the catalogue behind "`tps` is read by `@weft/filter-tpslimit`,
 * which is not installed".
 */
export interface KnownParameter {
  /** The URL key (`tps.interval`). */
  readonly key: string;
  /** The packages that read it (the first is named in hints). */
  readonly packages: readonly string[];
  /** Whether it may also be set per method as `<method>.<key>`. */
  readonly method: boolean;
}

const CORE = '@weft/core';
const CLUSTER = '@weft/cluster';
const TRIPLE = '@weft/protocol-triple';
const DUBBO = '@weft/protocol-dubbo';
const ZOOKEEPER = '@weft/registry-zookeeper';
const EMBEDDED = '@weft/registry-embedded';

/** `[key, packages, method-level]` rows, in the order of `docs/reference/parameters.md`. */
const ROWS: readonly (readonly [string, string | readonly string[], boolean?])[] = [
  // Service identity — set and read by Weft itself.
  ['interface', CORE],
  ['group', [CORE, EMBEDDED, ZOOKEEPER]],
  ['version', CORE],
  ['application', CORE],
  ['methods', CORE],
  ['side', CORE],
  ['timestamp', [CORE, CLUSTER]],
  ['category', CORE],
  ['anyhost', CORE],
  ['deprecated', CORE],
  ['dubbo', [CORE, DUBBO]],
  ['generic', CORE],
  ['pid', CORE],
  ['release', CORE],
  ['weft.returns', CORE],
  ['bind.ip', [CORE, TRIPLE, DUBBO]],
  ['bind.port', [CORE, TRIPLE, DUBBO]],
  // Calls (consumer)
  ['timeout', [CORE, CLUSTER, '@weft/filter-activelimit', '@weft/filter-timeout', TRIPLE, ZOOKEEPER, DUBBO], true],
  ['retries', CLUSTER, true],
  ['cluster', CORE],
  ['loadbalance', CLUSTER, true],
  ['sticky', CLUSTER, true],
  ['cluster.availablecheck', CLUSTER],
  ['reselect.count', CLUSTER],
  ['retries.max', CLUSTER],
  ['forks', CLUSTER],
  ['failbacktasks', CLUSTER],
  ['failback.interval', CLUSTER],
  ['broadcast.fail.percent', CLUSTER],
  ['weight', CLUSTER, true],
  ['warmup', CLUSTER],
  ['hash.nodes', CLUSTER, true],
  ['hash.arguments', CLUSTER, true],
  ['shortestResponseSlidePeriod', CLUSTER],
  ['mock', '@weft/mock', true],
  ['mock.log.interval', '@weft/mock'],
  ['reference.filter', CORE],
  ['copy', CORE],
  ['serialization', [CORE, TRIPLE, DUBBO]],
  ['protocol', CORE],
  ['check', [CORE, EMBEDDED, ZOOKEEPER]],
  ['actives', '@weft/filter-activelimit', true],
  ['circuitbreaker', '@weft/filter-circuitbreaker', true],
  ['circuitbreaker.threshold', '@weft/filter-circuitbreaker', true],
  ['circuitbreaker.slow-rt', '@weft/filter-circuitbreaker', true],
  ['circuitbreaker.window', '@weft/filter-circuitbreaker', true],
  ['circuitbreaker.buckets', '@weft/filter-circuitbreaker', true],
  ['circuitbreaker.min-requests', '@weft/filter-circuitbreaker', true],
  ['circuitbreaker.open-duration', '@weft/filter-circuitbreaker', true],
  ['circuitbreaker.probes', '@weft/filter-circuitbreaker', true],
  ['circuitbreaker.biz-errors', '@weft/filter-circuitbreaker', true],
  ['circuitbreaker.force', '@weft/filter-circuitbreaker', true],
  ['circuitbreaker.resource', '@weft/filter-circuitbreaker'],
  ['circuitbreaker.per-address', '@weft/filter-circuitbreaker'],
  ['metrics.level', '@weft/filter-metrics'],
  ['metrics.port', '@weft/filter-metrics'],
  ['enable-timeout-countdown', '@weft/filter-context'],
  ['context.async', '@weft/filter-context'],
  ['remote.application', [CORE, '@weft/filter-context']],
  ['_TO', '@weft/filter-context'],
  ['classifier', CORE],
  // Provider
  ['service.filter', CORE],
  ['token', [CORE, TRIPLE, '@weft/filter-token', DUBBO]],
  ['ssl-enabled', [CORE, TRIPLE, DUBBO]],
  ['ssl.server-key-cert-chain-path', [CORE, TRIPLE, DUBBO]],
  ['ssl.server-private-key-path', [CORE, TRIPLE, DUBBO]],
  ['ssl.server-key-password', [CORE, TRIPLE, DUBBO]],
  ['ssl.server-trust-cert-collection-path', [CORE, TRIPLE, DUBBO]],
  ['ssl.client-key-cert-chain-path', [CORE, TRIPLE, DUBBO]],
  ['ssl.client-private-key-path', [CORE, TRIPLE, DUBBO]],
  ['ssl.client-key-password', [CORE, TRIPLE, DUBBO]],
  ['ssl.client-trust-cert-collection-path', [CORE, TRIPLE, DUBBO]],
  ['ssl.server-name', [CORE, TRIPLE, DUBBO]],
  ['auth.key-id', '@weft/filter-auth'],
  ['auth.secret', '@weft/filter-auth'],
  ['auth.sign-arguments', '@weft/filter-auth'],
  ['auth.keys', '@weft/filter-auth'],
  ['auth.keys-file', '@weft/filter-auth'],
  ['auth.replay-window', '@weft/filter-auth'],
  ['auth.nonce-cache', '@weft/filter-auth'],
  ['auth.callers', '@weft/filter-auth', true],
  ['tps', '@weft/filter-tpslimit', true],
  ['tps.interval', '@weft/filter-tpslimit', true],
  ['tps.limiter', '@weft/filter-tpslimit'],
  ['tps.redis.address', '@weft/tps-limiter-redis'],
  ['tps.redis.prefix', '@weft/tps-limiter-redis'],
  ['tps.redis.window', '@weft/tps-limiter-redis'],
  ['tps.redis.on-error', '@weft/tps-limiter-redis'],
  ['tps.redis.timeout', '@weft/tps-limiter-redis'],
  ['executes', '@weft/filter-executelimit', true],
  ['accesslog', '@weft/filter-accesslog', true],
  ['accesslog.format', '@weft/filter-accesslog'],
  ['accesslog.buffer.size', '@weft/filter-accesslog'],
  ['accesslog.flush.interval', '@weft/filter-accesslog'],
  ['accesslog.max.pending', '@weft/filter-accesslog'],
  ['accesslog.overflow', '@weft/filter-accesslog'],
  ['accesslog.spool.max', '@weft/filter-accesslog'],
  ['accesslog.write.timeout', '@weft/filter-accesslog'],
  ['accesslog.exit-flush', '@weft/filter-accesslog'],
  // QoS
  ['qos.enable', '@weft/qos'],
  ['qos.port', '@weft/qos'],
  ['qos.host', '@weft/qos'],
  ['qos.check', '@weft/qos'],
  ['qos.accept.foreign.ip', '@weft/qos'],
  ['qos.accept.foreign.ip.whitelist', '@weft/qos'],
  ['qos.anonymous.access.permission.level', '@weft/qos'],
  ['qos.anonymous.access.allow.commands', '@weft/qos'],
  // Triple
  ['payload', [TRIPLE, DUBBO]],
  ['max-concurrent-streams', TRIPLE],
  ['max-header-list-size', TRIPLE],
  ['resolve-fallback-to-default', TRIPLE],
  ['shutdown-timeout', [TRIPLE, DUBBO]],
  ['sniff-timeout', TRIPLE],
  ['connections', TRIPLE],
  ['lazy', [TRIPLE, DUBBO]],
  ['connect-timeout', [TRIPLE, DUBBO]],
  ['reconnect-backoff', [TRIPLE, DUBBO]],
  ['reconnect-max-backoff', TRIPLE],
  ['heartbeat', [TRIPLE, DUBBO]],
  ['initial-window-size', TRIPLE],
  ['connection-window-size', TRIPLE],
  ['health', TRIPLE],
  ['reflection', TRIPLE],
  ['plain-http', TRIPLE],
  ['cors-allowed-origins', TRIPLE],
  ['cors-allow-credentials', TRIPLE],
  ['cors-max-age', TRIPLE],
  ['compression', TRIPLE],
  ['max-connection-buffer', TRIPLE],
  ['max-server-buffer', TRIPLE],
  ['idle-timeout', TRIPLE],
  ['header-timeout', TRIPLE],
  ['body-timeout', TRIPLE],
  // Dubbo
  ['return', DUBBO, true],
  // Registries and override rules
  ['dynamic', [CORE, EMBEDDED, ZOOKEEPER]],
  ['enabled', CORE],
  ['disabled', CORE],
  ['priority', CORE],
  ['configVersion', CORE],
  ['providerAddresses', CORE],
  ['file', [CORE, EMBEDDED, ZOOKEEPER]],
  ['file-cache', [CORE, EMBEDDED, ZOOKEEPER]],
  ['retry.period', [CORE, EMBEDDED, ZOOKEEPER]],
  ['enable-empty-protection', [CORE, EMBEDDED, ZOOKEEPER]],
  ['poll.interval', EMBEDDED],
  ['session', ZOOKEEPER],
  ['backup', ZOOKEEPER],
  ['config-center', [EMBEDDED, ZOOKEEPER]],
  ['config.namespace', ZOOKEEPER],
  ['config.group', [EMBEDDED, ZOOKEEPER]],
  ['rule.max-count', [CORE, EMBEDDED, ZOOKEEPER]],
  ['rule.max-bytes', [CORE, EMBEDDED, ZOOKEEPER]],
  ['rule.yaml.max-bytes', [EMBEDDED, ZOOKEEPER]],
  ['rule.yaml.max-depth', [EMBEDDED, ZOOKEEPER]],
  ['rule.yaml.max-aliases', [EMBEDDED, ZOOKEEPER]],
  // Routing (@weft/routers)
  ['router', CORE],
  ['dubbo.tag', ['@weft/routers', CORE]],
  ['dubbo.force.tag', '@weft/routers'],
  ['rule', '@weft/routers'],
  ['force', '@weft/routers'],
  ['runtime', '@weft/routers'],
  ['compatible_config', '@weft/routers'],
  ['rule.yaml', '@weft/routers'],
  ['rule.source', '@weft/routers'],
  ['rule.scope', '@weft/routers'],
];

/**
 * Every URL key a first-party package reads, and which package reads it.
 *
 * @remarks
 * The same list as `docs/reference/parameters.md`; a test keeps the two, and every first-party package's
 * manifest `"keys"`, in step. `@weft/core`'s keys are always known; the others become known when their package is
 * installed (its manifest declares them), and until then an unknown-key warning says which package reads the key.
 * Third-party extensions declare their keys in their manifests instead.
 *
 * @example
 * ```ts
 * KNOWN_PARAMETERS.get('tps'); // { key: 'tps', packages: ['@weft/filter-tpslimit'], method: true }
 * ```
 */
export const KNOWN_PARAMETERS: ReadonlyMap<string, KnownParameter> = new Map(
  ROWS.map(([key, packages, method]) => [
    key,
    Object.freeze({ key, packages: Object.freeze(typeof packages === 'string' ? [packages] : [...packages]), method: method === true }),
  ]),
);

/**
 * The prefix of an application's own URL keys: `x-audit-level` (and `sayHello.x-audit-level`) are never reported.
 *
 * @remarks A method name cannot contain `-`, so an `x-` key is never mistaken for `<method>.<key>`, and no Weft or
 * Dubbo key starts with it.
 */
export const CUSTOM_KEY_PREFIX = 'x-';
