// A provider that completed synchronously answers with its Result, not a promise: every strategy must pass
// that Result through at once (no promise hop) and still apply its semantics — retries, failover recovery,
// counters, background retries — when the synchronous answer follows an asynchronous failure.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { Result, RpcErrorCode, RpcStatusRegistry, type Invoker } from '@weft/core';

import { FailbackClusterInvoker } from '@weft/cluster';
import {
  addPickers,
  bizResultSync,
  consumerUrl,
  createHarness,
  FakeInvoker,
  invocation,
  MutableDirectory,
  providers,
  providerUrl,
  reject,
  succeedSync,
  type Behaviour,
  type Harness,
} from './support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  addPickers(h);
});
afterEach(() => h.destroy());

function join(name: string, list: FakeInvoker[], params: Record<string, string | number> = {}): Invoker {
  return h.cluster(name).join(new MutableDirectory(list, consumerUrl(params)));
}

/** The first provider (picked first by the "first" load balance) fails asynchronously; the second answers at once. */
function failingThenSync(): FakeInvoker[] {
  return [
    new FakeInvoker(providerUrl('10.0.0.1:20880', { loadbalance: 'first' }), reject(RpcErrorCode.NETWORK, 'connection reset')),
    new FakeInvoker(providerUrl('10.0.0.2:20880', { loadbalance: 'first' }), succeedSync('from second')),
  ];
}

describe('a provider answering synchronously', () => {
  // forking races its forks on a timer, and broadcast calls every provider in turn: both always answer with a
  // promise; the five others pass the provider's Result itself back.
  const passThrough = ['failover', 'failfast', 'failsafe', 'failback', 'available'];

  it.each(passThrough)('%s returns the provider’s completed Result itself, with no promise', (name) => {
    const list = providers(2, succeedSync('hi'));
    const answer = join(name, list).invoke(invocation());
    expect(answer).toBeInstanceOf(Result);
    expect((answer as Result).value).toBe('hi');
    expect(list.reduce((n, p) => n + p.calls, 0)).toBe(1);
  });

  it.each(passThrough)('%s passes a business error in a completed Result through once, never retrying it', (name) => {
    const error = new TypeError('bad name');
    const list = providers(3, bizResultSync(error));
    const answer = join(name, list).invoke(invocation());
    expect(answer).toBeInstanceOf(Result);
    expect((answer as Result).exception).toBe(error);
    expect(list.reduce((n, p) => n + p.calls, 0)).toBe(1);
  });

  it.each(['forking', 'broadcast'])('%s settles with the synchronous answer', async (name) => {
    const list = providers(2, succeedSync('hi'));
    const result = await join(name, list).invoke(invocation());
    expect(result.value).toBe('hi');
  });

  it('failover: after an asynchronous failure, a retry answered synchronously recovers the call and is logged', async () => {
    const list = failingThenSync();
    const result = await join('failover', list).invoke(invocation());
    expect(result.value).toBe('from second');
    expect(list.map((p) => p.calls)).toEqual([1, 1]);
    const warnings = h.logger.messages('warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('was successful by the provider 10.0.0.2:20880');
    expect(warnings[0]).toContain('failed providers [10.0.0.1:20880]');
  });

  it('failfast and available: a synchronous answer after nothing failed carries no wrapping', () => {
    for (const name of ['failfast', 'available']) {
      const answer = join(name, providers(1, succeedSync('plain'))).invoke(invocation());
      expect((answer as Result).value).toBe('plain');
      expect((answer as Result).hasException()).toBe(false);
    }
  });

  it('counts a synchronous attempt in and out at once for leastactive (total 1, active 0)', () => {
    const list = providers(1, succeedSync('ok'), { loadbalance: 'leastactive' });
    const answer = join('failover', list).invoke(invocation());
    expect(answer).toBeInstanceOf(Result);
    const status = h.app.getService(RpcStatusRegistry).getMethodStatus((list[0] as FakeInvoker).url, 'sayHello');
    expect([status.total, status.failed, status.active]).toEqual([1, 0, 0]);
  });

  it('counts a failed asynchronous attempt and the synchronous retry each exactly once', async () => {
    const list = [
      new FakeInvoker(providerUrl('10.0.0.1:20880', { loadbalance: 'leastactive' }), reject(RpcErrorCode.NETWORK)),
      new FakeInvoker(providerUrl('10.0.0.2:20880', { loadbalance: 'leastactive' }), succeedSync('ok')),
    ];
    // leastactive picks randomly between two idle providers: run until the failing one went first once.
    const statuses = h.app.getService(RpcStatusRegistry);
    for (let i = 0; i < 20; i++) await join('failover', list).invoke(invocation());
    const [bad, good] = list.map((p) => statuses.getMethodStatus(p.url, 'sayHello'));
    expect(bad?.active).toBe(0);
    expect(good?.active).toBe(0);
    expect(bad?.total).toBeGreaterThan(0);
    expect(bad?.failed).toBe(bad?.total);
    expect(good?.total).toBe(20);
    expect(good?.failed).toBe(0);
  });

  it('failback: a background retry answered synchronously empties the retry queue', async () => {
    vi.useFakeTimers();
    try {
      let calls = 0;
      const flaky: Behaviour = () => {
        calls++;
        return calls === 1 ? Promise.reject(new Error('down')) : Result.of('late');
      };
      const invoker = h.cluster('failback').join(new MutableDirectory(providers(1, flaky))) as FailbackClusterInvoker;
      const result = await invoker.invoke(invocation());
      expect(result.value).toBeUndefined();
      expect(invoker.pendingRetries).toBe(1);
      await vi.advanceTimersByTimeAsync(5000);
      expect(calls).toBe(2);
      expect(invoker.pendingRetries).toBe(0);
      expect(h.logger.messages('info').some((m) => m.includes('Failback retry 1 of method sayHello succeeded.'))).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
