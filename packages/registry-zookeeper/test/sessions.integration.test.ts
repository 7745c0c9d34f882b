// Connection loss and sessions (§B.9): ZooKeeper restarting mid-traffic, an expired session, and a consumer that
// starts from its cache file while ZooKeeper is down.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { ZookeeperClient, ZookeeperRegistry } from '@weft/registry-zookeeper';
import { freePort } from '@weft/test-utils';

import { Applications, DEMO, DemoService, demoProvider, exportDemo, javaUrlEncode, sleep, waitFor } from './support/harness.js';
import { TcpProxy } from './support/tcp-proxy.js';
import { ZookeeperServer } from './support/zookeeper-server.js';

const SESSION = 4000;
const PROVIDERS = `/dubbo/${DEMO}/providers`;
const CONSUMERS = `/dubbo/${DEMO}/consumers`;
const CONFIGURATORS = `/dubbo/${DEMO}/configurators`;

let zk: ZookeeperServer;
let client: ZookeeperClient;
const apps = new Applications();
const tempDirs: string[] = [];

beforeAll(async () => {
  zk = await ZookeeperServer.start();
  client = new ZookeeperClient({ connectString: zk.connectString, connectionTimeout: 10_000 });
  await client.waitConnected();
});

afterAll(async () => {
  await client?.close();
  await zk?.dispose();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
});

afterEach(async () => {
  await zk.startAgain();
  await apps.stopAll();
  // the checking client may have lost its session across a restart; reconnect it if so
  if (client.getState() !== 'connected') {
    await client.close();
    client = new ZookeeperClient({ connectString: zk.connectString, connectionTimeout: 10_000 });
  }
  await client.deleteRecursive('/dubbo');
});

/** The owner (session id, hex) of the only child of `path`, or undefined. */
async function onlyChildOwner(path: string): Promise<string | undefined> {
  const children = await client.getChildren(path).catch(() => []);
  if (children.length !== 1) return undefined;
  return (await client.exists(`${path}/${children[0] ?? ''}`))?.ephemeralOwner;
}

/** A port-less override for the demo consumer, written as a persistent node. */
function overrideNode(parameters: string): string {
  return `${CONFIGURATORS}/${javaUrlEncode(`override://0.0.0.0/${DEMO}?category=configurators&dynamic=false&application=demo-consumer&${parameters}`)}`;
}

describe('ZooKeeper restart', () => {
  it('mid-traffic: no call fails, the last known providers keep answering, registrations and overrides are there after reconnect and watches work again', async () => {
    const registry = `${zk.url}?timeout=3000&session=10000`;
    const provider = demoProvider('p1');
    const providerApp = (await apps.start('demo-provider', registry)).app;
    await exportDemo(providerApp, provider);
    const consumer = await apps.start('demo-consumer', registry);
    const demo = await consumer.app.refer(DemoService);
    await client.create(overrideNode('echo.mock=force:return+%60degraded%60'));
    await waitFor('the override', async () => (await demo.echo('x')) === 'degraded');

    let ok = 0;
    let duringOutage = 0;
    const failures: unknown[] = [];
    let outage = false;
    let running = true;
    const traffic = (async () => {
      while (running) {
        try {
          expect(await demo.sayHello('ann')).toBe('hello ann from p1');
          ok++;
          if (outage) duringOutage++;
        } catch (error) {
          failures.push(error);
        }
        await sleep(10);
      }
    })();

    await sleep(200);
    await zk.stop();
    outage = true;
    await waitFor('both registries to notice the outage', () => !providerApp.registry?.isAvailable() && !consumer.app.registry?.isAvailable());
    await sleep(1500); // ZooKeeper stays down while calls go on
    expect(await demo.echo('x')).toBe('degraded');
    outage = false;
    await zk.startAgain();
    await waitFor('both registries to reconnect', () => providerApp.registry?.isAvailable() === true && consumer.app.registry?.isAvailable() === true, { timeout: 15_000 });
    await sleep(200);
    running = false;
    await traffic;

    expect(failures).toEqual([]);
    expect(duringOutage).toBeGreaterThan(10);
    expect(ok).toBeGreaterThan(duringOutage);
    // The test's own client reconnects on its own schedule, not the applications'.
    await waitFor('the test client to reconnect', () => client.connected, { timeout: 15_000 });
    expect(await client.getChildren(PROVIDERS)).toHaveLength(1);
    expect(await client.getChildren(CONSUMERS)).toHaveLength(1);
    expect(await demo.echo('x')).toBe('degraded');
    expect(consumer.logger.of('warn').some((m) => m.includes('disconnected; keeping the last known providers'))).toBe(true);

    // The watches work after the reconnect: removing the override and adding another both take effect.
    await client.delete(overrideNode('echo.mock=force:return+%60degraded%60'));
    await waitFor('the override to be removed', async () => (await demo.echo('x')) === 'p1:x');
    await client.create(overrideNode('sayHello.mock=force:return+%60after+restart%60'));
    await waitFor('a new override', async () => (await demo.sayHello('ann')) === 'after restart');
  });
});

describe('session expiry', () => {
  // A network partition longer than the session timeout: ZooKeeper expires the sessions (a plain ZooKeeper restart
  // would not: it restores sessions), and the clients learn it when they reconnect.
  it('after a partition longer than the session: new sessions re-register the provider and the consumer, and the consumer re-subscribes', async () => {
    const proxy = await TcpProxy.start(zk.port);
    try {
      const registry = `zookeeper://127.0.0.1:${proxy.port}?timeout=3000&session=${SESSION}&retry.period=500`;
      const provider = demoProvider('p1');
      const providerApp = (await apps.start('demo-provider', registry)).app;
      await exportDemo(providerApp, provider);
      const consumer = await apps.start('demo-consumer', registry);
      const demo = await consumer.app.refer(DemoService);
      const providerRegistry = providerApp.registry as ZookeeperRegistry;
      const consumerRegistry = consumer.app.registry as ZookeeperRegistry;
      const oldProviderSession = providerRegistry.getSession().id.toString('hex');
      const oldConsumerSession = consumerRegistry.getSession().id.toString('hex');
      expect(await onlyChildOwner(PROVIDERS)).toBe(oldProviderSession);
      expect(await onlyChildOwner(CONSUMERS)).toBe(oldConsumerSession);
      await client.create(overrideNode('echo.mock=force:return+%60degraded%60'));
      await waitFor('the override', async () => (await demo.echo('x')) === 'degraded');

      proxy.partition();
      await waitFor('ZooKeeper to expire both sessions (their ephemeral nodes go)', async () => {
        const nodes = [...(await client.getChildren(PROVIDERS)), ...(await client.getChildren(CONSUMERS))];
        return nodes.length === 0;
      }, { timeout: SESSION * 3 });
      // Cut off from ZooKeeper, the consumer keeps its last lists and rules.
      expect(await demo.sayHello('ann')).toBe('hello ann from p1');
      expect(await demo.echo('x')).toBe('degraded');
      proxy.heal();

      const providerOwner = await waitFor('the provider to re-register with a new session', async () => {
        const owner = await onlyChildOwner(PROVIDERS);
        return owner !== undefined && owner !== oldProviderSession ? owner : undefined;
      }, { timeout: 10_000 });
      expect(providerOwner).toBe(providerRegistry.getSession().id.toString('hex'));
      const consumerOwner = await waitFor('the consumer to re-register with a new session', async () => {
        const owner = await onlyChildOwner(CONSUMERS);
        return owner !== undefined && owner !== oldConsumerSession ? owner : undefined;
      }, { timeout: 10_000 });
      expect(consumerOwner).toBe(consumerRegistry.getSession().id.toString('hex'));
      expect(consumer.logger.of('warn').some((m) => m.includes(`session 0x${oldConsumerSession} expired`))).toBe(true);
      expect(consumer.logger.of('info').some((m) => /new session 0x[0-9a-f]+: re-registering and re-subscribing/.test(m))).toBe(true);
      expect(providerApp.registry?.isAvailable()).toBe(true);
      expect(consumer.app.registry?.isAvailable()).toBe(true);

      // Re-subscribed on the new session: calls and rules work, and changes are seen again.
      await waitFor('calls to reach the provider', async () => (await demo.sayHello('ann')) === 'hello ann from p1');
      expect(await demo.echo('x')).toBe('degraded');
      await client.delete(overrideNode('echo.mock=force:return+%60degraded%60'));
      await waitFor('the override removal to reach the consumer', async () => (await demo.echo('x')) === 'p1:x');
      await client.create(overrideNode('sayHello.mock=force:return+%60new+session%60'));
      await waitFor('a new override to reach the consumer', async () => (await demo.sayHello('ann')) === 'new session');
    } finally {
      await proxy.close();
    }
  });
});

describe('local cache file', () => {
  it('a consumer with a cache file starts while ZooKeeper is down, calls the cached providers, and registers once ZooKeeper is back', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-zk-cache-'));
    tempDirs.push(dir);
    const file = join(dir, 'registry.cache');
    const consumerRegistry = `${zk.url}?timeout=1000&session=10000&check=false&retry.period=500&file=${file}`;
    const provider = demoProvider('p1');
    const providerApp = (await apps.start('demo-provider', `${zk.url}?timeout=3000&session=10000&file-cache=false`)).app;
    const port = await freePort();
    await exportDemo(providerApp, provider, { port });

    const first = await apps.start('demo-consumer', consumerRegistry);
    const firstDemo = await first.app.refer(DemoService);
    expect(await firstDemo.sayHello('ann')).toBe('hello ann from p1');
    await apps.stop(first.app);
    expect(readFileSync(file, 'utf8')).toContain(`loop://127.0.0.1:${port}/${DEMO}`);

    await zk.stop();
    const started = Date.now();
    const second = await apps.start('demo-consumer', consumerRegistry);
    const demo = await second.app.refer(DemoService);
    expect(Date.now() - started).toBeLessThan(5000);
    expect(second.app.registry?.isAvailable()).toBe(false);
    expect(second.logger.of('warn').some((m) => /cached entries until it is back/.test(m))).toBe(true);
    expect(await demo.sayHello('bob')).toBe('hello bob from p1');

    await zk.startAgain();
    await waitFor('the consumer to register once ZooKeeper is back', async () => (await client.getChildren(CONSUMERS).catch(() => [])).length === 1, {
      timeout: 15_000,
    });
    expect(await demo.sayHello('carl')).toBe('hello carl from p1');
  });
});
