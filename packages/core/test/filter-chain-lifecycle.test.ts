// A filter's chain lifecycle hooks: `onChainBuilt` when a chain holding it is built around an invoker, and
// `onChainReleased` once when that chain is destroyed (consumer) or its service unexported (provider) — how a
// filter learns that state it keeps for a chain's resources is no longer needed.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { Cluster, Filter, Invocation, Invoker, Result, URL, WeftApplication, buildFilterChain, defineService } from '@weft/core';
import { RecordingLogger } from '@weft/test-utils';

import { FirstCluster } from './support/first-cluster.js';

const SERVICE_URL = new URL({ protocol: 'test', host: '127.0.0.1', port: 20880, path: 'org.acme.Echo' });

class Origin extends Invoker {
  destroyed = 0;
  getUrl(): URL {
    return SERVICE_URL;
  }
  invoke(invocation: Invocation): Result {
    return Result.of(`echo:${String(invocation.args[0])}`);
  }
  override destroy(): void {
    this.destroyed++;
  }
}

/** Records the hooks it hears, by the URL of the invoker given. */
class Watching extends Filter {
  readonly heard: string[] = [];
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    return invoker.invoke(invocation);
  }
  override onChainBuilt(invoker: Invoker): void {
    this.heard.push(`built ${invoker.getUrl().path}`);
  }
  override onChainReleased(invoker: Invoker): void {
    this.heard.push(`released ${invoker.getUrl().path}`);
  }
}

class Plain extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    return invoker.invoke(invocation);
  }
}

/** A filter with listener hooks too (the chain's head is then the listener invoker). */
class Listening extends Watching {
  responses = 0;
  override onResponse(): void {
    this.responses++;
  }
}

describe('buildFilterChain: chain lifecycle hooks', () => {
  it('onChainBuilt hears of the chain when it is built, with the invoker it wraps; destroy releases it once', async () => {
    const watching = new Watching();
    const origin = new Origin();
    const chain = buildFilterChain(origin, [new Plain(), watching, new Plain()], () => 'f', new RecordingLogger());
    expect(watching.heard).toEqual(['built org.acme.Echo']);
    expect(await chain.invoke(new Invocation({ methodName: 'echo', args: ['a'] }))).toEqual(Result.of('echo:a'));
    await chain.destroy();
    await chain.destroy();
    expect(watching.heard).toEqual(['built org.acme.Echo', 'released org.acme.Echo']);
    expect(origin.destroyed).toBe(2);
  });

  it('a filter twice in one chain hears once of its release; a chain with listener hooks releases too', async () => {
    const listening = new Listening();
    const chain = buildFilterChain(new Origin(), [listening, new Plain(), listening], () => 'f', new RecordingLogger());
    expect(listening.heard).toEqual(['built org.acme.Echo', 'built org.acme.Echo']);
    await chain.invoke(new Invocation({ methodName: 'echo', args: ['a'] }));
    expect(listening.responses).toBe(2);
    await chain.destroy();
    expect(listening.heard.filter((h) => h.startsWith('released'))).toEqual(['released org.acme.Echo']);
  });

  it('a throwing hook is logged and neither stops the chain from being built nor the invoker from being destroyed', async () => {
    const logger = new RecordingLogger();
    class Throwing extends Plain {
      override onChainBuilt(): void {
        throw new Error('no');
      }
      override onChainReleased(): void {
        throw new Error('no again');
      }
    }
    const watching = new Watching();
    const origin = new Origin();
    const chain = buildFilterChain(origin, [new Throwing(), watching], () => 'throwing', logger);
    expect(await chain.invoke(new Invocation({ methodName: 'echo', args: ['b'] }))).toEqual(Result.of('echo:b'));
    await chain.destroy();
    expect(origin.destroyed).toBe(1);
    expect(watching.heard).toEqual(['built org.acme.Echo', 'released org.acme.Echo']);
    expect(logger.of('error')).toEqual([
      'Filter "throwing" onChainBuilt() threw; the call\'s outcome is unchanged.',
      'Filter "throwing" onChainReleased() threw; the call\'s outcome is unchanged.',
    ]);
  });
});


const Echo = defineService('org.acme.Echo', { echo: { args: [String], returns: String } });

describe('chain lifecycle hooks in an application', () => {
  const roots: string[] = [];
  const apps: WeftApplication[] = [];
  afterEach(async () => {
    await Promise.all(apps.splice(0).map((app) => app.shutdown({ timeout: 100 })));
    for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
  });

  it('an export and a refer each build a chain; unexport and shutdown release them', async () => {
    const root = mkdtempSync(join(tmpdir(), 'weft-lifecycle-'));
    roots.push(root);
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 't', version: '1.0.0' }));
    const app = await WeftApplication.start({ root, name: 't', logger: new RecordingLogger() });
    apps.push(app);
    app.model.getExtensionLoader(Cluster).addExtension('failover', FirstCluster);
    app.model.getExtensionLoader(Filter).addExtension('watching', Watching, { activate: { group: ['provider', 'consumer'] } });
    const watching = app.model.getExtensionLoader(Filter).getExtension('watching') as Watching;

    const exported = await app.export(Echo, { echo: async (s: string) => s });
    expect(watching.heard).toEqual(['built org.acme.Echo']);
    const echo = await app.refer(Echo);
    expect(await echo.echo('x')).toBe('x');
    expect(watching.heard).toEqual(['built org.acme.Echo', 'built org.acme.Echo']);

    await exported.unexport();
    expect(watching.heard).toEqual(['built org.acme.Echo', 'built org.acme.Echo', 'released org.acme.Echo']);
    await app.shutdown({ timeout: 100 });
    expect(watching.heard).toEqual(['built org.acme.Echo', 'built org.acme.Echo', 'released org.acme.Echo', 'released org.acme.Echo']);
  });
});
