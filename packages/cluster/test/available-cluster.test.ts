import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { LoadBalance, RpcErrorCode, RpcStatusRegistry } from '@weft/core';

import {
  createHarness,
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
});
afterEach(() => h.destroy());

const available = (directory: MutableDirectory) => h.cluster('available').join(directory);

describe('available', () => {
  it('calls the first available provider in list order, without asking the load balance', async () => {
    const list = providers(3);
    (list[0] as (typeof list)[0]).available = false;
    const random = h.app.getExtensionLoader(LoadBalance).getExtension('random');
    const select = vi.spyOn(random, 'select');
    const invoker = available(new MutableDirectory(list));
    for (let i = 0; i < 5; i++) expect((await invoker.invoke(invocation())).value).toBe('10.0.0.2:20880');
    expect(select).not.toHaveBeenCalled();
  });

  it('rejects with no-invoker listing the providers when none is available', async () => {
    const list = providers(2);
    for (const p of list) p.available = false;
    const error = await rejectionOf(available(new MutableDirectory(list)).invoke(invocation()));
    expect(error.code).toBe(RpcErrorCode.NO_INVOKER);
    expect(error.message).toBe('No provider available in [10.0.0.1:20880, 10.0.0.2:20880]');
    expect(list.every((p) => p.calls === 0)).toBe(true);
  });

  it('passes a failure on without retrying, mapping non-RpcErrors', async () => {
    const list = providers(2, reject(RpcErrorCode.NETWORK, 'reset'));
    expect((await rejectionOf(available(new MutableDirectory(list)).invoke(invocation()))).message).toBe('reset');
    expect(list.map((p) => p.calls)).toEqual([1, 0]);
    const thrown = providers(1, throwSync(new Error('boom')));
    expect((await rejectionOf(available(new MutableDirectory(thrown)).invoke(invocation()))).code).toBe(RpcErrorCode.UNKNOWN);
  });

  it('counts the attempt when the configured load balance reads counters', async () => {
    const list = providers(2, succeed(), { loadbalance: 'leastactive' });
    await available(new MutableDirectory(list)).invoke(invocation());
    expect(h.app.getService(RpcStatusRegistry).getMethodStatus(list[0]!.url, 'sayHello').total).toBe(1);
  });
});
