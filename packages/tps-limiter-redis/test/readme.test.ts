// The README's usage snippet runs as written against a real redis-server (a region of this file, shown verbatim
// in the README): two applications — as two provider processes would — share one window. The README documents
// every extension and URL key the package has, and states the error policy's default.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, RpcError, RpcErrorCode, WeftApplication } from '@weft/core';
import { RedisTpsConfig, RedisTpsDefaults, RedisTpsKeys } from '@weft/tps-limiter-redis';
import { createTestApp, RecordingLogger, sourceRegion, type TestApp } from '@weft/test-utils';

import { startRedis, type RedisServer } from './support/redis-server.ts';

const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');
const region = (name: string): string => sourceRegion(thisFile, name);

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
const impl = { sayHello: async (name: string) => `hello ${name}` };

let testApp: TestApp;
let redis: RedisServer;
beforeAll(async () => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-tpslimit', '@weft/tps-limiter-redis'], { prefix: 'weft-tps-redis-readme' });
  redis = await startRedis();
}, 20_000);
afterAll(async () => {
  await redis.dispose();
  testApp.cleanup();
});

describe('README', () => {
  it('usage snippet runs: two providers share 3 calls per second', async () => {
    const root = testApp.root;
    const logger = new RecordingLogger();
    const REDIS_URL = redis.address;
    const refused: string[] = [];
    // #region usage
    const start = async (name: string) => {
      const app = await WeftApplication.start({ root, name, logger });
      app.model.registerService(RedisTpsConfig, new RedisTpsConfig({ address: REDIS_URL }));
      await app.export(Greeter, impl, { parameters: { tps: 3, 'tps.interval': 1000, 'tps.limiter': 'redis' } });
      return app;
    };
    const [east, west] = [await start('east'), await start('west')];
    const viaEast = await east.refer(Greeter, { retries: 0 });
    const viaWest = await west.refer(Greeter, { retries: 0 });
    for (const greeter of [viaEast, viaWest, viaEast, viaWest]) {
      try {
        await greeter.sayHello('ann');
      } catch (error) {
        if (error instanceof RpcError && error.code === RpcErrorCode.LIMIT_EXCEEDED) refused.push(error.message);
      }
    }
    await east.shutdown();
    await west.shutdown();
    // #endregion usage
    expect(refused).toHaveLength(1); // 3 of the 4 calls, wherever they land
    expect(refused[0]).toContain('tps limit exceeded: at most 3 calls per 1000 ms');
  });

  it('shows the usage snippet verbatim', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
  });

  it('documents every contributed extension, every URL key and the error policy default', () => {
    expect(readme).toContain('| `weft.filter.TpsLimiter` | `redis` |');
    expect(readme).toContain('| `weft.config.ConfigValidator` | `tps-redis` |');
    for (const key of Object.values(RedisTpsKeys)) expect(readme).toContain(`| \`${key}\` |`);
    expect(readme).toContain(`the default is \`${RedisTpsDefaults.ON_ERROR}\``);
    expect(readme).toContain('## Differences from Dubbo');
    expect(readme).toContain('## Differences from Sentinel cluster flow control');
  });
});
