// Helpers shared by the CLI tests: run `main` in-process with captured output, and write fixture packages.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { main } from '@weft/cli';

/** The CLI package directory. */
export const cliDir = fileURLToPath(new URL('../..', import.meta.url));
/** The repository root. */
export const repoRoot = join(cliDir, '..', '..');

/** What one run of the CLI produced. */
export interface RunResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `weft <argv>` in-process. */
export async function weft(argv: readonly string[], options: { readonly cwd?: string; readonly env?: Record<string, string> } = {}): Promise<RunResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, {
    cwd: options.cwd ?? process.cwd(),
    stdout: { write: (chunk: string) => (stdout += chunk) },
    stderr: { write: (chunk: string) => (stderr += chunk) },
    env: options.env ?? {},
  });
  return { code, stdout, stderr };
}

/** Parses the JSON a `--json` run printed. */
export function json<T = Record<string, unknown>>(result: RunResult): T {
  return JSON.parse(result.stdout) as T;
}

/** A fixture package: package.json fields, manifests by point id, and other files. */
export interface FixturePackage {
  readonly name: string;
  readonly version?: string;
  readonly dependencies?: Record<string, string>;
  readonly peerDependencies?: Record<string, string>;
  /** Manifests by extension point id: an object (written as JSON) or raw text. */
  readonly manifests?: Record<string, unknown>;
  /** Other files, by path relative to the package. */
  readonly files?: Record<string, string>;
}

/**
 * Writes a package into `<root>/<dir>` (default `node_modules/<name>`); with `depend`, adds it to the root
 * package.json's dependencies so discovery reaches it.
 */
export function writePackage(root: string, pkg: FixturePackage, options: { readonly dir?: string; readonly depend?: boolean } = {}): string {
  const dir = join(root, options.dir ?? join('node_modules', pkg.name));
  mkdirSync(dir, { recursive: true });
  const pkgJson: Record<string, unknown> = { name: pkg.name, version: pkg.version ?? '1.0.0', type: 'module' };
  if (pkg.dependencies !== undefined) pkgJson['dependencies'] = pkg.dependencies;
  if (pkg.peerDependencies !== undefined) pkgJson['peerDependencies'] = pkg.peerDependencies;
  writeFileSync(join(dir, 'package.json'), JSON.stringify(pkgJson, null, 2));
  for (const [pointId, manifest] of Object.entries(pkg.manifests ?? {})) {
    mkdirSync(join(dir, 'META-INF', 'weft'), { recursive: true });
    writeFileSync(join(dir, 'META-INF', 'weft', `${pointId}.json`), typeof manifest === 'string' ? manifest : JSON.stringify(manifest, null, 2));
  }
  for (const [path, text] of Object.entries(pkg.files ?? {})) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  if (options.depend !== false) addDependency(root, pkg.name, pkg.version ?? '1.0.0');
  return dir;
}

/** Adds a dependency to the root package.json. */
export function addDependency(root: string, name: string, range: string): void {
  const file = join(root, 'package.json');
  const pkgJson = JSON.parse(readFileSync(file, 'utf8')) as { dependencies?: Record<string, string> };
  pkgJson.dependencies = { ...pkgJson.dependencies, [name]: range };
  writeFileSync(file, JSON.stringify(pkgJson, null, 2));
}

/**
 * A module that records being imported (listing and explaining must never import extension code): importing it
 * writes `imported.txt` next to it.
 */
export const TRIPWIRE_MODULE = `import { writeFileSync } from 'node:fs';
writeFileSync(new URL('./imported.txt', import.meta.url), 'imported');
export class Tripwire {}
`;

/** Filters of the fixture package `acme-filters` (explain works on manifests only). */
export const ACME_FILTERS: FixturePackage = {
  name: 'acme-filters',
  version: '2.0.0',
  peerDependencies: { '@weft/core': '^0.1.0' },
  files: { 'index.js': TRIPWIRE_MODULE },
  manifests: {
    'weft.rpc.Filter': {
      echo: { module: './index.js', export: 'Tripwire', activate: { group: ['provider'], order: -100 } },
      tps: { module: './index.js', export: 'Tripwire', activate: { group: ['provider'], value: ['tps'] } },
      audit: { module: './index.js', export: 'Tripwire', activate: { group: ['provider', 'consumer'], value: ['audit'], order: 50 } },
      'consumer-log': { module: './index.js', export: 'Tripwire', activate: { group: ['consumer'] } },
      cache: { module: './index.js', export: 'Tripwire', activate: { group: ['provider', 'consumer'], value: ['cache:lru'] } },
      plain: { module: './index.js', export: 'Tripwire', description: 'Only used when named.' },
    },
  },
};
