import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import {
  ExtensionError,
  ExtensionErrorCode,
  Invoker,
  LoadBalance,
  RpcErrorCode,
  RpcStatusRegistry,
  type Invocation,
  type Result,
} from '@weft/core';
import { AbstractClusterInvoker } from '@weft/cluster';

import {
  addPickers,
  bizResult,
  consumerUrl,
  createHarness,
  FakeInvoker,
  hang,
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
});
afterEach(() => h.destroy());

function join(directory: MutableDirectory, cluster = 'failfast'): Invoker {
  return h.cluster(cluster).join(directory);
}

describe('AbstractClusterInvoker', () => {
  it('is the exported base of every strategy invoker', () => {
    expect(join(new MutableDirectory(providers(1)))).toBeInstanceOf(AbstractClusterInvoker);
  });

  describe('getUrl()', () => {
    it("is the directory's URL, read on every call", () => {
      const directory = new MutableDirectory(providers(1));
      const invoker = join(directory);
      expect(invoker.getUrl()).toBe(directory.url);
      directory.url = consumerUrl({ retries: 7 });
      expect(invoker.getUrl()).toBe(directory.url);
    });
  });

  describe('destroy()', () => {
    it('destroys the directory and its providers once, then every call rejects', async () => {
      const list = providers(2);
      const directory = new MutableDirectory(list);
      const destroy = vi.spyOn(directory, 'destroy');
      const invoker = join(directory);
      await invoker.destroy();
      await invoker.destroy();
      expect(destroy).toHaveBeenCalledTimes(1);
      expect(list.every((p) => p.destroyed)).toBe(true);
      const error = await rejectionOf(invoker.invoke(invocation()));
      expect(error.code).toBe(RpcErrorCode.UNKNOWN);
      expect(error.message).toBe(
        'Rpc cluster invoker for org.acme.Greeter on consumer 10.0.0.99 is now destroyed! Can not invoke any more.'
      );
      expect(list.every((p) => p.calls === 0)).toBe(true);
    });

    it('rejects calls once the directory itself was destroyed', async () => {
      const directory = new MutableDirectory(providers(1));
      const invoker = join(directory);
      await directory.destroy();
      expect((await rejectionOf(invoker.invoke(invocation()))).message).toContain('is now destroyed');
    });
  });

  describe('invoke()', () => {
    it('rejects with no-invoker naming the method and service key when the directory lists nothing', async () => {
      const directory = new MutableDirectory([], consumerUrl({ group: 'g1', version: '1.0' }));
      const error = await rejectionOf(join(directory).invoke(invocation()));
      expect(error.code).toBe(RpcErrorCode.NO_INVOKER);
      expect(error.message).toBe(
        'Failed to invoke the method sayHello in the service org.acme.Greeter. No provider available for the service ' +
          'g1/org.acme.Greeter:1.0 from registry 10.0.0.99 on the consumer 10.0.0.99. ' +
          'Please check if the providers have been started and registered.'
      );
      expect(error.message).not.toContain('dubbo version');
    });

    it('never throws synchronously: a throwing directory becomes a rejected RpcError', async () => {
      const directory = new MutableDirectory(providers(1));
      const boom = new Error('list exploded');
      directory.list = () => {
        throw boom;
      };
      const pending = join(directory).invoke(invocation());
      expect(pending).toBeInstanceOf(Promise);
      const error = await rejectionOf(pending);
      expect(error.code).toBe(RpcErrorCode.UNKNOWN);
      expect(error.cause).toBe(boom);
    });

    it("uses the load balance named by the first provider's method-level loadbalance key", async () => {
      const { first, last } = addPickers(h);
      const list = [
        new FakeInvoker(providerUrl('10.0.0.1:20880', { 'sayHello.loadbalance': 'last', loadbalance: 'first' })),
        new FakeInvoker(providerUrl('10.0.0.2:20880')),
        new FakeInvoker(providerUrl('10.0.0.3:20880')),
      ];
      const lastSelect = vi.spyOn(last, 'select');
      const invoker = join(new MutableDirectory(list));
      expect((await invoker.invoke(invocation())).value).toBe('10.0.0.3:20880');
      expect(lastSelect).toHaveBeenCalledTimes(1);
      expect((await invoker.invoke(invocation({ methodName: 'sayBye' }))).value).toBe('10.0.0.1:20880');
      expect(first.offered).toHaveLength(1);
    });

    it('ignores loadbalance on later providers and on the consumer URL (Dubbo reads the first provider)', async () => {
      const { first } = addPickers(h);
      const list = [
        new FakeInvoker(providerUrl('10.0.0.1:20880', { loadbalance: 'first' })),
        new FakeInvoker(providerUrl('10.0.0.2:20880', { loadbalance: 'last' })),
      ];
      const invoker = join(new MutableDirectory(list, consumerUrl({ loadbalance: 'last' })));
      expect((await invoker.invoke(invocation())).value).toBe('10.0.0.1:20880');
      expect(first.offered).toHaveLength(1);
    });

    it('rejects with an RpcError wrapping ERR_SPI_NOT_FOUND for an unknown load balance name', async () => {
      const list = providers(2, succeed(), { loadbalance: 'nosuch' });
      const error = await rejectionOf(join(new MutableDirectory(list)).invoke(invocation()));
      expect(error.cause).toBeInstanceOf(ExtensionError);
      expect((error.cause as ExtensionError).code).toBe(ExtensionErrorCode.NOT_FOUND);
    });
  });

  describe('select()', () => {
    it('checks availability: an unavailable choice is replaced by an available, untried provider', async () => {
      addPickers(h);
      const list = providers(3, succeed(), { loadbalance: 'first' });
      (list[0] as FakeInvoker).available = false;
      const result = await join(new MutableDirectory(list)).invoke(invocation());
      expect(result.value).toBe('10.0.0.2:20880');
      expect((list[0] as FakeInvoker).calls).toBe(0);
    });

    it('calls the unavailable choice when cluster.availablecheck=false', async () => {
      addPickers(h);
      const list = providers(3, succeed(), { loadbalance: 'first' });
      (list[0] as FakeInvoker).available = false;
      const directory = new MutableDirectory(list, consumerUrl({ 'cluster.availablecheck': false }));
      expect((await join(directory).invoke(invocation())).value).toBe('10.0.0.1:20880');
    });

    it('returns a single provider as is, even when unavailable', async () => {
      const list = providers(1);
      (list[0] as FakeInvoker).available = false;
      expect((await join(new MutableDirectory(list)).invoke(invocation())).value).toBe('10.0.0.1:20880');
    });

    it('reselects with the load balance among the untried available providers', async () => {
      const { last } = addPickers(h);
      const list = providers(5, succeed(), { loadbalance: 'last' });
      (list[4] as FakeInvoker).available = false;
      const select = vi.spyOn(last, 'select');
      expect((await join(new MutableDirectory(list)).invoke(invocation())).value).toBe('10.0.0.4:20880');
      expect(select).toHaveBeenCalledTimes(2);
      expect(select.mock.calls[1]?.[0]).toEqual(list.slice(0, 4));
    });

    it('falls back to the provider after the choice (wrapping) when reselection finds nothing', async () => {
      addPickers(h);
      const list = providers(5, succeed(), { loadbalance: 'last' });
      (list[4] as FakeInvoker).available = false;
      // reselect.count=0: no random candidates, nothing tried yet → index + 1, wrapping to the first provider.
      const directory = new MutableDirectory(list, consumerUrl({ 'reselect.count': 0 }));
      expect((await join(directory).invoke(invocation())).value).toBe('10.0.0.1:20880');
    });

    it('with more providers than reselect.count, reselects among random picks only', async () => {
      const { last } = addPickers(h);
      const list = providers(6, succeed(), { loadbalance: 'last' });
      (list[5] as FakeInvoker).available = false;
      const select = vi.spyOn(last, 'select');
      const directory = new MutableDirectory(list, consumerUrl({ 'reselect.count': 2 }));
      await join(directory).invoke(invocation());
      const candidates = select.mock.calls[1]?.[0] ?? [];
      expect(candidates.length).toBeGreaterThanOrEqual(1);
      expect(candidates.length).toBeLessThanOrEqual(2);
      expect(candidates).not.toContain(list[5]);
    });

    it('when every provider is unavailable, still calls one (the one after the choice)', async () => {
      addPickers(h);
      const list = providers(3, succeed(), { loadbalance: 'first' });
      for (const p of list) p.available = false;
      expect((await join(new MutableDirectory(list)).invoke(invocation())).value).toBe('10.0.0.2:20880');
    });
  });

  describe('sticky', () => {
    it('without sticky, random spreads calls over the providers', async () => {
      const list = providers(3);
      const invoker = join(new MutableDirectory(list));
      for (let i = 0; i < 30; i++) await invoker.invoke(invocation());
      expect(list.filter((p) => p.calls > 0).length).toBe(3);
    });

    it('with method-level sticky=true, reuses the first choice while it stays listed and available', async () => {
      const list = providers(3, succeed(), { 'sayHello.sticky': 'true' });
      const directory = new MutableDirectory(list);
      const invoker = join(directory);
      const firstAnswer = (await invoker.invoke(invocation())).value;
      for (let i = 0; i < 20; i++) expect((await invoker.invoke(invocation())).value).toBe(firstAnswer);
      const stuck = list.find((p) => p.url.getAddress() === firstAnswer) as FakeInvoker;
      expect(stuck.calls).toBe(21);

      stuck.available = false;
      const next = (await invoker.invoke(invocation())).value;
      expect(next).not.toBe(firstAnswer);
      stuck.available = true;
      for (let i = 0; i < 5; i++) expect((await invoker.invoke(invocation())).value).toBe(next);

      directory.invokers = list.filter((p) => p.url.getAddress() !== next);
      const third = (await invoker.invoke(invocation())).value;
      expect(third).not.toBe(next);
      for (let i = 0; i < 5; i++) expect((await invoker.invoke(invocation())).value).toBe(third);
    });

    it('keeps the sticky provider even when unavailable if cluster.availablecheck=false (Dubbo drops it)', async () => {
      const list = providers(3, succeed(), { sticky: 'true' });
      const invoker = join(new MutableDirectory(list, consumerUrl({ 'cluster.availablecheck': false })));
      const answer = (await invoker.invoke(invocation())).value;
      for (const p of list) p.available = false;
      for (let i = 0; i < 10; i++) expect((await invoker.invoke(invocation())).value).toBe(answer);
    });

    it('does not reuse the sticky provider for a retry of the same call', async () => {
      const list = providers(2, reject(RpcErrorCode.NETWORK), { sticky: 'true' });
      const invoker = join(new MutableDirectory(list, consumerUrl({ retries: 1 })), 'failover');
      await Promise.resolve(invoker.invoke(invocation())).catch(() => undefined);
      expect(list.map((p) => p.calls)).toEqual([1, 1]);
      await Promise.resolve(invoker.invoke(invocation())).catch(() => undefined);
      expect(list.map((p) => p.calls)).toEqual([2, 2]);
    });

    it('isAvailable() follows the sticky provider once there is one, else the directory', async () => {
      const list = providers(2, succeed(), { sticky: 'true' });
      const invoker = join(new MutableDirectory(list));
      expect(invoker.isAvailable()).toBe(true);
      const answer = (await invoker.invoke(invocation())).value;
      const stuck = list.find((p) => p.url.getAddress() === answer) as FakeInvoker;
      const other = list.find((p) => p !== stuck) as FakeInvoker;
      stuck.available = false;
      expect(invoker.isAvailable()).toBe(false);
      stuck.available = true;
      other.available = false;
      expect(invoker.isAvailable()).toBe(true);
    });

    it('isAvailable() is false when no provider is available', () => {
      const list = providers(2);
      for (const p of list) p.available = false;
      expect(join(new MutableDirectory(list)).isAvailable()).toBe(false);
    });
  });

  describe('consumer-side RpcStatus counting', () => {
    function status(p: FakeInvoker) {
      return h.app.getService(RpcStatusRegistry).getMethodStatus(p.url, 'sayHello');
    }

    it('counts each attempt exactly once for leastactive: resolve, biz result, rejection, synchronous throw', async () => {
      const all = [
        new FakeInvoker(providerUrl('10.0.0.1:20880', { loadbalance: 'leastactive' }), succeed()),
        new FakeInvoker(providerUrl('10.0.0.2:20880', { loadbalance: 'leastactive' }), bizResult(new Error('no funds'))),
        new FakeInvoker(providerUrl('10.0.0.3:20880', { loadbalance: 'leastactive' }), reject(RpcErrorCode.NETWORK)),
        new FakeInvoker(providerUrl('10.0.0.4:20880', { loadbalance: 'leastactive' }), throwSync(new Error('sync'))),
      ];
      const [ok, biz, failed, thrown] = all as [FakeInvoker, FakeInvoker, FakeInvoker, FakeInvoker];
      for (const p of all) {
        const invoker = join(new MutableDirectory([p]));
        await Promise.resolve(invoker.invoke(invocation())).catch(() => undefined);
      }
      expect([status(ok).total, status(ok).failed, status(ok).active]).toEqual([1, 0, 0]);
      expect([status(biz).total, status(biz).failed, status(biz).active]).toEqual([1, 0, 0]);
      expect([status(failed).total, status(failed).failed, status(failed).active]).toEqual([1, 1, 0]);
      expect([status(thrown).total, status(thrown).failed, status(thrown).active]).toEqual([1, 1, 0]);
    });

    it('holds the count while the call is in flight', async () => {
      let finish: ((r: Result) => void) | undefined;
      const p = new FakeInvoker(
        providerUrl('10.0.0.1:20880', { loadbalance: 'shortestresponse' }),
        () => new Promise<Result>((resolve) => (finish = resolve))
      );
      const pending = join(new MutableDirectory([p])).invoke(invocation());
      await Promise.resolve();
      expect(status(p).active).toBe(1);
      finish?.(await succeed()(invocation(), 1, p));
      await pending;
      expect([status(p).active, status(p).total]).toEqual([0, 1]);
    });

    it('counts every failover attempt', async () => {
      const list = providers(3, reject(RpcErrorCode.NETWORK), { loadbalance: 'leastactive' });
      await Promise.resolve(join(new MutableDirectory(list), 'failover').invoke(invocation())).catch(() => undefined);
      for (const p of list) expect([status(p).total, status(p).failed, status(p).active]).toEqual([1, 1, 0]);
    });

    it('leaves counting to the active-limit filter when the provider URL sets actives for the method', async () => {
      const limited = providers(1, succeed(), { loadbalance: 'leastactive', 'sayHello.actives': 5 });
      await join(new MutableDirectory(limited)).invoke(invocation());
      expect(status(limited[0]!).total).toBe(0);
      await join(new MutableDirectory(limited)).invoke(invocation({ methodName: 'sayBye' }));
      expect(h.app.getService(RpcStatusRegistry).getMethodStatus(limited[0]!.url, 'sayBye').total).toBe(1);
    });

    it('counts nothing for load balances that do not read counters', async () => {
      const list = providers(2, succeed());
      const invoker = join(new MutableDirectory(list));
      for (let i = 0; i < 5; i++) await invoker.invoke(invocation());
      expect(h.app.getService(RpcStatusRegistry).size).toBe(0);
    });

    it('keeps a call that never settles counted as active, not completed', async () => {
      const p = new FakeInvoker(providerUrl('10.0.0.1:20880', { loadbalance: 'leastactive' }), hang());
      void join(new MutableDirectory([p])).invoke(invocation());
      await Promise.resolve();
      expect(status(p).active).toBe(1);
      expect(status(p).total).toBe(0);
    });
  });

  it('lets other packages write a strategy on top of it (select + invokeProvider)', async () => {
    class LastResortClusterInvoker extends AbstractClusterInvoker {
      protected doInvoke(inv: Invocation, invokers: readonly Invoker[], loadBalance: LoadBalance): Result | Promise<Result> {
        const chosen = this.select(loadBalance, inv, invokers, invokers.slice(0, -1));
        return this.invokeProvider(chosen, inv, this.countsRpcStatus(loadBalance));
      }
    }
    addPickers(h);
    const list = providers(3, succeed(), { loadbalance: 'first' });
    const invoker = new LastResortClusterInvoker(
      new MutableDirectory(list),
      h.app.getExtensionLoader(LoadBalance),
      h.logger,
      h.app.getService(RpcStatusRegistry)
    );
    // "first" picks provider 1, already in `selected`: reselection offers only the untried provider 3.
    expect((await invoker.invoke(invocation())).value).toBe('10.0.0.3:20880');
  });
});
