import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { Result, RpcError, RpcErrorCode, type Invoker } from '@weft/core';

import {
  addPickers,
  bizResult,
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
});
afterEach(() => h.destroy());

function failover(directory: MutableDirectory): Invoker {
  return h.cluster('failover').join(directory);
}

/** Providers picked by the deterministic "first" load balance. */
function firstPicked(count: number, behaviour = reject(RpcErrorCode.NETWORK)): FakeInvoker[] {
  return providers(count, behaviour, { loadbalance: 'first' });
}

const calls = (list: FakeInvoker[]) => list.map((p) => p.calls);

describe('failover', () => {
  it('makes retries + 1 = 3 attempts by default, on distinct providers, and reports them all', async () => {
    const list = [
      new FakeInvoker(providerUrl('10.0.0.1:20880', { loadbalance: 'first' }), reject(RpcErrorCode.NETWORK, 'connection reset')),
      new FakeInvoker(providerUrl('10.0.0.2:20880', { loadbalance: 'first' }), reject(RpcErrorCode.SERIALIZATION, 'bad payload')),
      new FakeInvoker(providerUrl('10.0.0.3:20880', { loadbalance: 'first' }), reject(RpcErrorCode.TIMEOUT, 'took too long')),
    ];
    const error = await rejectionOf(failover(new MutableDirectory(list)).invoke(invocation()));
    expect(calls(list)).toEqual([1, 1, 1]);
    expect(error.code).toBe(RpcErrorCode.TIMEOUT);
    expect(error.message).toBe(
      'Failed to invoke the method sayHello in the service org.acme.Greeter. Tried 3 times of the providers ' +
        '[10.0.0.1:20880, 10.0.0.2:20880, 10.0.0.3:20880] (3/3) from the registry 10.0.0.99 on the consumer 10.0.0.99. ' +
        'Last error is: took too long'
    );
    expect((error.cause as RpcError).message).toBe('took too long');
  });

  it('never tries a provider twice while untried ones remain, whatever random picks', async () => {
    const list = providers(4, reject(RpcErrorCode.NETWORK));
    const invoker = failover(new MutableDirectory(list, consumerUrl({ retries: 3 })));
    for (let round = 1; round <= 20; round++) {
      await rejectionOf(invoker.invoke(invocation()));
      expect(calls(list)).toEqual([round, round, round, round]);
    }
  });

  it('retries the same providers again when there are fewer providers than attempts', async () => {
    const list = firstPicked(2);
    const error = await rejectionOf(failover(new MutableDirectory(list, consumerUrl({ retries: 3 }))).invoke(invocation()));
    expect(calls(list).reduce((a, b) => a + b)).toBe(4);
    expect(error.message).toContain('Tried 4 times of the providers [10.0.0.1:20880, 10.0.0.2:20880] (2/2)');
  });

  it('reads retries at method level first', async () => {
    const list = firstPicked(6);
    const directory = new MutableDirectory(list, consumerUrl({ retries: 1, 'sayHello.retries': 4 }));
    await rejectionOf(failover(directory).invoke(invocation()));
    expect(calls(list)).toEqual([1, 1, 1, 1, 1, 0]);
    for (const p of list) p.invocations.length = 0;
    await rejectionOf(failover(directory).invoke(invocation({ methodName: 'sayBye' })));
    expect(calls(list)).toEqual([1, 1, 0, 0, 0, 0]);
  });

  it.each([
    ['0', 1],
    ['-3', 1],
    ['1', 2],
  ])('retries=%s makes %i attempt(s)', async (retries, attempts) => {
    const list = firstPicked(4);
    const error = await rejectionOf(failover(new MutableDirectory(list, consumerUrl({ retries }))).invoke(invocation()));
    expect(calls(list).reduce((a, b) => a + b)).toBe(attempts);
    expect(error.message).toContain(`Tried ${attempts} times`);
  });

  it('lets a numeric retries attachment override the URL once, and removes it', async () => {
    const list = firstPicked(4);
    const directory = new MutableDirectory(list, consumerUrl({ retries: 3 }));
    const inv = invocation({ attachments: { retries: 0 } });
    await rejectionOf(failover(directory).invoke(inv));
    expect(calls(list)).toEqual([1, 0, 0, 0]);
    expect(inv.getAttachment('retries')).toBeUndefined();
    await rejectionOf(failover(directory).invoke(inv));
    expect(calls(list)).toEqual([2, 1, 1, 1]);
  });

  it('ignores a non-numeric retries attachment', async () => {
    const list = firstPicked(4);
    const inv = invocation({ attachments: { retries: '0' } });
    await rejectionOf(failover(new MutableDirectory(list)).invoke(inv));
    expect(calls(list)).toEqual([1, 1, 1, 0]);
    expect(inv.getAttachment('retries')).toBe('0');
  });

  it('returns the first success after failures and logs a warning naming the failed providers', async () => {
    const list = firstPicked(3);
    (list[1] as FakeInvoker).behaviour = succeed('second time lucky');
    const result = await failover(new MutableDirectory(list)).invoke(invocation());
    expect(result.value).toBe('second time lucky');
    expect(calls(list)).toEqual([1, 1, 0]);
    const [warning] = h.logger.messages('warn');
    expect(warning).toContain(
      'Although retry the method sayHello in the service org.acme.Greeter was successful by the provider 10.0.0.2:20880'
    );
    expect(warning).toContain('[10.0.0.1:20880] (1/3)');
  });

  it('does not log or allocate retry state on the success path', async () => {
    const list = firstPicked(3, succeed());
    const directory = new MutableDirectory(list);
    const result = await failover(directory).invoke(invocation());
    expect(result.value).toBe('10.0.0.1:20880');
    expect(directory.listCalls).toBe(1);
    expect(h.logger.entries).toEqual([]);
  });

  it('rethrows a business RpcError at once, never retrying it', async () => {
    const bizError = new RpcError(RpcErrorCode.BIZ, 'InsufficientFunds', { cause: new Error('no funds') });
    const list = firstPicked(3, () => Promise.reject(bizError));
    const error = await rejectionOf(failover(new MutableDirectory(list)).invoke(invocation()));
    expect(error).toBe(bizError);
    expect(calls(list)).toEqual([1, 0, 0]);
  });

  it('rethrows an error its protocol marked final (retryable: false) at once; the exhausted error keeps grpcStatus', async () => {
    const final = new RpcError(RpcErrorCode.UNKNOWN, 'no user 42', { grpcStatus: 5, retryable: false });
    const list = firstPicked(3, () => Promise.reject(final));
    const error = await rejectionOf(failover(new MutableDirectory(list)).invoke(invocation()));
    expect(error).toBe(final);
    expect(calls(list)).toEqual([1, 0, 0]);

    const details = [{ typeUrl: 'type.googleapis.com/google.protobuf.StringValue' }];
    const unavailable = new RpcError(RpcErrorCode.NETWORK, 'try elsewhere', { grpcStatus: 14, details });
    const retried = firstPicked(3, () => Promise.reject(unavailable));
    const exhausted = (await rejectionOf(failover(new MutableDirectory(retried)).invoke(invocation()))) as RpcError;
    expect(calls(retried)).toEqual([1, 1, 1]);
    expect(exhausted.message).toContain('Tried 3 times');
    expect(exhausted.grpcStatus).toBe(14);
    expect(exhausted.details).toBe(details);
  });

  it('returns a result carrying a business error as is, never retrying it', async () => {
    const bizError = new Error('no funds');
    const list = firstPicked(3, bizResult(bizError));
    const result = await failover(new MutableDirectory(list)).invoke(invocation());
    expect(result.hasException()).toBe(true);
    expect(result.exception).toBe(bizError);
    expect(calls(list)).toEqual([1, 0, 0]);
  });

  it('never retries a framework RpcError carried by a resolved Result (Dubbo retries only thrown RpcExceptions)', async () => {
    // A provider whose own downstream call timed out and passed the error on: the call completed, so it is
    // returned as is (fail-mock degrades it), neither retried nor logged.
    const passedOn = new RpcError(RpcErrorCode.TIMEOUT, 'downstream org.acme.Ledger.book() timed out');
    for (const behaviour of [bizResult(passedOn), () => Result.ofException(passedOn)]) {
      const list = firstPicked(3, behaviour);
      const result = await failover(new MutableDirectory(list)).invoke(invocation());
      expect(result.hasException()).toBe(true);
      expect(result.exception).toBe(passedOn);
      expect(calls(list)).toEqual([1, 0, 0]);
    }
    expect(h.logger.entries).toEqual([]);
  });

  it('retries synchronous throws and non-RpcError rejections, mapped with RpcError.from', async () => {
    const list = [
      new FakeInvoker(providerUrl('10.0.0.1:20880', { loadbalance: 'first' }), throwSync(new TypeError('not a function'))),
      new FakeInvoker(providerUrl('10.0.0.2:20880', { loadbalance: 'first' }), () =>
        Promise.reject(new RangeError('out of range'))
      ),
      new FakeInvoker(providerUrl('10.0.0.3:20880', { loadbalance: 'first' }), throwSync('a string')),
    ];
    const error = await rejectionOf(failover(new MutableDirectory(list)).invoke(invocation()));
    expect(calls(list)).toEqual([1, 1, 1]);
    expect(error.code).toBe(RpcErrorCode.UNKNOWN);
    expect(error.message).toMatch(/Last error is: a string$/);
  });

  it('keeps the code of the last error, e.g. a TimeoutError mapped to timeout', async () => {
    const timeoutError = Object.assign(new Error('deadline'), { name: 'TimeoutError' });
    const list = firstPicked(2);
    (list[1] as FakeInvoker).behaviour = () => Promise.reject(timeoutError);
    const error = await rejectionOf(failover(new MutableDirectory(list, consumerUrl({ retries: 1 }))).invoke(invocation()));
    expect(error.code).toBe(RpcErrorCode.TIMEOUT);
  });

  it('lists the providers again before each retry and uses the new list', async () => {
    const replacement = new FakeInvoker(providerUrl('10.0.0.9:20880', { loadbalance: 'first' }), succeed());
    const directory = new MutableDirectory([]);
    const original = new FakeInvoker(providerUrl('10.0.0.1:20880', { loadbalance: 'first' }), () => {
      directory.invokers = [replacement];
      return Promise.reject(new RpcError(RpcErrorCode.NETWORK, 'gone'));
    });
    directory.invokers = [original];
    const result = await failover(directory).invoke(invocation());
    expect(result.value).toBe('10.0.0.9:20880');
    expect(directory.listCalls).toBe(2);
  });

  it('rejects with no-invoker when the list is empty at a retry', async () => {
    const directory = new MutableDirectory([]);
    directory.invokers = firstPicked(1, () => {
      directory.invokers = [];
      return Promise.reject(new RpcError(RpcErrorCode.NETWORK, 'gone'));
    });
    expect((await rejectionOf(failover(directory).invoke(invocation()))).code).toBe(RpcErrorCode.NO_INVOKER);
  });

  it('stops retrying when the invoker is destroyed between attempts', async () => {
    const directory = new MutableDirectory([]);
    let invoker: Invoker | undefined;
    directory.invokers = firstPicked(3, () => {
      void invoker?.destroy();
      return Promise.reject(new RpcError(RpcErrorCode.NETWORK, 'gone'));
    });
    invoker = failover(directory);
    const error = await rejectionOf(invoker.invoke(invocation()));
    expect(error.message).toContain('is now destroyed');
    expect(calls(directory.invokers as FakeInvoker[])).toEqual([1, 0, 0]);
  });

  it('a resolved Result from a retry is the very object the provider returned', async () => {
    const answer = Result.of({ id: 7 });
    const list = firstPicked(2);
    (list[1] as FakeInvoker).behaviour = () => Promise.resolve(answer);
    expect(await failover(new MutableDirectory(list)).invoke(invocation())).toBe(answer);
  });
});
