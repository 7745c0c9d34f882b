// End to end over `tri` with two processes: a provider process turns slow → the consumer's breaker opens within
// one window → the fail mock answers in well under a millisecond per call instead of waiting → the provider
// recovers → after the open duration a probe goes through → closed, real answers again. The provider is a real
// child process on a loopback port, stopped by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, WeftApplication } from '@weft/core';
import { circuitBreakersOf, type CircuitBreakerStateChange } from '@weft/filter-circuitbreaker';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  setDelay: { args: [Number], returns: Number },
  greet: { args: [String], returns: String },
  setFailing: { args: [Boolean], returns: Boolean },
});

const PROVIDER = `
import { defineService, WeftApplication } from '@weft/core';
const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  setDelay: { args: [Number], returns: Number },
  greet: { args: [String], returns: String },
  setFailing: { args: [Boolean], returns: Boolean },
});
let delay = 0;
let failing = false;
const app = await WeftApplication.start({ root: process.cwd(), name: 'slow-provider' });
await app.export(Greeter, {
  sayHello: async (name) => {
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    return 'hello ' + name;
  },
  setDelay: (ms) => (delay = ms),
  greet: (name) => {
    if (failing) throw new Error('greeting store unavailable');
    return 'greetings ' + name;
  },
  setFailing: (on) => (failing = on),
}, { protocol: 'tri', port: Number(process.argv[2]) });
console.log('ready');
`;

let testApp: TestApp;
let provider: ChildProcess | undefined;
let port: number;

beforeAll(async () => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/protocol-triple', '@weft/filter-circuitbreaker'], {
    prefix: 'weft-circuitbreaker-tri',
  });
  writeFileSync(join(testApp.root, 'provider.mjs'), PROVIDER);
  port = await freePort();
  const child = spawn(process.execPath, ['provider.mjs', String(port)], { cwd: testApp.root, stdio: ['ignore', 'pipe', 'pipe'] });
  provider = child;
  await new Promise<void>((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('ready')) resolve();
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`provider exited with ${code}: ${err}`)));
    setTimeout(() => reject(new Error(`provider not ready after 20 s: ${out} ${err}`)), 20_000);
  });
}, 30_000);

afterAll(() => {
  if (provider?.pid !== undefined && provider.exitCode === null) process.kill(provider.pid, 'SIGKILL');
  testApp.cleanup();
});

describe('slow provider process → breaker opens → fail mock answers → recovery through a probe (tri)', () => {
  it('runs the whole cycle with a real clock', async () => {
    const app = await WeftApplication.start({ root: testApp.root, name: 'consumer', logger: new RecordingLogger() });
    try {
      const events: CircuitBreakerStateChange[] = [];
      circuitBreakersOf(app).onStateChange((e) => events.push(e));
      const greeter = await app.refer(Greeter, {
        url: `tri://127.0.0.1:${port}/org.acme.Greeter`,
        retries: 0,
        timeout: 2000,
        mock: 'fail:return "fallback"',
        parameters: {
          'sayHello.circuitbreaker': 'slow-ratio',
          'sayHello.circuitbreaker.slow-rt': 50,
          'sayHello.circuitbreaker.threshold': 0.5,
          'sayHello.circuitbreaker.min-requests': 3,
          'sayHello.circuitbreaker.window': 2000,
          'sayHello.circuitbreaker.open-duration': 600,
        },
      });
      expect(await greeter.sayHello('a')).toBe('hello a');
      await greeter.setDelay(120);
      // With the fast first call, the window holds 1 fast and then slow calls (each > 50 ms): the second slow call
      // makes 2/3 > 0.5 with the minimum of 3 calls reached, and opens the breaker.
      for (let i = 0; i < 2; i++) expect(await greeter.sayHello(`s${i}`)).toBe(`hello s${i}`);
      expect(events.map((e) => `${e.from} → ${e.to}`)).toEqual(['closed → open']);
      const started = performance.now();
      for (let i = 0; i < 200; i++) expect(await greeter.sayHello('x')).toBe('fallback');
      const perCall = (performance.now() - started) / 200;
      expect(perCall).toBeLessThan(1);
      // The provider recovers (its other method has no breaker); after the open duration a probe closes the breaker.
      await greeter.setDelay(0);
      await new Promise((resolve) => setTimeout(resolve, 650));
      expect(await greeter.sayHello('probe')).toBe('hello probe');
      expect(await greeter.sayHello('b')).toBe('hello b');
      expect(events.map((e) => `${e.from} → ${e.to} (${e.reason})`)).toEqual([
        'closed → open (tripped)',
        'open → half-open (probing)',
        'half-open → closed (recovered)',
      ]);
    } finally {
      await app.shutdown();
    }
  }, 30_000);

  it('the same with an error-ratio rule: failures (business errors count) open it, the fail mock answers, a probe closes it', async () => {
    const app = await WeftApplication.start({ root: testApp.root, name: 'consumer-errors', logger: new RecordingLogger() });
    try {
      const events: CircuitBreakerStateChange[] = [];
      circuitBreakersOf(app).onStateChange((e) => events.push(e));
      const greeter = await app.refer(Greeter, {
        url: `tri://127.0.0.1:${port}/org.acme.Greeter`,
        retries: 0,
        mock: 'fail:return "fallback"',
        parameters: { 'greet.circuitbreaker': 'error-ratio', 'greet.circuitbreaker.window': 2000, 'greet.circuitbreaker.open-duration': 500 },
      });
      expect(await greeter.greet('a')).toBe('greetings a');
      await greeter.setFailing(true);
      // A business error is the provider's answer: the fail mock does not hide it, but the breaker counts it.
      for (let i = 0; i < 4; i++) await expect(greeter.greet('f')).rejects.toThrow('greeting store unavailable');
      expect(events.map((e) => `${e.from} → ${e.to} (${e.reason})`)).toEqual(['closed → open (tripped)']);
      expect(events[0]).toMatchObject({ value: 0.8, total: 5 });
      const started = performance.now();
      for (let i = 0; i < 200; i++) expect(await greeter.greet('x')).toBe('fallback');
      expect((performance.now() - started) / 200).toBeLessThan(1);
      await greeter.setFailing(false);
      await new Promise((resolve) => setTimeout(resolve, 550));
      expect(await greeter.greet('probe')).toBe('greetings probe');
      expect(events.map((e) => e.to)).toEqual(['open', 'half-open', 'closed']);
    } finally {
      await app.shutdown();
    }
  }, 30_000);
});
