import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, parse as parsePath, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

import { discoverManifests, ExtensionError, ExtensionErrorCode, type DiscoveryProblem, type ManifestIndex, type ManifestRecord } from '@weft/core/spi';

import { UsageError } from './io.js';

/**
 * The application root a command works on: `--root` (resolved against the working directory), else the nearest
 * ancestor of the working directory that has a package.json.
 * @throws UsageError when there is none.
 * @internal
 */
export function findProjectRoot(cwd: string, rootFlag: string | undefined): string {
  if (rootFlag !== undefined) {
    const root = resolve(cwd, rootFlag);
    if (!existsSync(join(root, 'package.json'))) {
      throw new UsageError(`--root ${rootFlag}: there is no package.json in ${root}. Pass the directory of your application's package.json.`);
    }
    return root;
  }
  let dir = resolve(cwd);
  const { root } = parsePath(dir);
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dir === root) break;
    dir = dirname(dir);
  }
  throw new UsageError(`no package.json in ${resolve(cwd)} or any directory above it. Run weft in your application's directory, or pass --root <dir>.`);
}

/**
 * The CLI's own package directory (the one holding `@weft/cli`'s package.json).
 * @internal
 */
export function cliPackageDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const pkg = readJsonObject(join(dir, 'package.json'));
    if (pkg?.['name'] === '@weft/cli') return dir;
    dir = dirname(dir);
  }
  throw new Error(`cannot find the package.json of @weft/cli above ${fileURLToPath(import.meta.url)}`);
}

/** The CLI's version, from its package.json. @internal */
export function cliVersion(): string {
  const version = readJsonObject(join(cliPackageDir(), 'package.json'))?.['version'];
  return typeof version === 'string' ? version : '0.0.0';
}

/** The real directory and version of the `@weft/core` the CLI itself runs on. @internal */
export function toolCore(): { readonly dir: string; readonly version: string } {
  const file = createRequire(import.meta.url).resolve('@weft/core/package.json');
  const version = readJsonObject(file)?.['version'];
  return { dir: realpathSync.native(dirname(file)), version: typeof version === 'string' ? version : '0.0.0' };
}

/** Reads a JSON object file; undefined when it is missing or not an object. @internal */
export function readJsonObject(file: string): Record<string, unknown> | undefined {
  try {
    const json: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Node's package lookup: `<dir>/node_modules/<name>` from `fromDir` upwards; the real directory, or undefined. @internal */
export function resolvePackageFrom(fromDir: string, name: string): string | undefined {
  let dir = fromDir;
  const { root } = parsePath(dir);
  for (;;) {
    if (!dir.endsWith(`${sep}node_modules`)) {
      const candidate = join(dir, 'node_modules', name);
      if (existsSync(join(candidate, 'package.json'))) return realpathSync.native(candidate);
    }
    if (dir === root) return undefined;
    dir = dirname(dir);
  }
}

/** The names a package.json lists under `dependencies`, `optionalDependencies` and `peerDependencies`. @internal */
export function runtimeDependencies(pkgJson: Record<string, unknown> | undefined): Set<string> {
  const out = new Set<string>();
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
    const deps = pkgJson?.[field];
    if (typeof deps === 'object' && deps !== null) for (const name of Object.keys(deps)) out.add(name);
  }
  return out;
}

const CORE = '@weft/core';

/**
 * Discovers the manifests of an application, as `discoverManifests` does, minus the CLI's own copy of
 * `@weft/core` when the application does not use it.
 *
 * @remarks `discoverManifests` always adds the `@weft/core` it belongs to. For an application that is the copy
 * the application runs on; for a `weft` installed elsewhere (globally, with npx) it is the CLI's copy, which
 * would show up as a second core and clash with the application's own core extensions. That copy is kept only
 * when some package of the application (or the application itself) resolves `@weft/core` to it.
 * @internal
 */
export function discoverProject(root: string): ManifestIndex {
  const index = discoverManifests(root);
  const own = toolCore().dir;
  const used = new Set<string>();
  for (const pkg of index.packages) {
    if (pkg.name === CORE) continue;
    if (!runtimeDependencies(readJsonObject(join(pkg.dir, 'package.json'))).has(CORE)) continue;
    const found = resolvePackageFrom(pkg.dir, CORE);
    if (found !== undefined) used.add(found);
  }
  if (used.has(own) || index.root === own) return index;
  // Keep what the application reaches without the CLI's core (its own dependencies are not the application's).
  const byDir = new Map(index.packages.map((p) => [p.dir, p]));
  const reachable = new Set<string>([index.root]);
  const queue = [index.root];
  for (let i = 0; i < queue.length; i++) {
    const dir = queue[i] as string;
    for (const name of runtimeDependencies(readJsonObject(join(dir, 'package.json')))) {
      const found = resolvePackageFrom(dir, name);
      if (found === undefined || found === own || reachable.has(found) || !byDir.has(found)) continue;
      reachable.add(found);
      queue.push(found);
    }
  }
  const dropped = index.packages.filter((p) => !reachable.has(p.dir)).map((p) => p.dir);
  const inside = (file: string) => dropped.some((dir) => file === dir || file.startsWith(dir + sep));
  const packages = index.packages.filter((p) => reachable.has(p.dir));
  const records = new Map<string, readonly ManifestRecord[]>();
  for (const [pointId, list] of index.records) {
    const kept = list.filter((r) => reachable.has(r.pkg.dir));
    if (kept.length > 0) records.set(pointId, kept);
  }
  const problems: DiscoveryProblem[] = index.problems.filter((p) => !inside(p.file) && !/copies of @weft\/core are installed/.test(p.message));
  const cores = packages.filter((p) => p.name === CORE);
  if (cores.length > 1) {
    const file = cores.map((p) => p.dir).join(', ');
    const message =
      `${cores.length} copies of @weft/core are installed (${cores.map((p) => `${p.version} at ${p.dir}`).join('; ')}): ` +
      'extensions built against one copy do not extend the classes of the other. Run "npm ls @weft/core" and dedupe.';
    problems.push({ pointId: undefined, file, message, severity: 'error', error: new ExtensionError(ExtensionErrorCode.DUPLICATE_CORE, message) });
  }
  return { root: index.root, packages, records, problems };
}

/** A path relative to the root when it is inside it, else absolute. @internal */
export function displayPath(root: string, file: string): string {
  return file.startsWith(root + sep) ? file.slice(root.length + 1) : file;
}

/** Whether a path exists and is a directory. @internal */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
