// Routing rules typed into zkCli.sh against three provider processes (governance spec §3): a legacy condition
// URL in the routers category, a v3 YAML condition rule and a YAML tag rule in the config centre are obeyed by
// the next calls; deleting them restores traffic. Reports the median time from the write to the first obeying call.
import { afterAll, beforeAll, expect, it } from 'vitest';

import type { CallableProxy } from '@weft/core';
import { createTestApp, freePort, type TestApp } from '@weft/test-utils';

import { Applications, DEMO, DemoService, PACKAGES, javaUrlEncode, killProviders, spawnProvider, waitFor, type ProviderProcess } from './support/harness.js';
import { ZkCliSession } from './support/zk-cli.js';
import { ZookeeperServer } from './support/zookeeper-server.js';

type Demo = CallableProxy<(typeof DemoService)['methods']>;

let zk: ZookeeperServer;
let providerRoot: TestApp;
const apps = new Applications();
const providers: ProviderProcess[] = [];

beforeAll(async () => {
  zk = await ZookeeperServer.start();
  providerRoot = createTestApp(PACKAGES, { prefix: 'weft-zk-provider', name: 'demo-provider' });
});

afterAll(async () => {
  await apps.stopAll();
  await killProviders();
  await zk?.dispose();
  providerRoot?.cleanup();
});

/** Calls until `n` consecutive answers satisfy `obeys`; returns ms from `writtenAt` to the first of them. */
async function firstObeyingCall(demo: Demo, obeys: (answer: string) => boolean, writtenAt: number, n = 6): Promise<number> {
  let run = 0;
  let runStart = 0;
  const deadline = writtenAt + 5000;
  while (Date.now() < deadline) {
    const at = Date.now();
    const answer = await demo.sayHello('x');
    if (obeys(answer)) {
      if (run === 0) runStart = at;
      if (++run === n) return runStart - writtenAt;
    } else {
      run = 0;
    }
  }
  throw new Error('the rule was not obeyed within 5 s');
}

/** The providers that answer `calls` calls. */
async function answering(demo: Demo, calls = 12): Promise<string[]> {
  const labels = new Set<string>();
  for (let i = 0; i < calls; i++) labels.add(/from (p\d)/.exec(await demo.sayHello('x'))?.[1] ?? '?');
  return [...labels].sort();
}

it('condition and tag routes typed into zkCli.sh are obeyed by the next call; deleting them restores traffic', async () => {
  const cli = zk.cli;
  if (cli === undefined) throw new Error('zkCli.sh is not installed (Debian package "zookeeper")');
  const registry = `${zk.url}?timeout=5000`;
  const ports = [await freePort(), await freePort(), await freePort()];
  // p3 carries the static tag gray.
  providers.push(
    ...(await Promise.all([
      spawnProvider({ root: providerRoot.root, registry, label: 'p1', port: ports[0]! }),
      spawnProvider({ root: providerRoot.root, registry, label: 'p2', port: ports[1]! }),
      spawnProvider({ root: providerRoot.root, registry, label: 'p3', port: ports[2]!, parameters: { 'dubbo.tag': 'gray' } }),
    ])),
  );
  const [p1, p2, p3] = ports as [number, number, number];
  const consumer = await apps.start('demo-consumer', registry, ['@weft/routers']);
  const demo = await consumer.app.refer(DemoService, { loadbalance: 'roundrobin' });
  const gray = await consumer.app.refer(DemoService, { loadbalance: 'roundrobin', parameters: { 'dubbo.tag': 'gray' } });
  const blue = await consumer.app.refer(DemoService, { loadbalance: 'roundrobin', parameters: { 'dubbo.tag': 'blue' } });
  await waitFor('all three providers', () => consumer.app.getDirectory(demo)?.getAllInvokers().length === 3);
  // Static tags: untagged calls avoid the tagged provider; gray calls reach it only; unknown tags fall back.
  expect(await answering(demo)).toEqual(['p1', 'p2']);
  expect(await answering(gray)).toEqual(['p3']);
  expect(await answering(blue)).toEqual(['p1', 'p2']);

  const latencies: number[] = [];
  const session = ZkCliSession.open(cli, zk.connectString);
  try {
    await session.run('create /dubbo/config', /Created|Node already exists/);
    await session.run('create /dubbo/config/dubbo', /Created|Node already exists/);
    const routers = `/dubbo/${DEMO}/routers`;
    const legacy = (port: number): string =>
      `${routers}/${javaUrlEncode(`condition://0.0.0.0/${DEMO}?category=routers&dynamic=false&force=false&rule=${javaUrlEncode(`=> port = ${port}`)}`)}`;
    const conditionYaml = `/dubbo/config/dubbo/${DEMO}::.condition-router`;
    const tagYaml = '/dubbo/config/dubbo/demo-provider.tag-router';

    for (let round = 0; round < 3; round++) {
      // 1. Legacy routers URL: everything to p2.
      let writtenAt = Date.now();
      session.send(`create ${legacy(p2)}`);
      latencies.push(await firstObeyingCall(demo, (a) => a.endsWith('from p2'), writtenAt));
      session.send(`delete ${legacy(p2)}`);
      await waitFor('traffic to spread again after deleting the legacy rule', async () => (await answering(demo)).join() === 'p1,p2');

      // 2. v3 YAML condition rule in the config centre (flow style: zkCli takes one line): everything to p1.
      writtenAt = Date.now();
      session.send(`create ${conditionYaml} "{conditions: ['=> port = ${p1}'], enabled: true, force: false, key: ${DEMO}, scope: service}"`);
      latencies.push(await firstObeyingCall(demo, (a) => a.endsWith('from p1'), writtenAt));
      session.send(`delete ${conditionYaml}`);
      await waitFor('traffic to spread again after deleting the YAML condition rule', async () => (await answering(demo)).join() === 'p1,p2');

      // 3. YAML tag rule of the provider application: blue → p1; untagged calls then avoid p1.
      writtenAt = Date.now();
      session.send(`create ${tagYaml} "{force: false, key: demo-provider, tags: [{name: blue, addresses: ['127.0.0.1:${p1}']}]}"`);
      latencies.push(await firstObeyingCall(blue, (a) => a.endsWith('from p1'), writtenAt));
      expect(await answering(demo)).toEqual(['p2']);
      expect(await answering(gray)).toEqual(['p3']);
      session.send(`delete ${tagYaml}`);
      await waitFor('blue calls to fall back to untagged providers after deleting the tag rule', async () => (await answering(blue)).join() === 'p1,p2');
      expect(await answering(demo)).toEqual(['p1', 'p2']);
    }
    // A bad rule is refused with its source named; traffic is unchanged.
    await session.run(`create ${conditionYaml} "{conditions: ['=> port == ${p1}']}"`, /Created/);
    await waitFor('the refusal to be logged', () => consumer.logger.of('error').some((m) => m.includes(`Rejected the condition rule at ${conditionYaml}`)));
    expect(await answering(demo)).toEqual(['p1', 'p2']);
    session.send(`delete ${conditionYaml}`);
  } finally {
    await session.close();
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  console.log(`[routing] write (zkCli.sh) → first obeying call: median ${median} ms over ${sorted.length} writes (min ${sorted[0]} ms, max ${sorted[sorted.length - 1]} ms); goal < 50 ms`);
  expect(median).toBeLessThan(1000);
  expect(p3).toBeGreaterThan(0);
}, 60_000);
