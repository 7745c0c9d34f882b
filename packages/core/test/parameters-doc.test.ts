import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/reference/parameters.md must document every URL key Weft's packages read, so the reference cannot rot:
// this test collects the keys from the sources — string literals passed to the URL's parameter getters, and the
// values of the `…Keys` constant objects packages export — and checks each has a row in the reference.

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** Keys read by code but not configuration: transport headers and internal bookkeeping. */
const NOT_URL_KEYS = new Set(['weft.category']);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(full);
  }
  return out;
}

function collectKeys(): Map<string, string> {
  const keys = new Map<string, string>();
  for (const pkg of readdirSync(join(repo, 'packages'))) {
    // Tools' own code, not configuration read by Weft: the demo, the benchmarks, and code the CLI scaffolds.
    if (pkg === 'demo' || pkg === 'benchmarks' || pkg === 'test-utils') continue;
    let files: string[];
    try {
      files = sourceFiles(join(repo, 'packages', pkg, 'src'));
    } catch {
      continue;
    }
    for (const file of files.filter((f) => !f.includes('/templates/'))) {
      const code = readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => !/^\s*(\*|\/\/)/.test(line))
        .join('\n');
      const getter = /\.(?:get|has)(?:Method)?(?:Positive)?Parameter(?:Strict)?\(\s*(?:[\w.]+\s*,\s*)?'([^'$]+)'/g;
      for (const match of code.matchAll(getter)) keys.set(match[1] as string, `${pkg}/${file.split('/src/')[1]}`);
      if (/keys\.ts$/.test(file)) {
        for (const block of code.matchAll(/export const (\w*Keys)\s*=\s*\{([\s\S]*?)\}\s*as const/g)) {
          for (const value of (block[2] as string).matchAll(/:\s*'([^']+)'/g)) keys.set(value[1] as string, `${pkg}/${block[1]}`);
        }
      }
    }
  }
  for (const key of NOT_URL_KEYS) keys.delete(key);
  return keys;
}

function documentedKeys(): Set<string> {
  const text = readFileSync(join(repo, 'docs', 'reference', 'parameters.md'), 'utf8');
  const keys = new Set<string>();
  for (const line of text.split('\n')) {
    const cell = /^\|\s*([^|]+?)\s*\|/.exec(line)?.[1];
    if (cell === undefined) continue;
    for (const key of cell.matchAll(/`([^`]+)`/g)) keys.add((key[1] as string).replace(/^<method>\./, ''));
  }
  return keys;
}

describe('docs/reference/parameters.md', () => {
  it('documents every URL key the packages read', () => {
    const documented = documentedKeys();
    const missing = [...collectKeys()].filter(([key]) => !documented.has(key)).map(([key, where]) => `${key} (${where})`);
    expect(missing, `undocumented URL keys — add a row to docs/reference/parameters.md:\n${missing.join('\n')}`).toEqual([]);
  });

  it('found a plausible number of keys (the extraction works)', () => {
    const keys = collectKeys();
    expect(keys.size).toBeGreaterThan(40);
    for (const key of ['timeout', 'retries', 'loadbalance', 'mock', 'tps', 'accesslog', 'token', 'serialization']) {
      expect(keys.has(key), key).toBe(true);
    }
  });
});
