// The `redis` limiter inside real chains built by the loader (injvm export + refer), against a real redis-server
// on loopback: exact admissions per fixed window, the sliding log, key names and expiry, one client per address
// per application closed at shutdown.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { ConfigValidator, defineService, Invocation, RpcError, RpcErrorCode, URL, WeftApplication, type ExportOptions } from '@weft/core';
import { TpsLimiter } from '@weft/filter-tpslimit';
import { RedisTpsLimiter } from '@weft/tps-limiter-redis';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

import { startRedis, type RedisServer } from './support/redis-server.ts';

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  sayBye: { args: [String], returns: String },
});

const reached: string[] = [];
const impl = {
  sayHello: async (name: string) => {
    reached.push(`sayHello ${name}`);
    return `hello ${name}`;
  },
  sayBye: async (name: string) => {
    reached.push(`sayBye ${name}`);
    return `bye ${name}`;
  },
};

let testApp: TestApp;
let redis: RedisServer;
let app: WeftApplication;
let logger: RecordingLogger;

beforeAll(async () => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-tpslimit', '@weft/tps-limiter-redis'], { prefix: 'weft-tps-redis' });
  redis = await startRedis();
}, 20_000);
afterAll(async () => {
  await redis.dispose();
  testApp.cleanup();
});
beforeEach(async () => {
  reached.length = 0;
  redis.cli('FLUSHALL');
  logger = new RecordingLogger();
  app = await WeftApplication.start({ root: testApp.root, name: 'tps-redis-test', logger });
});
afterEach(async () => {
  await app.shutdown();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function serve(parameters: Record<string, string | number>, options: Omit<ExportOptions, 'parameters'> = {}) {
  await app.export(Greeter, impl, { ...options, parameters: { 'tps.limiter': 'redis', 'tps.redis.address': redis.address, ...parameters } });
  return app.refer(Greeter, { retries: 0, group: options.group, version: options.version });
}

/** Fires `n` calls at once; returns how many were admitted, checking that every refusal is `limit-exceeded`. */
async function burst(n: number, call: (i: number) => Promise<unknown>): Promise<number> {
  const results = await Promise.allSettled(Array.from({ length: n }, (_, i) => call(i)));
  for (const r of results) {
    if (r.status === 'rejected' && !(r.reason instanceof RpcError && r.reason.code === RpcErrorCode.LIMIT_EXCEEDED)) throw r.reason;
  }
  return results.filter((r) => r.status === 'fulfilled').length;
}

describe('extensions contributed', () => {
  it('adds the redis limiter next to memory, and the tps-redis config validator', () => {
    const limiters = app.model.getExtensionLoader(TpsLimiter);
    expect(limiters.getSupportedExtensions()).toEqual(['memory', 'redis']);
    expect(limiters.getDefaultExtensionName()).toBe('memory');
    expect(limiters.getExtension('redis')).toBeInstanceOf(RedisTpsLimiter);
    expect(app.model.getExtensionLoader(ConfigValidator).getSupportedExtensions()).toEqual(['tps', 'tps-redis']);
  });
});

describe('fixed window (the default), shared through Redis', () => {
  it('admits exactly tps calls per window, even with 200 calls in flight at once, and the key expires with the window', async () => {
    const greeter = await serve({ tps: 37, 'tps.interval': 400 });
    expect(await burst(200, (i) => greeter.sayHello(`c${i}`))).toBe(37);
    expect(reached).toHaveLength(37);
    const key = 'weft:tps:fixed:org.acme.Greeter';
    expect(redis.cli('HGET', key, 'n')).toBe('37');
    const ttl = Number(redis.cli('PTTL', key));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(400);
    await sleep(ttl + 30);
    expect(redis.cli('EXISTS', key)).toBe('0');
    expect(await burst(50, (i) => greeter.sayHello(`d${i}`))).toBe(37);
  });

  it('refuses with limit-exceeded naming the service, method, rate, interval and limiter', async () => {
    const greeter = await serve({ tps: 1, 'tps.interval': 10_000 });
    await greeter.sayHello('a');
    const error = await greeter.sayHello('b').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect((error as RpcError).message).toContain(
      'org.acme.Greeter.sayHello() on provider 127.0.0.1: tps limit exceeded: at most 1 call per 10000 ms (the window shared by the methods of org.acme.Greeter); tps.limiter=redis.',
    );
  });

  it('keys a method with its own settings apart, under tps.redis.prefix, by the full service key', async () => {
    const greeter = await serve({ tps: 3, 'tps.interval': 5_000, 'sayHello.tps': 2, 'tps.redis.prefix': 'shop:' }, { group: 'blue', version: '1.0.0' });
    expect(await burst(5, (i) => greeter.sayHello(`h${i}`))).toBe(2);
    expect(await burst(5, (i) => greeter.sayBye(`b${i}`))).toBe(3);
    expect(redis.cli('KEYS', 'shop:*').split('\n').sort()).toEqual(['shop:fixed:blue/org.acme.Greeter:1.0.0', 'shop:fixed:blue/org.acme.Greeter:1.0.0#sayHello']);
  });

  it('a method without a limit never touches Redis', async () => {
    const greeter = await serve({ 'sayHello.tps': 1, 'tps.interval': 5_000 });
    expect(await burst(10, (i) => greeter.sayBye(`b${i}`))).toBe(10);
    expect(redis.cli('KEYS', '*')).toBe('');
  });
});

describe('runtime changes (a replaced URL applies to the next decision)', () => {
  it('a changed rate applies to the current window; a changed interval decides when it ends', async () => {
    const limiter = app.model.getExtensionLoader(TpsLimiter).getExtension('redis');
    const url = (rate: number, interval: number) =>
      URL.parse(`tri://127.0.0.1:50051/org.acme.Greeter?interface=org.acme.Greeter&tps=${rate}&tps.interval=${interval}&tps.limiter=redis&tps.redis.address=${redis.address}`);
    const call = new Invocation({ methodName: 'sayHello' });
    const decide = async (u: URL, n: number) => {
      let ok = 0;
      for (let i = 0; i < n; i++) if (await limiter.isAllowable(u, call)) ok++;
      return ok;
    };
    expect(await decide(url(2, 300), 3)).toBe(2);
    expect(await decide(url(3, 300), 3)).toBe(1); // the 2 already admitted count against the new rate
    const longer = url(3, 900);
    expect(await decide(longer, 1)).toBe(0);
    await sleep(400); // past the old end: with the longer interval the window still runs
    expect(await decide(longer, 2)).toBe(0);
    expect(Number(redis.cli('PTTL', 'weft:tps:fixed:org.acme.Greeter'))).toBeGreaterThan(300);
  });
});

describe('sliding window (tps.redis.window=sliding)', () => {
  it('admits at most tps calls in any interval ending now: admissions leave the log one by one', async () => {
    const greeter = await serve({ tps: 4, 'tps.interval': 600, 'tps.redis.window': 'sliding' });
    expect(await burst(2, (i) => greeter.sayHello(`a${i}`))).toBe(2);
    await sleep(300);
    // A fixed window would still have room for 2 here too; the difference shows after the first window would end:
    expect(await burst(4, (i) => greeter.sayHello(`b${i}`))).toBe(2);
    const key = 'weft:tps:sliding:org.acme.Greeter';
    expect(redis.cli('ZCARD', key)).toBe('4');
    await sleep(340); // the first two (t≈0) left the log; the last two (t≈300) are still in it
    expect(await burst(4, (i) => greeter.sayHello(`c${i}`))).toBe(2);
    expect(Number(redis.cli('PTTL', key))).toBeLessThanOrEqual(600);
    await sleep(650);
    expect(redis.cli('EXISTS', key)).toBe('0');
  });
});

describe('one client per Redis address per application', () => {
  it('shares one connection between services and closes it when the application shuts down', async () => {
    const Other = defineService('org.acme.Other', { ping: { returns: String } });
    const greeter = await serve({ tps: 100, 'tps.interval': 1000 });
    await app.export(Other, { ping: async () => 'pong' }, { parameters: { tps: 5, 'tps.limiter': 'redis', 'tps.redis.address': redis.address } });
    const other = await app.refer(Other, { retries: 0 });
    await greeter.sayHello('a');
    await other.ping();
    const ours = () => redis.cli('CLIENT', 'LIST').split('\n').filter((line) => line.includes('name=weft-tps-limiter')).length;
    expect(ours()).toBe(1);
    await app.shutdown();
    for (let i = 0; i < 40 && ours() > 0; i++) await sleep(25);
    expect(ours()).toBe(0);
  });
});
