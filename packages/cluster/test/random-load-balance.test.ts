import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { FakeInvoker, consumerUrl, createHarness, invocation, providerUrl, tally, type Harness } from './support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness(42);
});
afterEach(() => h.destroy());

const N = 60_000;
const inv = invocation();
const url = consumerUrl();

function weighted(weights: readonly (number | undefined)[], extra: Record<string, string | number> = {}): FakeInvoker[] {
  return weights.map(
    (weight, i) => new FakeInvoker(providerUrl(`10.0.0.${i + 1}:20880`, weight === undefined ? extra : { weight, ...extra }))
  );
}

function shares(counts: number[]): number[] {
  const total = counts.reduce((a, b) => a + b, 0);
  return counts.map((c) => c / total);
}

function expectShares(counts: number[], expected: number[], tolerance = 0.01): void {
  const actual = shares(counts);
  expected.forEach((e, i) => expect(Math.abs((actual[i] as number) - e)).toBeLessThan(tolerance));
}

describe('random', () => {
  it('picks 100/200/300 with probabilities 1/6, 2/6, 3/6', () => {
    const list = weighted([100, 200, 300]);
    const lb = h.loadBalance('random');
    expectShares(
      tally(list, N, () => lb.select(list, url, inv)),
      [1 / 6, 2 / 6, 3 / 6]
    );
  });

  it('with more than 4 providers (binary search), never picks weight 0 and follows the weights', () => {
    const list = weighted([0, 100, 0, 300, 100, 0]);
    const lb = h.loadBalance('random');
    const counts = tally(list, N, () => lb.select(list, url, inv));
    expect([counts[0], counts[2], counts[5]]).toEqual([0, 0, 0]);
    expectShares(counts, [0, 0.2, 0, 0.6, 0.2, 0]);
  });

  it('is uniform when all weights are equal', () => {
    const list = weighted([50, 50, 50, 50]);
    const lb = h.loadBalance('random');
    expectShares(
      tally(list, N, () => lb.select(list, url, inv)),
      [0.25, 0.25, 0.25, 0.25]
    );
  });

  it('is uniform when all weights are 0', () => {
    const list = weighted([0, 0, 0]);
    const lb = h.loadBalance('random');
    expectShares(
      tally(list, N, () => lb.select(list, url, inv)),
      [1 / 3, 1 / 3, 1 / 3]
    );
  });

  it('honours a weight set only on a later provider (Dubbo looks at the first provider only)', () => {
    const list = weighted([undefined, 300]);
    const lb = h.loadBalance('random');
    expectShares(
      tally(list, N, () => lb.select(list, url, inv)),
      [0.25, 0.75]
    );
  });

  it('honours a warming-up provider that is not first', () => {
    const list = [
      new FakeInvoker(providerUrl('10.0.0.1:20880')),
      new FakeInvoker(providerUrl('10.0.0.2:20880', { timestamp: Date.now() - 60_000 })), // weight 10 during warmup
    ];
    const lb = h.loadBalance('random');
    expectShares(
      tally(list, N, () => lb.select(list, url, inv)),
      [100 / 110, 10 / 110]
    );
  });

  it('reads method-level weights', () => {
    const list = [
      new FakeInvoker(providerUrl('10.0.0.1:20880', { 'sayBye.weight': 300 })),
      new FakeInvoker(providerUrl('10.0.0.2:20880')),
    ];
    const lb = h.loadBalance('random');
    const bye = invocation({ methodName: 'sayBye' });
    expectShares(
      tally(list, N, () => lb.select(list, url, bye)),
      [0.75, 0.25]
    );
    expectShares(
      tally(list, N, () => lb.select(list, url, inv)),
      [0.5, 0.5]
    );
  });

  it("draws from the application's RandomSource: the same seed gives the same picks", async () => {
    const list = weighted([100, 200, 300, 400, 500]);
    const other = await createHarness(42);
    try {
      const a = h.loadBalance('random');
      const b = other.loadBalance('random');
      const picksA = Array.from({ length: 200 }, () => list.indexOf(a.select(list, url, inv) as FakeInvoker));
      const picksB = Array.from({ length: 200 }, () => list.indexOf(b.select(list, url, inv) as FakeInvoker));
      expect(picksA).toEqual(picksB);
      expect(new Set(picksA).size).toBe(5);
    } finally {
      await other.destroy();
    }
  });
});
