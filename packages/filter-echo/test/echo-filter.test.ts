import { afterEach, describe, expect, it } from 'vitest';

import {
  defineService,
  Filter,
  Invocation,
  Protocol,
  RpcError,
  RpcErrorCode,
  URL,
  WeftApplication,
  type Invoker,
  type Result,
} from '@weft/core';
import { ECHO_METHOD, EchoFilter } from '@weft/filter-echo';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

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
  invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
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

async function rejection(call: Promise<unknown>): Promise<RpcError> {
  const error = await call.then(
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
