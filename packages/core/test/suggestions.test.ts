// Every "no extension named X" error lists the available names and the closest one, and an install hint
// names only a first-party package that really contributes the name (issue 12).
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineService, ExtensionError, FrameworkModel, Logger, Protocol, URL, WeftApplication } from '@weft/core';

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
const impl = { sayHello: (name: string) => `hello ${name}` };

let root: string;
let framework: FrameworkModel;

beforeAll(async () => {
  // An application with only @weft/core: no plugin is installed.
  root = realpathSync(mkdtempSync(join(tmpdir(), 'weft-suggest-')));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'bare-app', version: '1.0.0' }));
  framework = FrameworkModel.create({ root });
});

afterAll(async () => {
  await framework.destroy();
  rmSync(root, { recursive: true, force: true });
});

async function message(fn: () => unknown): Promise<string> {
  try {
    await fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ExtensionError);
    return (error as Error).message;
  }
  throw new Error('expected an ExtensionError');
}

describe('getExtension', () => {
  it('a misspelt installed name: the available names and the closest one, nothing about installing', async () => {
    const app = framework.newApplication('typo');
    await app.loadExtensions(Protocol);
    const text = await message(() => app.getExtensionLoader(Protocol).getExtension('injvn'));
    expect(text).toBe('No extension "injvn" of weft.rpc.Protocol in application "typo". Available: injvm. Did you mean "injvm"?');
  });

  it('a first-party name that is not installed: the package that contributes it', async () => {
    const app = framework.newApplication('tri');
    await app.loadExtensions(Protocol);
    const text = await message(() => app.getExtensionLoader(Protocol).getExtension('tri'));
    expect(text).toBe(
      'No extension "tri" of weft.rpc.Protocol in application "tri". Available: injvm. ' +
        '"tri" comes with @weft/protocol-triple: install it (npm install @weft/protocol-triple) as a dependency of the application.',
    );
  });

  it('a misspelling of a first-party name that is not installed: the real name and its package, never the misspelling as a package', async () => {
    const app = framework.newApplication('trii');
    await app.loadExtensions(Protocol);
    const text = await message(() => app.getExtensionLoader(Protocol).getExtension('trii'));
    expect(text).toContain('Did you mean "tri"? "tri" comes with @weft/protocol-triple: install it (npm install @weft/protocol-triple)');
    expect(text).not.toContain('trii:');
    expect(text).not.toMatch(/@weft\/[a-z-]*trii/);
  });

  it('an unknown name with no close match: available names, no suggestion, no install hint', async () => {
    const app = framework.newApplication('grpc');
    await app.loadExtensions(Protocol);
    const text = await message(() => app.getExtensionLoader(Protocol).getExtension('zzqqxx'));
    expect(text).toBe('No extension "zzqqxx" of weft.rpc.Protocol in application "grpc". Available: injvm.');
  });

  it('adaptive resolution from the URL raises the same error', async () => {
    const app = framework.newApplication('adaptive');
    await app.loadExtensions(Protocol);
    const adaptive = app.getExtensionLoader(Protocol).getAdaptiveExtension();
    const text = await message(() => adaptive.getDefaultPort.call(adaptive));
    expect(text).toContain('getDefaultPort() of extension point weft.rpc.Protocol is not adaptive');
    const refer = await message(() => adaptive.refer(Greeter, URL.parse('injvn://127.0.0.1/org.acme.Greeter')));
    expect(refer).toBe('No extension "injvn" of weft.rpc.Protocol in application "adaptive". Available: injvm. Did you mean "injvm"?');
  });
});

describe('WeftApplication export/refer/start', () => {
  it('protocol, filter list, cluster and loadbalance names: the closest one and the real package', async () => {
    const app = await WeftApplication.start({ root, framework, name: 'names' });
    try {
      expect(await message(() => app.export(Greeter, impl, { protocol: 'tri' }))).toBe(
        'export(org.acme.Greeter): protocol=tri names no weft.rpc.Protocol extension. Available: injvm. ' +
          '"tri" comes with @weft/protocol-triple: install it (npm install @weft/protocol-triple) as a dependency of the application.',
      );
      expect(await message(() => app.export(Greeter, impl, { filter: '-x,default,tsp' }))).toBe(
        'export(org.acme.Greeter): filter=tsp names no weft.rpc.Filter extension. Available: (none). Did you mean "tps"? ' +
          '"tps" comes with @weft/filter-tpslimit: install it (npm install @weft/filter-tpslimit) as a dependency of the application.',
      );
      expect(await message(() => app.refer(Greeter, { cluster: 'failovr' }))).toContain(
        'refer(org.acme.Greeter): cluster=failovr names no weft.rpc.Cluster extension. Available: (none). Did you mean "failover"? ' +
          '"failover" comes with @weft/cluster: install it (npm install @weft/cluster)',
      );
      expect(await message(() => app.refer(Greeter, { loadbalance: 'zzqqxx' }))).toBe(
        'refer(org.acme.Greeter): loadbalance=zzqqxx names no weft.rpc.LoadBalance extension. Available: (none).',
      );
    } finally {
      await app.shutdown();
    }
  });

  it('removing a filter that is not installed (filter=-tsp) is a warning with the closest name, not silence', async () => {
    const lines: string[] = [];
    const logger = new (class extends Logger {
      debug(): void {}
      info(): void {}
      warn(message: string): void {
        lines.push(message);
      }
      error(message: string): void {
        lines.push(message);
      }
    })();
    const own = FrameworkModel.create({ root, logger });
    const app = await WeftApplication.start({ root, framework: own, name: 'removal' });
    try {
      await app.export(Greeter, impl, { filter: '-tsp,default' });
      expect(lines).toEqual([
        'export(org.acme.Greeter): filter=-tsp removes "tsp", which is not installed, so it has no effect. Available: (none). ' +
          'Did you mean "tps"? "tps" comes with @weft/filter-tpslimit: install it (npm install @weft/filter-tpslimit) as a dependency of the application.',
      ]);
    } finally {
      await app.shutdown();
      await own.destroy();
    }
  });

  it('a registry protocol: never "install @weft/registry-<misspelling>"', async () => {
    const text = await message(() => WeftApplication.start({ root, framework, name: 'registry', registry: 'zookeepr://127.0.0.1:2181' }));
    expect(text).toBe(
      'start(): registry=zookeepr://127.0.0.1:2181 needs a "zookeepr" registry. Available: (none). Did you mean "zookeeper"? ' +
        '"zookeeper" comes with @weft/registry-zookeeper: install it (npm install @weft/registry-zookeeper) as a dependency of the application.',
    );
    expect(text).not.toContain('@weft/registry-zookeepr');
  });
});
