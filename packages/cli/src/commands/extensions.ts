import { EXTENSION_POINT_ID_PATTERN, type ManifestEntry, type ManifestRecord } from '@weft/core/spi';

import { booleanFlag, stringFlag, type ParsedArgs } from '../args.js';
import { HELP_OPTION, JSON_OPTION, ROOT_OPTION, type Command, type CommandContext } from '../command.js';
import { ExitCode, formatTable, toJson, UsageError } from '../io.js';
import { discoverProject, displayPath, findProjectRoot } from '../project.js';

/** One extension as listed. */
interface ListedExtension {
  readonly name: string;
  readonly kind: ManifestEntry['kind'];
  readonly package: string;
  readonly version: string;
  readonly manifest: string;
  readonly module: string;
  readonly export: string;
  readonly description: string | undefined;
  /** One-line summary of the activation or wrapper metadata. */
  readonly use: string;
  readonly activate:
    | { readonly group: readonly string[]; readonly value: readonly string[]; readonly order: number; readonly before: readonly string[]; readonly after: readonly string[] }
    | undefined;
  readonly wrapper: { readonly order: number; readonly matches: readonly string[]; readonly mismatches: readonly string[] } | undefined;
  /** Other packages declaring the same name for the same point (a clash: the name is unusable). */
  readonly clashesWith: readonly string[];
}

/** Describes the activation or wrapper metadata of an entry in one line. @internal */
export function describeEntryUse(entry: ManifestEntry): string {
  if (entry.kind === 'adaptive') return 'adaptive class';
  if (entry.kind === 'wrapper') {
    const w = entry.wrapper;
    const parts = [`order ${w?.order ?? 0}`];
    if (w !== undefined && w.matches.length > 0) parts.push(`matches ${w.matches.join(',')}`);
    if (w !== undefined && w.mismatches.length > 0) parts.push(`mismatches ${w.mismatches.join(',')}`);
    return `wraps ${w !== undefined && w.matches.length > 0 ? 'some' : 'every'} extension: ${parts.join('; ')}`;
  }
  const a = entry.activate;
  if (a === undefined) return 'by name only';
  const parts = [`group ${a.groups.length > 0 ? a.groups.join(',') : '(none)'}`];
  if (a.conditions.length > 0) parts.push(`value ${a.conditions.map((c) => (c.expected === undefined ? c.key : `${c.key}:${c.expected}`)).join(',')}`);
  parts.push(`order ${a.order}`);
  if (a.before.length > 0) parts.push(`before ${a.before.join(',')}`);
  if (a.after.length > 0) parts.push(`after ${a.after.join(',')}`);
  return parts.join('; ');
}

function listed(root: string, record: ManifestRecord, all: readonly ManifestRecord[]): ListedExtension {
  const { entry, pkg } = record;
  const a = entry.activate;
  const w = entry.wrapper;
  return {
    name: entry.name,
    kind: entry.kind,
    package: pkg.name,
    version: pkg.version,
    manifest: displayPath(root, record.manifestPath),
    module: entry.module,
    export: entry.exportName,
    description: entry.description,
    use: describeEntryUse(entry),
    activate:
      a === undefined
        ? undefined
        : { group: a.groups, value: a.conditions.map((c) => (c.expected === undefined ? c.key : `${c.key}:${c.expected}`)), order: a.order, before: a.before, after: a.after },
    wrapper: w === undefined ? undefined : { order: w.order, matches: w.matches, mismatches: w.mismatches },
    clashesWith: all.filter((r) => r !== record && r.entry.name === entry.name).map((r) => `${r.pkg.name}@${r.pkg.version}`),
  };
}

async function run(args: ParsedArgs, ctx: CommandContext): Promise<number> {
  if (args.positionals.length > 1) throw new UsageError(`expected at most one extension point id, got ${args.positionals.length}: ${args.positionals.join(' ')}`);
  const point = args.positionals[0];
  if (point !== undefined && !EXTENSION_POINT_ID_PATTERN.test(point)) {
    throw new UsageError(`"${point}" is not an extension point id (dotted, e.g. weft.rpc.Filter)`);
  }
  const root = findProjectRoot(ctx.io.cwd, stringFlag(args, 'root'));
  const index = discoverProject(root);
  // A point whose only manifests are invalid has a record list but no extensions: not listed (see problems).
  const ids = [...index.records.keys()].filter((id) => (point === undefined || id === point) && (index.records.get(id) ?? []).length > 0).sort();
  const problems = index.problems
    .filter((p) => point === undefined || p.pointId === point)
    .map((p) => ({ point: p.pointId, file: displayPath(root, p.file), message: p.message }));
  const points = ids.map((id) => {
    const records = index.records.get(id) ?? [];
    return { id, extensions: records.map((r) => listed(root, r, records)) };
  });
  if (point !== undefined && points.length === 0 && problems.length === 0) {
    const known = [...index.records.keys()].filter((id) => (index.records.get(id) ?? []).length > 0).sort();
    const message = `no package under ${root} contributes to ${point}. Extension points with extensions: ${known.join(', ') || '(none)'}.`;
    if (booleanFlag(args, 'json')) ctx.out(toJson({ root, points: [], problems: [] }));
    ctx.err(`weft extensions: ${message}\n`);
    return ExitCode.FAILURE;
  }
  if (booleanFlag(args, 'json')) {
    ctx.out(toJson({ root, points, problems }));
    return ExitCode.OK;
  }
  const packages = new Set(points.flatMap((p) => p.extensions.map((e) => `${e.package}@${e.version}`)));
  ctx.out(`Extensions found from ${root} (${points.length} extension point${points.length === 1 ? '' : 's'}, ${packages.size} package${packages.size === 1 ? '' : 's'}; read from manifests, no code imported)\n`);
  if (points.length === 0) {
    ctx.out('\nNo extensions found. Plugins are discovered when they are dependencies (not devDependencies) of the application.\n');
  }
  for (const p of points) {
    ctx.out(`\n${p.id}\n`);
    ctx.out(
      formatTable(
        ['NAME', 'KIND', 'PACKAGE', 'USE', 'MANIFEST'],
        p.extensions.map((e) => {
          const clash = e.clashesWith.length > 0 ? ` [CLASH with ${e.clashesWith.join(', ')}]` : '';
          return [e.name + clash, e.kind, `${e.package}@${e.version}`, e.use, e.manifest];
        }),
      ),
    );
  }
  if (problems.length > 0) {
    ctx.out(`\nDiscovery problems (${problems.length}); run "weft doctor" for the full diagnosis:\n`);
    for (const p of problems) ctx.out(`  ${p.file}: ${p.message}\n`);
  }
  return ExitCode.OK;
}

/** `weft extensions [point]`. @internal */
export const extensionsCommand: Command = {
  name: 'extensions',
  summary: 'list extension points and extensions found from the project (manifests only)',
  usage: ['extensions [<point-id>] [--root <dir>] [--json]'],
  description: `
Lists every extension point the installed packages contribute to, and every extension: its name, kind
(extension, wrapper or adaptive), package and version, manifest file, and how it is used — activation group,
URL keys (value), order, before/after for extensions; order and matches for wrappers. Everything comes from
the META-INF/weft/*.json manifests of the packages reachable from the application's package.json through
dependencies: no extension code is imported, so listing is safe and fast. Give a point id to list one point.

A name declared by two packages for one point is marked CLASH (the loader refuses both). Manifests that fail
validation contribute nothing and are listed as discovery problems.`,
  options: [ROOT_OPTION, JSON_OPTION, HELP_OPTION],
  examples: ['weft extensions', 'weft extensions weft.rpc.Filter', 'weft extensions --json --root ./services/orders'],
  exitCodes: ['0  listed (discovery problems are shown but do not fail the command: see weft doctor)', '1  a point id was given and nothing contributes to it', '2  usage error'],
  run,
};
