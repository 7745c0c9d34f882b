// The console against a real ZooKeeper (started like @weft/registry-zookeeper's tests, by its support script):
// services listed from /dubbo, a force mock written as ZooKeeper nodes the consumer obeys, weight 0 draining a
// provider, and a tag route put into the config centre (/dubbo/config/dubbo/<app>.tag-router) that steers
// tagged calls, then removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { type WeftApplication } from '@weft/core';
import { startAdmin, type AdminServer } from '@weft/admin';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

import { ZookeeperServer } from '../../registry-zookeeper/test/support/zookeeper-server.ts';
import { AdminClient, eventually } from './support/admin-client.ts';
import { Greeter, outcome, startConsumer, startProvider, type GreeterClient, type RunningProvider } from './support/services.ts';

const TOKEN = 'console-zookeeper-token';
const SERVICE = 'org.acme.Greeter';
let zk: ZookeeperServer;
let app: TestApp;
let admin: AdminServer;
let client: AdminClient;
let providers: RunningProvider[];
let consumer: { app: WeftApplication; greeter: GreeterClient };
let blue: GreeterClient;
const apps: WeftApplication[] = [];

beforeAll(async () => {
  zk = await ZookeeperServer.start();
  app = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/protocol-triple', '@weft/registry-zookeeper', '@weft/routers'], { prefix: 'weft-admin-zk' });
  const registry = `${zk.url}?timeout=5000`;
  providers = [await startProvider(app.root, registry, 'a', {}, 'greeter-provider'), await startProvider(app.root, registry, 'b', {}, 'greeter-provider')];
  consumer = await startConsumer(app.root, registry);
  blue = (await consumer.app.refer(Greeter, { retries: 0, check: false, parameters: { 'dubbo.tag': 'blue' } })) as GreeterClient;
  apps.push(...providers.map((p) => p.app), consumer.app);
  admin = await startAdmin({ registry: zk.url, port: 0, token: TOKEN, logger: new RecordingLogger() });
  client = new AdminClient(admin.url);
  await client.login(TOKEN);
  await eventually(() => answering(consumer.greeter), (seen) => seen.join() === 'a,b');
}, 60_000);

afterAll(async () => {
  await admin?.close();
  for (const a of apps.splice(0)) await a.shutdown({ timeout: 1000 });
  app?.cleanup();
  await zk?.dispose();
});

/** Which providers answer 30 calls, sorted. */
async function answering(greeter: GreeterClient): Promise<string[]> {
  const seen = new Set<string>();
  for (let i = 0; i < 30; i++) seen.add((await greeter.sayHello('ann')).slice(-1));
  return [...seen].sort();
}

describe('weft admin on ZooKeeper', () => {
  it('lists the service from /dubbo with its providers and consumers', async () => {
    const [listed] = await client.get('/api/services');
    expect(listed).toMatchObject({ service: SERVICE, providers: { total: 2, enabled: 2 }, consumers: 2, applications: ['greeter-provider', 'shop'] });
  });

  it('force mock → a ZooKeeper configurators node; the consumer answers the mock; DELETE → real answers', async () => {
    const applied = await client.act('POST', `/api/services/${SERVICE}/mock`, { method: 'sayHello', mock: 'force:return "from zk"', confirm: true });
    expect(applied.plan.rules).toEqual([
      {
        op: 'write',
        node: `/dubbo/org.acme.Greeter/configurators/${encodeURIComponent('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&sayHello.mock=force:return "from zk"').replace(/%20/g, '+')}`,
        url: 'override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&sayHello.mock=force:return%20%22from%20zk%22',
      },
    ]);
    expect(applied.plan.zkCli).toEqual([`create ${applied.plan.rules[0].node}`]);
    expect(applied.plan.cli).toBe(`weft override set --registry ${zk.url} --service ${SERVICE} 'sayHello.mock=force:return "from zk"'`);
    await eventually(() => outcome(() => consumer.greeter.sayHello('ann')), (o) => o === 'ok: from zk');
    expect((await client.get(`/api/services/${SERVICE}`)).overrides).toHaveLength(1);
    await client.act('DELETE', `/api/services/${SERVICE}/mock`, { method: 'sayHello', confirm: true });
    await eventually(() => outcome(() => consumer.greeter.sayHello('ann')), (o) => /^ok: hello ann from [ab]$/.test(o));
    expect((await client.get(`/api/services/${SERVICE}`)).overrides).toEqual([]);
  });

  it('weight 0 drains a provider; removing the weight brings it back', async () => {
    const a = providers[0] as RunningProvider;
    await client.act('POST', `/api/services/${SERVICE}/override`, { address: a.address, weight: 0, confirm: true });
    await eventually(() => answering(consumer.greeter), (seen) => seen.join() === 'b');
    const rule = (await client.get(`/api/services/${SERVICE}`)).overrides[0];
    expect(rule).toMatchObject({ address: a.address, parameters: { weight: '0' } });
    await client.act('POST', `/api/services/${SERVICE}/override`, { address: a.address, weight: 100, confirm: true });
    await eventually(() => answering(consumer.greeter), (seen) => seen.join() === 'a,b');
  });

  it('a tag route written to the config centre steers tagged calls; a bad one is refused; DELETE removes it', async () => {
    const a = providers[0] as RunningProvider;
    const yaml = `force: false\ntags:\n- name: blue\n  addresses: ["${a.address}"]\n`;
    const planned = await client.act('POST', `/api/services/${SERVICE}/routes`, { kind: 'tag', text: yaml });
    expect(planned.plan).toEqual({
      summary: 'Tag-route the providers of application greeter-provider',
      rules: [{ op: 'write', node: '/dubbo/config/dubbo/greeter-provider.tag-router', url: yaml }],
      zkCli: [`create /dubbo/config/dubbo/greeter-provider.tag-router '${yaml}'`],
      cli: `weft route put --registry ${zk.url} --kind tag --key greeter-provider --yaml '${yaml}'`,
    });
    const bad = await client.call('POST', `/api/services/${SERVICE}/routes`, { kind: 'tag', text: 'tags:\n- name: blue\n', confirm: true });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('has neither addresses nor match');

    await client.act('POST', `/api/services/${SERVICE}/routes`, { kind: 'tag', text: yaml, confirm: true });
    await eventually(() => answering(blue), (seen) => seen.join() === 'a');
    expect(await answering(consumer.greeter)).toEqual(['b']);
    expect((await client.get(`/api/services/${SERVICE}`)).routes).toEqual([{ kind: 'tag', text: yaml, url: '/dubbo/config/dubbo/greeter-provider.tag-router' }]);
    expect((await client.get('/api/services'))[0].routes).toBe(1);

    const removed = await client.act('DELETE', `/api/services/${SERVICE}/routes`, { kind: 'tag', confirm: true });
    expect(removed.plan.zkCli).toEqual(['delete /dubbo/config/dubbo/greeter-provider.tag-router']);
    await eventually(() => answering(blue), (seen) => seen.join() === 'a,b');
    const gone = await client.call('DELETE', `/api/services/${SERVICE}/routes`, { kind: 'tag', confirm: true });
    expect(gone.status).toBe(404);
    const audit = (await client.get('/api/audit')).map((e: { action: string }) => e.action);
    expect(audit.slice(0, 2)).toEqual(['route.remove', 'route.set']);
  });
});
