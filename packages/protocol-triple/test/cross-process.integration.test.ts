// End to end across processes: a provider process (test/support/provider-process.mjs) and a consumer in this
// process. Fail-mock answers once the provider is killed (SIGKILL), isAvailable() follows the connection, calls
// work again after the provider restarts (reconnect), and provider filters (tps, executelimit, timeout) reach the
// consumer over the network with their exact codes.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { Invocation, RpcError, RpcErrorCode } from '@weft/core';
import { createTestApp, freePort, type TestApp } from '@weft/test-utils';

import { Declined, Greeter, Harness, waitFor } from './support/harness.js';

const script = fileURLToPath(new URL('./support/provider-process.mjs', import.meta.url));
const consumerScript = fileURLToPath(new URL('./support/consumer-process.mjs', import.meta.url));
const children: ChildProcess[] = [];
const roots: TestApp[] = [];
const consumerSide = new Harness(['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/mock']);

afterEach(async () => {
  await consumerSide.close();
  for (const child of children.splice(0)) await stop(child, 'SIGKILL');
  for (const root of roots.splice(0)) root.cleanup();
});

function providerRoot(packages: readonly string[]): string {
  const app = createTestApp(['@weft/core', '@weft/cluster', '@weft/protocol-triple', ...packages], { prefix: 'weft-tri-provider' });
  roots.push(app);
  return app.root;
}

/** Spawns a provider process and resolves once it printed "ready". */
async function startProvider(root: string, port: number, options: object = {}): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, root, String(port), JSON.stringify(options)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, WEFT_LOG: 'silent' },
  });
  children.push(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('ready\n')) resolve();
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code, signal) => reject(new Error(`provider exited (${code ?? signal}) before it was ready:\n${output}`)));
  });
  return child;
}

/** Stops a child by PID and waits for it to exit. */
async function stop(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  process.kill(child.pid as number, signal);
  await exited;
}

describe('across processes: fail-mock, availability and reconnect', () => {
  it('fail-mock answers while the provider process is dead; calls reach it again after a restart', async () => {
    const root = providerRoot([]);
    const port = await freePort();
    const first = await startProvider(root, port);
    const consumer = await consumerSide.start('consumer');
    const reconnect = { 'reconnect-backoff': '50', 'reconnect-max-backoff': '200' };
    const greeter = await consumer.refer(Greeter, {
      url: `tri://127.0.0.1:${port}`,
      mock: 'fail:return "fallback"',
      retries: 1,
      timeout: 2000,
      parameters: reconnect,
    });
    const invoker = await consumerSide.referInvoker(consumer, port, reconnect);

    expect(invoker.isAvailable()).toBe(true);
    expect(await greeter.sayHello('world')).toBe(`hello world from ${first.pid}`);
    // A business error is not degraded by fail-mock.
    const declined = await greeter.decline('no').catch((e: unknown) => e);
    expect(declined).toBeInstanceOf(Declined);
    expect((declined as Declined).message).toBe('declined: no');

    await stop(first, 'SIGKILL');
    await waitFor(() => !invoker.isAvailable(), 5000, 'the invoker to see the provider gone');
    expect(await greeter.sayHello('world')).toBe('fallback');
    expect(await greeter.sayHello('again')).toBe('fallback');
    const direct = await Promise.resolve(invoker.invoke(new Invocation({ methodName: 'sayHello', args: ['x'], service: Greeter }))).catch(
      (e: unknown) => e,
    );
    expect((direct as RpcError).code).toBe(RpcErrorCode.NETWORK);

    const second = await startProvider(root, port);
    await waitFor(() => invoker.isAvailable(), 5000, 'the invoker to reconnect');
    expect(await greeter.sayHello('back')).toBe(`hello back from ${second.pid}`);
    await invoker.destroy();
  });
});

describe('across processes: provider filters reach the consumer', () => {
  it('tps and executelimit refusals arrive as `limit-exceeded`, the provider timeout as `timeout`', async () => {
    const root = providerRoot(['@weft/filter-tpslimit', '@weft/filter-executelimit', '@weft/filter-timeout']);
    const port = await freePort();
    await startProvider(root, port, {
      timeout: 5000,
      methods: { sayHello: { tps: 3 }, sleep: { executes: 1 }, wait: { timeout: 100 } },
    });
    const consumer = await consumerSide.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 5000 });

    for (let i = 0; i < 3; i++) expect(await greeter.sayHello(`#${i}`)).toMatch(/^hello #\d from/);
    const limited = await greeter.sayHello('#4').catch((e: unknown) => e);
    expect(limited).toBeInstanceOf(RpcError);
    expect((limited as RpcError).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect((limited as RpcError).message).toContain('sayHello');

    const [a, b] = await Promise.allSettled([greeter.sleep(400), greeter.sleep(400)]);
    const outcomes = [a, b].map((o) => (o.status === 'fulfilled' ? o.value : (o.reason as RpcError).code));
    expect(outcomes.sort()).toEqual([400, RpcErrorCode.LIMIT_EXCEEDED].sort());
    expect(await greeter.sleep(10)).toBe(10);

    const started = Date.now();
    const late = await greeter.wait(2000).catch((e: unknown) => e);
    expect((late as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    expect((late as RpcError).message).toContain('Provider gave up');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(await greeter.add(1, 2)).toBe(3);
  });
});

describe('across processes: idle connections do not keep a consumer alive', () => {
  it('a consumer process that never shuts down still exits once its call is done', async () => {
    const port = await freePort();
    await startProvider(providerRoot([]), port);
    const consumerRoot = createTestApp(['@weft/core', '@weft/cluster', '@weft/protocol-triple'], { prefix: 'weft-tri-consumer' });
    roots.push(consumerRoot);
    const child = spawn(process.execPath, [consumerScript, consumerRoot.root, String(port)], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const started = Date.now();
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(output).toMatch(/^hello idle from \d+\n$/);
    expect(code).toBe(0);
    // Well before the 60 s heartbeat or any reconnect timer could have fired.
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
