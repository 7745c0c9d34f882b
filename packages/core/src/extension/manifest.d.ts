import { type ActivateMetadata, type WrapperMetadata } from './decorators.js';
/** What kind of class a manifest entry contributes. */
export type ManifestEntryKind = 'extension' | 'wrapper' | 'adaptive';
/**
 * One validated entry of a `META-INF/weft/<point>.json` manifest.
 *
 * @remarks Everything tools need to list and explain an extension without importing its code.
 */
export interface ManifestEntry {
    /** The extension name (for wrappers and adaptive classes, a label that is not an extension name). */
    readonly name: string;
    readonly kind: ManifestEntryKind;
    /** Module path relative to the package root, e.g. `./dist/tps-limit-filter.js`. */
    readonly module: string;
    /** Export name in that module. @defaultValue `'default'` */
    readonly exportName: string;
    readonly description: string | undefined;
    /** Activation metadata (extensions only). */
    readonly activate: ActivateMetadata | undefined;
    /** Wrapper metadata (wrappers only). */
    readonly wrapper: WrapperMetadata | undefined;
}
/** Result of validating one manifest file: its entries, or every problem found (JSON-pointer located). */
export interface ManifestParseResult {
    readonly entries: readonly ManifestEntry[];
    readonly problems: readonly string[];
}
/**
 * Parses and validates the text of a manifest against the manifest schema.
 *
 * @remarks
 * The schema is `@weft/core/manifest.schema.json`, documented in `docs/reference/manifest.md`. Parsing never
 * copies keys onto ordinary objects, so a manifest containing `__proto__` cannot pollute prototypes (and is
 * rejected: it is not a valid extension name). Every problem is reported, not just the first.
 *
 * @example
 * ```ts
 * const { entries, problems } = parseManifest('{"tps":{"module":"./dist/tps.js","export":"TpsLimitFilter"}}');
 * ```
 */
export declare function parseManifest(text: string): ManifestParseResult;
/** Why a manifest module path is unsafe or malformed, or `undefined`. @internal */
export declare function modulePathProblem(path: string): string | undefined;
//# sourceMappingURL=manifest.d.ts.map