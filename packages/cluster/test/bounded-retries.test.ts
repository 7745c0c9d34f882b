import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { defineService, Invocation, RpcError, RpcErrorCode, type Invoker, type URL } from '@weft/core';

import {
  addPickers,
  consumerUrl,
  createHarness,
  FakeInvoker,
  invocation,
  MutableDirectory,
  providers,
  providerUrl,
  rejectionOf,
  succeed,
  type Behaviour,
  type Harness,
} from './support/harness.js';

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
  addPickers(h);
});
afterEach(() => h.destroy());

const Wallet = defineService('org.acme.Wallet', {
  pay: { args: [Number], returns: String, idempotent: false },
  balance: { args: [], returns: Number },
});

/** A directory whose URL (configurators applied) differs from the consumer's own URL, as after an override. */
class OverriddenDirectory extends MutableDirectory {
  constructor(invokers: Invoker[], url: URL, private readonly consumer: URL) {
    super(invokers, url);
  }
  override getConsumerUrl(): URL {
    return this.consumer;
  }
}

const fail = (code: RpcErrorCode, options: { unsent?: boolean } = {}): Behaviour => () =>
  Promise.reject(new RpcError(code, `provider failed with ${code}`, options));

const total = (list: FakeInvoker[]) => list.reduce((sum, p) => sum + p.calls, 0);

describe('the retries ceiling', () => {
  it('clamps retries to retries.max=10 (11 attempts) and warns once, naming the URL key', async () => {
    const list = providers(3, fail(RpcErrorCode.NETWORK));
    const invoker = h.cluster('failover').join(new MutableDirectory(list, consumerUrl({ retries: 100000 })));
    for (let i = 0; i < 5; i++) await rejectionOf(invoker.invoke(invocation()));
    expect(total(list)).toBe(5 * 11);
    expect(h.logger.messages('warn')).toEqual([
      'retries=100000 from the consumer URL key "retries" exceeds the ceiling retries.max=10; using 10 (set "retries.max" on the consumer to allow more).',
    ]);
  });

  it('names an override (configurator) and the method-level key as the source', async () => {
    const list = providers(2, fail(RpcErrorCode.NETWORK));
    const consumer = consumerUrl();
    const overridden = consumer.addParameters({ 'sayHello.retries': 50 });
    const invoker = h.cluster('failover').join(new OverriddenDirectory(list, overridden, consumer));
    const error = await rejectionOf(invoker.invoke(invocation()));
    expect(error.message).toContain('Tried 11 times');
    expect(h.logger.messages('warn')).toEqual([
      'retries=50 from an override (configurator) key "sayHello.retries" exceeds the ceiling retries.max=10; using 10 (set "retries.max" on the consumer to allow more).',
    ]);
  });

  it('clamps a retries attachment too, and rate-limits its warning', async () => {
    const list = providers(2, fail(RpcErrorCode.NETWORK));
    const invoker = h.cluster('failover').join(new MutableDirectory(list));
    for (let i = 0; i < 3; i++) await rejectionOf(invoker.invoke(invocation({ attachments: { retries: 1e9 } })));
    expect(total(list)).toBe(3 * 11);
    expect(h.logger.messages('warn')).toEqual([
      'retries=1000000000 from the "retries" attachment of the call to sayHello() exceeds the ceiling retries.max=10; using 10 (set "retries.max" on the consumer to allow more).',
    ]);
  });

  it('lets retries.max raise the ceiling', async () => {
    const list = providers(2, fail(RpcErrorCode.NETWORK));
    const invoker = h.cluster('failover').join(new MutableDirectory(list, consumerUrl({ retries: 20, 'retries.max': 25 })));
    await rejectionOf(invoker.invoke(invocation()));
    expect(total(list)).toBe(21);
    expect(h.logger.messages('warn')).toEqual([]);
  });

  it('explains a negative and a non-numeric retries', async () => {
    const negative = providers(2, fail(RpcErrorCode.NETWORK));
    await rejectionOf(h.cluster('failover').join(new MutableDirectory(negative, consumerUrl({ retries: -3 }))).invoke(invocation()));
    expect(total(negative)).toBe(1);
    const garbage = providers(3, fail(RpcErrorCode.NETWORK));
    await rejectionOf(h.cluster('failover').join(new MutableDirectory(garbage, consumerUrl({ retries: 'lots' }))).invoke(invocation()));
    expect(total(garbage)).toBe(3);
    expect(h.logger.messages('warn')).toEqual([
      'retries=-3 from the consumer URL key "retries" is negative; making one attempt (no retries).',
      'retries "lots" from the consumer URL key "retries" is not a number; using the default 2 for sayHello().',
    ]);
  });

  it('applies the ceiling to failback background retries', async () => {
    const list = providers(2, fail(RpcErrorCode.NETWORK));
    const invoker = h.cluster('failback').join(new MutableDirectory(list, consumerUrl({ retries: 500, 'failback.interval': 1 })));
    await invoker.invoke(invocation());
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(total(list)).toBe(11);
    expect(h.logger.messages('warn')).toEqual([
      'retries=500 from the key "retries" exceeds the ceiling retries.max=10; using 10 (set "retries.max" on the consumer to allow more).',
    ]);
  });
});

describe('the deadline bounds the failover loop', () => {
  it('starts no attempt after the call deadline (timeout=200 ms), and says how many were made', async () => {
    // A provider that always fails fast (5 ms), with a ceiling raised far above what fits in the deadline.
    const slowFail: Behaviour = () => new Promise((_, rejectWith) => setTimeout(() => rejectWith(new RpcError(RpcErrorCode.NETWORK, 'reset')), 5));
    const list = providers(2, slowFail, { timeout: 200 });
    const invoker = h.cluster('failover').join(new MutableDirectory(list, consumerUrl({ retries: 100000, 'retries.max': 100000 })));
    const started = performance.now();
    const error = await rejectionOf(invoker.invoke(invocation()));
    const elapsed = performance.now() - started;
    const attempts = total(list);
    expect(elapsed).toBeGreaterThanOrEqual(195);
    expect(elapsed).toBeLessThan(200 + 60);
    expect(attempts).toBeGreaterThan(3);
    expect(attempts).toBeLessThan(200 / 5 + 2);
    expect(error.code).toBe(RpcErrorCode.NETWORK);
    expect(error.message).toContain(`The call's deadline ended the retries after ${attempts} of 100001 attempts. Tried ${attempts} times`);
  });

  it('uses the caller deadline, and gives each retry only the time left', async () => {
    const seen: (number | undefined)[] = [];
    const record: Behaviour = (inv) => {
      seen.push(inv.deadline);
      return Promise.reject(new RpcError(RpcErrorCode.NETWORK, 'reset'));
    };
    const list = providers(3, record);
    const deadline = Date.now() + 5000;
    await rejectionOf(h.cluster('failover').join(new MutableDirectory(list)).invoke(invocation({ deadline })));
    expect(seen).toEqual([deadline, deadline, deadline]);
  });
});

describe('non-idempotent methods', () => {
  const pay = () => new Invocation({ methodName: 'pay', args: [10], service: Wallet });

  it('are not retried after a failure that may have reached the provider', async () => {
    for (const code of [RpcErrorCode.TIMEOUT, RpcErrorCode.NETWORK, RpcErrorCode.UNKNOWN, RpcErrorCode.LIMIT_EXCEEDED]) {
      const list = providers(3, fail(code), { loadbalance: 'first' });
      const error = await rejectionOf(h.cluster('failover').join(new MutableDirectory(list)).invoke(pay()));
      expect(total(list)).toBe(1);
      expect(error.code).toBe(code);
      expect(error.message).toBe(
        'Failed to invoke the method pay in the service org.acme.Greeter. Not retried: pay() is declared idempotent: false and ' +
          'the request may have reached the provider. Tried 1 times of the providers [10.0.0.1:20880] (1/3) from the registry ' +
          `10.0.0.99 on the consumer 10.0.0.99. Last error is: provider failed with ${code}`
      );
    }
  });

  it('are retried after failures known to happen before sending', async () => {
    const behaviours: Behaviour[] = [fail(RpcErrorCode.NETWORK, { unsent: true }), fail(RpcErrorCode.CIRCUIT_OPEN), fail(RpcErrorCode.NO_INVOKER)];
    for (const behaviour of behaviours) {
      const list = [new FakeInvoker(providerUrl('10.0.0.1:20880', { loadbalance: 'first' }), behaviour), new FakeInvoker(providerUrl('10.0.0.2:20880', { loadbalance: 'first' }), succeed())];
      const result = await h.cluster('failover').join(new MutableDirectory(list)).invoke(pay());
      expect(result.value).toBe('10.0.0.2:20880');
    }
  });

  it('leaves idempotent methods of the same service retried as before', async () => {
    const list = providers(3, fail(RpcErrorCode.TIMEOUT));
    await rejectionOf(h.cluster('failover').join(new MutableDirectory(list)).invoke(new Invocation({ methodName: 'balance', args: [], service: Wallet })));
    expect(total(list)).toBe(3);
  });

  it('run on one provider only with forking', async () => {
    const list = providers(3, succeed());
    await h.cluster('forking').join(new MutableDirectory(list, consumerUrl({ forks: 3 }))).invoke(pay());
    expect(total(list)).toBe(1);
  });

  it('reject instead of being queued by failback when the request may have run', async () => {
    const list = providers(2, fail(RpcErrorCode.TIMEOUT));
    const error = await rejectionOf(h.cluster('failback').join(new MutableDirectory(list, consumerUrl({ 'failback.interval': 1 }))).invoke(pay()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(total(list)).toBe(1);
    expect(error.message).toBe(
      'Failback did not queue a retry of pay() in the service org.acme.Greeter: it is declared idempotent: false and the request ' +
        'may have reached the provider. Last error is: provider failed with timeout'
    );
  });

  it('reject a bad idempotent flag at definition time', () => {
    expect(() => defineService('org.acme.Bad', { pay: { idempotent: 'no' as unknown as boolean } })).toThrow(
      'defineService("org.acme.Bad"): pay(): idempotent must be true or false, got "no".'
    );
  });
});
