import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { Result, RpcErrorCode, type Invoker } from '@weft/core';

import {
  after,
  bizResult,
  consumerUrl,
  createHarness,
  FakeInvoker,
  hang,
  invocation,
  MutableDirectory,
  providers,
  reject,
  rejectionOf,
  succeed,
  throwSync,
  type Harness,
} from './support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  vi.useFakeTimers();
});
afterEach(async () => {
  vi.useRealTimers();
  await h.destroy();
});

const forking = (directory: MutableDirectory): Invoker => h.cluster('forking').join(directory);
const called = (list: FakeInvoker[]) => list.filter((p) => p.calls > 0);

describe('forking', () => {
  it('calls forks=2 distinct providers at once by default', async () => {
    const list = providers(5, hang());
    void Promise.resolve(forking(new MutableDirectory(list)).invoke(invocation())).catch(() => undefined);
    expect(called(list)).toHaveLength(2);
    expect(called(list).every((p) => p.calls === 1)).toBe(true);
  });

  it.each([
    ['0', 4],
    ['-1', 4],
    ['4', 4],
    ['9', 4],
    ['3', 3],
  ])('forks=%s calls %i of 4 providers', async (forks, expected) => {
    const list = providers(4, succeed());
    await forking(new MutableDirectory(list, consumerUrl({ forks }))).invoke(invocation());
    expect(called(list)).toHaveLength(expected);
  });

  it('resolves with the first success, even after a faster failure', async () => {
    const list = providers(3);
    list[0]!.behaviour = reject(RpcErrorCode.NETWORK);
    list[1]!.behaviour = after(30, succeed('slow'));
    list[2]!.behaviour = after(10, succeed('fast'));
    const pending = forking(new MutableDirectory(list, consumerUrl({ forks: 0 }))).invoke(invocation());
    await vi.advanceTimersByTimeAsync(10);
    expect((await pending).value).toBe('fast');
  });

  it('treats a result carrying a business error as an answer', async () => {
    const error = new Error('no funds');
    const list = [new FakeInvoker(providers(1)[0]!.url, bizResult(error)), ...providers(1, hang())];
    const result = await forking(new MutableDirectory(list)).invoke(invocation());
    expect(result.exception).toBe(error);
  });

  it('handles a fork that throws synchronously like one that rejects', async () => {
    const list = providers(2);
    list[0]!.behaviour = throwSync(new Error('boom'));
    list[1]!.behaviour = after(5, succeed('ok'));
    const pending = forking(new MutableDirectory(list)).invoke(invocation());
    await vi.advanceTimersByTimeAsync(5);
    expect((await pending).value).toBe('ok');
  });

  it('rejects only when every fork failed, with the last code', async () => {
    const list = providers(3);
    list[0]!.behaviour = reject(RpcErrorCode.NETWORK, 'reset');
    list[1]!.behaviour = after(20, reject(RpcErrorCode.TIMEOUT, 'late'));
    list[2]!.behaviour = after(10, reject(RpcErrorCode.SERIALIZATION, 'garbled'));
    const pending = rejectionOf(forking(new MutableDirectory(list, consumerUrl({ forks: 0 }))).invoke(invocation()));
    await vi.advanceTimersByTimeAsync(20);
    const error = await pending;
    expect(error.code).toBe(RpcErrorCode.TIMEOUT);
    expect(error.message).toBe(
      'Failed to forking invoke provider [10.0.0.1:20880, 10.0.0.2:20880, 10.0.0.3:20880], but no luck to perform ' +
        'the invocation. Last error is: late'
    );
    expect(vi.getTimerCount()).toBe(0);
  });

  it('rejects with timeout after timeout=1000 ms by default when nothing answered (Dubbo returns null)', async () => {
    const list = providers(2, hang());
    let outcome: unknown = 'pending';
    void Promise.resolve(forking(new MutableDirectory(list)).invoke(invocation())).then(
        (r) => (outcome = r),
        (e: unknown) => (outcome = e)
      );
    await vi.advanceTimersByTimeAsync(999);
    expect(outcome).toBe('pending');
    await vi.advanceTimersByTimeAsync(1);
    expect(outcome).toMatchObject({ name: 'RpcError', code: RpcErrorCode.TIMEOUT });
    expect((outcome as Error).message).toBe(
      'Failed to forking invoke provider [10.0.0.1:20880, 10.0.0.2:20880], but no luck to perform the invocation: ' +
        'no result within the timeout of 1000 ms (0 of 2 forks failed).'
    );
  });

  it('reads the timeout from the URL and times out when one fork failed and the other hangs', async () => {
    const list = providers(2);
    list[0]!.behaviour = reject(RpcErrorCode.NETWORK);
    list[1]!.behaviour = hang();
    const pending = rejectionOf(forking(new MutableDirectory(list, consumerUrl({ timeout: 200 }))).invoke(invocation()));
    await vi.advanceTimersByTimeAsync(200);
    const error = await pending;
    expect(error.code).toBe(RpcErrorCode.TIMEOUT);
    expect(error.message).toContain('(1 of 2 forks failed)');
  });

  it('ignores answers arriving after the timeout', async () => {
    const answer = Result.of('late');
    const list = providers(
      2,
      after(2000, () => Promise.resolve(answer))
    );
    const pending = rejectionOf(forking(new MutableDirectory(list)).invoke(invocation()));
    await vi.advanceTimersByTimeAsync(3000);
    expect((await pending).code).toBe(RpcErrorCode.TIMEOUT);
  });

  it('forks fewer providers instead of looping when no other distinct provider can be selected', async () => {
    const list = providers(3, succeed());
    list[1]!.available = false;
    list[2]!.available = false;
    const result = await forking(new MutableDirectory(list, consumerUrl({ forks: 2 }))).invoke(invocation());
    expect(result.value).toBe('10.0.0.1:20880');
    expect(list.map((p) => p.calls)).toEqual([1, 0, 0]);
  });
});
