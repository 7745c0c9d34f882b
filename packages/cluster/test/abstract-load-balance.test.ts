import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { RpcErrorCode, type Invocation, type Invoker, type URL } from '@weft/core';
import { AbstractLoadBalance } from '@weft/cluster';

import { createHarness, FakeInvoker, invocation, providers, providerUrl, type Harness } from './support/harness.js';

/** Exposes the protected weight for assertions. */
class ProbeLoadBalance extends AbstractLoadBalance {
  doSelectCalls = 0;
  protected doSelect(invokers: readonly Invoker[], _url: URL, _inv: Invocation): Invoker {
    this.doSelectCalls++;
    return invokers[1] as Invoker;
  }
  weightOf(invoker: Invoker, inv: Invocation, now: number): number {
    return this.getWeight(invoker, inv, now);
  }
}

const NOW = 1_700_000_000_000;
const weightOf = (params: Record<string, string | number>, method = 'sayHello', now = NOW) =>
  new ProbeLoadBalance().weightOf(
    new FakeInvoker(providerUrl('10.0.0.1:20880', params)),
    invocation({ methodName: method }),
    now
  );

describe('AbstractLoadBalance', () => {
  it('returns the only provider without calling doSelect', () => {
    const lb = new ProbeLoadBalance();
    const [only] = providers(1);
    expect(lb.select([only!], only!.url, invocation())).toBe(only);
    expect(lb.doSelectCalls).toBe(0);
    const two = providers(2);
    expect(lb.select(two, two[0]!.url, invocation())).toBe(two[1]);
    expect(lb.doSelectCalls).toBe(1);
  });

  it('rejects an empty list with no-invoker', () => {
    expect(() => new ProbeLoadBalance().select([], providerUrl('10.0.0.1:1'), invocation())).toThrow(
      expect.objectContaining({ code: RpcErrorCode.NO_INVOKER })
    );
  });

  describe('getWeight()', () => {
    it('defaults to 100 and reads the method-level weight first', () => {
      expect(weightOf({})).toBe(100);
      expect(weightOf({ weight: 30 })).toBe(30);
      expect(weightOf({ weight: 30, 'sayHello.weight': 70 })).toBe(70);
      expect(weightOf({ weight: 30, 'sayHello.weight': 70 }, 'sayBye')).toBe(30);
    });

    it('turns a negative weight into 0', () => {
      expect(weightOf({ weight: -5 })).toBe(0);
    });

    it('applies warmup: max(1, min(weight, floor(uptime / (warmup / weight))))', () => {
      expect(weightOf({ timestamp: NOW - 60_000 })).toBe(10);
      expect(weightOf({ timestamp: NOW - 300_000 })).toBe(50);
      expect(weightOf({ timestamp: NOW - 599_999 })).toBe(99);
      expect(weightOf({ timestamp: NOW - 1_000 })).toBe(1); // floor(1000 / 6000) = 0 → 1
      expect(weightOf({ timestamp: NOW - 600_000 })).toBe(100);
      expect(weightOf({ timestamp: NOW - 5_000, warmup: 10_000, weight: 40 })).toBe(20);
      expect(weightOf({ timestamp: NOW })).toBe(100); // uptime 0: no warmup applied, as Dubbo
    });

    it('gives 1 to a provider whose timestamp is in the future, and leaves weight 0 alone', () => {
      expect(weightOf({ timestamp: NOW + 10_000 })).toBe(1);
      expect(weightOf({ timestamp: NOW - 60_000, weight: 0 })).toBe(0);
    });

    it('exposes the warmup formula', () => {
      expect(AbstractLoadBalance.warmupWeight(60_000, 600_000, 100)).toBe(10);
      expect(AbstractLoadBalance.warmupWeight(1, 600_000, 100)).toBe(1);
      expect(AbstractLoadBalance.warmupWeight(700_000, 600_000, 100)).toBe(100);
    });
  });

  describe('usesRpcStatus', () => {
    let h: Harness;
    beforeEach(async () => {
      h = await createHarness();
    });
    afterEach(() => h.destroy());

    it('is true only for leastactive and shortestresponse', () => {
      const flags = Object.fromEntries(
        ['random', 'roundrobin', 'leastactive', 'consistenthash', 'shortestresponse'].map((name) => [
          name,
          (h.loadBalance(name) as AbstractLoadBalance).usesRpcStatus,
        ])
      );
      expect(flags).toEqual({
        random: false,
        roundrobin: false,
        leastactive: true,
        consistenthash: false,
        shortestresponse: true,
      });
    });
  });
});
