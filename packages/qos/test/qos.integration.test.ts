// QoS over HTTP against a real application: probes, ls, and offline/online taking a tri provider out of the
// embedded registry (consumers stop routing to it; its in-flight call completes) and back.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { main } from '@weft/cli';
import { defineService, RpcError, WeftApplication, type CallableProxy } from '@weft/core';
import { qosServerOf } from '@weft/qos';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String, Number], returns: String } });

let testApp: TestApp;
let dir: string;
let provider: WeftApplication;
let consumer: WeftApplication;
let greeter: CallableProxy<typeof Greeter.methods>;
let qos: string;

async function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string; type: string }> {
  const response = await fetch(`${qos}${path}`, { headers });
  return { status: response.status, body: await response.text(), type: response.headers.get('content-type') ?? '' };
}

/** Runs `weft <argv>` in-process. */
async function weft(argv: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const code = await main(argv, { cwd: process.cwd(), stdout: { write: (c: string) => (stdout += c) }, stderr: { write: (c: string) => (stderr += c) }, env: {} });
  return { code, stdout, stderr };
}

async function eventually(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

beforeAll(async () => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/registry-embedded', '@weft/qos']);
  dir = mkdtempSync(join(tmpdir(), 'weft-qos-'));
  const registry = `embedded://${dir}?poll.interval=30&file-cache=false`;
  provider = await WeftApplication.start({ root: testApp.root, name: 'greeter-app', registry, logger: new RecordingLogger() });
  const qosPort = await freePort();
  await provider.export(
    Greeter,
    { sayHello: async (name: string, delay: number) => (delay > 0 ? new Promise<string>((r) => setTimeout(() => r(`hello ${name}`), delay)) : `hello ${name}`) },
    { protocol: 'tri', port: await freePort(), parameters: { 'qos.port': qosPort } },
  );
  qos = `http://127.0.0.1:${qosPort}`;
  consumer = await WeftApplication.start({ root: testApp.root, name: 'shop', registry, logger: new RecordingLogger() });
  greeter = await consumer.refer(Greeter, { retries: 0, timeout: 3000, check: false, parameters: { 'qos.enable': false } });
});

afterAll(async () => {
  await consumer?.shutdown({ timeout: 1000 });
  await provider?.shutdown({ timeout: 1000 });
  testApp?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('QoS', () => {
  it('starts with the first export, on the configured port, and only there (the consumer disabled it)', () => {
    expect(qosServerOf(provider.model)?.port).toBe(Number(new URL(qos).port));
    expect(qosServerOf(consumer.model)?.port).toBeUndefined();
  });

  it('answers the probes: live, startup, ready (200 true, text/plain)', async () => {
    for (const probe of ['live', 'startup', 'ready']) {
      expect(await get(`/${probe}`)).toEqual({ status: 200, body: 'true', type: 'text/plain; charset=utf-8' });
    }
  });

  it("ls draws Dubbo's tables (centred, the odd space on the left)", async () => {
    const { status, body } = await get('/ls');
    expect(status).toBe(200);
    expect(body.split('\n')).toEqual([
      'As Provider side:',
      '+---------------------+-------------+',
      '|Provider Service Name|     PUB     |',
      '+---------------------+-------------+',
      '|   org.acme.Greeter  |embedded-I(Y)|',
      '+---------------------+-------------+',
      'As Consumer side:',
      '+---------------------+---+',
      '|Consumer Service Name|NUM|',
      '+---------------------+---+',
      '',
    ]);
    const json = await get('/ls?format=json');
    expect(json.type).toBe('application/json; charset=utf-8');
    expect(JSON.parse(json.body)).toMatchObject({ registry: 'embedded', providers: [{ service: 'org.acme.Greeter', registrable: true, registered: true }], consumers: [] });
  });

  it('offline takes the provider out of the registry: consumers stop routing to it, its in-flight call completes; ready turns 503; online brings it back', async () => {
    await eventually(() => (consumer.getDirectory(greeter)?.getAllInvokers().length ?? 0) === 1, 'the consumer sees the provider');
    expect(await greeter.sayHello('ann', 0)).toBe('hello ann');
    const inFlight = greeter.sayHello('slow', 400);

    expect(await get('/offline')).toMatchObject({ status: 200, body: 'OK' });
    await eventually(() => (consumer.getDirectory(greeter)?.getAllInvokers().length ?? 1) === 0, 'the consumer drops the provider');
    expect(await inFlight).toBe('hello slow');
    const refused = await greeter.sayHello('bob', 0).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).code).toBe('no-invoker');
    expect(await get('/ready')).toMatchObject({ status: 503, body: 'false' });
    expect((await get('/ls')).body).toContain('|   org.acme.Greeter  |embedded-I(N)|');
    expect(await get('/live')).toMatchObject({ status: 200, body: 'true' });

    expect(await get('/online/org%5C.acme%5C..*')).toMatchObject({ status: 200, body: 'OK' });
    await eventually(() => (consumer.getDirectory(greeter)?.getAllInvokers().length ?? 0) === 1, 'the consumer sees the provider again');
    expect(await greeter.sayHello('cid', 0)).toBe('hello cid');
    expect(await get('/ready')).toMatchObject({ status: 200, body: 'true' });
  });

  it('answers unknown services, unknown commands, bad and hostile patterns as Dubbo does, or with 400', async () => {
    expect(await get('/offline/org.acme.Nope')).toMatchObject({ status: 200, body: 'service not found' });
    expect(await get('/nope')).toMatchObject({ status: 404, body: '' });
    expect(await get('/ls/a/b')).toMatchObject({ status: 404, body: '' });
    expect(await get(`/offline?service=${encodeURIComponent('(a+)+$')}`)).toMatchObject({ status: 400 });
    expect((await get(`/offline?service=${encodeURIComponent('(')}`)).body).toContain('is not a regular expression');
    const help = (await get('/help')).body;
    for (const name of ['ls', 'online', 'offline', 'ready', 'live', 'startup']) expect(help).toMatch(new RegExp(`\\| +${name} +\\|`));
    expect(help).toContain('Judge if application or service is ready to serve');
    expect((await get('/help/offline')).body).toContain('offline [service key regex]');
    expect((await get('/help/nope')).body).toBe('no such command:nope');
  });

  it('weft qos runs the same commands: output, exit codes, unreachable server', async () => {
    const port = new URL(qos).port;
    expect(await weft(['qos', 'ready', '--port', port])).toEqual({ code: 0, stdout: 'true\n', stderr: '' });
    const ls = await weft(['qos', 'ls', '--port', port, '--json']);
    expect(ls.code).toBe(0);
    expect(JSON.parse(ls.stdout)).toMatchObject({ registry: 'embedded', providers: [{ service: 'org.acme.Greeter' }] });
    expect(await weft(['qos', 'offline', 'org.acme.Nope', '--port', port])).toMatchObject({ code: 0, stdout: 'service not found\n' });
    expect(await weft(['qos', 'offline', 'org\\.acme\\.Greeter', '--port', port])).toMatchObject({ code: 0, stdout: 'OK\n' });
    expect(await weft(['qos', 'ready', '--port', port])).toMatchObject({ code: 1, stdout: 'false\n' });
    expect(await weft(['qos', 'online', '--port', port])).toMatchObject({ code: 0, stdout: 'OK\n' });
    const closed = await freePort();
    const unreachable = await weft(['qos', 'live', '--port', String(closed)]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toContain(`cannot reach the QoS server at 127.0.0.1:${closed}`);
    const usage = await weft(['qos', 'restart']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('unknown QoS command "restart": one of live, ready, startup, ls, online, offline, help');
  });
});
