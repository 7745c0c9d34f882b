// Shared pieces of the ZooKeeper registry tests: the demo service, applications wired to a ZooKeeper registry
// (with the test-only `loop` transport), providers that count their calls, and bounded polling.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { defineService, Protocol, WeftApplication, type ExportedService } from '@weft/core';
import { createTestApp, freePort, RecordingLogger } from '@weft/test-utils';

import { LoopProtocol } from './loop-protocol.mjs';

/** The interface of the spec's worked example (wire-and-registry §B.5.4). */
export const DEMO = 'com.alibaba.dubbo.demo.DemoService';

/** The demo service: `sayHello` is what overrides degrade; `echo` shows other methods are untouched. */
export const DemoService = defineService(DEMO, {
  sayHello: { args: [String], returns: String },
  echo: { args: [String], returns: String },
});

const packagesDir = fileURLToPath(new URL('../../..', import.meta.url));

/** Whether `@weft/protocol-triple` has been built (it is developed alongside; the `tri` round trip needs it). */
export const TRIPLE_BUILT = existsSync(join(packagesDir, 'protocol-triple', 'dist', 'index.js'));

/** Packages every test application installs (`@weft/protocol-triple` only where a test asks for it). */
export const PACKAGES = ['@weft/core', '@weft/cluster', '@weft/mock', '@weft/registry-zookeeper'];

/** A provider implementation that records who answered and how often. */
export interface DemoProvider {
  readonly label: string;
  readonly calls: { sayHello: number; echo: number };
  readonly impl: { sayHello(name: string): string; echo(text: string): string };
}

/** A provider whose answers name it (`hello <name> from <label>`, `<label>:<text>`). */
export function demoProvider(label: string): DemoProvider {
  const calls = { sayHello: 0, echo: 0 };
  return {
    label,
    calls,
    impl: {
      sayHello: (name: string) => {
        calls.sayHello++;
        return `hello ${name} from ${label}`;
      },
      echo: (text: string) => {
        calls.echo++;
        return `${label}:${text}`;
      },
    },
  };
}

/** A started application and what it logged. */
export interface TestApplication {
  readonly app: WeftApplication;
  readonly logger: RecordingLogger;
  readonly root: string;
}

/** Starts applications on a ZooKeeper registry and shuts them all down at the end of a test. */
export class Applications {
  private readonly started: { app: WeftApplication; cleanup: () => void }[] = [];

  /** Starts `name` on `registry` (a `zookeeper://` URL), with the `loop` transport installed. */
  async start(name: string, registry: string, extraPackages: readonly string[] = []): Promise<TestApplication> {
    const created = createTestApp([...PACKAGES, ...extraPackages], { prefix: 'weft-zk-app', name });
    const logger = new RecordingLogger();
    let app: WeftApplication;
    try {
      app = await WeftApplication.start({ root: created.root, name, registry, logger });
    } catch (error) {
      created.cleanup();
      throw error;
    }
    app.model.getExtensionLoader(Protocol).addExtension('loop', LoopProtocol);
    this.started.push({ app, cleanup: created.cleanup });
    return { app, logger, root: created.root };
  }

  /** Shuts down one application early (its registry session closes). */
  async stop(app: WeftApplication): Promise<void> {
    const at = this.started.findIndex((s) => s.app === app);
    if (at < 0) return;
    const [entry] = this.started.splice(at, 1);
    await entry?.app.shutdown({ timeout: 1000 });
    entry?.cleanup();
  }

  /** Shuts down every application started. */
  async stopAll(): Promise<void> {
    for (const entry of this.started.splice(0).reverse()) {
      await entry.app.shutdown({ timeout: 1000 });
      entry.cleanup();
    }
  }
}

/** Exports the demo service over `loop` on a free port (registered with the application's registry). */
export async function exportDemo(app: WeftApplication, provider: DemoProvider, options: { readonly port?: number } = {}): Promise<ExportedService> {
  const port = options.port ?? (await freePort());
  return app.export(DemoService, provider.impl, { protocol: 'loop', host: '127.0.0.1', port });
}

/**
 * Polls `probe` until it returns a truthy value (errors count as "not yet"), at most `timeout` ms.
 * @returns the truthy value.
 */
export async function waitFor<T>(what: string, probe: () => T | Promise<T>, options: { readonly timeout?: number; readonly interval?: number } = {}): Promise<NonNullable<T>> {
  const timeout = options.timeout ?? 5000;
  const deadline = Date.now() + timeout;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value as NonNullable<T>;
      last = value;
    } catch (error) {
      last = error;
    }
    if (Date.now() >= deadline) {
      const detail = last instanceof Error ? last.message : JSON.stringify(last);
      throw new Error(`timed out after ${timeout} ms waiting for ${what} (last: ${detail})`);
    }
    await sleep(options.interval ?? 25);
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Java's `URLEncoder.encode(s, "UTF-8")`, written independently of Weft's `URL.encode` so node names are checked
 * against Java's rule rather than against themselves: letters, digits and `. - * _` kept, space → `+`, everything
 * else `%XX` in upper-case hex.
 */
export function javaUrlEncode(s: string): string {
  return encodeURIComponent(s)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** A provider running in its own process (test/support/provider-process.mjs). */
export interface ProviderProcess {
  readonly label: string;
  readonly port: number;
  readonly pid: number;
  /** Kills it with SIGKILL (a crash: no unregister, no session close) and waits for it to exit. */
  crash(): Promise<void>;
}

const providerScript = fileURLToPath(new URL('./provider-process.mjs', import.meta.url));
/** How to crash each provider process started and not yet killed. */
const spawned = new Set<() => Promise<void>>();

/** Starts a provider process of the demo service on `registry`; resolves once it has registered. */
export async function spawnProvider(options: {
  readonly root: string;
  readonly registry: string;
  readonly label: string;
  readonly port: number;
  /** Export parameters (e.g. a static `dubbo.tag`). */
  readonly parameters?: Readonly<Record<string, string>>;
}): Promise<ProviderProcess> {
  const config = JSON.stringify({ ...options, name: 'demo-provider' });
  const child = spawn(process.execPath, [providerScript, config], { stdio: ['ignore', 'pipe', 'pipe'] });
  const pid = child.pid;
  if (pid === undefined) throw new Error('could not start the provider process');
  let output = '';
  child.stdout.setEncoding('utf8');
  child.stderr.setEncoding('utf8');
  child.stdout.on('data', (chunk: string) => (output += chunk));
  child.stderr.on('data', (chunk: string) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const crash = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  };
  spawned.add(crash);
  try {
    await waitFor(`provider ${options.label} to register`, () => output.includes('READY') || child.exitCode !== null, { timeout: 20_000 });
  } catch (error) {
    await crash();
    throw error;
  }
  if (!output.includes('READY')) throw new Error(`provider ${options.label} exited: ${output}`);
  return { label: options.label, port: options.port, pid, crash };
}

/** Kills every provider process still running (by PID). */
export async function killProviders(): Promise<void> {
  await Promise.all([...spawned].map((crash) => crash()));
  spawned.clear();
}
