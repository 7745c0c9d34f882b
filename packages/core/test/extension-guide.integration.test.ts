// docs/guide/writing-an-extension.md, built and tested as written: every file the guide shows (package.json,
// tsconfig.json, src/*, META-INF/weft/*, vitest.config.ts, test/*) is extracted into a fresh project next to an
// installed copy of @weft/core, and the guide's own test suite runs there — its global setup builds the plugin
// with the guide's tsconfig and installs it into the fixture application with npm, as the guide says to.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const coreDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const repoRoot = join(coreDir, '..', '..');
const guidePath = join(repoRoot, 'docs', 'guide', 'writing-an-extension.md');

/** The files a guide shows: ```ts blocks opening with `// <path>`, and ```json blocks right after "`<path>`:". */
function filesOf(markdown: string): Map<string, string> {
  const files = new Map<string, string>();
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(ts|json)$/.exec(lines[i] as string);
    if (fence === null) continue;
    const end = lines.indexOf('```', i + 1);
    const body = lines.slice(i + 1, end);
    let path: string | undefined;
    if (fence[1] === 'ts') {
      path = /^\/\/ ([\w./-]+\.ts)$/.exec(body[0] ?? '')?.[1];
    } else {
      let before = i - 1;
      while (before >= 0 && (lines[before] as string).trim() === '') before--;
      path = /^`([\w./-]+\.json)`:$/.exec(lines[before] ?? '')?.[1];
    }
    if (path !== undefined) {
      if (files.has(path)) throw new Error(`${guidePath}: ${path} is shown twice`);
      files.set(path, `${body.join('\n')}\n`);
    }
    i = end;
  }
  return files;
}

let root: string;
let project: string;
let files: Map<string, string>;

beforeAll(() => {
  files = filesOf(readFileSync(guidePath, 'utf8'));
  root = realpathSync(mkdtempSync(join(tmpdir(), 'weft-guide-')));
  project = join(root, 'weft-audit');
  for (const [path, content] of files) {
    mkdirSync(dirname(join(project, path)), { recursive: true });
    writeFileSync(join(project, path), content);
  }
  // What `npm install` of the guide's devDependencies provides: a real copy of @weft/core (what the registry
  // would install, so there is one copy of it inside node_modules), and the tools, linked from the repository.
  const modules = join(root, 'node_modules');
  for (const entry of ['package.json', 'dist', 'META-INF', 'manifest.schema.json']) {
    cpSync(join(coreDir, entry), join(modules, '@weft', 'core', entry), { recursive: true });
  }
  for (const name of ['tsyringe', 'reflect-metadata', 'yaml', 'typescript', 'vitest', '@types/node']) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(realpathSync(join(repoRoot, 'node_modules', name)), join(modules, name), 'dir');
  }
  mkdirSync(join(modules, '.bin'));
  symlinkSync(join(modules, 'typescript', 'bin', 'tsc'), join(modules, '.bin', 'tsc'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('the plugin guide (writing-an-extension.md)', () => {
  it('shows every file of the plugin it describes', () => {
    expect([...files.keys()].sort()).toEqual([
      'META-INF/weft/acme.audit.AuditSink.json',
      'META-INF/weft/weft.rpc.Filter.json',
      'package.json',
      'src/audit-filter.ts',
      'src/audit-sink.ts',
      'src/console-audit-sink.ts',
      'src/index.ts',
      'src/memory-audit-sink.ts',
      'src/prefix-audit-sink.ts',
      'src/redacting-audit-sink-wrapper.ts',
      'test/audit-filter.test.ts',
      'test/fixtures/app/package.json',
      'test/pack.test.ts',
      'test/support/install-fixture.ts',
      'tsconfig.json',
      'vitest.config.ts',
    ]);
  });

  it('builds with its own tsconfig and passes its own tests, installed into a fixture app with npm', () => {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) {
      if (value !== undefined && !/^VITEST/.test(key) && key !== 'NODE_OPTIONS') env[key] = value;
    }
    env['PATH'] = `${join(root, 'node_modules', '.bin')}:${env['PATH'] ?? ''}`;
    const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
    const run = spawnSync(process.execPath, [vitest, 'run'], {
      cwd: project,
      env: { ...env, CI: 'true', NO_COLOR: '1' },
      encoding: 'utf8',
      timeout: 170_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(output).toMatch(/Tests\s+4 passed \(4\)/);
    expect(run.status, output).toBe(0);
  }, 180_000);
});
