import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Filter, FrameworkModel, Invocation, Invoker, Result, URL, type ApplicationModel, type ExtensionLoader } from '@weft/core';

import { appDir, importFromApp } from './support/fixtures.js';

// acme-weft-audit is a plugin "written outside the monorepo": its own extension point (acme.audit.AuditSink) and
// an extension of weft.rpc.Filter, declared only through its manifests, installed into the fixture app by npm.

class EchoInvoker extends Invoker {
  constructor(private readonly url: URL) {
    super();
  }
  getUrl(): URL {
    return this.url;
  }
  async invoke(invocation: Invocation): Promise<Result> {
    return Result.of(`echo:${String(invocation.args[0])}`);
  }
}

/** Runs `filters` around `invoker`, outermost first (the real chain arrives with the RPC plumbing issue). */
function chain(filters: readonly Filter[], invoker: Invoker): Invoker {
  return filters.reduceRight<Invoker>(
    (next, filter) =>
      new (class extends Invoker {
        getUrl(): URL {
          return next.getUrl();
        }
        invoke(invocation: Invocation): Result | Promise<Result> {
          return filter.invoke(next, invocation);
        }
      })(),
    invoker,
  );
}

let framework: FrameworkModel;
let app: ApplicationModel;
let filters: ExtensionLoader<Filter>;

beforeAll(async () => {
  framework = FrameworkModel.create({ root: appDir('app-greeter') });
  app = framework.newApplication('plugin-test');
  filters = app.getExtensionLoader(Filter);
  await filters.load();
});
afterAll(() => framework.destroy());

describe('a third-party plugin installed into an application', () => {
  it('is discovered: its filter is a weft.rpc.Filter extension, with activation metadata from its manifest', () => {
    expect(filters.hasExtension('audit')).toBe(true);
    expect(filters.getActivateMetadata('audit')).toEqual({
      groups: ['provider', 'consumer'],
      conditions: [{ key: 'audit', expected: undefined }],
      order: 50,
      before: [],
      after: [],
    });
    const source = filters.getExtensionSource('audit');
    expect(source?.kind === 'manifest' && source.record.pkg.name).toBe('acme-weft-audit');
  });

  it('loads its own extension point transitively, because its filter injects that point', async () => {
    const { AuditSink } = await importFromApp<{ AuditSink: abstract new () => unknown }>('app-greeter', 'acme-weft-audit');
    const sinks = app.getExtensionLoader(AuditSink);
    expect(sinks.isLoaded).toBe(true);
    expect(sinks.getSupportedExtensions()).toEqual(['memory']);
  });

  it('activates by group and URL key, and can be removed with -audit', () => {
    const on = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?audit=true&side=provider');
    expect(filters.selectActivateNames(on, 'service.filter', 'provider')).toContain('audit');
    expect(filters.selectActivateNames(on, 'reference.filter', 'consumer')).toContain('audit');
    expect(filters.selectActivateNames(on, 'service.filter', 'registry')).not.toContain('audit');
    const off = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?side=provider');
    expect(filters.selectActivateNames(off, 'service.filter', 'provider')).not.toContain('audit');
    const removed = on.addParameter('service.filter', '-audit');
    expect(filters.selectActivateNames(removed, 'service.filter', 'provider')).not.toContain('audit');
  });

  it('runs in a chain and writes to its sink', async () => {
    const url = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?audit=memory&side=provider');
    const active = filters.getActivateExtensions(url, 'service.filter', 'provider');
    const invoker = chain(active, new EchoInvoker(url));
    const result = await invoker.invoke(new Invocation({ methodName: 'sayHello', args: ['ann'] }));
    expect(result.value).toBe('echo:ann');
    const { AuditSink } = await importFromApp<{ AuditSink: abstract new () => { lines: string[] } }>('app-greeter', 'acme-weft-audit');
    expect(app.getExtensionLoader(AuditSink).getExtension('memory').lines).toEqual(['provider sayHello']);
  });
});
