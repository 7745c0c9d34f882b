import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, parse as parsePath, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { ExtensionError, ExtensionErrorCode } from './extension-error.js';
import { KNOWN_EXTENSION_POINTS } from './known-extensions.js';
import { parseManifest, type ManifestEntry } from './manifest.js';
import { closestName, EXTENSION_POINT_ID_PATTERN } from './names.js';

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

/**
 * A problem found while discovering: a missing dependency, a dangling symlink, an unreadable `package.json` or
 * manifest, an unknown `weft.*` manifest id, a plugin listed only in `devDependencies`, two copies of
 * `@weft/core`.
 *
 * @remarks Never thrown by discovery: the other packages are still discovered. Problems of one extension
 * point's manifests (`pointId` set) make `load()` of that point reject; the others (`pointId` undefined) are
 * logged as warnings when a framework is created, listed by `weft doctor`, and appended to "no extension"
 * errors.
 */
export interface DiscoveryProblem {
  /** Extension point id, when the problem belongs to one manifest of a real point. */
  readonly pointId: string | undefined;
  /** The file (or directory) at fault. */
  readonly file: string;
  readonly message: string;
  /** `warning`: everything that is installed works, but something is probably not what you meant. */
  readonly severity: 'error' | 'warning';
  /** The problem as an error naming the file (`ERR_SPI_DISCOVERY`, `ERR_SPI_INVALID_MANIFEST`, `ERR_SPI_DUPLICATE_CORE`). */
  readonly error: ExtensionError;
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

const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/i;

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
export function discoverManifests(root: string): ManifestIndex {
  const rootPackageJson = join(resolve(root), 'package.json');
  if (!existsSync(rootPackageJson)) {
    throw new ExtensionError(
      ExtensionErrorCode.LOAD_FAILED,
      `Cannot discover extensions: there is no package.json in ${resolve(root)}. ` +
        `Pass the directory of your application's package.json as "root".`,
    );
  }
  const rootDir = realpathSync.native(resolve(root));
  const lookups = new Map<string, string | undefined>();
  const packages: DiscoveredPackage[] = [];
  const problems: DiscoveryProblem[] = [];
  const seen = new Set<string>();
  const queue: string[] = [rootDir];
  /** Real directory → names of the packages whose dependency resolved to it. */
  const pulledBy = new Map<string, Set<string>>();
  const coreDir = ownPackageDir();
  if (coreDir !== undefined) queue.push(coreDir);
  seen.add(rootDir);
  if (coreDir !== undefined) seen.add(coreDir);

  for (let i = 0; i < queue.length; i++) {
    const dir = queue[i] as string;
    const pkgJsonPath = join(dir, 'package.json');
    const read = readJsonObject(pkgJsonPath);
    if (typeof read === 'string') {
      problems.push(problem(undefined, pkgJsonPath, `unreadable package.json (${read}); the package is skipped, the others are discovered`));
      continue;
    }
    const pkgJson = read;
    const name = typeof pkgJson['name'] === 'string' ? pkgJson['name'] : `(unnamed package at ${dir})`;
    const version = typeof pkgJson['version'] === 'string' ? pkgJson['version'] : '0.0.0';
    const manifests = readManifestDir(dir, problems);
    packages.push({ name, version, dir, manifests, coreRange: declaredCoreRange(pkgJson) });

    const deps = dependencyNames(pkgJson);
    for (const [depName, optional] of deps) {
      if (!PACKAGE_NAME.test(depName) || depName.split('/').includes('..')) {
        problems.push(problem(undefined, pkgJsonPath, `ignored dependency with an invalid name ${JSON.stringify(depName)}`));
        continue;
      }
      const found = resolvePackageDir(dir, depName, lookups);
      if (found === undefined || typeof found === 'object') {
        if (found !== undefined) problems.push(problem(undefined, found.link, found.message));
        else if (!optional) problems.push(problem(undefined, pkgJsonPath, `dependency "${depName}" of ${name} is not installed (run npm install)`));
        continue;
      }
      let pullers = pulledBy.get(found);
      if (pullers === undefined) pulledBy.set(found, (pullers = new Set()));
      pullers.add(name);
      if (!seen.has(found)) {
        seen.add(found);
        queue.push(found);
      }
    }
    if (i === 0) devOnlyPlugins(dir, name, pkgJson, deps, lookups, problems);
  }

  const cores = packages.filter((p) => p.name === '@weft/core');
  const ignoredCores = new Set<DiscoveredPackage>();
  if (cores.length > 1) {
    // The copy in use is the one the application itself resolves (what its imports get), else this code's own.
    const rootCore = resolvePackageDir(rootDir, '@weft/core', lookups);
    const inUse = typeof rootCore === 'string' ? rootCore : coreDir;
    const own = cores.find((p) => p.dir === inUse) ?? (cores[0] as DiscoveredPackage);
    for (const other of cores) if (other !== own) ignoredCores.add(other);
    problems.push(duplicateCoreProblem(own, [...ignoredCores], pulledBy));
  }
  const knownIds = new Set(KNOWN_EXTENSION_POINTS.map((p) => p.id));
  for (const pkg of packages) {
    if (pkg.name.startsWith('@weft/') && !ignoredCores.has(pkg)) for (const id of pkg.manifests.keys()) knownIds.add(id);
  }
  const records = new Map<string, ManifestRecord[]>();
  for (const pkg of packages) {
    // The manifests of a second copy of @weft/core would only repeat core's own names: one problem says it all.
    if (ignoredCores.has(pkg)) continue;
    for (const [pointId, manifestPath] of pkg.manifests) {
      if (!EXTENSION_POINT_ID_PATTERN.test(pointId)) {
        problems.push(problem(pointId, manifestPath, `file name is not an extension point id (expected e.g. weft.rpc.Filter.json)`, ExtensionErrorCode.INVALID_MANIFEST));
        continue;
      }
      if (pointId.startsWith('weft.') && !knownIds.has(pointId)) {
        problems.push(problem(undefined, manifestPath, unknownPointMessage(pointId, pkg, knownIds), ExtensionErrorCode.INVALID_MANIFEST));
        continue;
      }
      let text: string;
      try {
        text = readFileSync(manifestPath, 'utf8');
      } catch (error) {
        problems.push(problem(pointId, manifestPath, `unreadable manifest (${describeFsError(manifestPath, error)})`, ExtensionErrorCode.INVALID_MANIFEST));
        continue;
      }
      const parsed = parseManifest(text);
      for (const message of parsed.problems) problems.push(problem(pointId, manifestPath, message, ExtensionErrorCode.INVALID_MANIFEST));
      let list = records.get(pointId);
      if (list === undefined) records.set(pointId, (list = []));
      for (const entry of parsed.entries) list.push({ pointId, entry, pkg, manifestPath });
    }
  }
  return { root: rootDir, packages, records, problems };
}

function problem(
  pointId: string | undefined,
  file: string,
  message: string,
  code: ExtensionErrorCode = ExtensionErrorCode.DISCOVERY,
  severity: 'error' | 'warning' = 'error',
): DiscoveryProblem {
  return { pointId, file, message, severity, error: new ExtensionError(code, `${file}: ${message}`) };
}

function duplicateCoreProblem(own: DiscoveredPackage, others: readonly DiscoveredPackage[], pulledBy: ReadonlyMap<string, ReadonlySet<string>>): DiscoveryProblem {
  const by = (p: DiscoveredPackage) => [...(pulledBy.get(p.dir) ?? [])];
  const culprits = [...new Set(others.flatMap(by))].filter((n) => n !== '@weft/core');
  const copies = [own, ...others].map((p) => `${p.version} at ${p.dir}${p === own ? ' (the one in use)' : by(p).length > 0 ? ` (pulled in by ${by(p).join(', ')})` : ''}`);
  const fix =
    culprits.length > 0
      ? `Declare @weft/core as a peerDependency (not a dependency) of ${culprits.join(', ')}, then run "npm dedupe"`
      : 'Run "npm dedupe"';
  const message =
    `${others.length === 1 ? 'two' : String(others.length + 1)} copies of @weft/core are installed: ${copies.join('; ')}. ` +
    `Extensions built against one copy do not extend the classes of the other, so only the one in use is loaded. ` +
    `${fix} ("npm ls @weft/core" shows every copy).`;
  return { pointId: undefined, file: others.map((p) => p.dir).join(', '), message, severity: 'error', error: new ExtensionError(ExtensionErrorCode.DUPLICATE_CORE, message) };
}

function unknownPointMessage(pointId: string, pkg: DiscoveredPackage, known: ReadonlySet<string>): string {
  const sameCase = [...known].find((k) => k.toLowerCase() === pointId.toLowerCase());
  const closest = sameCase ?? closestName(pointId, known);
  return (
    `"${pointId}" (from ${pkg.name}) is not a known extension point: the "weft." prefix is reserved for Weft's own points, ` +
    `and its entries are not loaded. ` +
    (closest !== undefined ? `Did you mean ${closest}? Rename the file to ${closest}.json.` : `Known: ${[...known].sort().join(', ')}.`)
  );
}

/**
 * Warns about Weft plugins (packages shipping META-INF/weft manifests) that the application lists only in
 * devDependencies: they are installed, but extensions are discovered from dependencies, so none of theirs loads.
 */
function devOnlyPlugins(
  dir: string,
  name: string,
  pkgJson: Record<string, unknown>,
  deps: ReadonlyMap<string, boolean>,
  lookups: Map<string, string | undefined>,
  problems: DiscoveryProblem[],
): void {
  const dev = pkgJson['devDependencies'];
  if (typeof dev !== 'object' || dev === null) return;
  for (const depName of Object.keys(dev)) {
    if (deps.has(depName) || depName === '@weft/core' || !PACKAGE_NAME.test(depName) || depName.split('/').includes('..')) continue;
    const found = resolvePackageDir(dir, depName, lookups);
    if (typeof found !== 'string' || readManifestDir(found, []).size === 0) continue;
    problems.push(
      problem(
        undefined,
        join(dir, 'package.json'),
        `"${depName}" is a Weft plugin found in devDependencies of ${name}; extensions are discovered from dependencies, ` +
          `so its extensions are not loaded. Move it to "dependencies" (npm install ${depName}) if the application uses it.`,
        ExtensionErrorCode.DISCOVERY,
        'warning',
      ),
    );
  }
}

/** Reads a JSON object, accepting (and stripping) a UTF-8 byte order mark; the reason as a string when it cannot. */
function readJsonObject(file: string): Record<string, unknown> | string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    return describeFsError(file, error);
  }
  try {
    const json = JSON.parse(stripBom(text)) as unknown;
    if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'not a JSON object';
    return json as Record<string, unknown>;
  } catch (error) {
    return `not valid JSON: ${(error as Error).message}`;
  }
}

/** Strips a leading UTF-8 byte order mark (editors on Windows write one; Node's own JSON loading accepts it). */
function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function describeFsError(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') {
    const target = symlinkTarget(file);
    if (target !== undefined) return `a dangling symlink to ${target}, which does not exist`;
  }
  if (code === 'EISDIR') return 'a directory, not a file';
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  return (error as Error).message;
}

function symlinkTarget(path: string): string | undefined {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : undefined;
  } catch {
    return undefined;
  }
}

function readManifestDir(dir: string, problems: DiscoveryProblem[]): Map<string, string> {
  const manifests = new Map<string, string>();
  const metaDir = join(dir, 'META-INF', 'weft');
  let files: string[];
  try {
    files = readdirSync(metaDir);
  } catch {
    return manifests;
  }
  for (const file of files.sort()) {
    if (!file.endsWith('.json')) continue;
    const full = join(metaDir, file);
    const pointId = file.slice(0, -'.json'.length);
    let isFile: boolean;
    try {
      isFile = statSync(full).isFile();
    } catch (error) {
      problems.push(problem(EXTENSION_POINT_ID_PATTERN.test(pointId) ? pointId : undefined, full, `unreadable manifest (${describeFsError(full, error)})`, ExtensionErrorCode.INVALID_MANIFEST));
      continue;
    }
    if (isFile) manifests.set(pointId, full);
  }
  return manifests;
}

function dependencyNames(pkgJson: Record<string, unknown>): Map<string, boolean> {
  const out = new Map<string, boolean>();
  const add = (field: string, optional: boolean) => {
    const deps = pkgJson[field];
    if (typeof deps !== 'object' || deps === null) return;
    for (const depName of Object.keys(deps)) if (!out.has(depName) || !optional) out.set(depName, optional);
  };
  add('peerDependencies', true);
  add('optionalDependencies', true);
  add('dependencies', false);
  return out;
}

function declaredCoreRange(pkgJson: Record<string, unknown>): string | undefined {
  for (const field of ['peerDependencies', 'dependencies', 'devDependencies']) {
    const deps = pkgJson[field] as Record<string, unknown> | undefined;
    const range = deps !== undefined && deps !== null && typeof deps === 'object' ? deps['@weft/core'] : undefined;
    if (typeof range === 'string') return range;
  }
  return undefined;
}

/**
 * Node's lookup: `<dir>/node_modules/<name>` from `dir` upwards; the real path, or undefined. `lookups` caches
 * each candidate directory's answer for one discovery (hoisted packages are looked up from many dependants).
 */
function resolvePackageDir(
  fromDir: string,
  name: string,
  lookups: Map<string, string | undefined>,
): string | { readonly link: string; readonly message: string } | undefined {
  let dir = fromDir;
  const { root } = parsePath(dir);
  for (;;) {
    if (!dir.endsWith(`${'/'}node_modules`)) {
      const candidate = join(dir, 'node_modules', name);
      let found: string | undefined;
      if (lookups.has(candidate)) {
        found = lookups.get(candidate);
      } else {
        const target = existsSync(join(candidate, 'package.json')) ? undefined : symlinkTarget(candidate);
        if (target !== undefined && !existsSync(candidate)) {
          // Node would fail on this link too, rather than look further up: report it, naming the link.
          return {
            link: candidate,
            message: `dependency "${name}" is a dangling symlink ${relative(fromDir, candidate)} → ${target}, which does not exist (reinstall it, or remove the link)`,
          };
        }
        try {
          found = target === undefined && existsSync(join(candidate, 'package.json')) ? realpathSync.native(candidate) : undefined;
        } catch {
          found = undefined;
        }
        lookups.set(candidate, found);
      }
      if (found !== undefined) return found;
    }
    if (dir === root) return undefined;
    dir = dirname(dir);
  }
}

/** The real directory of the `@weft/core` package this code belongs to. */
function ownPackageDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: unknown }).name === '@weft/core') return realpathSync.native(dir);
      } catch {
        return undefined;
      }
    }
    dir = dirname(dir);
  }
  return undefined;
}
