import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { RpcError, RpcErrorCode, RpcStatusRegistry } from '@weft/core';
import { FailbackClusterInvoker } from '@weft/cluster';

import {
  addPickers,
  consumerUrl,
  createHarness,
  FakeInvoker,
  invocation,
  MutableDirectory,
  providers,
  providerUrl,
  reject,
  rejectionOf,
  succeed,
  throwSync,
  type Harness,
} from './support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  addPickers(h);
  vi.useFakeTimers();
});
afterEach(async () => {
  vi.useRealTimers();
  await h.destroy();
});

function failback(directory: MutableDirectory): FailbackClusterInvoker {
  return h.cluster('failback').join(directory) as FailbackClusterInvoker;
}

const failing = (count: number) => providers(count, reject(RpcErrorCode.NETWORK, 'down'), { loadbalance: 'first' });
const totalCalls = (list: FakeInvoker[]) => list.reduce((n, p) => n + p.calls, 0);

describe('failback', () => {
  it('returns the result when the call succeeds, queuing nothing', async () => {
    const invoker = failback(new MutableDirectory(providers(1, succeed('hi'))));
    expect((await invoker.invoke(invocation())).value).toBe('hi');
    expect(invoker.pendingRetries).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('answers a failure with an empty result and an error log, then retries after 5 s on another provider', async () => {
    const list = failing(2);
    (list[1] as FakeInvoker).behaviour = succeed();
    const invoker = failback(new MutableDirectory(list));
    const result = await invoker.invoke(invocation());
    expect(result.hasException()).toBe(false);
    expect(result.value).toBeUndefined();
    expect(h.logger.messages('error')).toEqual([
      'Failback to invoke method sayHello, wait for retry in background. Ignored exception: down',
    ]);
    expect(invoker.pendingRetries).toBe(1);

    await vi.advanceTimersByTimeAsync(4999);
    expect(list.map((p) => p.calls)).toEqual([1, 0]);
    await vi.advanceTimersByTimeAsync(1);
    expect(list.map((p) => p.calls)).toEqual([1, 1]);
    expect(list[1]?.invocations[0]?.args).toEqual(['world']);
    expect(invoker.pendingRetries).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(h.logger.messages('info')).toContain('Failback retry 1 of method sayHello succeeded.');
  });

  it('handles a synchronous throw the same way', async () => {
    const invoker = failback(new MutableDirectory(providers(1, throwSync(new Error('boom')))));
    expect((await invoker.invoke(invocation())).value).toBeUndefined();
    expect(invoker.pendingRetries).toBe(1);
  });

  it('gives up after retries=3 failed retries (asynchronous failures included) with an error log', async () => {
    const list = failing(2);
    const invoker = failback(new MutableDirectory(list));
    await invoker.invoke(invocation());
    await vi.advanceTimersByTimeAsync(5000 * 10);
    expect(totalCalls(list)).toBe(1 + 3);
    expect(invoker.pendingRetries).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    const errors = h.logger.messages('error');
    expect(errors.filter((m) => m.startsWith('Failed retry to invoke method sayHello, waiting again.'))).toHaveLength(2);
    expect(errors.at(-1)).toMatch(/^Failed retry times exceed threshold \(3\), We have to abandon, invocation->method sayHello/);
  });

  it.each([
    ['1', 1],
    ['-1', 3],
    ['0', 0],
  ])('retries=%s makes %i background retries', async (retries, expected) => {
    const list = failing(2);
    const invoker = failback(new MutableDirectory(list, consumerUrl({ retries })));
    await invoker.invoke(invocation());
    expect(invoker.pendingRetries).toBe(expected === 0 ? 0 : 1);
    await vi.advanceTimersByTimeAsync(5000 * 10);
    expect(totalCalls(list)).toBe(1 + expected);
  });

  it('waits failback.interval ms between retries', async () => {
    const list = failing(1);
    const invoker = failback(new MutableDirectory(list, consumerUrl({ 'failback.interval': 1000 })));
    await invoker.invoke(invocation());
    await vi.advanceTimersByTimeAsync(999);
    expect(totalCalls(list)).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(totalCalls(list)).toBe(2);
    await vi.advanceTimersByTimeAsync(1000);
    expect(totalCalls(list)).toBe(3);
  });

  it('avoids the provider that failed last when retrying', async () => {
    const list = failing(3);
    const invoker = failback(new MutableDirectory(list));
    await invoker.invoke(invocation());
    await vi.advanceTimersByTimeAsync(5000);
    await vi.advanceTimersByTimeAsync(5000);
    // first: 1 fails; retry 1 excludes 1 → 2; retry 2 excludes 2 → "first" picks 1 again.
    expect(list.map((p) => p.calls)).toEqual([2, 1, 0]);
  });

  it('lists the providers again for each retry', async () => {
    const directory = new MutableDirectory(failing(1));
    const invoker = failback(directory);
    await invoker.invoke(invocation());
    const fresh = new FakeInvoker(providerUrl('10.0.0.7:20880'), succeed());
    directory.invokers = [fresh];
    await vi.advanceTimersByTimeAsync(5000);
    expect(fresh.calls).toBe(1);
    expect(invoker.pendingRetries).toBe(0);
  });

  it('counts a retry with no provider listed as a failed retry', async () => {
    const directory = new MutableDirectory(failing(1), consumerUrl({ retries: 2 }));
    const invoker = failback(directory);
    await invoker.invoke(invocation());
    directory.invokers = [];
    await vi.advanceTimersByTimeAsync(5000);
    expect(invoker.pendingRetries).toBe(1);
    await vi.advanceTimersByTimeAsync(5000);
    expect(invoker.pendingRetries).toBe(0);
    expect(h.logger.messages('error').at(-1)).toContain('No provider available for the service org.acme.Greeter');
  });

  it('bounds the queue at failbacktasks, dropping the oldest pending task with an error log', async () => {
    const list = failing(1);
    const invoker = failback(new MutableDirectory(list, consumerUrl({ failbacktasks: 2, retries: 1 })));
    for (const who of ['a', 'b', 'c']) await invoker.invoke(invocation({ args: [who] }));
    expect(invoker.pendingRetries).toBe(2);
    expect(vi.getTimerCount()).toBe(2);
    expect(h.logger.messages('error').filter((m) => m.includes('is full'))).toEqual([
      'Failback retry queue of org.acme.Greeter is full (2 pending, key failbacktasks): dropped the oldest retry, of method sayHello (0 of 1 retries done).',
    ]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(list[0]?.invocations.map((i) => i.args[0])).toEqual(['a', 'b', 'c', 'b', 'c']);
  });

  it('defaults failbacktasks to 100 (and ≤ 0 means 100)', async () => {
    const invoker = failback(new MutableDirectory(failing(1), consumerUrl({ failbacktasks: 0 })));
    for (let i = 0; i < 105; i++) await invoker.invoke(invocation());
    expect(invoker.pendingRetries).toBe(100);
    expect(h.logger.messages('error').filter((m) => m.includes('is full'))).toHaveLength(5);
  });

  it('rethrows a business RpcError and queues nothing', async () => {
    const biz = new RpcError(RpcErrorCode.BIZ, 'no funds');
    const invoker = failback(new MutableDirectory(providers(1, () => Promise.reject(biz))));
    expect(await rejectionOf(invoker.invoke(invocation()))).toBe(biz);
    expect(invoker.pendingRetries).toBe(0);
  });

  it('abandons a task whose retry fails with a business error', async () => {
    const list = failing(1);
    const invoker = failback(new MutableDirectory(list));
    await invoker.invoke(invocation());
    (list[0] as FakeInvoker).behaviour = () => Promise.reject(new RpcError(RpcErrorCode.BIZ, 'no funds'));
    await vi.advanceTimersByTimeAsync(5000);
    expect(invoker.pendingRetries).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    expect(totalCalls(list)).toBe(2);
  });

  it('counts background retries for load balances that read counters', async () => {
    const list = providers(1, reject(RpcErrorCode.NETWORK), { loadbalance: 'leastactive' });
    const invoker = failback(new MutableDirectory(list, consumerUrl({ retries: 2 })));
    await invoker.invoke(invocation());
    await vi.advanceTimersByTimeAsync(20_000);
    const status = h.app.getService(RpcStatusRegistry).getMethodStatus(list[0]!.url, 'sayHello');
    expect([status.total, status.failed, status.active]).toEqual([3, 3, 0]);
  });

  it('destroy() of the invoker cancels its pending retries', async () => {
    const list = failing(1);
    const invoker = failback(new MutableDirectory(list));
    await invoker.invoke(invocation());
    await invoker.invoke(invocation());
    expect(vi.getTimerCount()).toBe(2);
    await invoker.destroy();
    expect(invoker.pendingRetries).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(totalCalls(list)).toBe(2);
  });

  it("destroying the application destroys the failback extension, which cancels every invoker's retries", async () => {
    const lists = [failing(1), failing(1)];
    const invokers = lists.map((list) => failback(new MutableDirectory(list)));
    for (const invoker of invokers) await invoker.invoke(invocation());
    expect(vi.getTimerCount()).toBe(2);
    await h.app.destroy();
    expect(invokers.map((i) => i.pendingRetries)).toEqual([0, 0]);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(lists.map(totalCalls)).toEqual([1, 1]);
  });

  it('unref()s its timers so pending retries never keep the process alive', async () => {
    vi.useRealTimers();
    const created: NodeJS.Timeout[] = [];
    const realSetTimeout = globalThis.setTimeout;
    const spy = vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => {
      const timer = realSetTimeout(fn, ms);
      created.push(timer);
      return timer;
    }) as typeof setTimeout);
    try {
      const invoker = failback(new MutableDirectory(failing(1), consumerUrl({ 'failback.interval': 60_000 })));
      await invoker.invoke(invocation());
      expect(created).toHaveLength(1);
      expect(created[0]?.hasRef()).toBe(false);
      await invoker.destroy();
    } finally {
      spy.mockRestore();
    }
  });
});
