/**
 * A first-party extension point: its id and the `@weft/*` package that defines its abstract class.
 *
 * @remarks Part of the first-party catalogue ({@link KNOWN_EXTENSION_POINTS}, {@link KNOWN_EXTENSIONS}): hints
 * such as "install `@weft/filter-tpslimit`" only ever name packages listed there, so a misspelt name is never
 * turned into a package name. A test keeps the catalogue equal to the manifests and `@SPI` ids of the
 * repository's packages.
 * @example
 * ```ts
 * const point: KnownExtensionPoint = { id: 'weft.rpc.Filter', definedBy: '@weft/core' };
 * ```
 */
export interface KnownExtensionPoint {
  readonly id: string;
  /** The package that defines the point's abstract class. */
  readonly definedBy: string;
}

/**
 * One first-party extension: point id, extension name, the package whose manifest contributes it.
 * @example
 * ```ts
 * const tps: KnownExtension = { point: 'weft.rpc.Filter', name: 'tps', package: '@weft/filter-tpslimit' };
 * ```
 */
export interface KnownExtension {
  readonly point: string;
  readonly name: string;
  readonly package: string;
}

/**
 * Every `weft.*` extension point of the first-party packages; discovery reports a `weft.*` manifest id that is
 * neither here nor shipped by an installed `@weft/*` package.
 * @example
 * ```ts
 * KNOWN_EXTENSION_POINTS.map((p) => p.id); // ['weft.config.ConfigValidator', …]
 * ```
 */
export const KNOWN_EXTENSION_POINTS: readonly KnownExtensionPoint[] = Object.freeze([
  { id: 'weft.config.ConfigValidator', definedBy: '@weft/core' },
  { id: 'weft.filter.TpsLimiter', definedBy: '@weft/filter-tpslimit' },
  { id: 'weft.registry.RegistryFactory', definedBy: '@weft/core' },
  { id: 'weft.rpc.Cluster', definedBy: '@weft/core' },
  { id: 'weft.rpc.Filter', definedBy: '@weft/core' },
  { id: 'weft.rpc.LoadBalance', definedBy: '@weft/core' },
  { id: 'weft.rpc.Protocol', definedBy: '@weft/core' },
  { id: 'weft.rpc.Router', definedBy: '@weft/core' },
  { id: 'weft.rpc.Serialization', definedBy: '@weft/core' },
]);

const entries = (pkg: string, point: string, names: readonly string[]): KnownExtension[] =>
  names.map((name) => ({ point, name, package: pkg }));

/**
 * Every named extension (not wrappers or adaptive classes) the first-party packages contribute through their manifests.
 * @example
 * ```ts
 * KNOWN_EXTENSIONS.find((e) => e.point === 'weft.rpc.Filter' && e.name === 'tps')?.package; // '@weft/filter-tpslimit'
 * ```
 */
export const KNOWN_EXTENSIONS: readonly KnownExtension[] = Object.freeze([
  ...entries('@weft/cluster', 'weft.rpc.Cluster', ['failover', 'failfast', 'failsafe', 'failback', 'forking', 'broadcast', 'available']),
  ...entries('@weft/cluster', 'weft.rpc.LoadBalance', ['random', 'roundrobin', 'leastactive', 'consistenthash', 'shortestresponse']),
  ...entries('@weft/core', 'weft.rpc.Protocol', ['injvm']),
  ...entries('@weft/core', 'weft.rpc.Serialization', ['json']),
  ...entries('@weft/filter-accesslog', 'weft.config.ConfigValidator', ['accesslog']),
  ...entries('@weft/filter-accesslog', 'weft.rpc.Filter', ['accesslog']),
  ...entries('@weft/filter-activelimit', 'weft.rpc.Filter', ['active-limit']),
  ...entries('@weft/filter-auth', 'weft.config.ConfigValidator', ['auth']),
  ...entries('@weft/filter-auth', 'weft.rpc.Filter', ['auth']),
  ...entries('@weft/filter-circuitbreaker', 'weft.config.ConfigValidator', ['circuitbreaker']),
  ...entries('@weft/filter-circuitbreaker', 'weft.rpc.Filter', ['circuitbreaker']),
  ...entries('@weft/filter-context', 'weft.config.ConfigValidator', ['timeout-countdown']),
  ...entries('@weft/filter-context', 'weft.rpc.Filter', ['context', 'consumercontext']),
  ...entries('@weft/filter-echo', 'weft.rpc.Filter', ['echo']),
  ...entries('@weft/filter-exception', 'weft.rpc.Filter', ['exception']),
  ...entries('@weft/filter-executelimit', 'weft.rpc.Filter', ['executelimit']),
  ...entries('@weft/filter-metrics', 'weft.rpc.Filter', ['metrics']),
  ...entries('@weft/filter-timeout', 'weft.rpc.Filter', ['timeout']),
  ...entries('@weft/filter-token', 'weft.rpc.Filter', ['token']),
  ...entries('@weft/filter-tpslimit', 'weft.config.ConfigValidator', ['tps']),
  ...entries('@weft/filter-tpslimit', 'weft.filter.TpsLimiter', ['memory']),
  ...entries('@weft/filter-tpslimit', 'weft.rpc.Filter', ['tps']),
  ...entries('@weft/filter-tracing', 'weft.rpc.Filter', ['tracing']),
  ...entries('@weft/mock', 'weft.config.ConfigValidator', ['mock']),
  ...entries('@weft/mock', 'weft.rpc.Protocol', ['mock']),
  ...entries('@weft/protocol-triple', 'weft.rpc.Protocol', ['tri']),
  ...entries('@weft/protocol-dubbo', 'weft.rpc.Protocol', ['dubbo']),
  ...entries('@weft/routers', 'weft.rpc.Filter', ['tag']),
  ...entries('@weft/routers', 'weft.rpc.Router', ['condition', 'tag']),
  ...entries('@weft/registry-embedded', 'weft.registry.RegistryFactory', ['embedded']),
  ...entries('@weft/registry-zookeeper', 'weft.registry.RegistryFactory', ['zookeeper']),
  ...entries('@weft/serialization-hessian2', 'weft.rpc.Serialization', ['hessian2']),
  ...entries('@weft/serialization-protobuf', 'weft.rpc.Serialization', ['protobuf']),
  ...entries('@weft/tps-limiter-redis', 'weft.config.ConfigValidator', ['tps-redis']),
  ...entries('@weft/tps-limiter-redis', 'weft.filter.TpsLimiter', ['redis']),
]);

/**
 * The first-party package contributing extension `name` of `pointId`, or `undefined` (then say nothing about
 * installing: the name is unknown, perhaps misspelt).
 * @internal
 */
export function knownPackageFor(pointId: string, name: string): string | undefined {
  return KNOWN_EXTENSIONS.find((e) => e.point === pointId && e.name === name)?.package;
}

/**
 * The install hint for an extension missing from a scope: `"tps" comes with @weft/filter-tpslimit: install it (npm install @weft/filter-tpslimit) …` when
 * the catalogue knows a first-party package (other than core) contributing it, else `""`.
 * @internal
 */
export function installHint(pointId: string, name: string): string {
  const pkg = knownPackageFor(pointId, name);
  return pkg === undefined || pkg === '@weft/core' ? '' : `"${name}" comes with ${pkg}: install it (npm install ${pkg}) as a dependency of the application.`;
}
