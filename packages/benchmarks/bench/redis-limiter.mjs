// @weft/tps-limiter-redis against the in-process memory limiter, same run (issue 16):
//   (a) TpsLimiter decisions: one awaited decision at a time (latency = one Redis round trip) and 64 in flight
//       (throughput, ioredis auto-pipelining), for redis fixed, redis sliding and memory
//   (b) an awaited injvm call through the provider chain with tps.limiter=memory vs tps.limiter=redis: the
//       latency the Redis limiter adds per call
// Starts its own redis-server on a free loopback port (no persistence; scripts/install-redis.sh installs it when
// missing) and stops it by PID.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { defineService, Invocation, URL, WeftApplication } from '@weft/core';
import { TpsLimiter } from '@weft/filter-tpslimit';
import { createTestApp, freePort } from '@weft/test-utils';

import { formatNs, measure, printTable } from '../../core/bench/harness.mjs';

const root = fileURLToPath(new globalThis.URL('../../..', import.meta.url));

function redisAvailable() {
  if (spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0) return true;
  spawnSync('bash', [join(root, 'scripts', 'install-redis.sh')], { stdio: 'inherit' });
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

async function startRedis() {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'weft-bench-redis-'));
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 400; i++) {
    const up = await new Promise((resolve) => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => (socket.destroy(), resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (up) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    address: `redis://127.0.0.1:${port}`,
    stop: async () => {
      const gone = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid, 'SIGKILL');
      await gone;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Runs the Redis limiter benches and appends their figures. */
export async function benchRedisLimiter(figures, silent) {
  if (!redisAvailable()) {
    figures.push('Redis limiter: skipped — redis-server is not installed and scripts/install-redis.sh could not install it');
    return;
  }
  const redis = await startRedis();
  const testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-tpslimit', '@weft/tps-limiter-redis'], { prefix: 'weft-bench-redis' });
  const app = await WeftApplication.start({ root: testApp.root, name: 'bench-redis', logger: silent });
  try {
    // (a) decisions
    const limiters = app.model.getExtensionLoader(TpsLimiter);
    const redisLimiter = limiters.getExtension('redis');
    const memory = limiters.getExtension('memory');
    const open = (name, extra = '') =>
      URL.parse(`tri://127.0.0.1:50051/${name}?interface=${name}&tps=1000000000000&tps.interval=1000&tps.limiter=redis&tps.redis.address=${redis.address}${extra}`);
    const fixed = open('bench.Fixed');
    const sliding = open('bench.Sliding', '&tps.redis.window=sliding');
    const call = new Invocation({ methodName: 'sayHello' });
    await redisLimiter.isAllowable(fixed, call); // connects
    const IN_FLIGHT = 64;
    const many = (limiter, url) => () => Promise.all(Array.from({ length: IN_FLIGHT }, () => limiter.isAllowable(url, call)));
    const rows = [
      await measure('memory, one decision', () => memory.isAllowable(fixed, call)),
      await measure('redis fixed, one awaited decision', () => redisLimiter.isAllowable(fixed, call)),
      await measure('redis sliding, one awaited decision', () => redisLimiter.isAllowable(sliding, call)),
      await measure(`redis fixed, ${IN_FLIGHT} in flight`, many(redisLimiter, fixed)),
      await measure(`redis sliding, ${IN_FLIGHT} in flight`, many(redisLimiter, sliding)),
    ];
    printTable('TpsLimiter decisions — memory vs redis (loopback redis-server, one ioredis client)', rows, { baseline: 'memory, one decision' });
    const [mem, fixedOne, slidingOne, fixedMany, slidingMany] = rows;
    const perSec = (row, n) => `${((row.opsPerSec * n) / 1e3).toFixed(1)} k/s`;
    figures.push(
      `Redis limiter decisions: fixed ${perSec(fixedMany, IN_FLIGHT)} with ${IN_FLIGHT} in flight (${perSec(fixedOne, 1)} one at a time, ${formatNs(fixedOne.nsPerOp)} each); ` +
        `sliding ${perSec(slidingMany, IN_FLIGHT)} (${formatNs(slidingOne.nsPerOp)} each); memory ${(mem.opsPerSec / 1e6).toFixed(1)} M/s (${formatNs(mem.nsPerOp)})`,
    );

    // (b) one awaited injvm call through the provider chain, memory vs redis
    const Memory = defineService('bench.MemoryGreeter', { sayHello: { args: [String], returns: String } });
    const Redis = defineService('bench.RedisGreeter', { sayHello: { args: [String], returns: String } });
    const Plain = defineService('bench.PlainGreeter', { sayHello: { args: [String], returns: String } });
    const impl = { sayHello: async (name) => `hello ${name}` };
    const limits = { tps: 1_000_000_000_000, 'tps.interval': 1000 };
    await app.export(Plain, impl);
    await app.export(Memory, impl, { parameters: limits });
    await app.export(Redis, impl, { parameters: { ...limits, 'tps.limiter': 'redis', 'tps.redis.address': redis.address } });
    const plain = await app.refer(Plain, { retries: 0 });
    const mine = await app.refer(Memory, { retries: 0 });
    const shared = await app.refer(Redis, { retries: 0 });
    await shared.sayHello('warm');
    const calls = [
      await measure('injvm call, no tps', () => plain.sayHello('ann')),
      await measure('injvm call, tps (memory)', () => mine.sayHello('ann')),
      await measure('injvm call, tps (redis)', () => shared.sayHello('ann')),
    ];
    printTable('One awaited injvm call with the tps filter — memory vs redis limiter', calls, { baseline: 'injvm call, tps (memory)' });
    const [none, withMemory, withRedis] = calls;
    figures.push(
      `tps filter per call: memory adds ${formatNs(withMemory.nsPerOp - none.nsPerOp)} to an injvm call (${formatNs(none.nsPerOp)}); ` +
        `redis adds ${formatNs(withRedis.nsPerOp - withMemory.nsPerOp)} more (one loopback Redis round trip; ${formatNs(withRedis.nsPerOp)} per call)`,
    );
  } finally {
    await app.shutdown();
    testApp.cleanup();
    await redis.stop();
  }
}
