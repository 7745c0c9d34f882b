import { type ManifestEntry } from './manifest.js';
/** An installed package found by discovery. */
export interface DiscoveredPackage {
    readonly name: string;
    readonly version: string;
    /** Real (symlink-resolved) directory of the package. */
    readonly dir: string;
    /** Manifest files the package ships, by extension point id. */
    readonly manifests: ReadonlyMap<string, string>;
    /** The `@weft/core` version range the package declares (peer, dependency or dev), if any. */
    readonly coreRange: string | undefined;
}
/** A manifest entry together with where it came from. */
export interface ManifestRecord {
    readonly pointId: string;
    readonly entry: ManifestEntry;
    readonly pkg: DiscoveredPackage;
    /** Absolute path of the manifest file. */
    readonly manifestPath: string;
}
/** A problem found while discovering: a missing dependency, an unreadable or invalid manifest. */
export interface DiscoveryProblem {
    /** Extension point id, when the problem belongs to one manifest. */
    readonly pointId: string | undefined;
    readonly file: string;
    readonly message: string;
}
/**
 * Everything discovery found under an application root: packages, manifest entries per extension point,
 * and problems.
 *
 * @remarks
 * Built synchronously and cheaply: package.json files and manifests are read, no extension code is imported.
 * Owned by a {@link FrameworkModel}; never cached at module level.
 */
export interface ManifestIndex {
    readonly root: string;
    readonly packages: readonly DiscoveredPackage[];
    /** Manifest records by extension point id, in discovery order (root first, breadth-first). */
    readonly records: ReadonlyMap<string, readonly ManifestRecord[]>;
    readonly problems: readonly DiscoveryProblem[];
}
/**
 * Discovers installed packages and their manifests from an explicit application root.
 *
 * @remarks
 * Starts at `root/package.json` and follows `dependencies`, `optionalDependencies` and installed
 * `peerDependencies` transitively, resolving each one the way Node does (each `node_modules` from the
 * depending package's real directory upwards) and de-duplicating by real path, so workspace symlinks and
 * hoisting never produce a package twice. `@weft/core` itself is always included. Missing non-optional
 * dependencies and invalid manifests are recorded as problems, never thrown.
 *
 * @example
 * ```ts
 * const index = discoverManifests('/path/to/app');
 * console.log(index.records.get('weft.rpc.Filter')?.map((r) => r.entry.name));
 * ```
 * @throws `ERR_SPI_LOAD_FAILED` when `root` has no readable package.json.
 */
export declare function discoverManifests(root: string): ManifestIndex;
//# sourceMappingURL=discovery.d.ts.map