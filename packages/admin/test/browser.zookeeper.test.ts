// The console in headless Chromium against real Weft applications (two providers and a consumer over tri) on a
// real ZooKeeper server (Debian's package, started by the registry-zookeeper tests' support script).
import { afterAll, beforeAll, describe } from 'vitest';

import { ZookeeperServer } from '../../registry-zookeeper/test/support/zookeeper-server.ts';
import { consoleScenario } from './support/console-scenario.ts';
import { ConsoleWorld } from './support/console-world.ts';

let world: ConsoleWorld | undefined;

beforeAll(async () => {
  const zk = await ZookeeperServer.start();
  try {
    world = await ConsoleWorld.start({ apps: zk.url, admin: zk.url, dispose: () => zk.dispose() });
  } catch (error) {
    await zk.dispose();
    throw error;
  }
}, 90_000);

afterAll(async () => {
  await world?.close();
});

describe('the console on ZooKeeper', () => {
  consoleScenario(() => world as ConsoleWorld, { screenshots: false });
});
