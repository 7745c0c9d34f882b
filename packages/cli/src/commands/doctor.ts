import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { ParameterRegistry, type ManifestIndex, type ManifestRecord } from '@weft/core/spi';

import { booleanFlag, stringFlag, type ParsedArgs } from '../args.js';
import { HELP_OPTION, JSON_OPTION, ROOT_OPTION, type Command, type CommandContext } from '../command.js';
import { ExitCode, toJson, UsageError } from '../io.js';
import { discoverProject, displayPath, findProjectRoot, readJsonObject, resolvePackageFrom } from '../project.js';
import { satisfiesRange } from '../semver.js';

/** What a finding is about. */
type FindingKind =
  | 'duplicate-core'
  | 'invalid-manifest'
  | 'name-clash'
  | 'core-range'
  | 'missing-dependency'
  | 'missing-module'
  | 'no-core'
  | 'discovery'
  | 'core-as-dependency'
  | 'unchecked-range'
  | 'unknown-key'
  | 'dev-dependency';

/** One finding of `weft doctor`. */
interface Finding {
  readonly severity: 'error' | 'warning';
  readonly kind: FindingKind;
  readonly message: string;
  /** The file it is about (relative to the root when inside it). */
  readonly file: string | undefined;
  /** What to do. */
  readonly fix: string;
}

const CORE = '@weft/core';

/**
 * The URL keys manifests activate on that nothing declares reading and that are close to a known key (a typo such
 * as `tsp` for `tps` means the extension never activates): each is a warning (an error with `--strict`) naming the
 * key, the extension and the closest known keys. Keys far from every known key are taken as the extension's own.
 */
function keyFindings(index: ManifestIndex, at: (file: string) => string, strict: boolean): Finding[] {
  const declared = ParameterRegistry.fromIndex(index, { activationKeys: false });
  const findings: Finding[] = [];
  for (const [pointId, records] of index.records) {
    for (const record of records) {
      const own = new Set(record.entry.keys.map((k) => k.key));
      const keys = (record.entry.activate?.conditions ?? []).map((c) => c.key).filter((key) => !own.has(key));
      for (const key of keys) {
        if (declared.has(key)) continue;
        const near = declared.closest(key);
        if (near.length === 0) continue;
        findings.push({
          severity: strict ? 'error' : 'warning',
          kind: 'unknown-key',
          message:
            `\`${key}\`: extension "${record.entry.name}" of ${pointId} (${record.pkg.name}@${record.pkg.version}) activates on it, ` +
            `but neither Weft nor any installed extension reads it; did you mean ${near.map((k) => `\`${k}\``).join(' or ')}?`,
          file: at(record.manifestPath),
          fix: 'Correct the key, or declare the URL keys the extension reads in its manifest entry ("keys": ["my-key"]); see docs/reference/parameters.md.',
        });
      }
    }
  }
  return findings;
}

/** Runs every check on a discovered project. @internal */
export function diagnose(root: string, index: ManifestIndex, options: { readonly strict?: boolean } = {}): Finding[] {
  const findings: Finding[] = [];
  const at = (file: string) => displayPath(root, file);

  for (const problem of index.problems) {
    if (/copies of @weft\/core are installed/.test(problem.message)) {
      findings.push({ severity: 'error', kind: 'duplicate-core', message: problem.message, file: undefined, fix: 'Make every package use one @weft/core: plugins must list it as a peerDependency, then "npm dedupe".' });
    } else if (problem.pointId !== undefined) {
      findings.push({
        severity: 'error',
        kind: 'invalid-manifest',
        message: `invalid manifest for ${problem.pointId}: ${problem.message}`,
        file: at(problem.file),
        fix: 'A manifest with any problem contributes nothing; fix it (see docs/reference/manifest.md) or upgrade the package.',
      });
    } else if (/is not installed/.test(problem.message)) {
      findings.push({ severity: 'error', kind: 'missing-dependency', message: problem.message, file: at(problem.file), fix: 'Run npm install.' });
    } else if (/found in devDependencies/.test(problem.message)) {
      findings.push({ severity: 'warning', kind: 'dev-dependency', message: problem.message, file: at(problem.file), fix: 'Move it to "dependencies" if the application uses it.' });
    } else {
      findings.push({ severity: problem.severity, kind: 'discovery', message: problem.message, file: at(problem.file), fix: 'Fix or reinstall the package.' });
    }
  }

  for (const [pointId, records] of index.records) {
    const byName = new Map<string, ManifestRecord[]>();
    for (const record of records) {
      const list = byName.get(record.entry.name);
      if (list === undefined) byName.set(record.entry.name, [record]);
      else list.push(record);
    }
    for (const [name, list] of byName) {
      if (list.length < 2) continue;
      findings.push({
        severity: 'error',
        kind: 'name-clash',
        message: `extension name "${name}" of ${pointId} is declared by ${list.map((r) => `${r.pkg.name}@${r.pkg.version} (${at(r.manifestPath)})`).join(' and ')}: the loader refuses the name, and loading ${pointId} fails`,
        file: at((list[1] as ManifestRecord).manifestPath),
        fix: 'Uninstall one of the packages, or rename the extension in one of them (vendor-prefixed names such as acme-audit avoid clashes).',
      });
    }
    for (const record of records) {
      const file = join(record.pkg.dir, record.entry.module);
      if (existsSync(file)) continue;
      findings.push({
        severity: 'error',
        kind: 'missing-module',
        message: `${record.pkg.name}@${record.pkg.version}: extension "${record.entry.name}" of ${pointId} names ${record.entry.module}, which does not exist (${file})`,
        file: at(record.manifestPath),
        fix: 'Build the package (npm run build), or fix "module" in its manifest; a published package must ship dist/.',
      });
    }
  }

  const cores = index.packages.filter((p) => p.name === CORE);
  const users = index.packages.filter((p) => p.name !== CORE && p.coreRange !== undefined);
  if (cores.length === 0 && users.length > 0) {
    findings.push({
      severity: 'error',
      kind: 'no-core',
      message: `@weft/core is not installed, but ${users.map((p) => p.name).join(', ')} need${users.length === 1 ? 's' : ''} it`,
      file: undefined,
      fix: 'npm install @weft/core',
    });
  }
  for (const pkg of users) {
    const range = pkg.coreRange as string;
    const coreDir = resolvePackageFrom(pkg.dir, CORE);
    const core = coreDir === undefined ? cores[0] : index.packages.find((p) => p.dir === coreDir) ?? { version: String(readJsonObject(join(coreDir, 'package.json'))?.['version'] ?? '0.0.0'), dir: coreDir };
    if (core === undefined) continue;
    const ok = satisfiesRange(core.version, range);
    const pkgJson = readJsonObject(join(pkg.dir, 'package.json'));
    if (ok === undefined) {
      findings.push({
        severity: 'warning',
        kind: 'unchecked-range',
        message: `${pkg.name}@${pkg.version} declares @weft/core "${range}", a range weft doctor cannot check`,
        file: at(join(pkg.dir, 'package.json')),
        fix: 'Nothing to do if it resolves as intended (npm ls @weft/core).',
      });
    } else if (!ok) {
      findings.push({
        severity: 'error',
        kind: 'core-range',
        message: `${pkg.name}@${pkg.version} is built for @weft/core "${range}", but it gets @weft/core ${core.version} (${core.dir})`,
        file: at(join(pkg.dir, 'package.json')),
        fix: `Install a version of ${pkg.name} built for @weft/core ${core.version}, or a @weft/core matching "${range}".`,
      });
    }
    const dependencies = pkgJson?.['dependencies'];
    if (pkg.dir !== index.root && typeof dependencies === 'object' && dependencies !== null && CORE in dependencies && pkg.name !== '@weft/cli') {
      findings.push({
        severity: 'warning',
        kind: 'core-as-dependency',
        message: `${pkg.name}@${pkg.version} lists @weft/core under "dependencies": npm may install a private copy for it`,
        file: at(join(pkg.dir, 'package.json')),
        fix: 'Plugins declare @weft/core as a peerDependency (and a devDependency).',
      });
    }
  }
  findings.push(...keyFindings(index, at, options.strict === true));
  return findings;
}

async function run(args: ParsedArgs, ctx: CommandContext): Promise<number> {
  if (args.positionals.length > 0) throw new UsageError(`doctor takes no arguments (got ${args.positionals.join(' ')})`);
  const root = findProjectRoot(ctx.io.cwd, stringFlag(args, 'root'));
  const index = discoverProject(root);
  const findings = diagnose(root, index, { strict: booleanFlag(args, 'strict') });
  const errors = findings.filter((f) => f.severity === 'error');
  const warnings = findings.filter((f) => f.severity === 'warning');
  const manifests = index.packages.reduce((n, p) => n + p.manifests.size, 0);
  const cores = index.packages.filter((p) => p.name === CORE).map((p) => ({ version: p.version, dir: p.dir }));
  if (booleanFlag(args, 'json')) {
    ctx.out(toJson({ ok: errors.length === 0, root, packages: index.packages.length, manifests, core: cores, findings }));
    return errors.length > 0 ? ExitCode.FAILURE : ExitCode.OK;
  }
  ctx.out(`weft doctor: ${root}\n`);
  ctx.out(`  ${index.packages.length} package${index.packages.length === 1 ? '' : 's'}, ${manifests} manifest${manifests === 1 ? '' : 's'}; @weft/core ${cores.map((c) => c.version).join(', ') || 'not installed'}\n`);
  for (const f of findings) {
    ctx.out(`\n${f.severity === 'error' ? 'error' : 'warning'} [${f.kind}] ${f.message}\n`);
    if (f.file !== undefined) ctx.out(`  file: ${f.file}\n`);
    ctx.out(`  fix:  ${f.fix}\n`);
  }
  ctx.out(
    errors.length === 0 && warnings.length === 0
      ? '\nNo problems found.\n'
      : `\n${errors.length} problem${errors.length === 1 ? '' : 's'}, ${warnings.length} warning${warnings.length === 1 ? '' : 's'}.\n`,
  );
  return errors.length > 0 ? ExitCode.FAILURE : ExitCode.OK;
}

/** `weft doctor`. @internal */
export const doctorCommand: Command = {
  name: 'doctor',
  summary: 'diagnose the install: duplicate cores, invalid manifests, name clashes, incompatible packages',
  usage: ['doctor [--root <dir>] [--strict] [--json]'],
  description: `
Checks the packages reachable from the application's package.json, from their package.json files and
manifests only (no extension code is imported):
  duplicate-core      more than one copy of @weft/core is installed (extensions of one copy do not extend the other)
  invalid-manifest    a META-INF/weft/*.json manifest fails validation (it contributes nothing)
  name-clash          two packages declare the same extension name for one extension point
  core-range          a package declares a @weft/core range the @weft/core it resolves does not satisfy
  missing-dependency  a dependency is not installed
  missing-module      a manifest names a module file that does not exist (package not built)
  no-core             packages need @weft/core but none is installed
Warnings (do not fail): core-as-dependency (a plugin lists @weft/core under dependencies instead of
peerDependencies), unchecked-range (a range such as workspace:* that cannot be checked), unknown-key (a manifest
activates on a URL key that neither Weft nor any installed extension declares reading: a typo such as tsp for
tps, or a key missing from the entry's "keys"; the closest known key is suggested), dev-dependency (a Weft plugin
listed only in devDependencies: extensions are discovered from dependencies).
--strict turns key warnings (unknown-key) into problems, as strict: true does for an application.`,
  options: [
    ROOT_OPTION,
    { name: 'strict', kind: 'boolean', description: 'Unknown URL keys are problems (exit 1), not warnings.' },
    JSON_OPTION,
    HELP_OPTION,
  ],
  examples: ['weft doctor', 'weft doctor --strict', 'weft doctor --root ./services/orders --json'],
  exitCodes: ['0  no problems (warnings may be shown)', '1  at least one problem (with --strict, an unknown URL key is one)', '2  usage error'],
  run,
};
