// The first-party catalogue behind "install <package>" hints stays equal to what this repository's packages
// really contribute (their manifests) and define (their @SPI ids): a hint never names a package that does not exist.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';
import { KNOWN_EXTENSION_POINTS, KNOWN_EXTENSIONS } from '@weft/core/spi';

const packagesDir = fileURLToPath(new URL('../../', import.meta.url));

interface RepoPackage {
  readonly name: string;
  readonly dir: string;
}

function firstPartyPackages(): RepoPackage[] {
  const out: RepoPackage[] = [];
  for (const entry of readdirSync(packagesDir).sort()) {
    const file = join(packagesDir, entry, 'package.json');
    if (!existsSync(file)) continue;
    const json = JSON.parse(readFileSync(file, 'utf8')) as { name: string; private?: boolean };
    if (json.private === true || !json.name.startsWith('@weft/')) continue;
    out.push({ name: json.name, dir: join(packagesDir, entry) });
  }
  return out;
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? (d.name === 'templates' ? [] : sourceFiles(join(dir, d.name))) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

const fix = 'update packages/core/src/extension/known-extensions.ts';

describe('the first-party catalogue (known-extensions.ts)', () => {
  it('lists exactly the extensions the packages of this repository contribute through their manifests', () => {
    const actual: string[] = [];
    for (const pkg of firstPartyPackages()) {
      const meta = join(pkg.dir, 'META-INF', 'weft');
      if (!existsSync(meta)) continue;
      for (const file of readdirSync(meta).filter((f) => f.endsWith('.json')).sort()) {
        const manifest = JSON.parse(readFileSync(join(meta, file), 'utf8')) as Record<string, unknown>;
        for (const name of Object.keys(manifest)) {
          const entry = manifest[name] as { wrapper?: unknown; adaptive?: unknown } | string;
          if (name === '$schema' || typeof entry !== 'object' || entry.wrapper !== undefined || entry.adaptive !== undefined) continue;
          actual.push(`${file.slice(0, -'.json'.length)} ${name} ${pkg.name}`);
        }
      }
    }
    const catalogue = KNOWN_EXTENSIONS.map((e) => `${e.point} ${e.name} ${e.package}`);
    expect(catalogue.filter((e) => !actual.includes(e)), `in the catalogue but in no manifest: ${fix}`).toEqual([]);
    expect(actual.filter((e) => !catalogue.includes(e)), `in a manifest but not in the catalogue: ${fix}`).toEqual([]);
  });

  it('lists exactly the weft.* extension points the packages define with @SPI', () => {
    const actual = new Set<string>();
    for (const pkg of firstPartyPackages()) {
      for (const file of sourceFiles(join(pkg.dir, 'src'))) {
        for (const match of readFileSync(file, 'utf8').matchAll(/@SPI\(\{\s*id:\s*'(weft\.[A-Za-z.]+)'/g)) {
          actual.add(`${match[1]} ${pkg.name}`);
        }
      }
    }
    const catalogue = KNOWN_EXTENSION_POINTS.map((p) => `${p.id} ${p.definedBy}`);
    expect([...actual].sort(), fix).toEqual([...catalogue].sort());
  });
});
