import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { RpcStatusRegistry } from '@weft/core';

import {
  after,
  consumerUrl,
  createHarness,
  FakeInvoker,
  invocation,
  MutableDirectory,
  providers,
  providerUrl,
  succeed,
  tally,
  type Harness,
} from './support/harness.js';

let h: Harness;
let statuses: RpcStatusRegistry;
beforeEach(async () => {
  h = await createHarness();
  statuses = h.app.getService(RpcStatusRegistry);
});
afterEach(async () => {
  vi.useRealTimers();
  await h.destroy();
});

const inv = invocation();

/** Records `count` finished calls of `elapsed` ms, then leaves `active` calls in flight. */
function history(p: FakeInvoker, elapsed: number, count: number, active = 0, succeeded = true): void {
  for (let i = 0; i < count; i++) {
    statuses.beginCount(p.url, 'sayHello');
    statuses.endCount(p.url, 'sayHello', elapsed, succeeded);
  }
  for (let i = 0; i < active; i++) statuses.beginCount(p.url, 'sayHello');
}

describe('shortestresponse', () => {
  it('picks the smallest average successful elapsed × (active + 1)', () => {
    const [a, b, c] = providers(3);
    history(a!, 10, 3, 0); // 10 × 1 = 10
    history(b!, 5, 3, 2); // 5 × 3 = 15
    history(c!, 20, 3, 0); // 20
    const lb = h.loadBalance('shortestresponse');
    expect(tally([a!, b!, c!], 500, () => lb.select([a!, b!, c!], consumerUrl(), inv))).toEqual([500, 0, 0]);
    history(a!, 10, 0, 1); // a: 10 × 2 = 20, b: 15
    expect(lb.select([a!, b!, c!], consumerUrl(), inv)).toBe(b);
  });

  it('ignores failed calls in the average', () => {
    const [a, b] = providers(2);
    history(a!, 10, 2);
    history(a!, 1, 50, 0, false); // fast failures do not make a look fast
    history(b!, 8, 2);
    expect(h.loadBalance('shortestresponse').select([a!, b!], consumerUrl(), inv)).toBe(b);
  });

  it('breaks ties by weight', () => {
    const a = new FakeInvoker(providerUrl('10.0.0.1:20880', { weight: 100 }));
    const b = new FakeInvoker(providerUrl('10.0.0.2:20880', { weight: 300 }));
    const lb = h.loadBalance('shortestresponse');
    const counts = tally([a, b], 40_000, () => lb.select([a, b], consumerUrl(), inv));
    expect(Math.abs((counts[0] as number) / 40_000 - 0.25)).toBeLessThan(0.015);
  });

  it('forgets the averages after shortestResponseSlidePeriod ms', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_700_000_000_000);
    const [a, b] = providers(2);
    history(a!, 5, 3);
    history(b!, 50, 3);
    const lb = h.loadBalance('shortestresponse');
    const url = consumerUrl({ shortestResponseSlidePeriod: 1000 });
    expect(tally([a!, b!], 200, () => lb.select([a!, b!], url, inv))).toEqual([200, 0]);
    vi.setSystemTime(1_700_000_000_999);
    expect(lb.select([a!, b!], url, inv)).toBe(a);
    vi.setSystemTime(1_700_000_001_000); // windows restart: both estimate 0 → uniform
    const counts = tally([a!, b!], 2000, () => lb.select([a!, b!], url, inv));
    expect(Math.abs((counts[0] as number) / 2000 - 0.5)).toBeLessThan(0.05);
  });

  it('uses a 30 s window by default', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_700_000_000_000);
    const [a, b] = providers(2);
    history(a!, 5, 3);
    history(b!, 50, 3);
    const lb = h.loadBalance('shortestresponse');
    vi.setSystemTime(1_700_000_029_999);
    expect(tally([a!, b!], 100, () => lb.select([a!, b!], consumerUrl(), inv))).toEqual([100, 0]);
    vi.setSystemTime(1_700_000_030_000);
    const counts = tally([a!, b!], 100, () => lb.select([a!, b!], consumerUrl(), inv));
    expect(counts[1]).toBeGreaterThan(0);
  });

  it('learns response times through the cluster, which counts every attempt', async () => {
    const slow = new FakeInvoker(providerUrl('10.0.0.1:20880', { loadbalance: 'shortestresponse' }), after(30, succeed()));
    const fast = new FakeInvoker(providerUrl('10.0.0.2:20880', { loadbalance: 'shortestresponse' }), after(1, succeed()));
    const invoker = h.cluster('failfast').join(new MutableDirectory([slow, fast]));
    for (let i = 0; i < 20; i++) await invoker.invoke(invocation());
    // Until a provider has a successful call it estimates 0 and gets tried; after that the fast one wins.
    expect(slow.calls).toBeLessThanOrEqual(2);
    expect(fast.calls).toBeGreaterThanOrEqual(18);
    expect(statuses.getMethodStatus(slow.url, 'sayHello').getSucceededAverageElapsed()).toBeGreaterThan(
      statuses.getMethodStatus(fast.url, 'sayHello').getSucceededAverageElapsed()
    );
  });
});
