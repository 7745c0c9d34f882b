import { createHash } from 'node:crypto';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ExtensionError, ExtensionErrorCode, RpcErrorCode, type Invoker } from '@weft/core';

import {
  consumerUrl,
  createHarness,
  FakeInvoker,
  invocation,
  MutableDirectory,
  providers,
  providerUrl,
  rejectionOf,
  type Harness,
} from './support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.destroy());

const url = consumerUrl();
const keys = Array.from({ length: 1000 }, (_, i) => `user-${i}`);

function mapping(list: readonly Invoker[], args: (key: string) => unknown[] = (k) => [k]): Map<string, Invoker> {
  const lb = h.loadBalance('consistenthash');
  return new Map(keys.map((k) => [k, lb.select(list, url, invocation({ args: args(k) }))]));
}

interface Ring {
  readonly points: number[];
  readonly owners: Map<number, FakeInvoker>;
}
const rings = new WeakMap<readonly FakeInvoker[], Map<number, Ring>>();

function le32(digest: Buffer, offset: number): number {
  return (digest[offset]! | (digest[offset + 1]! << 8) | (digest[offset + 2]! << 16) | (digest[offset + 3]! << 24)) >>> 0;
}

/** An independent implementation of the ring described in the spec, to check the real one against. */
function referenceSelect(list: readonly FakeInvoker[], key: string, replicas = 160): FakeInvoker {
  let byReplicas = rings.get(list);
  if (byReplicas === undefined) rings.set(list, (byReplicas = new Map()));
  let ring = byReplicas.get(replicas);
  if (ring === undefined) {
    const owners = new Map<number, FakeInvoker>();
    for (const invoker of list) {
      for (let i = 0; i < replicas / 4; i++) {
        const digest = createHash('md5').update(`${invoker.url.getAddress()}${i}`).digest();
        for (let n = 0; n < 4; n++) owners.set(le32(digest, 4 * n), invoker);
      }
    }
    ring = { points: [...owners.keys()].sort((x, y) => x - y), owners };
    byReplicas.set(replicas, ring);
  }
  const hash = le32(createHash('md5').update(key).digest(), 0);
  const at = ring.points.find((p) => p >= hash) ?? ring.points[0]!;
  return ring.owners.get(at)!;
}

describe('consistenthash', () => {
  it('follows the md5 ring: 160 nodes, 4 little-endian points per digest, ceiling lookup', () => {
    const list = providers(4);
    const actual = mapping(list);
    for (const key of keys) expect(actual.get(key)).toBe(referenceSelect(list, key));
  });

  it('sends the same key to the same provider every time, and spreads keys over all providers', () => {
    const list = providers(5);
    const first = mapping(list);
    const second = mapping(list);
    expect(second).toEqual(first);
    const perProvider = list.map((p) => [...first.values()].filter((v) => v === p).length);
    expect(Math.min(...perProvider)).toBeGreaterThan(100);
  });

  it('moves only the keys of a removed provider', () => {
    const list = providers(5);
    const before = mapping(list);
    const removed = list[2]!;
    const after = mapping(list.filter((p) => p !== removed));
    let moved = 0;
    for (const key of keys) {
      if (before.get(key) === removed) {
        expect(after.get(key)).not.toBe(removed);
        moved++;
      } else {
        expect(after.get(key)).toBe(before.get(key));
      }
    }
    expect(moved).toBeGreaterThan(0);
  });

  it('rebuilds the ring when a provider is added, moving keys only to the new one', () => {
    const list = providers(4);
    const before = mapping(list);
    const added = new FakeInvoker(providerUrl('10.0.0.50:20880'));
    const after = mapping([...list, added]);
    let moved = 0;
    for (const key of keys) {
      if (after.get(key) !== before.get(key)) {
        expect(after.get(key)).toBe(added);
        moved++;
      }
    }
    expect(moved).toBeGreaterThan(0);
  });

  it('hashes argument 0 by default, and the indexes listed in hash.arguments', () => {
    const list = providers(5);
    const byFirst = mapping(list, (k) => [k, 'ignored']);
    expect(mapping(list, (k) => [k, 'other'])).toEqual(byFirst);

    const second = providers(5, undefined, { 'sayHello.hash.arguments': '1' });
    const bySecond = mapping(second, (k) => ['ignored', k]);
    expect(mapping(second, (k) => ['different', k])).toEqual(bySecond);

    const both = providers(5, undefined, { 'hash.arguments': '0, 1,7' }); // 7 is out of range: skipped
    for (const key of keys.slice(0, 50)) {
      const lb = h.loadBalance('consistenthash');
      expect(lb.select(both, url, invocation({ args: [key, 'x'] }))).toBe(referenceSelect(both, `${key}x`));
    }
  });

  it('reads hash.nodes', () => {
    const list = providers(3, undefined, { 'hash.nodes': 16 });
    const actual = mapping(list);
    for (const key of keys.slice(0, 200)) expect(actual.get(key)).toBe(referenceSelect(list, key, 16));
  });

  it('renders null as "null" in the key, as Dubbo', () => {
    const list = providers(5);
    const lb = h.loadBalance('consistenthash');
    expect(lb.select(list, url, invocation({ args: [null] }))).toBe(lb.select(list, url, invocation({ args: ['null'] })));
    expect(lb.select(list, url, invocation({ args: [null] }))).toBe(referenceSelect(list, 'null'));
  });

  it('rejects a malformed hash.arguments with ERR_SPI_INVALID_PARAMETER', async () => {
    const list = providers(2, undefined, { loadbalance: 'consistenthash', 'hash.arguments': '0,x' });
    const error = await rejectionOf(h.cluster('failfast').join(new MutableDirectory(list)).invoke(invocation()));
    expect(error.code).toBe(RpcErrorCode.UNKNOWN);
    expect(error.cause).toBeInstanceOf(ExtensionError);
    expect((error.cause as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    expect((error.cause as ExtensionError).message).toContain('hash.arguments');
  });

  it('is used through the cluster: a key always reaches the same provider', async () => {
    const list = providers(4, undefined, { loadbalance: 'consistenthash' });
    const invoker = h.cluster('failover').join(new MutableDirectory(list));
    const answers = new Set<unknown>();
    for (let i = 0; i < 20; i++) answers.add((await invoker.invoke(invocation({ args: ['user-7'] }))).value);
    expect(answers.size).toBe(1);
    expect([...answers][0]).toBe(referenceSelect(list, 'user-7').url.getAddress());
  });
});
