import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { Result, RpcError, RpcErrorCode, type Invoker } from '@weft/core';

import {
  bizResult,
  consumerUrl,
  createHarness,
  Greeter,
  FakeInvoker,
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

const broadcast = (directory: MutableDirectory): Invoker => h.cluster('broadcast').join(directory);
const calls = (list: FakeInvoker[]) => list.map((p) => p.calls);

describe('broadcast', () => {
  it('calls every provider in list order, one at a time, and returns the last result', async () => {
    const order: string[] = [];
    let inFlight = 0;
    let maxInFlight = 0;
    const list = providers(3, async (_inv, _call, self) => {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 2));
      order.push(self.url.getAddress());
      inFlight--;
      return Result.of(self.url.getAddress());
    });
    const result = await broadcast(new MutableDirectory(list)).invoke(invocation());
    expect(order).toEqual(['10.0.0.1:20880', '10.0.0.2:20880', '10.0.0.3:20880']);
    expect(maxInFlight).toBe(1);
    expect(result.value).toBe('10.0.0.3:20880');
  });

  it('gives each provider its own copy of the invocation', async () => {
    const list = providers(2);
    const signal = new AbortController().signal;
    const inv = invocation({ attachments: { traceId: 't-1' }, signal, deadline: 12345, service: Greeter });
    await broadcast(new MutableDirectory(list)).invoke(inv);
    const [a, b] = [list[0]!.invocations[0]!, list[1]!.invocations[0]!];
    expect(a).not.toBe(inv);
    expect(b).not.toBe(a);
    for (const copy of [a, b]) {
      expect(copy.methodName).toBe('sayHello');
      expect(copy.args).toEqual(['world']);
      expect(copy.getAttachment('traceId')).toBe('t-1');
      expect(copy.signal).toBe(signal);
      expect(copy.deadline).toBe(12345);
      expect(copy.service).toBe(Greeter);
    }
    a.setAttachment('mutated', true);
    expect(b.getAttachment('mutated')).toBeUndefined();
    expect(inv.getAttachment('mutated')).toBeUndefined();
  });

  it('keeps calling after a failure (percent 100) and then rejects with the last failure', async () => {
    const list = providers(4, succeed());
    list[0]!.behaviour = reject(RpcErrorCode.NETWORK, 'first down');
    list[2]!.behaviour = throwSync(new Error('third exploded'));
    const error = await rejectionOf(broadcast(new MutableDirectory(list)).invoke(invocation()));
    expect(calls(list)).toEqual([1, 1, 1, 1]);
    expect(error.code).toBe(RpcErrorCode.UNKNOWN);
    expect(error.message).toBe('Error: third exploded');
  });

  it('counts a result carrying a business error as a failure, thrown as code biz with the original as cause', async () => {
    const bizError = new Error('no funds');
    const list = providers(2, succeed());
    list[1]!.behaviour = bizResult(bizError);
    const error = await rejectionOf(broadcast(new MutableDirectory(list)).invoke(invocation()));
    expect(error).toBeInstanceOf(RpcError);
    expect(error.code).toBe(RpcErrorCode.BIZ);
    expect(error.cause).toBe(bizError);
  });

  it.each([
    ['100', 4],
    ['50', 2],
    ['30', 2], // ceil(4 × 30 / 100) = 2 (Dubbo rounds down to 1)
    ['25', 1],
    ['0', 1], // stops at the first failure (Dubbo never stops early with 0)
    ['101', 4], // out of range → 100
    ['-5', 4], // out of range → 100
  ])('broadcast.fail.percent=%s stops after %i failure(s) of 4', async (percent, expectedCalls) => {
    const list = providers(4, reject(RpcErrorCode.NETWORK));
    const directory = new MutableDirectory(list, consumerUrl({ 'broadcast.fail.percent': percent }));
    await rejectionOf(broadcast(directory).invoke(invocation()));
    expect(calls(list).reduce((a, b) => a + b)).toBe(expectedCalls);
  });

  it('logs when broadcast.fail.percent is out of range', async () => {
    const directory = new MutableDirectory(providers(1), consumerUrl({ 'broadcast.fail.percent': 150 }));
    await broadcast(directory).invoke(invocation());
    expect(h.logger.messages('info')).toEqual([
      'The value corresponding to the broadcast.fail.percent parameter must be between 0 and 100. The current setting is 150, which is reset to 100.',
    ]);
  });

  it('with percent=0 and no failure, still calls everyone', async () => {
    const list = providers(3);
    const directory = new MutableDirectory(list, consumerUrl({ 'broadcast.fail.percent': 0 }));
    expect((await broadcast(directory).invoke(invocation())).value).toBe('10.0.0.3:20880');
    expect(calls(list)).toEqual([1, 1, 1]);
  });

  it('counts only failures toward the threshold: with percent 50, stops at the second failure of 4 providers', async () => {
    const list = providers(4, succeed());
    list[0]!.behaviour = reject(RpcErrorCode.NETWORK, 'a');
    list[2]!.behaviour = reject(RpcErrorCode.NETWORK, 'c');
    const directory = new MutableDirectory(list, consumerUrl({ 'broadcast.fail.percent': 50 }));
    expect((await rejectionOf(broadcast(directory).invoke(invocation()))).message).toBe('c');
    expect(calls(list)).toEqual([1, 1, 1, 0]);
  });
});
