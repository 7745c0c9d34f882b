import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { defineService, WeftApplication, type CallableProxy, type ExportOptions, type Logger, type ReferOptions } from '@weft/core';
import { createTestApp, RecordingLogger } from '@weft/test-utils';

/** The package directory (for README tests). */
export const packageRoot = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

/** A business error the implementation throws. */
export class OutOfStock extends Error {
  override name = 'OutOfStock';
}

/** The service every test exports. */
export const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String, Number], returns: String },
  ping: { args: [String], returns: String },
  seq: { args: [Number, Number], returns: Number },
  buy: { args: [String], returns: String, throws: [OutOfStock] },
  now: { returns: String },
});

/**
 * Its implementation; `slow` delays `ping` by that many ms. `seq`, `sayHello`, `buy` and `now` are synchronous, so
 * their calls complete (and get their line) before the caller's next call arrives; `asyncSeq` makes `seq` answer
 * after a macrotask instead, so that calls started together are all in flight at once.
 */
export function greeterImpl(slow = 0, asyncSeq = false) {
  return {
    sayHello: (name: string, times: number) => `hello ${name} x${times}`,
    ping: async (text: string) => {
      if (slow > 0) await new Promise((resolve) => setTimeout(resolve, slow));
      return text;
    },
    seq: (_caller: number, n: number): number | Promise<number> =>
      asyncSeq ? new Promise<number>((resolve) => setImmediate(() => resolve(n))) : n,
    buy: (item: string): string => {
      throw new OutOfStock(`no more ${item}`);
    },
    now: () => 'now',
  };
}

/** One running test application with a temp directory for log files. */
export interface TestApp {
  readonly app: WeftApplication;
  readonly logger: RecordingLogger;
  /** A temp directory for log files. */
  readonly dir: string;
  /** Exports the Greeter with `parameters` and refers it (injvm, failfast: one attempt per call). */
  greeter(
    parameters: ExportOptions['parameters'],
    options?: { readonly slow?: number; readonly asyncSeq?: boolean; readonly export?: ExportOptions; readonly refer?: ReferOptions },
  ): Promise<CallableProxy<typeof Greeter.methods>>;
  /** Shuts the app down (idempotent) and removes the temp directories. */
  close(): Promise<void>;
}

const open: TestApp[] = [];

/** Starts an application with `@weft/core`, `@weft/cluster` and this package (or `packages`). */
export async function startApp(
  options: { readonly packages?: readonly string[]; readonly logger?: Logger; readonly name?: string } = {},
): Promise<TestApp> {
  const test = createTestApp([...(options.packages ?? ['@weft/core', '@weft/cluster', '@weft/filter-accesslog'])]);
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'weft-accesslog-')));
  const logger = new RecordingLogger();
  const app = await WeftApplication.start({ root: test.root, logger: options.logger ?? logger, name: options.name ?? 'shop' });
  const handle: TestApp = {
    app,
    logger,
    dir,
    async greeter(parameters, more = {}) {
      await app.export(Greeter, greeterImpl(more.slow, more.asyncSeq), { ...more.export, parameters });
      return app.refer(Greeter, { cluster: 'failfast', version: more.export?.version, group: more.export?.group, ...more.refer });
    },
    async close() {
      await app.shutdown();
      rmSync(dir, { recursive: true, force: true });
      test.cleanup();
    },
  };
  open.push(handle);
  return handle;
}

/** Closes every app started by the test file (for afterEach). */
export async function closeAll(): Promise<void> {
  await Promise.all(open.splice(0).map((t) => t.close()));
}

/** The lines of a file (without the final empty one). */
export function readLines(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  expectTerminated(text);
  return text === '' ? [] : text.slice(0, -1).split('\n');
}

function expectTerminated(text: string): void {
  if (text !== '' && !text.endsWith('\n')) throw new Error(`log file does not end with a line break: …${JSON.stringify(text.slice(-80))}`);
}

/** Polls `condition` every 5 ms until it holds (or fails after `timeoutMs`). */
export async function until(condition: () => boolean, timeoutMs = 5000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export { RecordingLogger };
