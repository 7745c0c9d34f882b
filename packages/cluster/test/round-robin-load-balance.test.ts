import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import type { LoadBalance } from '@weft/core';
import { RoundRobinLoadBalance } from '@weft/cluster';

import {
  consumerUrl,
  createHarness,
  FakeInvoker,
  invocation,
  MutableDirectory,
  providerUrl,
  type Harness,
} from './support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(async () => {
  vi.useRealTimers();
  await h.destroy();
});

const url = consumerUrl();
const names = new Map<FakeInvoker, string>();

function named(entries: Record<string, number>, extra: Record<string, string | number> = {}): Record<string, FakeInvoker> {
  const out: Record<string, FakeInvoker> = {};
  let i = 1;
  for (const [name, weight] of Object.entries(entries)) {
    const invoker = new FakeInvoker(providerUrl(`10.0.0.${i++}:20880`, { weight, ...extra }));
    names.set(invoker, name);
    out[name] = invoker;
  }
  return out;
}

function picks(lb: LoadBalance, list: FakeInvoker[], n: number, method = 'sayHello'): string[] {
  const inv = invocation({ methodName: method });
  return Array.from({ length: n }, () => names.get(lb.select(list, url, inv) as FakeInvoker) as string);
}

describe('roundrobin', () => {
  it('produces the smooth sequence a a b a c a a for weights 5/1/1, repeating', () => {
    const { a, b, c } = named({ a: 5, b: 1, c: 1 });
    expect(picks(h.loadBalance('roundrobin'), [a!, b!, c!], 14)).toEqual('a a b a c a a a a b a c a a'.split(' '));
  });

  it('cycles in list order for equal weights', () => {
    const { a, b, c } = named({ a: 100, b: 100, c: 100 });
    expect(picks(h.loadBalance('roundrobin'), [a!, b!, c!], 6)).toEqual(['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('keeps separate state per method', () => {
    const { a, b, c } = named({ a: 5, b: 1, c: 1 });
    const lb = h.loadBalance('roundrobin');
    const list = [a!, b!, c!];
    const hello: string[] = [];
    const bye: string[] = [];
    for (let i = 0; i < 7; i++) {
      hello.push(...picks(lb, list, 1, 'sayHello'));
      bye.push(...picks(lb, list, 1, 'sayBye'));
    }
    expect(hello).toEqual('a a b a c a a'.split(' '));
    expect(bye).toEqual('a a b a c a a'.split(' '));
  });

  it('keeps separate state per application (the extension instance)', async () => {
    const { a, b, c } = named({ a: 5, b: 1, c: 1 });
    const other = await createHarness();
    try {
      const list = [a!, b!, c!];
      expect(picks(h.loadBalance('roundrobin'), list, 3)).toEqual(['a', 'a', 'b']);
      expect(picks(other.loadBalance('roundrobin'), list, 3)).toEqual(['a', 'a', 'b']);
    } finally {
      await other.destroy();
    }
  });

  it('resets the state of a provider whose weight changed', () => {
    const { a, b } = named({ a: 1, b: 9 });
    const lb = h.loadBalance('roundrobin');
    expect(picks(lb, [a!, b!], 3)).toEqual(['b', 'b', 'b']); // a's current is now 3
    const heavier = new FakeInvoker(a!.url.addParameter('weight', 5)); // same identity, new weight
    names.set(heavier, 'a');
    // a restarts from 0: b a b a. Keeping its current (3) would give a b b a.
    expect(picks(lb, [heavier, b!], 4)).toEqual(['b', 'a', 'b', 'a']);
  });

  it('drops state idle for more than 60 s once the provider set changes', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = 1_700_000_000_000;
    const run = (gapMs: number): string[] => {
      const { c, a, b } = named({ c: 2, a: 3, b: 3 });
      const lb = new RoundRobinLoadBalance();
      vi.setSystemTime(start);
      const out = picks(lb, [c!, a!, b!], 1);
      out.push(...picks(lb, [a!, b!], 1)); // c was just used: kept although the set changed
      vi.setSystemTime(start + gapMs);
      out.push(...picks(lb, [a!, b!], 1)); // c idle for gapMs: dropped when > 60 s
      out.push(...picks(lb, [c!, a!, b!], 4));
      return out;
    };
    expect(run(59_000)).toEqual('a b b c a b a'.split(' ')); // c kept its accumulated current
    expect(run(61_000)).toEqual('a b b a c b a'.split(' ')); // c restarted from 0
  });

  it('is used by a cluster when the provider URL asks for it', async () => {
    const { a, b, c } = named({ a: 5, b: 1, c: 1 }, { loadbalance: 'roundrobin' });
    const list = [a!, b!, c!];
    const invoker = h.cluster('failfast').join(new MutableDirectory(list));
    const byAddress = new Map(list.map((p) => [p.url.getAddress(), names.get(p)]));
    const answers: unknown[] = [];
    for (let i = 0; i < 7; i++) {
      const result = await invoker.invoke(invocation());
      answers.push(byAddress.get(result.value as string));
    }
    expect(answers).toEqual('a a b a c a a'.split(' '));
  });
});
