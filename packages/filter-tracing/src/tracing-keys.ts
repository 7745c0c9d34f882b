/**
 * Names the `tracing` filter uses.
 *
 * @example
 * ```ts
 * trace.getTracer(TracingDefaults.TRACER_NAME);
 * ```
 */
export const TracingDefaults = {
  /** The instrumentation scope of Weft's spans. */
  TRACER_NAME: '@weft/filter-tracing',
  /** `rpc.system` of Weft services (the Dubbo conventions); IDL methods on `tri` use `grpc`. */
  RPC_SYSTEM: 'apache_dubbo',
} as const;
