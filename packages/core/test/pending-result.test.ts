import { describe, expect, it } from 'vitest';

import { buildFilterChain, Filter, Invocation, Invoker, Logger, PendingResult, Result, URL, type Invoker as InvokerType } from '@weft/core';
import { DeadlineWheel, type WheelEntry } from '@weft/core/spi';

const silent = new (class extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
})();

describe('PendingResult', () => {
  it('runs then-callbacks synchronously when the outcome arrives, chaining without promises', () => {
    const pending = new PendingResult<number>();
    const seen: string[] = [];
    const derived = pending.then((n) => n * 2).then((n) => {
      seen.push(`got ${n}`);
      return `v${n}`;
    });
    expect(derived).toBeInstanceOf(PendingResult);
    expect(derived).not.toBeInstanceOf(Promise);
    seen.push('before');
    pending.resolve(21);
    seen.push('after');
    expect(seen).toEqual(['before', 'got 42', 'after']);
    expect(derived instanceof PendingResult && derived.settled).toBe(true);
  });

  it('is awaitable, follows a native promise, and rejects derived results when a callback throws', async () => {
    expect(await PendingResult.from(Promise.resolve('a'))).toBe('a');
    const failing = PendingResult.from(Promise.reject(new Error('boom')));
    await expect(failing).rejects.toThrow('boom');
    const pending = new PendingResult<number>();
    const thrown = pending.then(() => {
      throw new Error('in callback');
    });
    pending.resolve(1);
    await expect(thrown).rejects.toThrow('in callback');
    // A rejection passes through then() without onRejected, and catch() recovers it.
    const source = new PendingResult<number>();
    const recovered = source.then((n) => n + 1).catch((error: unknown) => `recovered ${(error as Error).message}`);
    source.reject(new Error('late'));
    expect(await recovered).toBe('recovered late');
  });

  it('settles once: later resolve/reject calls are ignored, and a then on a settled result runs in a microtask', async () => {
    const pending = new PendingResult<string>();
    pending.resolve('first');
    pending.resolve('second');
    pending.reject(new Error('ignored'));
    const order: string[] = [];
    const later = pending.then((v) => order.push(`then ${v}`));
    order.push('sync');
    await later;
    expect(order).toEqual(['sync', 'then first']);
  });

  it('adopts another pending result (settled or not), and refuses itself', async () => {
    const inner = new PendingResult<string>();
    const outer = new PendingResult<string>();
    outer.resolve(inner);
    expect(outer.settled).toBe(false);
    inner.resolve('inner');
    expect(await outer).toBe('inner');
    const done = new PendingResult<string>();
    done.resolve('done');
    const follower = new PendingResult<string>();
    follower.resolve(done);
    expect(await follower).toBe('done');
    const self = new PendingResult<string>();
    self.resolve(self);
    await expect(self).rejects.toThrow('A PendingResult cannot be resolved with itself.');
  });

  it('whenComplete listens without a derived result, every listener once, at once when already settled', () => {
    const pending = new PendingResult<number>();
    const seen: string[] = [];
    pending.whenComplete((n) => seen.push(`a${n}`), () => seen.push('a-error'));
    pending.whenComplete((n) => seen.push(`b${n}`), () => seen.push('b-error'));
    pending.resolve(7);
    pending.whenComplete((n) => seen.push(`c${n}`), () => seen.push('c-error'));
    expect(seen).toEqual(['a7', 'b7', 'c7']);
    const failed = new PendingResult<number>();
    failed.whenComplete(() => seen.push('no'), (error) => seen.push(`err ${(error as Error).message}`));
    failed.reject(new Error('x'));
    expect(seen.at(-1)).toBe('err x');
  });

  it('finally runs on both outcomes and keeps the outcome', async () => {
    let runs = 0;
    const ok = new PendingResult<number>();
    const a = ok.finally(() => runs++);
    ok.resolve(3);
    expect(await a).toBe(3);
    const ko = new PendingResult<number>();
    const b = ko.finally(() => runs++);
    ko.reject(new Error('no'));
    await expect(b).rejects.toThrow('no');
    expect(runs).toBe(2);
  });
});

describe('DeadlineWheel.arm', () => {
  it('expires an armed entry once after its deadline, and never a removed one', async () => {
    const wheel = new DeadlineWheel(5);
    const expired: string[] = [];
    const entry = (name: string, deadline: number): WheelEntry => ({
      deadline,
      expire: () => expired.push(name),
      wheelBucket: undefined,
      wheelPrev: undefined,
      wheelNext: undefined,
    });
    const now = Date.now();
    const a = entry('a', now + 10);
    const b = entry('b', now + 10);
    const c = entry('c', now + 10);
    wheel.arm(a);
    wheel.arm(b);
    wheel.arm(c);
    expect(wheel.size).toBe(3);
    wheel.remove(b);
    wheel.remove(b);
    expect(wheel.size).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(expired.sort()).toEqual(['a', 'c']);
    expect(wheel.size).toBe(0);
    wheel.close();
  });
});

describe('filter chain links', () => {
  const url = URL.parse('injvm://127.0.0.1/org.acme.Chain');
  class Terminal extends Invoker {
    getUrl() {
      return url;
    }
    invoke() {
      return Result.of('end');
    }
  }
  class A extends Filter {
    invoke(invoker: InvokerType, invocation: Invocation) {
      return invoker.invoke(invocation);
    }
  }
  class B extends Filter {
    invoke(invoker: InvokerType, invocation: Invocation) {
      return invoker.invoke(invocation);
    }
  }
  it('gives each distinct filter class its own link class, and repeated instances of a class the same one', () => {
    const chain = buildFilterChain(new Terminal(), [new A(), new B(), new A(), new B()], (f) => f.constructor.name, silent);
    const links: Invoker[] = [];
    for (let at: unknown = chain; at instanceof Invoker && 'next' in at; at = (at as unknown as { next: unknown }).next) links.push(at);
    expect(links).toHaveLength(4);
    const kinds = links.map((link) => link.constructor);
    expect(kinds[0]).not.toBe(kinds[1]);
    expect(kinds[2]).toBe(kinds[0]);
    expect(kinds[3]).toBe(kinds[1]);
    expect((chain.invoke(new Invocation({ methodName: 'm' })) as Result).value).toBe('end');
  });

  it('passes a PendingResult through as an answer, and still names a filter that answers with something else', async () => {
    const pending = new PendingResult<Result>();
    class Waiting extends Invoker {
      getUrl() {
        return url;
      }
      invoke() {
        return pending;
      }
    }
    const chain = buildFilterChain(new Waiting(), [new A()], () => 'a', silent);
    const answer = chain.invoke(new Invocation({ methodName: 'm' }));
    expect(answer).toBe(pending);
    class Bad extends Filter {
      invoke() {
        return 42 as never;
      }
    }
    const bad = buildFilterChain(new Terminal(), [new A(), new Bad()], (f) => (f instanceof Bad ? 'bad' : 'a'), silent);
    await expect(bad.invoke(new Invocation({ methodName: 'm' }))).rejects.toThrow('Filter "bad" returned number instead of a Result or a Promise<Result>');
    // A plain object from an inner filter is caught at the outermost link, which says so.
    class Plain extends Filter {
      invoke() {
        return { value: 1 } as never;
      }
    }
    const plain = buildFilterChain(new Terminal(), [new A(), new Plain()], (f) => (f instanceof Plain ? 'plain' : 'a'), silent);
    await expect(plain.invoke(new Invocation({ methodName: 'm' }))).rejects.toThrow(
      'Filter "a" (or a filter inside it) returned object instead of a Result or a Promise<Result>',
    );
  });
});
