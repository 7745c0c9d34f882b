import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Runs every ```js run block of the package README as an ES module inside a scratch application that has
// `@weft/core` installed (a symlink to this package, which must be built), so the README cannot rot.
// Snippets are plain JavaScript (no types, no decorators), import `@weft/core` by name, and check their own
// results with node:assert: a snippet passes when it exits with code 0.

const coreDir = fileURLToPath(new URL('..', import.meta.url));
const readmePath = join(coreDir, 'README.md');

interface Snippet {
  /** The nearest heading above the block. */
  readonly heading: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly code: string;
}

/** The fenced blocks whose info string is `js run` (or `ts run`, which is rejected below), in order. */
function extractSnippets(markdown: string): { runnable: Snippet[]; typescript: Snippet[] } {
  const runnable: Snippet[] = [];
  const typescript: Snippet[] = [];
  const lines = markdown.split('\n');
  let heading = '(top)';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const title = /^#{1,6}\s+(.*)$/.exec(line);
    if (title !== null) {
      heading = (title[1] as string).trim();
      continue;
    }
    const fence = /^(`{3,})\s*(\w+)\s+run\s*$/.exec(line);
    if (fence === null) continue;
    const end = lines.findIndex((l, j) => j > i && l.trimEnd() === fence[1]);
    if (end < 0) throw new Error(`README.md line ${i + 1}: unterminated code block`);
    const snippet = { heading, line: i + 1, code: lines.slice(i + 1, end).join('\n') };
    (fence[2] === 'js' ? runnable : typescript).push(snippet);
    i = end;
  }
  return { runnable, typescript };
}

const { runnable, typescript } = extractSnippets(readFileSync(readmePath, 'utf8'));
let app: string;

beforeAll(() => {
  if (!existsSync(join(coreDir, 'dist', 'index.js'))) {
    throw new Error('@weft/core is not built: run "npx tsc -p tsconfig.build.json" in packages/core first.');
  }
  app = realpathSync(mkdtempSync(join(tmpdir(), 'weft-readme-')));
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'readme-snippets-app',
      version: '1.0.0',
      private: true,
      type: 'module',
      dependencies: { '@weft/core': '*' },
    }),
  );
  mkdirSync(join(app, 'node_modules', '@weft'), { recursive: true });
  symlinkSync(coreDir, join(app, 'node_modules', '@weft', 'core'), 'dir');
});

afterAll(() => {
  if (app !== undefined) rmSync(app, { recursive: true, force: true });
});

describe('README.md snippets', () => {
  it('has runnable snippets (at least the quick start and the URL model), all in JavaScript', () => {
    expect(runnable.length).toBeGreaterThanOrEqual(2);
    expect(runnable.map((s) => s.heading)).toEqual(expect.arrayContaining(['Quick start: the extension kernel', 'The URL model']));
    // A ```ts run block cannot be executed by Node: write runnable snippets as plain JavaScript.
    expect(typescript.map((s) => `line ${s.line}`)).toEqual([]);
  });

  it.each(runnable.map((s, i) => [`${s.heading} (README.md line ${s.line})`, s, i] as const))(
    'runs: %s',
    (_title, snippet, index) => {
      expect(snippet.code).toMatch(/from '@weft\/core(?:\/spi)?'/);
      const file = join(app, `snippet-${index + 1}.mjs`);
      writeFileSync(file, `${snippet.code}\n`);
      const run = spawnSync(process.execPath, [file], {
        cwd: app,
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, WEFT_LOG: 'warn' },
      });
      const output = `exit code ${String(run.status)}${run.signal ? ` (signal ${run.signal})` : ''}\n${run.stdout}\n${run.stderr}`;
      expect(run.status, output).toBe(0);
    },
  );
});
