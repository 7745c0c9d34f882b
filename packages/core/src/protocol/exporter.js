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
export class Exporter {
}
//# sourceMappingURL=exporter.js.map