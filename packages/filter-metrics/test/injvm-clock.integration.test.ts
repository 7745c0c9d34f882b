// Over injvm the consumer's and the provider's `metrics` filters share clock readings (the provider starts at the
// consumer's start, the consumer ends at the provider's synchronous end): what each side records stays right —
// the implementation is always measured, and a nested injvm call made by an implementation has its own times.
import { performance } from 'node:perf_hooks';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, WeftApplication, type CallableProxy } from '@weft/core';
import { metricsOf } from '@weft/filter-metrics';
import { createTestApp, type TestApp } from '@weft/test-utils';

const Outer = defineService('org.acme.Outer', { work: { args: [Number], returns: String }, wait: { args: [Number], returns: String } });
const Inner = defineService('org.acme.Inner', { fast: { args: [], returns: String } });

/** Keeps the thread busy for `ms` (a synchronous implementation doing real work). */
function spin(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

let testApp: TestApp;
let app: WeftApplication;
let outer: CallableProxy<(typeof Outer)['methods']>;
let inner: CallableProxy<(typeof Inner)['methods']>;

beforeAll(async () => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-metrics'], { prefix: 'weft-metrics-clock' });
  app = await WeftApplication.start({ root: testApp.root, name: 'clock-test' });
  await app.export(Inner, { fast: () => 'fast' });
  await app.export(Outer, {
    // Busy, then a nested injvm call (its chains run synchronously here), then busy again.
    work: (ms: number) => {
      spin(ms);
      void inner.fast();
      spin(ms);
      return 'worked';
    },
    wait: async (ms: number) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return 'waited';
    },
  });
  inner = await app.refer(Inner, { timeout: 0, parameters: { copy: false } });
  outer = await app.refer(Outer, { timeout: 0, parameters: { copy: false } });
});
afterAll(async () => {
  await app?.shutdown({ timeout: 1000 });
  testApp?.cleanup();
});

async function gauge(side: 'provider' | 'consumer', name: string, iface: string, method: string): Promise<number> {
  const json = await metricsOf(app).registry.getMetricsAsJSON();
  const values = json.find((m) => m.name === `dubbo_${side}_rt_milliseconds_${name}`)?.values ?? [];
  const found = values.find((v) => v.labels['interface'] === iface && v.labels['method'] === method);
  if (found === undefined) throw new Error(`no dubbo_${side}_rt_milliseconds_${name} for ${iface}.${method}`);
  return found.value;
}

describe('metrics over injvm: shared clock readings', () => {
  it('measures a synchronous implementation on both sides, with one start and one end reading for the call', async () => {
    expect(await outer.work(10)).toBe('worked');
    const provider = await gauge('provider', 'last', 'org.acme.Outer', 'work');
    const consumer = await gauge('consumer', 'last', 'org.acme.Outer', 'work');
    expect(provider).toBeGreaterThanOrEqual(20); // both busy stretches, around the nested call
    expect(consumer).toBe(provider); // the same two readings
  });

  it('gives a nested injvm call made inside an implementation its own times, not the outer call\'s', async () => {
    await outer.work(10);
    const innerProvider = await gauge('provider', 'last', 'org.acme.Inner', 'fast');
    const innerConsumer = await gauge('consumer', 'last', 'org.acme.Inner', 'fast');
    expect(innerProvider).toBeLessThan(5); // not the 10 ms the outer call had spent before it
    expect(innerConsumer).toBe(innerProvider);
    expect(await gauge('provider', 'last', 'org.acme.Outer', 'work')).toBeGreaterThanOrEqual(20); // the second stretch counted
  });

  it('reads its own end on each side when the call waits', async () => {
    expect(await outer.wait(30)).toBe('waited');
    const provider = await gauge('provider', 'last', 'org.acme.Outer', 'wait');
    const consumer = await gauge('consumer', 'last', 'org.acme.Outer', 'wait');
    expect(provider).toBeGreaterThanOrEqual(25);
    expect(consumer).toBeGreaterThanOrEqual(provider); // the consumer's end comes after the provider's
  });
});
