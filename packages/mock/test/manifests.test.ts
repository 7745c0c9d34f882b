// What installing @weft/mock contributes (and what an application without it gets).
import { afterEach, describe, expect, it } from 'vitest';

import { Cluster, ConfigValidator, defineService, ExtensionError, Protocol, RpcError, RpcErrorCode, StaticDirectory, URL, WeftApplication } from '@weft/core';
import { FailfastCluster, FailoverCluster } from '@weft/cluster';
import { MockClusterInvoker, MockClusterWrapper, MockConfigValidator, MockProtocol } from '@weft/mock';
import { createTestApp, RecordingLogger } from '@weft/test-utils';

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  count: { returns: Number },
});

const running: { app: WeftApplication; cleanup: () => void }[] = [];

afterEach(async () => {
  for (const { app, cleanup } of running.splice(0)) {
    await app.shutdown();
    cleanup();
  }
});

async function start(packages: readonly string[]): Promise<WeftApplication> {
  const { root, cleanup } = createTestApp(packages);
  const app = await WeftApplication.start({ root, name: 'shop', logger: new RecordingLogger() });
  running.push({ app, cleanup });
  return app;
}

const withMock = () => start(['@weft/core', '@weft/cluster', '@weft/mock']);
const withoutMock = () => start(['@weft/core', '@weft/cluster']);

function consumer(parameters: Record<string, string>): URL {
  return new URL({ protocol: 'consumer', host: '127.0.0.1', path: Greeter.name, parameters: { interface: Greeter.name, side: 'consumer', ...parameters } });
}

describe('installing @weft/mock', () => {
  it('contributes exactly three manifest entries: the Cluster wrapper, the Protocol and the ConfigValidator, all named mock', async () => {
    const app = await withMock();
    const entries = [...app.model.index.records.values()]
      .flat()
      .filter((record) => record.pkg.name === '@weft/mock')
      .map((record) => ({ point: record.pointId, name: record.entry.name, kind: record.entry.kind, exportName: record.entry.exportName }))
      .sort((a, b) => a.point.localeCompare(b.point));
    expect(entries).toEqual([
      { point: 'weft.config.ConfigValidator', name: 'mock', kind: 'extension', exportName: 'MockConfigValidator' },
      { point: 'weft.rpc.Cluster', name: 'mock', kind: 'wrapper', exportName: 'MockClusterWrapper' },
      { point: 'weft.rpc.Protocol', name: 'mock', kind: 'extension', exportName: 'MockProtocol' },
    ]);
    expect(app.model.index.problems.filter((p) => p.file.includes('/mock/'))).toEqual([]);
  });

  it('the Cluster entry is a wrapper (order 0), not a named cluster: "mock" is not a strategy', async () => {
    const app = await withMock();
    const clusters = app.model.getExtensionLoader(Cluster);
    expect(clusters.hasExtension('mock')).toBe(false);
    expect(clusters.getSupportedExtensions()).not.toContain('mock');
    expect(clusters.getSupportedExtensions()).toEqual(['available', 'broadcast', 'failback', 'failfast', 'failover', 'forking', 'failsafe'].sort());
    const record = app.model.index.records.get('weft.rpc.Cluster')?.find((r) => r.pkg.name === '@weft/mock');
    expect(record?.entry.wrapper).toMatchObject({ order: 0 });
    expect(clusters.getExtension('failfast')).toBeInstanceOf(MockClusterWrapper);
    expect(clusters.getExtension('failfast', false)).toBeInstanceOf(FailfastCluster);
    expect(clusters.getDefaultExtension()).toBeInstanceOf(MockClusterWrapper);
    expect(clusters.getExtension('failover', false)).toBeInstanceOf(FailoverCluster);
  });

  it('the Protocol "mock" refers mock:// URLs (default port 0) and refuses to export', async () => {
    const app = await withMock();
    const protocols = app.model.getExtensionLoader(Protocol);
    expect(protocols.getExtension('mock', false)).toBeInstanceOf(MockProtocol);
    const protocol = protocols.getExtension('mock');
    expect(protocol.getDefaultPort()).toBe(0);
    const invoker = await protocol.refer(Greeter, URL.parse('mock://0.0.0.0/org.acme.Greeter?sayHello.mock=return+aa'));
    expect(invoker.getUrl().protocol).toBe('mock');
    await expect(app.export(Greeter, { sayHello: (n: string) => n, count: () => 1 }, { protocol: 'mock' })).rejects.toThrow(
      /^The mock protocol cannot export services/,
    );
  });

  it('the ConfigValidator "mock" is activated in group consumer only, and only when mock or <method>.mock is set (not ConfigUtils-empty)', async () => {
    const app = await withMock();
    const validators = app.model.getExtensionLoader(ConfigValidator);
    expect(validators.getSupportedExtensions()).toEqual(['mock']);
    expect(validators.getActivateMetadata('mock')).toMatchObject({ groups: ['consumer'], conditions: [{ key: 'mock', expected: undefined }] });
    const cases: [Record<string, string>, string | undefined, string[]][] = [
      [{ mock: 'force:return 1' }, 'consumer', ['mock']],
      [{ 'sayHello.mock': 'return 1' }, 'consumer', ['mock']],
      [{ mock: 'fail' }, 'consumer', ['mock']],
      [{ mock: 'force:return 1' }, 'provider', []],
      [{}, 'consumer', []],
      [{ timeout: '100' }, 'consumer', []],
      [{ mock: 'false' }, 'consumer', []],
      [{ mock: '0' }, 'consumer', []],
      [{ mock: 'N/A' }, 'consumer', []],
      [{ 'count.mock': 'null' }, 'consumer', []],
    ];
    for (const [parameters, group, names] of cases) {
      expect(validators.selectActivateNames(consumer(parameters), undefined, group)).toEqual(names);
    }
    const [validator] = validators.getActivateExtensions(consumer({ mock: 'force' }), undefined, 'consumer');
    expect(validator).toBeInstanceOf(MockConfigValidator);
  });

  it('a reference joins through the wrapper', async () => {
    const app = await withMock();
    const greeter = await app.refer(Greeter, { mock: 'force:return 3' });
    expect(await greeter.count()).toBe(3);
    const directory = new StaticDirectory(Greeter, consumer({}), []);
    expect(app.model.getExtensionLoader(Cluster).getAdaptiveExtension().join(directory)).toBeInstanceOf(MockClusterInvoker);
  });
});

describe('an application without @weft/mock', () => {
  it('has no mock extension anywhere, and its clusters are not wrapped', async () => {
    const app = await withoutMock();
    expect(app.model.getExtensionLoader(Protocol).hasExtension('mock')).toBe(false);
    expect(app.model.getExtensionLoader(ConfigValidator).getSupportedExtensions()).toEqual([]);
    const clusters = app.model.getExtensionLoader(Cluster);
    expect(clusters.getExtension('failover')).toBeInstanceOf(FailoverCluster);
    expect(clusters.getExtension('failover')).not.toBeInstanceOf(MockClusterWrapper);
  });

  it('gets no mock behaviour: force calls the provider, fail does not degrade', async () => {
    const app = await withoutMock();
    const calls: string[] = [];
    const exported = await app.export(Greeter, {
      sayHello: (n: string) => {
        calls.push('sayHello');
        return `hi ${n}`;
      },
      count: () => 1,
    });
    const forced = await app.refer(Greeter, { mock: 'force:return "mocked"', retries: 0 });
    expect(await forced.sayHello('a')).toBe('hi a');
    expect(calls).toEqual(['sayHello']);
    await exported.unexport();
    const failing = await app.refer(Greeter, { mock: 'fail:return "mocked"', retries: 0 });
    await expect(failing.sayHello('a')).rejects.toBeInstanceOf(RpcError);
    await expect(failing.sayHello('a')).rejects.toMatchObject({ code: RpcErrorCode.NO_INVOKER, mocked: false });
  });

  it('accepts any mock string unvalidated, at refer and at override', async () => {
    const app = await withoutMock();
    for (const mock of ['return {oops', 'throw Nope', 'force:nope', 'RETURN 1', 'complete garbage !!', 'force:return 100%']) {
      const greeter = await app.refer(Greeter, { mock, methods: { count: { mock: 'return abc' } } });
      expect(app.getReferenceUrl(greeter)?.getParameter('mock')).toBe(mock);
      expect(app.override(greeter, { 'sayHello.mock': 'throw Whatever' }).getMethodParameter('sayHello', 'mock')).toBe('throw Whatever');
    }
  });

  it('cannot refer a mock:// URL: no such protocol', async () => {
    const app = await withoutMock();
    const error = await app.refer(Greeter, { url: 'mock://0.0.0.0/org.acme.Greeter?sayHello.mock=return+aa' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as Error).message).toContain('url=mock names no weft.rpc.Protocol extension');
  });
});
