import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, parse as parsePath, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ExtensionError, ExtensionErrorCode } from './extension-error.js';
import { parseManifest } from './manifest.js';
import { EXTENSION_POINT_ID_PATTERN } from './names.js';
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
export function discoverManifests(root) {
    const rootPackageJson = join(resolve(root), 'package.json');
    if (!existsSync(rootPackageJson)) {
        throw new ExtensionError(ExtensionErrorCode.LOAD_FAILED, `Cannot discover extensions: there is no package.json in ${resolve(root)}. ` +
            `Pass the directory of your application's package.json as "root".`);
    }
    const rootDir = realpathSync.native(resolve(root));
    const lookups = new Map();
    const packages = [];
    const problems = [];
    const seen = new Set();
    const queue = [rootDir];
    const coreDir = ownPackageDir();
    if (coreDir !== undefined)
        queue.push(coreDir);
    seen.add(rootDir);
    if (coreDir !== undefined)
        seen.add(coreDir);
    for (let i = 0; i < queue.length; i++) {
        const dir = queue[i];
        const pkgJsonPath = join(dir, 'package.json');
        let pkgJson;
        try {
            pkgJson = JSON.parse(readFileSync(pkgJsonPath, 'utf8'));
            if (typeof pkgJson !== 'object' || pkgJson === null)
                throw new Error('not a JSON object');
        }
        catch (error) {
            problems.push({ pointId: undefined, file: pkgJsonPath, message: `unreadable package.json: ${error.message}` });
            continue;
        }
        const name = typeof pkgJson['name'] === 'string' ? pkgJson['name'] : `(unnamed package at ${dir})`;
        const version = typeof pkgJson['version'] === 'string' ? pkgJson['version'] : '0.0.0';
        const manifests = readManifestDir(dir);
        packages.push({ name, version, dir, manifests, coreRange: declaredCoreRange(pkgJson) });
        const deps = dependencyNames(pkgJson);
        for (const [depName, optional] of deps) {
            if (!PACKAGE_NAME.test(depName) || depName.split('/').includes('..')) {
                problems.push({ pointId: undefined, file: pkgJsonPath, message: `ignored dependency with an invalid name ${JSON.stringify(depName)}` });
                continue;
            }
            const found = resolvePackageDir(dir, depName, lookups);
            if (found === undefined) {
                if (!optional) {
                    problems.push({
                        pointId: undefined,
                        file: pkgJsonPath,
                        message: `dependency "${depName}" of ${name} is not installed (run npm install)`,
                    });
                }
                continue;
            }
            if (!seen.has(found)) {
                seen.add(found);
                queue.push(found);
            }
        }
    }
    const cores = packages.filter((p) => p.name === '@weft/core');
    if (cores.length > 1) {
        problems.push({
            pointId: undefined,
            file: cores.map((p) => p.dir).join(', '),
            message: `${cores.length} copies of @weft/core are installed (${cores.map((p) => `${p.version} at ${p.dir}`).join('; ')}): ` +
                'extensions built against one copy do not extend the classes of the other. Run "npm ls @weft/core" and dedupe.',
        });
    }
    const records = new Map();
    for (const pkg of packages) {
        for (const [pointId, manifestPath] of pkg.manifests) {
            if (!EXTENSION_POINT_ID_PATTERN.test(pointId)) {
                problems.push({ pointId, file: manifestPath, message: `file name is not an extension point id (expected e.g. weft.rpc.Filter.json)` });
                continue;
            }
            let text;
            try {
                text = readFileSync(manifestPath, 'utf8');
            }
            catch (error) {
                problems.push({ pointId, file: manifestPath, message: `unreadable: ${error.message}` });
                continue;
            }
            const parsed = parseManifest(text);
            for (const message of parsed.problems)
                problems.push({ pointId, file: manifestPath, message });
            let list = records.get(pointId);
            if (list === undefined)
                records.set(pointId, (list = []));
            for (const entry of parsed.entries)
                list.push({ pointId, entry, pkg, manifestPath });
        }
    }
    return { root: rootDir, packages, records, problems };
}
function readManifestDir(dir) {
    const manifests = new Map();
    const metaDir = join(dir, 'META-INF', 'weft');
    let files;
    try {
        files = readdirSync(metaDir);
    }
    catch {
        return manifests;
    }
    for (const file of files.sort()) {
        if (!file.endsWith('.json'))
            continue;
        const full = join(metaDir, file);
        if (statSync(full).isFile())
            manifests.set(file.slice(0, -'.json'.length), full);
    }
    return manifests;
}
function dependencyNames(pkgJson) {
    const out = new Map();
    const add = (field, optional) => {
        const deps = pkgJson[field];
        if (typeof deps !== 'object' || deps === null)
            return;
        for (const depName of Object.keys(deps))
            if (!out.has(depName) || !optional)
                out.set(depName, optional);
    };
    add('peerDependencies', true);
    add('optionalDependencies', true);
    add('dependencies', false);
    return out;
}
function declaredCoreRange(pkgJson) {
    for (const field of ['peerDependencies', 'dependencies', 'devDependencies']) {
        const deps = pkgJson[field];
        const range = deps !== undefined && deps !== null && typeof deps === 'object' ? deps['@weft/core'] : undefined;
        if (typeof range === 'string')
            return range;
    }
    return undefined;
}
/**
 * Node's lookup: `<dir>/node_modules/<name>` from `dir` upwards; the real path, or undefined. `lookups` caches
 * each candidate directory's answer for one discovery (hoisted packages are looked up from many dependants).
 */
function resolvePackageDir(fromDir, name, lookups) {
    let dir = fromDir;
    const { root } = parsePath(dir);
    for (;;) {
        if (!dir.endsWith(`${'/'}node_modules`)) {
            const candidate = join(dir, 'node_modules', name);
            let found;
            if (lookups.has(candidate)) {
                found = lookups.get(candidate);
            }
            else {
                found = existsSync(join(candidate, 'package.json')) ? realpathSync.native(candidate) : undefined;
                lookups.set(candidate, found);
            }
            if (found !== undefined)
                return found;
        }
        if (dir === root)
            return undefined;
        dir = dirname(dir);
    }
}
/** The real directory of the `@weft/core` package this code belongs to. */
function ownPackageDir() {
    let dir = dirname(fileURLToPath(import.meta.url));
    for (let i = 0; i < 4; i++) {
        const pkg = join(dir, 'package.json');
        if (existsSync(pkg)) {
            try {
                if (JSON.parse(readFileSync(pkg, 'utf8')).name === '@weft/core')
                    return realpathSync.native(dir);
            }
            catch {
                return undefined;
            }
        }
        dir = dirname(dir);
    }
    return undefined;
}
//# sourceMappingURL=discovery.js.map