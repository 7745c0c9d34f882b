// RpcContext.invokeIn (run without a closure), the lazily created values map, and the invocation's lazily
// created abort state (enableAbort allocates nothing until the signal is read or the call aborted).
import { describe, expect, it } from 'vitest';

import { Invocation, Invoker, Result, RpcContext, URL } from '@weft/core';

const url = URL.parse('injvm://127.0.0.1/org.acme.Greeter');

class Recording extends Invoker {
  seen: (RpcContext | undefined)[] = [];
  constructor(private readonly answer: () => Result | Promise<Result>) {
    super();
  }
  getUrl(): URL {
    return url;
  }
  invoke(): Result | Promise<Result> {
    this.seen.push(RpcContext.current());
    return this.answer();
  }
}

describe('RpcContext.invokeIn', () => {
  it('makes the context current while the invoker runs, restores the outer one after, even when it throws', () => {
    const invocation = Invocation.of('sayHello', []);
    const outer = new RpcContext('provider', invocation, url);
    const inner = new RpcContext('consumer', invocation, url, outer);
    const ok = new Recording(() => Result.of('hi'));
    RpcContext.run(outer, () => {
      expect((RpcContext.invokeIn(inner, ok, invocation) as Result).value).toBe('hi');
      expect(RpcContext.current()).toBe(outer);
    });
    expect(ok.seen).toEqual([inner]);
    const failing = new Recording(() => {
      throw new Error('boom');
    });
    expect(() => RpcContext.invokeIn(inner, failing, invocation)).toThrow('boom');
    expect(failing.seen).toEqual([inner]);
    expect(RpcContext.current()).toBeUndefined();
  });

  it('creates the values map on first use, one per context', () => {
    const invocation = Invocation.of('sayHello', []);
    const a = new RpcContext('provider', invocation, url);
    const b = new RpcContext('provider', invocation, url);
    a.values.set('k', 1);
    expect(a.values.get('k')).toBe(1);
    expect(a.values).toBe(a.values);
    expect(b.values.size).toBe(0);
    expect(Object.keys(a)).not.toContain('values');
  });
});

describe('Invocation abort state', () => {
  it('aborts a signal read before or after abort(), once enabled; a plain invocation keeps the caller’s signal', () => {
    const early = Invocation.of('m', []);
    early.enableAbort();
    expect(early.aborted).toBe(false);
    const signal = early.signal as AbortSignal;
    expect(signal.aborted).toBe(false);
    early.abort('late');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('late');

    const late = Invocation.of('m', []);
    late.enableAbort();
    late.abort('first');
    expect(late.aborted).toBe(true);
    expect(late.signal?.reason).toBe('first');

    const other = Invocation.of('m', []);
    other.enableAbort();
    expect(other.aborted).toBe(false);
    expect(other.signal?.aborted).toBe(false);

    const controller = new AbortController();
    const plain = new Invocation({ methodName: 'm', signal: controller.signal });
    expect(plain.signal).toBe(controller.signal);
    plain.enableAbort();
    const followed = plain.signal as AbortSignal;
    controller.abort('caller');
    expect(followed.aborted).toBe(true);
    expect(followed.reason).toBe('caller');
  });
});
