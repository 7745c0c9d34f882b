// Test helpers shared by Weft's packages (plain JS: no build step).
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { Invoker } from '@weft/core';

const packagesDir = dirname(dirname(fileURLToPath(import.meta.url)));

/**
 * Creates a throwaway application directory whose package.json depends on the given workspace packages, each
 * installed as a symlink to the workspace package (as `npm install` of a workspace does), so discovery finds
 * exactly those packages and Node resolves one copy of each.
 */
export function createTestApp(packages, options = {}) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `${options.prefix ?? 'weft-test-app'}-`)));
  const dependencies = {};
  for (const name of packages) {
    const match = /^@weft\/(.+)$/.exec(name);
    if (match === null) throw new Error(`createTestApp: only @weft/* workspace packages can be linked (got ${name})`);
    const target = join(packagesDir, match[1]);
    mkdirSync(join(root, 'node_modules', '@weft'), { recursive: true });
    symlinkSync(target, join(root, 'node_modules', '@weft', match[1]), 'dir');
    dependencies[name] = '*';
  }
  writeFileSync(
    join(root, 'package.json'),
    JSON.stringify({ name: options.name ?? 'weft-test-app', version: '1.0.0', private: true, type: 'module', dependencies }, null, 2),
  );
  return { root, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A logger that records every message (for asserting what was logged). */
export class RecordingLogger {
  constructor() {
    this.messages = [];
  }
  debug(message) {
    this.messages.push({ level: 'debug', message });
  }
  info(message) {
    this.messages.push({ level: 'info', message });
  }
  warn(message, error) {
    this.messages.push({ level: 'warn', message, error });
  }
  error(message, error) {
    this.messages.push({ level: 'error', message, error });
  }
  /** Messages of one level. */
  of(level) {
    return this.messages.filter((m) => m.level === level).map((m) => m.message);
  }
}

/**
 * The lines between `// #region <name>` and `// #endregion <name>` of a source text, unindented: lets a test run
 * a README snippet and check that the README shows exactly that code.
 */
export function sourceRegion(source, name) {
  const start = source.indexOf(`// #region ${name}\n`);
  const end = source.indexOf(`// #endregion ${name}`);
  if (start < 0 || end < 0) throw new Error(`no region "${name}" in the source`);
  const lines = source.slice(source.indexOf('\n', start) + 1, end).split('\n').slice(0, -1);
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length));
  return lines.map((l) => l.slice(indent)).join('\n');
}

/**
 * Stands for the rest of a chain in filter tests: answers each call with what `answer(invocation)` returns (or
 * throws), and records the invocations that reached it.
 */
export class StubInvoker extends Invoker {
  constructor(url, answer) {
    super();
    this.url = url;
    this.answer = answer;
    this.reached = [];
  }

  /** How many calls reached it. */
  get calls() {
    return this.reached.length;
  }

  getUrl() {
    return this.url;
  }

  invoke(invocation) {
    this.reached.push(invocation);
    return this.answer(invocation);
  }
}
