// The committed generated code is what `npm run generate` (buf generate + protoc-gen-es) makes of the .proto files.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

const pkg = join(dirname(fileURLToPath(import.meta.url)), '..');
const bin = join(pkg, '..', '..', 'node_modules', '.bin');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** Runs `buf generate` in `dir` into a temporary output root; returns that root. */
function generate(dir: string): string {
  const out = mkdtempSync(join(tmpdir(), 'weft-buf-'));
  const run = spawnSync(join(bin, 'buf'), ['generate', '-o', out], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}${delimiter}${process.env['PATH'] ?? ''}` },
  });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return out;
}

describe('generated code', () => {
  for (const [dir, gen] of [
    [pkg, join(pkg, 'src', 'gen')],
    [join(pkg, 'example'), join(pkg, 'example', 'gen')],
  ] as const) {
    it(`${relative(pkg, gen)} is fresh`, () => {
      const out = generate(dir);
      try {
        const fresh = join(out, relative(dir, gen));
        const names = files(fresh).map((f) => relative(fresh, f));
        expect(names.length).toBeGreaterThan(0);
        expect(files(gen).map((f) => relative(gen, f)).sort()).toEqual(names.sort());
        for (const name of names) expect(readFileSync(join(gen, name), 'utf8'), name).toBe(readFileSync(join(fresh, name), 'utf8'));
      } finally {
        rmSync(out, { recursive: true, force: true });
      }
    });
  }
});
