// A provider process killed with SIGKILL: its ephemeral node goes when its session times out, and consumers stop
// calling it — traffic moves to the survivor, and with no provider left fail-mock answers (§B.1, §B.9).
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

import type { RegistryDirectory } from '@weft/core';
import { ZookeeperClient } from '@weft/registry-zookeeper';
import { createTestApp, freePort, type TestApp } from '@weft/test-utils';

import { Applications, DEMO, DemoService, PACKAGES, killProviders, spawnProvider, waitFor } from './support/harness.js';
import { ZookeeperServer } from './support/zookeeper-server.js';

const SESSION = 4000;
const PROVIDERS = `/dubbo/${DEMO}/providers`;

let zk: ZookeeperServer;
let client: ZookeeperClient;
let providerRoot: TestApp;
const apps = new Applications();

beforeAll(async () => {
  zk = await ZookeeperServer.start();
  client = new ZookeeperClient({ connectString: zk.connectString, connectionTimeout: 10_000 });
  await client.waitConnected();
  providerRoot = createTestApp(PACKAGES, { prefix: 'weft-zk-provider', name: 'demo-provider' });
});

afterAll(async () => {
  await client?.close();
  await zk?.dispose();
  providerRoot?.cleanup();
});

afterEach(async () => {
  await apps.stopAll();
  await killProviders();
  await client.deleteRecursive('/dubbo');
});

/** Provider addresses registered in ZooKeeper now. */
async function registeredPorts(): Promise<number[]> {
  const children = await client.getChildren(PROVIDERS);
  return children.map((name) => Number(/%3A(\d+)%2F/.exec(name)?.[1])).sort();
}

it('a provider killed with SIGKILL disappears after its session timeout; traffic moves to the survivor; with none left, fail mock answers', async () => {
  const registry = `${zk.url}?timeout=5000&session=${SESSION}`;
  const [port1, port2] = [await freePort(), await freePort()];
  const p1 = await spawnProvider({ root: providerRoot.root, registry, label: 'p1', port: port1 });
  const p2 = await spawnProvider({ root: providerRoot.root, registry, label: 'p2', port: port2 });
  expect(await registeredPorts()).toEqual([port1, port2].sort());

  const consumer = await apps.start('demo-consumer', `${zk.url}?timeout=5000&session=10000`);
  const demo = await consumer.app.refer(DemoService, { loadbalance: 'roundrobin', mock: 'fail:return "fallback"' });
  const directory = consumer.app.getDirectory(demo) as RegistryDirectory;
  const answers = new Set<string>();
  for (let i = 0; i < 6; i++) answers.add(await demo.sayHello('ann'));
  expect([...answers].sort()).toEqual(['hello ann from p1', 'hello ann from p2']);

  // Crash p1. Until ZooKeeper expires its session, failover retries the survivor: every call still succeeds.
  const crashedAt = Date.now();
  await p1.crash();
  const duringTimeout: string[] = [];
  await waitFor(
    "p1's ephemeral node to be removed by ZooKeeper",
    async () => {
      duringTimeout.push(await demo.sayHello('ann'));
      return (await registeredPorts()).length === 1;
    },
    { timeout: 20_000, interval: 100 },
  );
  const gone = Date.now() - crashedAt;
  expect(await registeredPorts()).toEqual([port2]);
  expect(gone).toBeGreaterThan(SESSION / 2);
  expect(gone).toBeLessThan(SESSION * 3);
  expect(new Set(duringTimeout)).toEqual(new Set(['hello ann from p2']));

  // The consumer drops p1's invoker and calls only p2.
  await waitFor('the consumer to drop p1', () => directory.getAllInvokers().length === 1);
  expect(directory.getAllInvokers()[0]?.getUrl().port).toBe(port2);
  for (let i = 0; i < 10; i++) expect(await demo.sayHello('bob')).toBe('hello bob from p2');

  // Crash the last one: once its node is gone the directory is empty, and fail mock answers.
  await p2.crash();
  await waitFor("p2's node to be removed", async () => (await registeredPorts()).length === 0, { timeout: 20_000, interval: 100 });
  await waitFor('the consumer to have no provider', () => directory.getAllInvokers().length === 0);
  expect(await demo.sayHello('carl')).toBe('fallback');
  expect(await demo.echo('x')).toBe('fallback');
});
