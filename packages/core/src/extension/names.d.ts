/** Pattern every extension name must match: lowercase kebab-case (`tps`, `active-limit`, `injvm`). */
export declare const EXTENSION_NAME_PATTERN: RegExp;
/** Pattern every extension point id must match: dotted, at least two segments (`weft.rpc.Filter`). */
export declare const EXTENSION_POINT_ID_PATTERN: RegExp;
/** Names with a meaning of their own in lookups and `filter=` lists; never usable as extension names. */
export declare const RESERVED_NAMES: ReadonlySet<string>;
/**
 * Why `name` cannot be an extension name, or `undefined` when it can.
 * @internal
 */
export declare function extensionNameProblem(name: unknown): string | undefined;
/**
 * Throws `ERR_SPI_INVALID_NAME` unless `name` is a usable extension name.
 * @internal
 */
export declare function assertExtensionName(name: unknown, where: string): asserts name is string;
/**
 * Splits a comma list the way Dubbo does: optional blanks, one or more commas, optional blanks.
 *
 * @remarks Runs of commas collapse; a leading comma yields a leading `""` element (as Dubbo's regex split).
 * Trailing empty elements are dropped, as Java's `String.split` does.
 * @internal
 */
export declare function splitCommaList(value: string): string[];
/**
 * Dubbo's `camelToSplitName(name, '.')`: `LoadBalance` → `load.balance`, `Protocol` → `protocol`.
 * @internal
 */
export declare function camelToDotted(name: string): string;
/**
 * Edit distance, for "did you mean" hints in error messages.
 * @internal
 */
export declare function closestName(wanted: string, names: Iterable<string>): string | undefined;
//# sourceMappingURL=names.d.ts.map