// Interop with a real Dubbo client (spec §6.4): apache-dubbo-js 3.0.0-rc6 (hessian.js + js-to-java) discovers a Weft
// dubbo:// provider through a real ZooKeeper and calls it with typed arguments; a Weft consumer calls the same
// provider through the same registry.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { RpcError } from '@weft/core';

import { ZookeeperServer } from '../../registry-zookeeper/test/support/zookeeper-server.ts';
import { Harness, freePort } from './support/harness.js';
import { User, UserNotFound, UserService, userServiceImpl } from './support/user-service.js';

const harness = new Harness(['@weft/core', '@weft/cluster', '@weft/protocol-dubbo', '@weft/serialization-hessian2', '@weft/registry-zookeeper', '@weft/filter-echo'], false);
let zk: ZookeeperServer;

beforeAll(async () => {
  zk = await ZookeeperServer.start();
}, 60_000);

afterAll(async () => {
  await harness.close();
  await zk?.dispose();
});

/** Runs the apache-dubbo-js consumer in its own process and returns what it printed. */
function dubboJs(...args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [fileURLToPath(new URL('./support/dubbo-js-consumer.cjs', import.meta.url)), zk.connectString, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      const line = out.trim().split('\n').at(-1) ?? '';
      try {
        resolve(JSON.parse(line) as Record<string, unknown>);
      } catch {
        reject(new Error(`apache-dubbo-js printed no result: ${out} ${err}`));
      }
    });
  });
}

describe('apache-dubbo-js → Weft dubbo:// provider through ZooKeeper', () => {
  it('discovers the provider and gets typed results and a business exception back', async () => {
    const provider = await harness.start('weft-provider', { registry: `${zk.url}?timeout=5000&session=10000` });
    await provider.export(UserService, userServiceImpl(), { protocol: 'dubbo', port: await freePort() });
    const results = await dubboJs();
    expect(results['fatal']).toBeUndefined();
    expect(results).toMatchObject({
      greet: { res: 'hello ann' },
      add: { res: 42 },
      next: { res: 2 ** 40 + 1 },
      count: { res: 3 },
      total: { res: 3 },
      rename: { res: { id: 7, name: 'bob', age: 31 } },
    });
    // hessian.js makes an Error of a Throwable whose class name ends in "Exception" (apache-dubbo-js prefixes the message).
    expect(results['find']).toEqual({ err: { name: 'org.acme.UserNotFoundException', message: 'uuid:  invoke org.acme.UserService#find was error, no user 404' } });

    // A Weft consumer of the same registry gets the same answers, typed.
    const consumer = await harness.start('weft-consumer', { registry: `${zk.url}?timeout=5000&session=10000` });
    const users = await consumer.refer(UserService, { retries: 0, timeout: 3000 });
    const renamed = await users.rename(Object.assign(new User(), { id: 7, name: 'bo', age: 30 }), 'bob');
    expect(renamed).toBeInstanceOf(User);
    expect([renamed.id, renamed.name, renamed.age]).toEqual([7, 'bob', 31]);
    expect(await users.next(2 ** 40)).toBe(2 ** 40 + 1);
    const missing = await users.find(404).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(UserNotFound);
    expect(missing).not.toBeInstanceOf(RpcError);
    expect((missing as Error).message).toBe('no user 404');
  }, 30_000);
});
