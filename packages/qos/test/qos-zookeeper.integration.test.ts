// QoS offline/online against a real ZooKeeper (Debian's package, started on loopback and stopped by PID by the
// registry package's test support): two tri providers of one service, a round-robin consumer. `offline` on one
// provider deletes its node under /dubbo/<interface>/providers, the consumer stops routing to it while the call it
// was serving completes, and the other provider takes every call; `online` creates the node again and calls reach
// it again. (governance-resilience-observability.md §7)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, URL, WeftApplication, type CallableProxy } from '@weft/core';
import { ZookeeperClient } from '@weft/registry-zookeeper';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

import { ZookeeperServer } from '../../registry-zookeeper/test/support/zookeeper-server.ts';

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String, Number], returns: String } });
const PROVIDERS = '/dubbo/org.acme.Greeter/providers';

interface Provider {
  readonly app: WeftApplication;
  /** The tri port it serves on (its node name in ZooKeeper contains it). */
  readonly port: number;
  readonly qos: string;
}

let zk: ZookeeperServer;
let client: ZookeeperClient;
let testApp: TestApp;
let a: Provider;
let b: Provider;
let consumer: WeftApplication;
let greeter: CallableProxy<typeof Greeter.methods>;

async function get(qos: string, path: string): Promise<{ status: number; body: string }> {
  const response = await fetch(`${qos}${path}`);
  return { status: response.status, body: await response.text() };
}

async function eventually(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The tri ports of the provider nodes in ZooKeeper, sorted. */
async function registeredPorts(): Promise<number[]> {
  const nodes = await client.getChildren(PROVIDERS).catch(() => [] as string[]);
  return nodes.map((node) => URL.parse(decodeURIComponent(node)).port).sort((x, y) => x - y);
}

function invokerCount(): number {
  return consumer.getDirectory(greeter)?.getAllInvokers().length ?? 0;
}

async function startProvider(name: string, registry: string): Promise<Provider> {
  const app = await WeftApplication.start({ root: testApp.root, name, registry, logger: new RecordingLogger() });
  const port = await freePort();
  const qosPort = await freePort();
  const sayHello = async (who: string, delay: number): Promise<string> => {
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    return `hello ${who} from ${name}`;
  };
  // warmup 0: full weight from the start, so round robin alternates strictly between the two providers.
  await app.export(Greeter, { sayHello }, { protocol: 'tri', host: '127.0.0.1', port, parameters: { 'qos.port': qosPort, warmup: 0 } });
  return { app, port, qos: `http://127.0.0.1:${qosPort}` };
}

beforeAll(async () => {
  zk = await ZookeeperServer.start();
  client = new ZookeeperClient({ connectString: zk.connectString, connectionTimeout: 10_000 });
  await client.waitConnected();
  const registry = `${zk.url}?timeout=5000&session=10000`;
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/registry-zookeeper', '@weft/qos']);
  a = await startProvider('greeter-a', registry);
  b = await startProvider('greeter-b', registry);
  consumer = await WeftApplication.start({ root: testApp.root, name: 'shop', registry, logger: new RecordingLogger() });
  greeter = await consumer.refer(Greeter, { retries: 0, timeout: 5000, check: false, loadbalance: 'roundrobin', parameters: { 'qos.enable': false } });
});

afterAll(async () => {
  await consumer?.shutdown({ timeout: 1000 });
  await a?.app.shutdown({ timeout: 1000 });
  await b?.app.shutdown({ timeout: 1000 });
  await client?.close();
  await zk?.dispose();
  testApp?.cleanup();
});

describe('QoS offline/online with ZooKeeper', () => {
  it('offline deletes the provider node, calls go to the other provider while its in-flight call completes; online restores it', async () => {
    const both = [a.port, b.port].sort((x, y) => x - y);
    await eventually(async () => JSON.stringify(await registeredPorts()) === JSON.stringify(both), 'both providers are in ZooKeeper');
    await eventually(() => invokerCount() === 2, 'the consumer sees both providers');

    // Round robin: two calls in a row, one on each provider, both still running when greeter-a goes offline.
    const inFlight = [greeter.sayHello('slow', 1500), greeter.sayHello('slow', 1500)];
    let settled = 0;
    for (const call of inFlight) void call.finally(() => settled++);
    expect(await get(a.qos, '/offline')).toEqual({ status: 200, body: 'OK' });
    expect(await registeredPorts()).toEqual([b.port]);
    await eventually(() => invokerCount() === 1, 'the consumer drops greeter-a');
    expect(settled).toBe(0);
    expect((await Promise.all(inFlight)).sort()).toEqual(['hello slow from greeter-a', 'hello slow from greeter-b']);

    const whileOffline = await Promise.all(Array.from({ length: 6 }, (_, i) => greeter.sayHello(`c${i}`, 0)));
    expect(whileOffline).toEqual(Array.from({ length: 6 }, (_, i) => `hello c${i} from greeter-b`));
    expect(await get(a.qos, '/ready')).toEqual({ status: 503, body: 'false' });
    expect(await get(b.qos, '/ready')).toEqual({ status: 200, body: 'true' });

    expect(await get(a.qos, '/online')).toEqual({ status: 200, body: 'OK' });
    await eventually(async () => JSON.stringify(await registeredPorts()) === JSON.stringify(both), 'greeter-a is back in ZooKeeper');
    await eventually(() => invokerCount() === 2, 'the consumer sees greeter-a again');
    const afterOnline = await Promise.all(Array.from({ length: 4 }, (_, i) => greeter.sayHello(`d${i}`, 0)));
    expect(new Set(afterOnline.map((answer) => answer.slice(answer.indexOf(' from ') + 6)))).toEqual(new Set(['greeter-a', 'greeter-b']));
    expect(await get(a.qos, '/ready')).toEqual({ status: 200, body: 'true' });
  });
});
