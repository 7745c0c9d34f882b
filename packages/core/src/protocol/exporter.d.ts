import type { Invoker } from '../rpc/invoker.js';
/**
 * A service exported by a protocol: the handle that un-exports it.
 *
 * @remarks `unexport()` stops accepting new calls for the service, waits for its in-flight calls to finish, and
 * releases what the export holds; it is idempotent.
 * @example
 * ```ts
 * const exporter = await protocol.export(invoker);
 * await exporter.unexport();
 * ```
 */
export declare abstract class Exporter {
    /** The (filter-chained) invoker calls are dispatched to. */
    abstract getInvoker(): Invoker;
    /** Stops exporting the service. */
    abstract unexport(): Promise<void>;
}
//# sourceMappingURL=exporter.d.ts.map