// ProtocolFilterWrapper through the real extension loader and the injvm protocol (spec §4.2 entry point and
// node behaviour, §1.9 activation, §4.4 the `filter` keys): the provider chain is built on export (group
// `provider`, key `service.filter`), the consumer chain on refer (group `consumer`, key `reference.filter`),
// once each; registry URLs pass through unfiltered. Unknown explicit filter names are rejected by
// WeftApplication at export/refer time (Weft's choice; Dubbo 3.x silently skips them, §1.9 step B).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  AbstractInvoker,
  Cluster,
  ExtensionError,
  ExtensionErrorCode,
  Filter,
  Invocation,
  Invoker,
  Logger,
  Protocol,
  ProtocolFilterWrapper,
  Result,
  RpcError,
  RpcErrorCode,
  ServiceInvoker,
  URL,
  WeftApplication,
  defineService,
  type ExportOptions,
  type ReferOptions,
} from '@weft/core';

import { FirstCluster } from './support/first-cluster.js';

const Echo = defineService('org.acme.Echo', { echo: { args: [String], returns: String } });

class RecordingLogger extends Logger {
  readonly entries: { level: string; message: string; error: unknown }[] = [];
  debug(): void {}
  info(): void {}
  warn(message: string, error?: unknown): void {
    this.entries.push({ level: 'warn', message, error });
  }
  error(message: string, error?: unknown): void {
    this.entries.push({ level: 'error', message, error });
  }
}

/** Every filter records `>name:side` on the way in and `<name:side` on the way out. */
let trace: string[] = [];
/** Hook calls of the listening filter `h`. */
let hookCalls: { side: string | undefined; hook: 'onResponse' | 'onError'; value: unknown }[] = [];
/** When set, filter `h` throws this from its hooks. */
let hookThrows: unknown;
/** When set, filter `boom` throws this synchronously. */
let boomError: unknown;

const sideOf = (invoker: Invoker) => invoker.getUrl().getParameter('side');

function traced(name: string): new () => Filter {
  return class extends Filter {
    async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
      const at = `${name}:${sideOf(invoker) ?? '?'}`;
      trace.push(`>${at}`);
      try {
        return await invoker.invoke(invocation);
      } finally {
        trace.push(`<${at}`);
      }
    }
  };
}

class ListeningFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    trace.push(`>h:${sideOf(invoker) ?? '?'}`);
    return invoker.invoke(invocation);
  }
  override onResponse(result: Result, invoker: Invoker): void {
    hookCalls.push({ side: sideOf(invoker), hook: 'onResponse', value: result });
    if (hookThrows !== undefined) throw hookThrows;
  }
  override onError(error: unknown, invoker: Invoker): void {
    hookCalls.push({ side: sideOf(invoker), hook: 'onError', value: error });
    if (hookThrows !== undefined) throw hookThrows;
  }
}

class BoomFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    if (boomError !== undefined) throw boomError;
    return invoker.invoke(invocation);
  }
}

let root: string;
let app: WeftApplication;
let logger: RecordingLogger;
let implCalls: string[];
const impl = {
  echo: (s: string) => {
    implCalls.push(s);
    trace.push('impl');
    if (s === 'fail') throw new RangeError('no fail allowed');
    return `echo:${s}`;
  },
};

beforeEach(async () => {
  trace = [];
  hookCalls = [];
  hookThrows = undefined;
  boomError = undefined;
  implCalls = [];
  root = mkdtempSync(join(tmpdir(), 'weft-filter-wrapper-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 't', version: '1.0.0' }));
  logger = new RecordingLogger();
  app = await WeftApplication.start({ root, name: 't', logger });
  const filters = app.model.getExtensionLoader(Filter);
  filters.addExtension('a', traced('a'), { activate: { group: ['provider'], order: 1 } });
  filters.addExtension('b', traced('b'), { activate: { group: ['provider', 'consumer'], order: 2 } });
  filters.addExtension('c', traced('c'), { activate: { group: ['consumer'], order: 3 } });
  filters.addExtension('x', traced('x'), { activate: { group: ['provider', 'consumer'], value: ['x-on'], order: 4 } });
  filters.addExtension('extra', traced('extra'));
  filters.addExtension('h', ListeningFilter);
  filters.addExtension('boom', BoomFilter);
  app.model.getExtensionLoader(Cluster).addExtension('failover', FirstCluster);
});

afterEach(async () => {
  await app.shutdown();
  rmSync(root, { recursive: true, force: true });
});

/** Exports Echo, refers it and makes one call; returns the filters entered, in order (`name:side`). */
async function entered(exportOptions: ExportOptions = {}, referOptions: ReferOptions = {}, arg = 'hi'): Promise<string[]> {
  await app.export(Echo, impl, exportOptions);
  const echo = await app.refer(Echo, referOptions);
  await expect(echo.echo(arg)).resolves.toBe(`echo:${arg}`);
  return trace.filter((t) => t.startsWith('>')).map((t) => t.slice(1));
}

describe('default chains', () => {
  it('consumer filters run around the injvm call, provider filters around the implementation, each in order', async () => {
    await app.export(Echo, impl);
    const echo = await app.refer(Echo);
    await expect(echo.echo('hi')).resolves.toBe('echo:hi');
    expect(trace).toEqual([
      '>b:consumer',
      '>c:consumer',
      '>a:provider',
      '>b:provider',
      'impl',
      '<b:provider',
      '<a:provider',
      '<c:consumer',
      '<b:consumer',
    ]);
  });

  it('the wrapper is what getExtension("injvm") returns', () => {
    const protocol = app.model.getExtensionLoader(Protocol).getExtension('injvm');
    expect(protocol).toBeInstanceOf(ProtocolFilterWrapper);
  });
});

describe('the `filter` option edits the chain (§1.9, §4.4)', () => {
  it('export `-b,default,extra`: b removed, the automatic set where `default` is, then the explicit `extra` (no activate metadata)', async () => {
    expect(await entered({ filter: '-b,default,extra' })).toEqual(['b:consumer', 'c:consumer', 'a:provider', 'extra:provider']);
  });

  it('refer `-b,default,extra` edits only the consumer chain', async () => {
    expect(await entered({}, { filter: '-b,default,extra' })).toEqual(['c:consumer', 'extra:consumer', 'a:provider', 'b:provider']);
  });

  it('an explicit name listed before `default` runs before the automatic set; the array form is joined', async () => {
    expect(await entered({ filter: ['extra', 'default'] }, { filter: 'extra,default' })).toEqual([
      'extra:consumer',
      'b:consumer',
      'c:consumer',
      'extra:provider',
      'a:provider',
      'b:provider',
    ]);
  });

  it('without `default`, listed names are sorted by order together with the automatic ones (3.x)', async () => {
    // extra has no metadata: order 0, ahead of a (1) and b (2).
    expect(await entered({ filter: 'extra' })).toEqual(['b:consumer', 'c:consumer', 'extra:provider', 'a:provider', 'b:provider']);
  });

  it('group and value are not checked for explicitly named filters', async () => {
    // c is consumer-only and x needs x-on; named explicitly they join the provider chain anyway.
    expect(await entered({ filter: 'c,x' })).toEqual(['b:consumer', 'c:consumer', 'a:provider', 'b:provider', 'c:provider', 'x:provider']);
  });

  it('`-default` keeps only the explicitly named filters', async () => {
    expect(await entered({ filter: '-default,extra' }, { filter: '-default' })).toEqual(['extra:provider']);
  });

  it('`-name` of an automatic filter on both sides', async () => {
    expect(await entered({ filter: '-a' }, { filter: '-c' })).toEqual(['b:consumer', 'b:provider']);
  });

  it.each([['nope'], ['default,nope'], ['-a,nope,extra']])('export rejects unknown filter names (`%s`) with ERR_SPI_INVALID_PARAMETER naming filter=nope', async (filter) => {
    const error = await app.export(Echo, impl, { filter }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    expect((error as ExtensionError).code).toBe('ERR_SPI_INVALID_PARAMETER');
    expect((error as ExtensionError).message).toContain('filter=nope');
    expect((error as ExtensionError).message).toContain('export(org.acme.Echo)');
    // Nothing was exported: the same service exports fine afterwards.
    await expect(app.export(Echo, impl)).resolves.toMatchObject({ url: expect.any(URL) });
  });

  it.each([['ghost'], ['default,ghost']])('refer rejects unknown filter names (`%s`) with ERR_SPI_INVALID_PARAMETER naming filter=ghost', async (filter) => {
    await app.export(Echo, impl);
    const error = await app.refer(Echo, { filter }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    expect((error as ExtensionError).message).toContain('filter=ghost');
    expect((error as ExtensionError).message).toContain('refer(org.acme.Echo)');
    expect(trace).toEqual([]);
  });
});

describe('value-conditioned activation', () => {
  it('x is not active without the x-on key', async () => {
    expect(await entered()).toEqual(['b:consumer', 'c:consumer', 'a:provider', 'b:provider']);
  });

  it('x-on=true on export activates x in the provider chain only (refer parameters are separate)', async () => {
    expect(await entered({ parameters: { 'x-on': 'true' } })).toEqual(['b:consumer', 'c:consumer', 'a:provider', 'b:provider', 'x:provider']);
  });

  it('x-on=true on refer activates x in the consumer chain', async () => {
    expect(await entered({}, { parameters: { 'x-on': 'true' } })).toEqual(['b:consumer', 'c:consumer', 'x:consumer', 'a:provider', 'b:provider']);
  });

  it('a method-level value (methods: { echo: { "x-on": "yes" } }) activates x too', async () => {
    expect(await entered({ methods: { echo: { 'x-on': 'yes' } } }, { methods: { echo: { 'x-on': 'yes' } } })).toEqual([
      'b:consumer',
      'c:consumer',
      'x:consumer',
      'a:provider',
      'b:provider',
      'x:provider',
    ]);
  });

  it.each([['false'], ['0'], ['N/A']])('x-on=%s does not activate x (ConfigUtils-empty)', async (value) => {
    expect(await entered({ parameters: { 'x-on': value } }, { methods: { echo: { 'x-on': value } } })).toEqual([
      'b:consumer',
      'c:consumer',
      'a:provider',
      'b:provider',
    ]);
  });
});

describe('listeners on both sides', () => {
  it('onResponse fires on the consumer and the provider filter, provider first', async () => {
    await app.export(Echo, impl, { filter: 'h' });
    const echo = await app.refer(Echo, { filter: 'h' });
    await expect(echo.echo('l')).resolves.toBe('echo:l');
    expect(hookCalls.map((c) => `${c.side}.${c.hook}`)).toEqual(['provider.onResponse', 'consumer.onResponse']);
    expect(hookCalls.map((c) => (c.value as Result).value)).toEqual(['echo:l', 'echo:l']);
  });

  it('a business error reaches onResponse (not onError) on both sides, and the caller gets it as thrown', async () => {
    await app.export(Echo, impl, { filter: 'h' });
    const echo = await app.refer(Echo, { filter: 'h' });
    const error = await echo.echo('fail').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toBe('no fail allowed');
    expect(hookCalls.map((c) => `${c.side}.${c.hook}`)).toEqual(['provider.onResponse', 'consumer.onResponse']);
    expect(hookCalls.every((c) => (c.value as Result).hasException())).toBe(true);
  });

  it('a provider filter throwing synchronously: the outer provider onError gets the throw, the consumer onError the RpcError it became', async () => {
    boomError = new TypeError('not you');
    // With `default` listed, the listed order is kept: h outside boom, outside a and b.
    await app.export(Echo, impl, { filter: 'h,boom,default' });
    const echo = await app.refer(Echo, { filter: 'h' });
    const error = await echo.echo('z').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.UNKNOWN);
    expect((error as RpcError).cause).toBe(boomError);
    expect(implCalls).toEqual([]);
    expect(trace).toEqual(['>h:consumer', '>b:consumer', '>c:consumer', '>h:provider', '<c:consumer', '<b:consumer']);
    expect(hookCalls.map((c) => [`${c.side}.${c.hook}`, c.value])).toEqual([
      ['provider.onError', boomError],
      ['consumer.onError', error],
    ]);
  });

  it('without `default`, explicitly listed filters are sorted with the automatic ones: boom (order 0, name) runs outside h', async () => {
    boomError = new TypeError('not you');
    await app.export(Echo, impl, { filter: 'h,boom' });
    const echo = await app.refer(Echo, { filter: 'h' });
    await expect(echo.echo('z')).rejects.toBeInstanceOf(RpcError);
    // boom threw before h ran: h is inside it, so only the consumer side hears of the failure.
    expect(hookCalls.map((c) => `${c.side}.${c.hook}`)).toEqual(['consumer.onError']);
  });

  it('a throwing hook is logged to the application logger under the filter’s extension name; the call still succeeds', async () => {
    hookThrows = new Error('hook exploded');
    await app.export(Echo, impl, { filter: 'h' });
    const echo = await app.refer(Echo, { filter: 'h' });
    await expect(echo.echo('k')).resolves.toBe('echo:k');
    const logged = logger.entries.filter((e) => e.error === hookThrows);
    expect(logged).toHaveLength(2);
    for (const entry of logged) {
      expect(entry.level).toBe('error');
      expect(entry.message).toContain('"h"');
      expect(entry.message).toContain('onResponse');
    }
  });
});

describe('built once per export / refer', () => {
  it('getActivateExtensions runs once at export and once at refer, never per call (100 calls)', async () => {
    const loader = app.model.getExtensionLoader(Filter);
    const spy = vi.spyOn(loader, 'getActivateExtensions');
    const exported = await app.export(Echo, impl);
    const echo = await app.refer(Echo);
    expect(spy).toHaveBeenCalledTimes(2);
    expect(spy.mock.calls[0]?.[0]).toBe(exported.url);
    expect(spy.mock.calls[0]?.slice(1)).toEqual(['service.filter', 'provider']);
    expect(spy.mock.calls[1]?.[0]).toBeInstanceOf(URL);
    expect((spy.mock.calls[1]?.[0] as URL).getParameter('side')).toBe('consumer');
    expect(spy.mock.calls[1]?.slice(1)).toEqual(['reference.filter', 'consumer']);
    for (let i = 0; i < 100; i++) await expect(echo.echo(`${i}`)).resolves.toBe(`echo:${i}`);
    expect(implCalls).toHaveLength(100);
    expect(trace.filter((t) => t === '>a:provider')).toHaveLength(100);
    expect(spy).toHaveBeenCalledTimes(2);
  });
});

describe('registry URLs pass through unfiltered', () => {
  const protocolOf = () => app.model.getExtensionLoader(Protocol).getExtension('injvm');
  const urlWith = (protocol: string) =>
    new URL({ protocol, host: '127.0.0.1', path: Echo.name, parameters: { interface: Echo.name, side: 'provider', 'service.filter': 'extra' } });

  it.each([['registry'], ['REGISTRY'], ['service-discovery-registry'], ['Service-Discovery-Registry'], ['zk-registry-protocol']])(
    'export of a %s URL: the exporter dispatches to the very invoker given, no filter selected',
    async (protocol) => {
      const spy = vi.spyOn(app.model.getExtensionLoader(Filter), 'getActivateExtensions');
      const invoker = new ServiceInvoker(Echo, impl, urlWith(protocol));
      const exporter = await protocolOf().export(invoker);
      expect(exporter.getInvoker()).toBe(invoker);
      expect(spy).not.toHaveBeenCalled();
      expect(await exporter.getInvoker().invoke(new Invocation({ methodName: 'echo', args: ['r'] }))).toMatchObject({ value: 'echo:r' });
      expect(trace).toEqual(['impl']);
      await exporter.unexport();
    },
  );

  it.each([['injvm'], ['registry2'], ['my-registry'], ['registry-protocol']])(
    'export of a %s URL (not a registry protocol) is filtered',
    async (protocol) => {
      const invoker = new ServiceInvoker(Echo, impl, urlWith(protocol));
      const exporter = await protocolOf().export(invoker);
      expect(exporter.getInvoker()).not.toBe(invoker);
      await exporter.getInvoker().invoke(new Invocation({ methodName: 'echo', args: ['r'] }));
      // `extra` without `default`: sorted with the automatic ones, order 0 first.
      expect(trace).toEqual(['>extra:provider', '>a:provider', '>b:provider', 'impl', '<b:provider', '<a:provider', '<extra:provider']);
      await exporter.unexport();
    },
  );

  it('refer of a registry URL returns the protocol’s own invoker; a non-registry URL gets the consumer chain', async () => {
    await app.export(Echo, impl, { filter: '-default' });
    const spy = vi.spyOn(app.model.getExtensionLoader(Filter), 'getActivateExtensions');
    const consumerParams = { interface: Echo.name, side: 'consumer', 'reference.filter': 'extra' };
    const viaRegistry = await protocolOf().refer(Echo, new URL({ protocol: 'registry', host: '127.0.0.1', path: Echo.name, parameters: consumerParams }));
    expect(viaRegistry).toBeInstanceOf(AbstractInvoker);
    expect(spy).not.toHaveBeenCalled();
    expect(await viaRegistry.invoke(new Invocation({ methodName: 'echo', args: ['q'], service: Echo }))).toMatchObject({ value: 'echo:q' });
    expect(trace).toEqual(['impl']);

    trace = [];
    const plain = await protocolOf().refer(Echo, new URL({ protocol: 'injvm', host: '127.0.0.1', path: Echo.name, parameters: consumerParams }));
    expect(plain).not.toBeInstanceOf(AbstractInvoker);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(await plain.invoke(new Invocation({ methodName: 'echo', args: ['q'], service: Echo }))).toMatchObject({ value: 'echo:q' });
    expect(trace).toEqual(['>extra:consumer', '>b:consumer', '>c:consumer', 'impl', '<c:consumer', '<b:consumer', '<extra:consumer']);
    await viaRegistry.destroy();
    await plain.destroy();
  });
});
