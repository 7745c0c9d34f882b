import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { RpcError, RpcErrorCode } from '@weft/core';

import {
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
});
afterEach(() => h.destroy());

const failsafe = (directory: MutableDirectory) => h.cluster('failsafe').join(directory);

describe('failsafe', () => {
  it('returns the result of the one provider it calls', async () => {
    const list = providers(2, succeed('hello'));
    expect((await failsafe(new MutableDirectory(list)).invoke(invocation())).value).toBe('hello');
    expect(list.reduce((n, p) => n + p.calls, 0)).toBe(1);
  });

  it.each([
    ['a rejection', reject(RpcErrorCode.TIMEOUT, 'too slow'), 'too slow'],
    ['a business RpcError', () => Promise.reject(new RpcError(RpcErrorCode.BIZ, 'no funds')), 'no funds'],
    ['a synchronous throw', throwSync(new Error('boom')), 'Error: boom'],
  ])('turns %s into an empty result and an error log, without retrying', async (_what, behaviour, message) => {
    const list = providers(3, behaviour);
    const result = await failsafe(new MutableDirectory(list)).invoke(invocation());
    expect(result.hasException()).toBe(false);
    expect(result.value).toBeUndefined();
    expect(list.reduce((n, p) => n + p.calls, 0)).toBe(1);
    expect(h.logger.messages('error')).toEqual([`Failsafe ignore exception: ${message}`]);
  });

  it('returns a result carrying a business error as is', async () => {
    const error = new Error('no funds');
    const result = await failsafe(new MutableDirectory(providers(1, bizResult(error)))).invoke(invocation());
    expect(result.exception).toBe(error);
    expect(h.logger.entries).toEqual([]);
  });

  it('still rejects with no-invoker when there is no provider at all', async () => {
    expect((await rejectionOf(failsafe(new MutableDirectory([])).invoke(invocation()))).code).toBe(RpcErrorCode.NO_INVOKER);
  });
});
