import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

// Every ```js run block of the README runs as an ES module from this package (its assertions are node:assert).
const blocks = [...readFileSync(resolve(packageDir, 'README.md'), 'utf8').matchAll(/^```js run\n([\s\S]*?)^```$/gm)].map((m) => m[1] as string);

describe('README snippets', () => {
  it('has runnable snippets', () => {
    expect(blocks.length).toBeGreaterThan(0);
  });

  it.each(blocks.map((code, i) => [i + 1, code] as const))('snippet %i runs', (_n, code) => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: packageDir, encoding: 'utf8', timeout: 15_000 });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
