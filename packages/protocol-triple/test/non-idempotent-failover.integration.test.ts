// A method declared `idempotent: false`, called over tri on two provider processes, one of which is killed in the
// middle of the run: no request may run twice. The providers print every execution (request id) on stdout, a pipe
// (synchronous on Linux, so nothing is lost when a process is killed); the test counts executions per id.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, RpcError, WeftApplication } from '@weft/core';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

const Wallet = defineService('org.acme.Wallet', {
  pay: { args: [String], returns: String, idempotent: false },
});

const PROVIDER = `
import { defineService, WeftApplication } from '@weft/core';
const Wallet = defineService('org.acme.Wallet', { pay: { args: [String], returns: String, idempotent: false } });
const name = process.argv[3];
const app = await WeftApplication.start({ root: process.cwd(), name: 'wallet-' + name });
await app.export(Wallet, {
  pay: async (id) => {
    process.stdout.write('exec ' + id + '\\n');
    await new Promise((resolve) => setTimeout(resolve, 2));
    return name;
  },
}, { protocol: 'tri', port: Number(process.argv[2]) });
console.log('ready');
`;

interface Provider {
  readonly child: ChildProcess;
  readonly port: number;
  readonly executions: Map<string, number>;
}

let testApp: TestApp;
const providers: Provider[] = [];

async function startProvider(name: string): Promise<Provider> {
  const port = await freePort();
  const child = spawn(process.execPath, ['provider.mjs', String(port), name], { cwd: testApp.root, stdio: ['ignore', 'pipe', 'pipe'] });
  const provider: Provider = { child, port, executions: new Map() };
  providers.push(provider);
  await new Promise<void>((resolve, reject) => {
    let pending = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      pending += chunk.toString();
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        if (line === 'ready') resolve();
        else if (line.startsWith('exec ')) {
          const id = line.slice(5);
          provider.executions.set(id, (provider.executions.get(id) ?? 0) + 1);
        }
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`provider ${name} exited with ${code}: ${err}`)));
    setTimeout(() => reject(new Error(`provider ${name} not ready after 20 s: ${err}`)), 20_000);
  });
  return provider;
}

beforeAll(async () => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/protocol-triple'], { prefix: 'weft-non-idempotent' });
  writeFileSync(join(testApp.root, 'provider.mjs'), PROVIDER);
  await Promise.all([startProvider('a'), startProvider('b')]);
}, 30_000);

afterAll(() => {
  for (const { child } of providers) if (!child.killed && child.exitCode === null) child.kill('SIGKILL');
  testApp.cleanup();
});

describe('a non-idempotent method over tri, one of two providers killed mid-run', () => {
  it('runs no request twice; calls that may have run fail and say so, the others fail over', async () => {
    const [a, b] = providers as [Provider, Provider];
    const app = await WeftApplication.start({ root: testApp.root, name: 'wallet-consumer', logger: new RecordingLogger() });
    try {
      const wallet = await app.refer(Wallet, {
        url: `tri://127.0.0.1:${a.port}/org.acme.Wallet;tri://127.0.0.1:${b.port}/org.acme.Wallet`,
        retries: 2,
        timeout: 3000,
        loadbalance: 'roundrobin',
      });
      const total = 3000;
      const answers = new Map<string, string>();
      const failures = new Map<string, RpcError>();
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < total) {
          const id = `r${next++}`;
          if (next === total / 3) a.child.kill('SIGKILL');
          try {
            answers.set(id, await wallet.pay(id));
          } catch (error) {
            failures.set(id, RpcError.from(error));
          }
        }
      };
      await Promise.all(Array.from({ length: 16 }, worker));
      expect(answers.size + failures.size).toBe(total);

      const runs = new Map<string, number>();
      for (const { executions } of providers) for (const [id, n] of executions) runs.set(id, (runs.get(id) ?? 0) + n);
      const twice = [...runs].filter(([, n]) => n > 1).map(([id]) => id);
      if (process.env['WEFT_REPORT']) console.log(`answers ${answers.size}, failures ${failures.size}, twice ${twice.length}`);
      expect(twice).toEqual([]);
      // Every answer came from a provider that ran the request, exactly once.
      for (const [id, who] of answers) expect(runs.get(id), `${id} answered by ${who}`).toBe(1);
      // The failures are the calls in flight on the killed provider: they say why they were not retried.
      for (const [id, error] of failures) {
        expect(error.message, id).toContain('Not retried: pay() is declared idempotent: false and the request may have reached the provider.');
      }
      expect(failures.size).toBeLessThan(50);
      // After the kill, calls that found the dead provider unconnected were retried on the other one.
      const late = [...answers].filter(([id]) => Number(id.slice(1)) > total / 2);
      expect(late.length).toBeGreaterThan(total / 2 - 50);
      expect(late.every(([, who]) => who === 'b')).toBe(true);
    } finally {
      await app.shutdown();
    }
  }, 30_000);
});
