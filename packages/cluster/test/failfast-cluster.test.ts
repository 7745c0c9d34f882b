import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { RpcError, RpcErrorCode } from '@weft/core';

import {
  addPickers,
  bizResult,
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
  addPickers(h);
});
afterEach(() => h.destroy());

const failfast = (directory: MutableDirectory) => h.cluster('failfast').join(directory);

describe('failfast', () => {
  it('calls one provider and returns its result', async () => {
    const list = providers(3, succeed(), { loadbalance: 'first' });
    expect((await failfast(new MutableDirectory(list)).invoke(invocation())).value).toBe('10.0.0.1:20880');
    expect(list.map((p) => p.calls)).toEqual([1, 0, 0]);
  });

  it('wraps a failure once, keeping its code, in the Dubbo message', async () => {
    const list = providers(3, reject(RpcErrorCode.NETWORK, 'connection refused'), { loadbalance: 'random' });
    const error = await rejectionOf(failfast(new MutableDirectory(list)).invoke(invocation()));
    expect(list.reduce((n, p) => n + p.calls, 0)).toBe(1);
    const called = list.find((p) => p.calls === 1);
    expect(error.code).toBe(RpcErrorCode.NETWORK);
    expect(error.message).toBe(
      `Failfast invoke providers ${called?.url.toString()} RandomLoadBalance for service org.acme.Greeter method sayHello ` +
        'on consumer 10.0.0.99, but no luck to perform the invocation. Last error is: connection refused'
    );
    expect((error.cause as RpcError).message).toBe('connection refused');
  });

  it('maps a synchronous throw of a non-RpcError to code unknown', async () => {
    const list = providers(2, throwSync(new Error('boom')));
    const error = await rejectionOf(failfast(new MutableDirectory(list)).invoke(invocation()));
    expect(error.code).toBe(RpcErrorCode.UNKNOWN);
    expect(error.message).toMatch(/Last error is: Error: boom$/);
  });

  it('rethrows a business RpcError as is', async () => {
    const biz = new RpcError(RpcErrorCode.BIZ, 'no funds');
    const list = providers(2, () => Promise.reject(biz));
    expect(await rejectionOf(failfast(new MutableDirectory(list)).invoke(invocation()))).toBe(biz);
  });

  it('returns a result carrying a business error', async () => {
    const list = providers(2, bizResult(new Error('no funds')));
    const result = await failfast(new MutableDirectory(list)).invoke(invocation());
    expect((result.exception as Error).message).toBe('no funds');
  });
});
