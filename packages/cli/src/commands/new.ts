import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

import { EXTENSION_NAME_PATTERN, EXTENSION_POINT_ID_PATTERN, RESERVED_NAMES } from '@weft/core/spi';

import { booleanFlag, stringFlag, type ParsedArgs } from '../args.js';
import { HELP_OPTION, JSON_OPTION, type Command, type CommandContext } from '../command.js';
import { CliFailure, ExitCode, toJson, UsageError } from '../io.js';
import { isDirectory, toolCore } from '../project.js';
import { kebabCase, type TemplateFile } from '../templates/common.js';
import { extensionFiles } from '../templates/extension.js';
import { filterFiles } from '../templates/filter.js';

const PACKAGE_NAME = /^(?:@[a-z0-9][a-z0-9._~-]*\/)?[a-z0-9][a-z0-9._~-]*$/;
const KEY = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;

function checkName(name: string | undefined, what: string): string {
  if (name === undefined) throw new UsageError(`missing <name>: the ${what} name, lowercase kebab-case (e.g. audit-trail)`);
  if (RESERVED_NAMES.has(name)) throw new UsageError(`"${name}" is reserved (it means "the default extension"); pick another name`);
  if (!EXTENSION_NAME_PATTERN.test(name)) throw new UsageError(`"${name}" is not lowercase kebab-case (letters a-z, digits and single dashes, e.g. audit-trail)`);
  if (!/^[a-z]/.test(name)) throw new UsageError(`"${name}" must start with a letter (it also names the class)`);
  return name;
}

function checkPackage(name: string): string {
  if (!PACKAGE_NAME.test(name) || name.length > 214) throw new UsageError(`--package "${name}" is not a valid npm package name`);
  return name;
}

/** Writes the files under `dir`, which must not exist or be empty. */
function writeFiles(dir: string, files: readonly TemplateFile[]): void {
  if (isDirectory(dir) && readdirSync(dir).length > 0) {
    throw new CliFailure(`${dir} exists and is not empty; choose another --dir (nothing was written)`);
  }
  for (const file of files) {
    const path = join(dir, file.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, file.text);
  }
}

/**
 * What to do after `weft new`: install the package's tools, run its tests, then install it into an application.
 * The application gets a copy (`--install-links`), not npm's default symlink to the folder: through a link Node
 * resolves `@weft/core` from the plugin's own node_modules (its devDependency), a second copy of the core.
 */
export function nextSteps(shown: string, dir: string, kind: 'filter' | 'extension', coreVersion: string): string {
  return (
    `\nNext:\n  cd ${shown}\n  npm install\n  npm test      # builds dist/, then runs it from its manifest\n` +
    `Until Weft is on the npm registry, install @weft/core from its tarball instead of "npm install"\n` +
    `(npm run pack in a checkout of Weft writes it to packs/):\n` +
    `  npm install --save-dev <weft checkout>/packs/weft-core-${coreVersion}.tgz\n` +
    `\nThen install it into an application, as a dependency, copied rather than linked (through a link it would\n` +
    `load its own devDependency copy of @weft/core), and check it with weft extensions${kind === 'filter' ? ' / weft explain' : ''}:\n` +
    `  npm install --install-links ${dir}\n`
  );
}

async function run(args: ParsedArgs, ctx: CommandContext): Promise<number> {
  const [kind, rawName, ...extra] = args.positionals;
  if (kind !== 'filter' && kind !== 'extension') {
    throw new UsageError(kind === undefined ? 'missing what to create: filter or extension' : `cannot create "${kind}": expected filter or extension`);
  }
  if (extra.length > 0) throw new UsageError(`unexpected arguments: ${extra.join(' ')}`);
  const name = checkName(rawName, kind);
  const core = toolCore();
  let files: TemplateFile[];
  let packageName: string;
  if (kind === 'filter') {
    if (stringFlag(args, 'point') !== undefined) throw new UsageError('--point is for "weft new extension"; a filter always extends weft.rpc.Filter');
    const groups = (stringFlag(args, 'group') ?? 'provider,consumer').split(',').map((g) => g.trim()).filter((g) => g !== '');
    const bad = groups.filter((g) => g !== 'provider' && g !== 'consumer');
    if (groups.length === 0 || bad.length > 0) throw new UsageError(`--group must be provider, consumer or provider,consumer (got "${stringFlag(args, 'group') ?? ''}")`);
    const key = stringFlag(args, 'key') ?? name;
    if (!KEY.test(key)) throw new UsageError(`--key "${key}" is not a URL key (letters, digits, "_", "-" and ".")`);
    const orderText = stringFlag(args, 'order') ?? '0';
    const order = Number(orderText);
    if (!/^-?\d+$/.test(orderText) || !Number.isSafeInteger(order)) throw new UsageError(`--order must be a whole number (got "${orderText}")`);
    packageName = checkPackage(stringFlag(args, 'package') ?? `weft-filter-${name}`);
    const description = stringFlag(args, 'description') ?? `A Weft filter that runs on every call of the services whose URL sets ${key}.`;
    files = filterFiles({
      name,
      packageName,
      description,
      groups: [...new Set(groups)] as ('provider' | 'consumer')[],
      key,
      order,
      coreVersion: core.version,
    });
  } else {
    for (const flag of ['group', 'key', 'order']) {
      if (stringFlag(args, flag) !== undefined) throw new UsageError(`--${flag} is for "weft new filter"`);
    }
    const pointId = stringFlag(args, 'point');
    if (pointId === undefined) throw new UsageError('missing --point <id>: the id of the new extension point, e.g. acme.cache.CacheStore');
    if (!EXTENSION_POINT_ID_PATTERN.test(pointId)) throw new UsageError(`--point "${pointId}" is not an extension point id (dotted, e.g. acme.cache.CacheStore)`);
    if (pointId.startsWith('weft.')) throw new UsageError(`--point "${pointId}": ids starting with "weft." belong to Weft; use your own prefix (acme.cache.CacheStore)`);
    const segments = pointId.split('.');
    const className = segments[segments.length - 1] as string;
    if (!/^[A-Z][A-Za-z0-9]*$/.test(className)) {
      throw new UsageError(`--point "${pointId}": the last segment names the abstract class and must be PascalCase (e.g. CacheStore)`);
    }
    const area = segments.length > 2 ? segments.slice(1, -1).join('-') : kebabCase(className);
    packageName = checkPackage(stringFlag(args, 'package') ?? `${(segments[0] as string).toLowerCase()}-weft-${area.toLowerCase()}`);
    const description = stringFlag(args, 'description') ?? `The ${pointId} extension point of Weft, with its default extension ${name}.`;
    files = extensionFiles({ name, pointId, packageName, description, coreVersion: core.version });
  }
  const dir = resolve(ctx.io.cwd, stringFlag(args, 'dir') ?? basename(packageName));
  writeFiles(dir, files);
  if (booleanFlag(args, 'json')) {
    ctx.out(toJson({ ok: true, kind, name, package: packageName, dir, files: files.map((f) => f.path) }));
    return ExitCode.OK;
  }
  ctx.out(`Created ${packageName} in ${dir}:\n${files.map((f) => `  ${f.path}\n`).join('')}`);
  const shown = relative(ctx.io.cwd, dir) || '.';
  ctx.out(nextSteps(shown.startsWith('..') ? dir : shown, dir, kind, core.version));
  return ExitCode.OK;
}

/** `weft new filter|extension`. @internal */
export const newCommand: Command = {
  name: 'new',
  summary: 'scaffold a plugin package: a filter, or a new extension point with its first extension',
  usage: [
    'new filter <name> [--group provider|consumer|provider,consumer] [--key <url-key>] [--order <n>] [--package <npm-name>] [--dir <dir>]',
    'new extension <name> --point <vendor.area.Name> [--package <npm-name>] [--dir <dir>]',
  ],
  description: `
Creates a plugin package that builds, tests and is discovered as soon as it is installed: package.json (ESM,
exports, files dist + META-INF, @weft/core as a peer dependency, typescript/vitest pinned), tsconfig.json
(legacy decorators with metadata), the manifest META-INF/weft/<point>.json, the source with TSDoc, a vitest test
that loads it from its manifest, and a README.

new filter <name>: a weft.rpc.Filter extension <name> (class <Name>Filter in src/<name>-filter.ts), activated in
--group (default provider,consumer) when the URL sets --key (default: the name), with --order (default 0).
Package name: weft-filter-<name>.

new extension <name> --point <id>: a NEW extension point (an @SPI abstract class named after the id's last
segment, default extension <name>) and its first extension <name>, like a vendor plugin defining its own point.
Package name: <vendor>-weft-<area> (acme.cache.CacheStore → acme-weft-cache).

<name> is lowercase kebab-case, starts with a letter, and is not "default" or "true". The package is written to
--dir, default ./<package-name>; an existing non-empty directory is refused.`,
  options: [
    { name: 'group', kind: 'string', value: '<groups>', description: 'filter: activation groups, provider and/or consumer (comma-separated).' },
    { name: 'key', kind: 'string', value: '<url-key>', description: 'filter: the URL key that activates it. Default: the name.' },
    { name: 'order', kind: 'string', value: '<n>', description: 'filter: chain position (ascending: lower is outer). Default: 0.' },
    { name: 'point', kind: 'string', value: '<id>', description: 'extension: the new extension point id (vendor.area.Name).' },
    { name: 'package', kind: 'string', value: '<npm-name>', description: 'Package name.' },
    { name: 'description', kind: 'string', value: '<text>', description: 'One sentence for package.json, README and manifest.' },
    { name: 'dir', kind: 'string', value: '<dir>', description: 'Where to create the package. Default: ./<package-name>.' },
    JSON_OPTION,
    HELP_OPTION,
  ],
  examples: [
    'weft new filter audit-trail --group provider --key audit',
    'weft new extension memory --point acme.cache.CacheStore --dir packages/cache',
  ],
  exitCodes: ['0  created', '1  the target directory exists and is not empty', '2  usage error: bad name, group, key, point id or package name'],
  run,
};
