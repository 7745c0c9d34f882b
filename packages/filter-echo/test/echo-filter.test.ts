import { afterEach, describe, expect, it } from 'vitest';

import {
  buildFilterChain,
  defineService,
  Filter,
  Invocation,
  Invoker,
  Protocol,
  Result,
  RpcError,
  RpcErrorCode,
  URL,
  WeftApplication,
} from '@weft/core';
import { ECHO_METHOD, EchoFilter } from '@weft/filter-echo';
import { createTestApp, RecordingLogger, StubInvoker, type TestApp } from '@weft/test-utils';

// ---------------------------------------------------------------------------------------------------------------
// Harness: a real application (core + cluster + this package), the filter in the chain the loader builds.

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
});

let implementationCalls = 0;
const implementation = {
  sayHello(name: string): string {
    implementationCalls++;
    return `hello ${name}`;
  },
};

/** A provider filter (order 0, like most) that refuses every call carrying attachment `deny`. */
class DenyFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    if (invocation.hasAttachment('deny')) return Promise.reject(new RpcError(RpcErrorCode.FORBIDDEN, 'denied by test-deny'));
    return invoker.invoke(invocation);
  }
}

const apps: { app: WeftApplication; testApp: TestApp }[] = [];

async function start(packages: readonly string[] = ['@weft/core', '@weft/cluster', '@weft/filter-echo']) {
  const testApp = createTestApp(packages);
  const app = await WeftApplication.start({ root: testApp.root, name: 'greeter', logger: new RecordingLogger() });
  apps.push({ app, testApp });
  const filters = app.model.getExtensionLoader(Filter);
  filters.addExtension('test-deny', DenyFilter, { activate: { group: ['provider'] } });
  return { app, filters };
}

afterEach(async () => {
  for (const { app, testApp } of apps.splice(0)) {
    await app.shutdown();
    testApp.cleanup();
  }
  implementationCalls = 0;
});

async function rejection(call: Result | Promise<unknown>): Promise<RpcError> {
  const error = await Promise.resolve(call).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

/** A raw consumer invoker of Greeter over injvm (the chain the protocol builds, no cluster, no proxy). */
async function rawInvoker(app: WeftApplication): Promise<Invoker> {
  const url = new URL({ protocol: 'injvm', host: '127.0.0.1', path: Greeter.name, parameters: { interface: Greeter.name, timeout: '1000' } });
  return app.model.getExtensionLoader(Protocol).getExtension('injvm').refer(Greeter, url);
}

// ---------------------------------------------------------------------------------------------------------------

describe('manifest', () => {
  it('activates echo first in every provider chain (order -110000) and never in consumer chains', async () => {
    const { app, filters } = await start();
    const { url } = await app.export(Greeter, implementation);
    expect(filters.selectActivateNames(url, 'service.filter', 'provider')).toEqual(['echo', 'test-deny']);
    expect(filters.selectActivateNames(url, 'reference.filter', 'consumer')).not.toContain('echo');
    expect(filters.getExtension('echo')).toBeInstanceOf(EchoFilter);
  });

  it('is the only filter an application with core and this package gets', async () => {
    const testApp = createTestApp(['@weft/core', '@weft/filter-echo']);
    const app = await WeftApplication.start({ root: testApp.root, name: 'bare', logger: new RecordingLogger() });
    apps.push({ app, testApp });
    expect(app.model.getExtensionLoader(Filter).getSupportedExtensions()).toEqual(['echo']);
  });
});

describe('$echo', () => {
  it('answers with its argument without reaching the implementation', async () => {
    const { app } = await start();
    await app.export(Greeter, implementation);
    const greeter = await app.refer(Greeter, { retries: 0 });

    expect(ECHO_METHOD).toBe('$echo');
    expect(await greeter.$echo('ping')).toBe('ping');
    expect(await greeter.$echo(42)).toBe(42);
    const payload = { items: [1, 2, 3], nested: { ok: true } };
    const echoed = await greeter.$echo(payload);
    expect(echoed).toEqual(payload);
    expect(echoed).not.toBe(payload); // copied both ways, like every call over injvm
    expect(implementationCalls).toBe(0);

    expect(await greeter.sayHello('ann')).toBe('hello ann');
    expect(implementationCalls).toBe(1);
  });

  it('runs before the other provider filters: an echo is answered even where calls are refused', async () => {
    const { app } = await start();
    await app.export(Greeter, implementation);
    const greeter = await app.refer(Greeter, { retries: 0 });
    const raw = await rawInvoker(app);
    try {
      const echo = new Invocation({ methodName: '$echo', args: ['still here'], service: Greeter, attachments: { deny: true } });
      expect((await raw.invoke(echo)).value).toBe('still here');
      const error = await rejection(greeter.$call('sayHello', ['ann'], { attachments: { deny: true } }));
      expect(error.code).toBe(RpcErrorCode.FORBIDDEN);
      expect(implementationCalls).toBe(0);
    } finally {
      await raw.destroy();
    }
  });

  it('rejects a $echo with another number of arguments with method-not-found', async () => {
    const { app } = await start();
    await app.export(Greeter, implementation);
    const raw = await rawInvoker(app);
    try {
      for (const args of [[], ['a', 'b']]) {
        const error = await rejection(raw.invoke(new Invocation({ methodName: '$echo', args, service: Greeter })));
        expect(error.code).toBe(RpcErrorCode.METHOD_NOT_FOUND);
        expect(error.message).toBe(`Echo test of org.acme.Greeter takes exactly one argument: $echo(value) was called with ${args.length}.`);
      }
      expect(implementationCalls).toBe(0);
    } finally {
      await raw.destroy();
    }
  });

  it('is what makes $echo work: without the filter the provider has no such method', async () => {
    const { app } = await start();
    await app.export(Greeter, implementation, { filter: '-echo' });
    const greeter = await app.refer(Greeter, { retries: 0 });
    const error = await rejection(greeter.$echo('ping'));
    expect(error.code).toBe(RpcErrorCode.METHOD_NOT_FOUND);
    expect(implementationCalls).toBe(0);
  });
});

/** The provider chain the loader activates (echo, test-deny) around `inner`. */
function providerChain(app: WeftApplication, inner: Invoker): Invoker {
  const filters = app.model.getExtensionLoader(Filter);
  const active = filters.getActivateExtensions(inner.getUrl(), 'service.filter', 'provider');
  expect(active.map((f) => filters.getExtensionName(f))).toEqual(['echo', 'test-deny']);
  return buildFilterChain(inner, active, (f) => filters.getExtensionName(f) ?? '?', app.model.logger);
}

const PROVIDER_URL = URL.parse('injvm://127.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&side=provider');

describe('synchronous answers', () => {
  it('answers $echo with a completed Result, without a promise, through the whole injvm call', async () => {
    const { app } = await start();
    await app.export(Greeter, implementation);
    const raw = await rawInvoker(app);
    try {
      const answer = raw.invoke(new Invocation({ methodName: '$echo', args: [{ n: 1 }], service: Greeter }));
      expect(answer).toBeInstanceOf(Result);
      expect((answer as Result).value).toEqual({ n: 1 });
      // A synchronous implementation answers synchronously too: echo passes the inner answer on as it is.
      const hello = raw.invoke(new Invocation({ methodName: 'sayHello', args: ['ann'], service: Greeter }));
      expect(hello).toBeInstanceOf(Result);
      expect((hello as Result).value).toBe('hello ann');
      expect(implementationCalls).toBe(1);
    } finally {
      await raw.destroy();
    }
  });

  it('never calls on for $echo, and passes other calls\' synchronous answers on as they are', async () => {
    const { app } = await start();
    const value = Result.of('hello ann');
    const failure = Result.ofException(new Error('no such person'));
    for (const expected of [value, failure]) {
      const inner = new StubInvoker(PROVIDER_URL, () => expected);
      const chain = providerChain(app, inner);
      const echo = chain.invoke(new Invocation({ methodName: '$echo', args: ['ping'], service: Greeter }));
      expect(echo).toBeInstanceOf(Result);
      expect((echo as Result).value).toBe('ping');
      expect(inner.calls).toBe(0);
      expect(chain.invoke(new Invocation({ methodName: 'sayHello', args: ['ann'], service: Greeter }))).toBe(expected);
      expect(inner.calls).toBe(1);
    }
  });

  it('answers $echo even when the rest of the chain would throw synchronously, and lets such a throw through otherwise', async () => {
    const { app } = await start();
    const boom = new Error('inner chain threw');
    const inner = new StubInvoker(PROVIDER_URL, () => {
      throw boom;
    });
    const chain = providerChain(app, inner);
    expect((chain.invoke(new Invocation({ methodName: '$echo', args: ['ping'], service: Greeter })) as Result).value).toBe('ping');
    expect(() => chain.invoke(new Invocation({ methodName: 'sayHello', args: ['ann'], service: Greeter }))).toThrow(boom);
    // A wrong arity is a framework failure: still a rejected promise, never a throw.
    const wrong = chain.invoke(new Invocation({ methodName: '$echo', args: [], service: Greeter }));
    expect(wrong).toBeInstanceOf(Promise);
    expect((await rejection(wrong)).code).toBe(RpcErrorCode.METHOD_NOT_FOUND);
    expect(inner.calls).toBe(1);
  });
});
