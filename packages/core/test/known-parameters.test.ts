import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KNOWN_PARAMETERS } from '@weft/core';
import { parseManifest } from '@weft/core/spi';

// Three lists name Weft's URL keys: docs/reference/parameters.md (for people), core's catalogue KNOWN_PARAMETERS
// (what a warning says about a key whose package is not installed) and the "keys" of every first-party manifest
// (what an installed package reads). This test keeps them one list.

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const CORE = '@weft/core';

/** key → whether the reference marks it *method*. */
function documented(): Map<string, boolean> {
  const text = readFileSync(join(repo, 'docs', 'reference', 'parameters.md'), 'utf8');
  const keys = new Map<string, boolean>();
  for (const line of text.split('\n')) {
    const cell = /^\|\s*([^|]+?)\s*\|/.exec(line)?.[1];
    if (cell === undefined || cell === 'key' || /^-+$/.test(cell)) continue;
    for (const key of cell.matchAll(/`([^`]+)`/g)) {
      const name = (key[1] as string).replace(/^<method>\./, '');
      keys.set(name, (keys.get(name) ?? false) || cell.includes('*method*'));
    }
  }
  return keys;
}

/** package name → key → method flag, from every first-party package's manifests. */
function manifestKeys(): Map<string, Map<string, boolean>> {
  const out = new Map<string, Map<string, boolean>>();
  for (const dir of readdirSync(join(repo, 'packages'))) {
    const metaInf = join(repo, 'packages', dir, 'META-INF', 'weft');
    let files: string[];
    try {
      if (!statSync(metaInf).isDirectory()) continue;
      files = readdirSync(metaInf).filter((f) => f.endsWith('.json'));
    } catch {
      continue;
    }
    const name = (JSON.parse(readFileSync(join(repo, 'packages', dir, 'package.json'), 'utf8')) as { name: string }).name;
    const keys = out.get(name) ?? new Map<string, boolean>();
    out.set(name, keys);
    for (const file of files) {
      const { entries, problems } = parseManifest(readFileSync(join(metaInf, file), 'utf8'));
      expect(problems, `${dir}/META-INF/weft/${file}`).toEqual([]);
      for (const entry of entries) for (const k of entry.keys) keys.set(k.key, (keys.get(k.key) ?? false) || k.method);
    }
  }
  return out;
}

describe('the URL key lists agree', () => {
  it('the catalogue lists exactly the keys docs/reference/parameters.md documents, with the same method marks', () => {
    const docs = documented();
    const catalogue = new Map([...KNOWN_PARAMETERS].map(([key, row]) => [key, row.method]));
    expect([...catalogue.keys()].filter((k) => !docs.has(k)), 'in KNOWN_PARAMETERS, not documented').toEqual([]);
    expect([...docs.keys()].filter((k) => !catalogue.has(k)), 'documented, not in KNOWN_PARAMETERS').toEqual([]);
    const marks = [...docs].filter(([key, method]) => catalogue.get(key) !== method).map(([key, method]) => `${key}: docs ${method}, catalogue ${catalogue.get(key)}`);
    expect(marks).toEqual([]);
  });

  it('every key a first-party manifest declares is in the catalogue under that package, and per method only if the catalogue says so', () => {
    const wrong: string[] = [];
    for (const [pkg, keys] of manifestKeys()) {
      for (const [key, method] of keys) {
        const row = KNOWN_PARAMETERS.get(key);
        if (row === undefined) wrong.push(`${pkg} declares ${key}, which the catalogue does not list`);
        else if (!row.packages.includes(pkg)) wrong.push(`${pkg} declares ${key}, listed for ${row.packages.join(', ')} only`);
        else if (method && !row.method) wrong.push(`${pkg} declares ${key} per method, the catalogue says it is service-level only`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('every package the catalogue names declares the key in its manifests (core: its own keys need no manifest)', () => {
    const manifests = manifestKeys();
    const missing: string[] = [];
    for (const row of KNOWN_PARAMETERS.values()) {
      for (const pkg of row.packages) {
        if (pkg === CORE) continue;
        const keys = manifests.get(pkg);
        if (keys === undefined) missing.push(`${row.key}: ${pkg} is not a first-party package with manifests`);
        else if (!keys.has(row.key)) missing.push(`${row.key}: ${pkg}'s manifests do not declare it`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('plugin keys name the plugin first, so a "not installed" hint names the right package', () => {
    expect(KNOWN_PARAMETERS.get('tps')?.packages[0]).toBe('@weft/filter-tpslimit');
    expect(KNOWN_PARAMETERS.get('mock')?.packages[0]).toBe('@weft/mock');
    expect(KNOWN_PARAMETERS.get('timeout')?.packages[0]).toBe(CORE);
  });
});
