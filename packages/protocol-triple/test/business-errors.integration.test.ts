// Business errors vs framework failures over tri: only a real RpcError the provider passed on (e.g. its own
// downstream call timed out) arrives as an RpcError; a business error named RpcError, or carrying a code, stays a
// business error; an error with its own toString / valueOf data properties still prints.
import { afterEach, describe, expect, it } from 'vitest';

import { Invocation, RpcError, RpcErrorCode } from '@weft/core';

import { Greeter, greeterImpl, Harness } from './support/harness.js';

const harness = new Harness();
afterEach(() => harness.close());

describe('tri: which errors arrive as RpcError', () => {
  it('a real RpcError in the provider result → RpcError with its code; a forged one → business error; hostile data → printable', async () => {
    const { greeter, consumer, port } = await harness.pair({
      impl: {
        ...greeterImpl(),
        sayHello: () => Promise.reject(new RpcError(RpcErrorCode.TIMEOUT, 'downstream org.acme.Ledger.book() timed out')),
        crash: () => {
          throw Object.assign(new Error('my own failure'), { name: 'RpcError', code: 'limit-exceeded' });
        },
        join: () => {
          throw Object.assign(new Error('join failed'), { toString: 'nope', valueOf: 7, hasOwnProperty: 'x', detail: 'kept' });
        },
      },
    });

    const real = await greeter.sayHello('x').catch((e: unknown) => e);
    expect(real).toBeInstanceOf(RpcError);
    expect((real as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
    expect(String(real)).toBe('RpcError: downstream org.acme.Ledger.book() timed out');

    const forged = await greeter.crash('x').catch((e: unknown) => e);
    expect(forged).not.toBeInstanceOf(RpcError);
    expect(forged).toBeInstanceOf(Error);
    expect((forged as Error).name).toBe('RpcError');
    expect((forged as Error & { code: string }).code).toBe('limit-exceeded');
    expect(String(forged)).toBe('RpcError: my own failure');

    const hostile = await greeter.join(['a']).catch((e: unknown) => e);
    expect(String(hostile)).toBe('Error: join failed');
    expect((hostile as Error & { detail: string }).detail).toBe('kept');

    // Seen by the invoker: both are normal completions carrying the exception (the Result channel).
    const invoker = await harness.referInvoker(consumer, port);
    const result = await invoker.invoke(new Invocation({ methodName: 'sayHello', args: ['x'], service: Greeter }));
    expect(result.hasException()).toBe(true);
    expect(result.exception).toBeInstanceOf(RpcError);
    const business = await invoker.invoke(new Invocation({ methodName: 'crash', args: ['x'], service: Greeter }));
    expect(business.exception).not.toBeInstanceOf(RpcError);
    await invoker.destroy();
  });
});
