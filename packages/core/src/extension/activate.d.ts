import type { ActivateMetadata } from './decorators.js';
/** What activation needs to read from a URL. */
export interface ActivateUrl {
    getParameter(key: string): string | undefined;
    getAnyMethodParameter(key: string): string | undefined;
}
/** An extension taking part in activation. */
export interface ActivateCandidate {
    readonly name: string;
    /** Its activation metadata; `undefined` for an extension without `@Activate` (activated only by name). */
    readonly activate: ActivateMetadata | undefined;
}
/**
 * `ConfigUtils.isNotEmpty`: set, and not `""`, `false`, `0`, `null` or `N/A` (case-insensitive).
 * @internal
 */
export declare function isConfigNotEmpty(value: string | undefined): value is string;
/**
 * Selects and orders the names of the extensions to activate, with Dubbo 3.x semantics.
 *
 * @remarks
 * 1. Automatic activation (skipped when `-default` is listed): an extension with activation metadata is
 *    included when its groups contain `group` (any extension when no group is asked), it is neither listed
 *    nor removed (`-name`), and it has no `value` conditions or any of them holds: `key` set to a
 *    ConfigUtils-not-empty value (plain, else any method-level `method.key`), or `key:expected` equal.
 * 2. Explicit names: with `default` in the list, the result follows the list, `default` expanding to the
 *    automatic set (duplicates kept, as Dubbo); without it, listed names join the automatic set and are sorted
 *    with it. `-name` removes; unknown names are skipped (3.x). Group and value are not checked for them.
 *
 * Ordering is a total order, unlike Dubbo's comparator: ascending `order`, `before`/`after` as real
 * topological constraints (a cycle is an `ERR_SPI_CYCLE` error naming it), then extension name.
 * @throws `ERR_SPI_CYCLE` when the before/after constraints of the selected extensions form a cycle.
 * @internal
 */
export declare function selectActivated(pointId: string, candidates: readonly ActivateCandidate[], url: ActivateUrl, values: readonly string[] | undefined, group: string | undefined): string[];
/**
 * Orders extension names: ascending `order`, then `before`/`after` constraints, then name.
 *
 * @remarks Kahn's algorithm that always takes the smallest `(order, name)` among the names whose
 * predecessors are placed, so without constraints it is a plain sort, and with them the result is the
 * sorted order disturbed as little as the constraints require. Constraints naming absent extensions are
 * ignored. A cycle is reported as `ERR_SPI_CYCLE` naming its members in order and the constraints that form it
 * (names stuck only behind the cycle are not named).
 * @internal
 */
export declare function sortActivated(pointId: string, names: readonly string[], byName: ReadonlyMap<string, ActivateCandidate>): string[];
//# sourceMappingURL=activate.d.ts.map