// What calls get while Redis cannot answer — tps.redis.on-error=local (default), open, closed — with Redis
// killed, and with Redis frozen (SIGSTOP: connected but silent, so only the command timeout bounds a call); a
// rate-limited warning that never shows the password; and the shared limit resuming once Redis is back on the
// same port.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { defineService, RpcError, RpcErrorCode, WeftApplication } from '@weft/core';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

import { startRedis, type RedisServer } from './support/redis-server.ts';

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
const PASSWORD = 's3cret-Pa55';
/** The default command timeout (100 ms) plus scheduling slack on a loaded machine: no call may wait longer. */
const BOUND = 150;

let testApp: TestApp;
let redis: RedisServer;
let app: WeftApplication;
let logger: RecordingLogger;
let address: string;

beforeAll(async () => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-tpslimit', '@weft/tps-limiter-redis'], { prefix: 'weft-tps-redis-outage' });
  redis = await startRedis({ password: PASSWORD });
  address = `redis://:${PASSWORD}@127.0.0.1:${redis.port}`;
}, 20_000);
afterAll(async () => {
  await redis.dispose();
  testApp.cleanup();
});
beforeEach(async () => {
  redis.cli('FLUSHALL'); // no window of the previous test
  logger = new RecordingLogger();
  app = await WeftApplication.start({ root: testApp.root, name: 'tps-redis-outage', logger });
});
afterEach(async () => {
  await app.shutdown();
  await redis.restart(); // running again for the next test (a no-op when it runs)
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function serve(parameters: Record<string, string | number>) {
  await app.export(Greeter, { sayHello: async (name: string) => `hello ${name}` }, {
    parameters: { tps: 3, 'tps.interval': 300, 'tps.limiter': 'redis', 'tps.redis.address': address, ...parameters },
  });
  return app.refer(Greeter, { retries: 0 });
}

interface Burst {
  admitted: number;
  refused: RpcError[];
  /** The longest single call, ms. */
  slowest: number;
}

async function burst(n: number, call: () => Promise<unknown>): Promise<Burst> {
  const out: Burst = { admitted: 0, refused: [], slowest: 0 };
  await Promise.all(
    Array.from({ length: n }, async () => {
      const started = performance.now();
      try {
        await call();
        out.admitted++;
      } catch (error) {
        if (!(error instanceof RpcError && error.code === RpcErrorCode.LIMIT_EXCEEDED)) throw error;
        out.refused.push(error);
      } finally {
        out.slowest = Math.max(out.slowest, performance.now() - started);
      }
    }),
  );
  return out;
}

/** Waits until the limiter logged that Redis answers again (its client reconnected). */
async function reconnected(): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (logger.of('info').some((m) => m.includes('answers again;'))) return;
    await sleep(25);
  }
  throw new Error(`the limiter did not reconnect within 5 s: ${JSON.stringify(logger.messages)}`);
}

function shared(): number {
  return Number(redis.cli('HGET', 'weft:tps:fixed:org.acme.Greeter', 'n') || '0');
}

describe('Redis killed', () => {
  it('local (default): each process applies the rule on its own at once, warns once, and shares again when Redis is back', async () => {
    const greeter = await serve({});
    expect((await burst(6, () => greeter.sayHello('a'))).admitted).toBe(3);
    expect(shared()).toBe(3);
    await redis.stop();
    await sleep(50);
    for (let window = 0; window < 3; window++) {
      const during = await burst(10, () => greeter.sayHello('b'));
      expect(during.admitted).toBe(3); // the memory limiter's window: 3 per 300 ms, in this process
      expect(during.slowest).toBeLessThan(BOUND); // never waits longer than the command timeout
      await sleep(310);
    }
    const warnings = logger.of('warn').filter((m) => m.includes('cannot answer'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`tps.limiter=redis: Redis at redis://:***@127.0.0.1:${redis.port} cannot answer (`);
    expect(warnings[0]).toContain('tps.redis.on-error=local applies');
    expect(JSON.stringify(logger.messages)).not.toContain(PASSWORD);

    await redis.restart();
    await reconnected();
    expect((await burst(10, () => greeter.sayHello('c'))).admitted).toBe(3);
    expect(shared()).toBe(3); // counted in Redis again (a fresh, empty server)
  });

  it('open: admits every call while Redis is down', async () => {
    const greeter = await serve({ 'tps.redis.on-error': 'open' });
    expect((await burst(6, () => greeter.sayHello('a'))).admitted).toBe(3);
    await redis.stop();
    await sleep(50);
    const during = await burst(50, () => greeter.sayHello('b'));
    expect(during.admitted).toBe(50);
    expect(during.slowest).toBeLessThan(BOUND);
    await redis.restart();
    await reconnected();
    await sleep(310);
    expect((await burst(10, () => greeter.sayHello('c'))).admitted).toBe(3);
  });

  it('closed: refuses every call with limit-exceeded saying why, without the password', async () => {
    const greeter = await serve({ 'tps.redis.on-error': 'closed' });
    await redis.stop();
    await sleep(50);
    const during = await burst(20, () => greeter.sayHello('b'));
    expect(during.admitted).toBe(0);
    expect(during.refused).toHaveLength(20);
    expect(during.slowest).toBeLessThan(BOUND);
    const message = during.refused[0]?.message ?? '';
    expect(message).toContain(
      `Failed to invoke org.acme.Greeter.sayHello() on provider 127.0.0.1: refused by tps.limiter=redis, because Redis at redis://:***@127.0.0.1:${redis.port} cannot answer (`,
    );
    expect(message).toContain(') and tps.redis.on-error=closed.');
    expect(message).not.toContain(PASSWORD);
    await redis.restart();
    await reconnected();
    expect((await burst(10, () => greeter.sayHello('c'))).admitted).toBe(3);
  });
});

describe('Redis down when the service is exported', () => {
  it('decides by the policy at once (no call waits to connect), and shares the window once Redis is up', async () => {
    await redis.stop();
    const greeter = await serve({ 'tps.redis.on-error': 'closed' });
    await sleep(50); // the first connection attempt is refused
    const during = await burst(10, () => greeter.sayHello('a'));
    expect(during.refused).toHaveLength(10);
    expect(during.slowest).toBeLessThan(50);
    expect(during.refused[0]?.message).toContain('cannot answer (');
    await redis.restart();
    await reconnected();
    expect((await burst(10, () => greeter.sayHello('b'))).admitted).toBe(3);
    expect(shared()).toBe(3);
  });
});

describe('Redis frozen (connected, silent)', () => {
  it('no call waits longer than tps.redis.timeout; the policy answers; the limit resumes when Redis wakes', async () => {
    const greeter = await serve({ 'tps.redis.timeout': 80, 'tps.redis.on-error': 'open' });
    expect((await burst(6, () => greeter.sayHello('a'))).admitted).toBe(3);
    await sleep(310);
    redis.signal('SIGSTOP');
    try {
      const during = await burst(20, () => greeter.sayHello('b'));
      expect(during.admitted).toBe(20);
      expect(during.slowest).toBeGreaterThanOrEqual(75); // each waited for the timeout…
      expect(during.slowest).toBeLessThan(200); // …and no longer
      expect(logger.of('warn').some((m) => m.includes('cannot answer (Command timed out)'))).toBe(true);
    } finally {
      redis.signal('SIGCONT');
    }
    await sleep(350); // the frozen window's key has expired by now on the Redis clock
    expect((await burst(10, () => greeter.sayHello('c'))).admitted).toBe(3);
  });
});
