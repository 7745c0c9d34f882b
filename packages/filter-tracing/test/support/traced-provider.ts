// Starts support/provider-process.mjs (a traced provider in its own process) and asks it for its finished spans.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

import type { SpanData } from './otel.mjs';

const script = fileURLToPath(new globalThis.URL('./provider-process.mjs', import.meta.url));

/** A running traced provider process. */
export interface TracedProvider {
  /** The spans the provider has finished so far. */
  spans(): Promise<SpanData[]>;
  /** Stops the process (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Spawns the provider for the application root `root` on 127.0.0.1:`port` over `protocol`; resolves once it is ready. */
export async function startTracedProvider(root: string, port: number, protocol: 'tri' | 'dubbo' = 'tri'): Promise<TracedProvider> {
  const child: ChildProcess = spawn(process.execPath, [script, root, String(port), protocol], { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, WEFT_LOG: 'silent' } });
  let lines: string[] = [];
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const parts = output.split('\n');
      output = parts.pop() ?? '';
      for (const line of parts) {
        if (line === 'ready') resolve();
        else lines.push(line);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code, signal) => reject(new Error(`provider exited (${code ?? signal}) before it was ready:\n${output}`)));
  });
  return {
    async spans() {
      lines = [];
      child.stdin?.write('spans\n');
      for (let i = 0; i < 200 && lines.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      return JSON.parse(lines[0] ?? '[]') as SpanData[];
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      process.kill(child.pid as number, 'SIGTERM');
      await exited;
    },
  };
}

/** The spans of one `Greeter.hello` call through the provider: the test's root, both sides, the nested call. */
export interface HelloTrace {
  readonly root: SpanData | undefined;
  readonly client: SpanData | undefined;
  readonly server: SpanData | undefined;
  /** The implementation's own span. */
  readonly work: SpanData | undefined;
  readonly nestedClient: SpanData | undefined;
  readonly nestedServer: SpanData | undefined;
}

/** Finds the spans of a `Greeter.hello` call among the consumer's (`mine`) and the provider's (`theirs`). */
export function helloTrace(mine: readonly SpanData[], theirs: readonly SpanData[]): HelloTrace {
  const CLIENT = 2;
  const SERVER = 1;
  return {
    root: mine.find((s) => s.name === 'test-root'),
    client: mine.find((s) => s.name === 'org.acme.Greeter/hello'),
    server: theirs.find((s) => s.name === 'org.acme.Greeter/hello' && s.kind === SERVER),
    work: theirs.find((s) => s.name === 'app-work'),
    nestedClient: theirs.find((s) => s.name === 'org.acme.Downstream/ping' && s.kind === CLIENT),
    nestedServer: theirs.find((s) => s.name === 'org.acme.Downstream/ping' && s.kind === SERVER),
  };
}

/** The parent of each span of the trace, in order client, server, work, nested client, nested server. */
export function parentsOf(t: HelloTrace): (string | undefined)[] {
  return [t.client, t.server, t.work, t.nestedClient, t.nestedServer].map((s) => s?.parentSpanId);
}

/** What each parent should be: root → client → server → work → nested client. */
export function expectedParents(t: HelloTrace): (string | undefined)[] {
  return [t.root, t.client, t.server, t.work, t.nestedClient].map((s) => s?.spanId);
}

/** The attributes of a client span of `service`/`method` to 127.0.0.1:`port` (Dubbo's conventions), plus `extra`. */
export function clientAttributes(service: string, method: string, port: number, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    'rpc.system': 'apache_dubbo',
    'rpc.service': service,
    'rpc.method': method,
    'net.peer.name': '127.0.0.1',
    'net.peer.port': port,
    'server.address': '127.0.0.1',
    'server.port': port,
    ...extra,
  };
}

/** The attributes of a server span of `service`/`method`, plus `extra`. */
export function serverAttributes(service: string, method: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { 'rpc.system': 'apache_dubbo', 'rpc.service': service, 'rpc.method': method, ...extra };
}
