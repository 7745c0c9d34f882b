// The README cannot rot: its config-centre snippet runs here against a real ZooKeeper, and its options table lists
// exactly the registry URL keys the code reads.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService } from '@weft/core';
import { ZookeeperClient } from '@weft/registry-zookeeper';
import { freePort, sourceRegion } from '@weft/test-utils';

import { Applications, waitFor } from './support/harness.js';
import { ZookeeperServer } from './support/zookeeper-server.js';

const here = dirname(fileURLToPath(import.meta.url));
const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');

const region = (name: string): string => sourceRegion(thisFile, name);

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });

let server: ZookeeperServer;
const apps = new Applications();

beforeAll(async () => {
  server = await ZookeeperServer.start();
});

afterAll(async () => {
  await apps.stopAll();
  await server?.dispose();
});

describe('README', () => {
  it('the config-centre snippet degrades the next call of application "shop"', async () => {
    const registry = `${server.url}?timeout=5000&session=10000&file-cache=false`;
    const provider = (await apps.start('shop-provider', registry)).app;
    await provider.export(Greeter, { sayHello: (name: string) => `hello ${name}` }, { protocol: 'loop', host: '127.0.0.1', port: await freePort() });
    const shop = (await apps.start('shop', registry)).app;
    const greeter = await shop.refer(Greeter);
    expect(await greeter.sayHello('ann')).toBe('hello ann');
    const connectString = server.connectString;

    // #region yaml
    const zk = new ZookeeperClient({ connectString });
    await zk.writeData('/dubbo/config/dubbo/shop.configurators', [
      'configVersion: v3.0',
      'scope: application',
      'key: shop',
      'configs:',
      '  - side: consumer',
      '    parameters: {sayHello.mock: "force:return `degraded`"}',
    ].join('\n'));
    await zk.close();
    // the next greeter.sayHello('ann') of application "shop" returns "degraded"
    // #endregion yaml

    await waitFor('the YAML rule to apply', async () => (await greeter.sayHello('ann')) === 'degraded');
  });

  it('shows the snippet verbatim', () => {
    expect(readme).toContain('```ts\n' + region('yaml') + '\n```');
  });

  it('documents exactly the registry URL keys the code reads', () => {
    const sources = [
      ...readdirSync(join(here, '..', 'src'))
        .filter((f) => f.endsWith('.ts'))
        .map((f) => readFileSync(join(here, '..', 'src', f), 'utf8')),
      readFileSync(join(here, '..', '..', 'core', 'src', 'registry', 'abstract-registry.ts'), 'utf8'),
      readFileSync(join(here, '..', '..', 'core', 'src', 'registry', 'rule-limits.ts'), 'utf8'),
    ].join('\n');
    const read = new Set([...sources.matchAll(/(?:this\.)?url\.get(?:Positive)?Parameter\('([^']+)'/g)].map((m) => m[1] ?? ''));
    // Keys of registered URLs (documented below the table), the application name Weft sets itself, and the
    // category tag core's cache file stores with each entry.
    for (const key of ['dynamic', 'category', 'application', 'weft.category']) read.delete(key);
    const options = readme.slice(readme.indexOf('## Options'), readme.indexOf('## How it works'));
    const documented = new Set([...options.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1] ?? ''));
    documented.delete('user:password@');
    expect([...documented].sort()).toEqual([...read].sort());
  });
});
