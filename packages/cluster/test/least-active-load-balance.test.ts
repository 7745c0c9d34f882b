import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { RpcStatusRegistry, type Result } from '@weft/core';

import {
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
afterEach(() => h.destroy());

const url = consumerUrl();
const inv = invocation();

function inFlight(p: FakeInvoker, n: number, method = 'sayHello'): void {
  for (let i = 0; i < n; i++) statuses.beginCount(p.url, method);
}

describe('leastactive', () => {
  it('picks the provider with the fewest calls in flight for the method', () => {
    const [a, b, c] = providers(3);
    inFlight(a!, 2);
    inFlight(c!, 1);
    inFlight(b!, 5, 'sayBye'); // other method: does not count
    const lb = h.loadBalance('leastactive');
    expect(tally([a!, b!, c!], 1000, () => lb.select([a!, b!, c!], url, inv))).toEqual([0, 1000, 0]);
  });

  it('picks uniformly among the tied providers with equal weights', () => {
    const [a, b, c] = providers(3);
    inFlight(c!, 1);
    const lb = h.loadBalance('leastactive');
    const counts = tally([a!, b!, c!], 20_000, () => lb.select([a!, b!, c!], url, inv));
    expect(counts[2]).toBe(0);
    expect(Math.abs((counts[0] as number) / 20_000 - 0.5)).toBeLessThan(0.015);
  });

  it('picks by weight among the tied providers when weights differ', () => {
    const a = new FakeInvoker(providerUrl('10.0.0.1:20880', { weight: 100 }));
    const b = new FakeInvoker(providerUrl('10.0.0.2:20880', { weight: 300 }));
    const c = new FakeInvoker(providerUrl('10.0.0.3:20880', { weight: 900 }));
    inFlight(c, 1);
    const lb = h.loadBalance('leastactive');
    const counts = tally([a, b, c], 40_000, () => lb.select([a, b, c], url, inv));
    expect(counts[2]).toBe(0);
    expect(Math.abs((counts[0] as number) / 40_000 - 0.25)).toBeLessThan(0.015);
  });

  it('sees real counts through the cluster, without any actives filter (Dubbo sees zeros)', async () => {
    let release: (() => void) | undefined;
    const slow = new FakeInvoker(
      providerUrl('10.0.0.1:20880', { loadbalance: 'leastactive' }),
      (_inv, _n, self) =>
        new Promise<Result>((resolve) => {
          release = () => void Promise.resolve(succeed()(inv, 1, self)).then(resolve);
        })
    );
    const fast = new FakeInvoker(providerUrl('10.0.0.2:20880', { loadbalance: 'leastactive' }), succeed());
    const invoker = h.cluster('failfast').join(new MutableDirectory([slow, fast]));
    const pending: Promise<Result>[] = [];
    for (let i = 0; i < 40; i++) {
      const call = invoker.invoke(invocation());
      pending.push(Promise.resolve(call));
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The slow provider holds one call; while it does, every other call goes to the idle one.
    expect(slow.calls).toBe(1);
    expect(fast.calls).toBe(39);
    expect(statuses.getMethodStatus(slow.url, 'sayHello').active).toBe(1);
    release?.();
    await Promise.all(pending);
    expect(statuses.getMethodStatus(slow.url, 'sayHello').active).toBe(0);
    expect(statuses.getMethodStatus(fast.url, 'sayHello').total).toBe(39);
  });
});
