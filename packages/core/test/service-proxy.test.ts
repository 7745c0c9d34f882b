import { describe, expect, it } from 'vitest';

import {
  createServiceProxy,
  defineService,
  Invocation,
  Invoker,
  Result,
  RpcError,
  RpcErrorCode,
  URL,
  type CallGate,
} from '@weft/core';

class User {
  constructor(readonly name: string) {}
}

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  find: { args: [String, Number], returns: User },
  ping: {},
});

const GREETER_URL = URL.parse('consumer://127.0.0.1/org.acme.Greeter?interface=org.acme.Greeter');

/** A fake invoker recording the invocations it gets and answering with `answer`. */
class FakeInvoker extends Invoker {
  readonly calls: Invocation[] = [];

  constructor(private readonly answer: (invocation: Invocation) => Promise<Result>) {
    super();
  }

  getUrl(): URL {
    return GREETER_URL;
  }

  invoke(invocation: Invocation): Promise<Result> {
    this.calls.push(invocation);
    return this.answer(invocation);
  }
}

function echoing(): FakeInvoker {
  return new FakeInvoker(async (invocation) => Result.of(`${invocation.methodName}(${invocation.args.join(',')})`));
}

/** Calls `fn`, expecting it to return a promise rather than throw; resolves with the rejection. */
async function rejectionOf(fn: () => Promise<unknown>): Promise<unknown> {
  let pending: Promise<unknown> | undefined;
  expect(() => {
    pending = fn();
  }).not.toThrow();
  expect(pending).toBeInstanceOf(Promise);
  return (pending as Promise<unknown>).then(
    (value) => {
      throw new Error(`expected a rejection, got ${String(value)}`);
    },
    (error: unknown) => error,
  );
}

class CountingGate implements CallGate {
  active = 0;
  entered = 0;
  refusal: RpcError | undefined;

  enter(): RpcError | undefined {
    if (this.refusal !== undefined) return this.refusal;
    this.active++;
    this.entered++;
    return undefined;
  }

  exit(): void {
    this.active--;
  }
}

describe('createServiceProxy: shape', () => {
  it('has exactly the declared methods, plus $-prefixed helpers ($call, $service, $echo)', () => {
    const proxy = createServiceProxy(Greeter, echoing());
    const keys = Reflect.ownKeys(proxy).map(String);
    // Service methods can never start with "$" (defineService reserves it), so the helpers cannot collide.
    expect(keys.filter((k) => !k.startsWith('$')).sort()).toEqual(['find', 'ping', 'sayHello']);
    expect(keys.filter((k) => k.startsWith('$')).sort()).toEqual(['$call', '$echo', '$service']);
    for (const name of ['sayHello', 'find', 'ping', '$call', '$echo'] as const) expect(typeof proxy[name]).toBe('function');
    expect(proxy.$service).toBe(Greeter);
  });

  it('inherits nothing: no Object.prototype members, not a thenable', () => {
    const proxy = createServiceProxy(Greeter, echoing());
    // Its prototype is an empty, frozen object with no prototype (a null-prototype object of its own would be
    // in dictionary mode, slowing every method lookup).
    const prototype = Object.getPrototypeOf(proxy) as object;
    expect(Object.getPrototypeOf(prototype)).toBeNull();
    expect(Reflect.ownKeys(prototype)).toEqual([]);
    expect(Object.isFrozen(prototype)).toBe(true);
    expect(Object.getPrototypeOf(createServiceProxy(Greeter, echoing()))).toBe(prototype);
    expect('toString' in proxy).toBe(false);
    expect('then' in proxy).toBe(false);
    expect('constructor' in proxy).toBe(false);
  });

  it('is frozen', () => {
    const proxy = createServiceProxy(Greeter, echoing());
    expect(Object.isFrozen(proxy)).toBe(true);
    expect(() => {
      (proxy as unknown as Record<string, unknown>)['sayHello'] = () => 'x';
    }).toThrow(TypeError);
    expect(() => {
      (proxy as unknown as Record<string, unknown>)['extra'] = 1;
    }).toThrow(TypeError);
  });

  it('a service without methods gives a proxy with only the $-prefixed helpers', () => {
    const Empty = defineService('org.acme.Empty', {});
    const proxy = createServiceProxy(Empty, echoing());
    expect(Reflect.ownKeys(proxy).sort()).toEqual(['$call', '$echo', '$service']);
  });
});

describe('createServiceProxy: calls', () => {
  it('builds one invocation per call, with the method, arguments and service, and returns the value', async () => {
    const invoker = echoing();
    const proxy = createServiceProxy(Greeter, invoker);
    await expect(proxy.sayHello('ann')).resolves.toBe('sayHello(ann)');
    await expect(proxy.find('bo', 3)).resolves.toBe('find(bo,3)');
    expect(invoker.calls).toHaveLength(2);
    const [first, second] = invoker.calls as [Invocation, Invocation];
    expect(first).toBeInstanceOf(Invocation);
    expect(first.methodName).toBe('sayHello');
    expect(first.args).toEqual(['ann']);
    expect(first.service).toBe(Greeter);
    expect(first.method).toBe(Greeter.getMethod('sayHello'));
    expect(first.deadline).toBeUndefined();
    expect(first.signal).toBeUndefined();
    expect(first.getAttachments().size).toBe(0);
    expect(second.args).toEqual(['bo', 3]);
    expect(second).not.toBe(first);
  });

  it('resolves with the result value as is (no copy at this layer)', async () => {
    const user = new User('ann');
    const proxy = createServiceProxy(Greeter, new FakeInvoker(async () => Result.of(user)));
    await expect(proxy.find('ann', 1)).resolves.toBe(user);
  });

  it('throws the business error of the result as the implementation threw it (not an RpcError)', async () => {
    const business = new RangeError('out of stock');
    const proxy = createServiceProxy(Greeter, new FakeInvoker(async () => Result.ofException(business)));
    await expect(proxy.sayHello('ann')).rejects.toBe(business);
  });

  it('passes framework failures (rejections) through unchanged', async () => {
    const failure = new RpcError(RpcErrorCode.NETWORK, 'connection reset');
    const proxy = createServiceProxy(Greeter, new FakeInvoker(() => Promise.reject(failure)));
    await expect(proxy.sayHello('ann')).rejects.toBe(failure);
  });

  it('returns a rejected promise, never throws, when the invoker throws synchronously', async () => {
    const throwing = (error: unknown) =>
      new FakeInvoker(() => {
        throw error;
      });
    const plain = await rejectionOf(() => createServiceProxy(Greeter, throwing(new TypeError('boom'))).sayHello('x'));
    expect(plain).toBeInstanceOf(RpcError);
    expect(plain).toMatchObject({ code: RpcErrorCode.UNKNOWN, message: 'TypeError: boom' });
    expect((plain as RpcError).cause).toBeInstanceOf(TypeError);

    const rpc = new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'too many');
    expect(await rejectionOf(() => createServiceProxy(Greeter, throwing(rpc)).sayHello('x'))).toBe(rpc);

    const abort = await rejectionOf(() => createServiceProxy(Greeter, throwing(new DOMException('gone', 'AbortError'))).ping());
    expect(abort).toMatchObject({ code: RpcErrorCode.CANCELLED, message: 'gone' });

    const timeout = await rejectionOf(() => createServiceProxy(Greeter, throwing(new DOMException('late', 'TimeoutError'))).ping());
    expect(timeout).toMatchObject({ code: RpcErrorCode.TIMEOUT, message: 'late' });

    const nonError = await rejectionOf(() => createServiceProxy(Greeter, throwing('just a string')).$call('ping', []));
    expect(nonError).toMatchObject({ code: RpcErrorCode.UNKNOWN, message: 'just a string', cause: 'just a string' });
  });
});

describe('createServiceProxy: $call', () => {
  it("passes `timeout` as the invocation's per-call timeout (the consumer invoker turns it into a deadline)", async () => {
    const invoker = echoing();
    const proxy = createServiceProxy(Greeter, invoker);
    await expect(proxy.$call('sayHello', ['ann'], { timeout: 250 })).resolves.toBe('sayHello(ann)');
    expect(invoker.calls[0]?.timeout).toBe(250);
    expect(invoker.calls[0]?.deadline).toBeUndefined();
  });

  it('sets no deadline for a missing, zero or negative timeout', async () => {
    const invoker = echoing();
    const proxy = createServiceProxy(Greeter, invoker);
    await proxy.$call('ping', []);
    await proxy.$call('ping', [], {});
    await proxy.$call('ping', [], { timeout: 0 });
    await proxy.$call('ping', [], { timeout: -5 });
    expect(invoker.calls.map((c) => c.deadline)).toEqual([undefined, undefined, undefined, undefined]);
  });

  it('sends attachments and the signal with the invocation', async () => {
    const invoker = echoing();
    const proxy = createServiceProxy(Greeter, invoker);
    const controller = new AbortController();
    const attachments = { traceId: 't-1', hops: 2, sampled: true };
    await proxy.$call('find', ['ann', 7], { attachments, signal: controller.signal });
    const invocation = invoker.calls[0] as Invocation;
    expect(invocation.methodName).toBe('find');
    expect(invocation.args).toEqual(['ann', 7]);
    expect(invocation.service).toBe(Greeter);
    expect(Object.fromEntries(invocation.getAttachments())).toEqual(attachments);
    expect(invocation.signal).toBe(controller.signal);
    // The caller's attachment object is not shared with the invocation.
    invocation.setAttachment('added', 'x');
    expect(attachments).not.toHaveProperty('added');
  });

  it('does not share the caller argument array with the invocation', async () => {
    const invoker = echoing();
    const proxy = createServiceProxy(Greeter, invoker);
    const args: [string] = ['ann'];
    await proxy.$call('sayHello', args);
    const invocation = invoker.calls[0] as Invocation;
    expect(invocation.args).toEqual(['ann']);
    expect(invocation.args).not.toBe(args);
  });

  it('rejects an undeclared method with a TypeError naming the service and its methods, without calling the invoker', async () => {
    const invoker = echoing();
    const proxy = createServiceProxy(Greeter, invoker);
    const call = proxy.$call as (method: string, args: unknown[]) => Promise<unknown>;
    const error = await rejectionOf(() => call('sayGoodbye', ['ann']));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toContain('org.acme.Greeter');
    expect((error as Error).message).toContain('"sayGoodbye"');
    expect((error as Error).message).toContain('sayHello, find, ping');
    // Names inherited from Object.prototype are not methods either.
    expect(await rejectionOf(() => call('toString', []))).toBeInstanceOf(TypeError);
    expect(await rejectionOf(() => call('$call', []))).toBeInstanceOf(TypeError);
    expect(invoker.calls).toHaveLength(0);
  });

  it('delivers business errors and framework failures like a plain call', async () => {
    const business = new Error('nope');
    const biz = createServiceProxy(Greeter, new FakeInvoker(async () => Result.ofException(business)));
    await expect(biz.$call('ping', [])).rejects.toBe(business);
    const sync = createServiceProxy(
      Greeter,
      new FakeInvoker(() => {
        throw new Error('sync');
      }),
    );
    const error = await rejectionOf(() => sync.$call('ping', [], { timeout: 10 }));
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).message).toBe('Error: sync');
  });
});

describe('createServiceProxy: call gate', () => {
  it('counts each call in and out, on success, business error, rejection and synchronous throw', async () => {
    const gate = new CountingGate();
    let release!: () => void;
    const slow = new FakeInvoker(
      () =>
        new Promise<Result>((resolve) => {
          release = () => resolve(Result.of('done'));
        }),
    );
    const proxy = createServiceProxy(Greeter, slow, gate);
    const pending = proxy.sayHello('ann');
    expect(gate.active).toBe(1);
    release();
    await expect(pending).resolves.toBe('done');
    expect(gate.active).toBe(0);

    await expect(createServiceProxy(Greeter, new FakeInvoker(async () => Result.ofException(new Error('biz'))), gate).ping()).rejects.toThrow('biz');
    await expect(
      createServiceProxy(Greeter, new FakeInvoker(() => Promise.reject(new RpcError(RpcErrorCode.NETWORK, 'down'))), gate).ping(),
    ).rejects.toThrow('down');
    const sync = createServiceProxy(
      Greeter,
      new FakeInvoker(() => {
        throw new Error('sync');
      }),
      gate,
    );
    await expect(sync.ping()).rejects.toBeInstanceOf(RpcError);
    await expect(sync.$call('ping', [])).rejects.toBeInstanceOf(RpcError);
    expect(gate.entered).toBe(5);
    expect(gate.active).toBe(0);
  });

  it('rejects with the gate refusal without calling the invoker', async () => {
    const gate = new CountingGate();
    gate.refusal = new RpcError(RpcErrorCode.NO_INVOKER, 'closing');
    const invoker = echoing();
    const proxy = createServiceProxy(Greeter, invoker, gate);
    expect(await rejectionOf(() => proxy.sayHello('ann'))).toBe(gate.refusal);
    expect(await rejectionOf(() => proxy.$call('sayHello', ['ann']))).toBe(gate.refusal);
    expect(invoker.calls).toHaveLength(0);
    expect(gate.active).toBe(0);
  });

  it('an undeclared $call method is refused before the gate counts it', async () => {
    const gate = new CountingGate();
    const proxy = createServiceProxy(Greeter, echoing(), gate);
    const call = proxy.$call as (method: string, args: unknown[]) => Promise<unknown>;
    await expect(call('nope', [])).rejects.toBeInstanceOf(TypeError);
    expect(gate.entered).toBe(0);
  });
});
