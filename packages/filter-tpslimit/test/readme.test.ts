// The README's usage snippet runs as written (a region of this file, shown verbatim in the README), its diff
// adds exactly the snippet's lines, and the README documents every extension and URL key the package has.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { defineService, RpcError, RpcErrorCode, WeftApplication } from '@weft/core';
import { TpsKeys } from '@weft/filter-tpslimit';
import { createTestApp, sourceRegion, type TestApp } from '@weft/test-utils';

const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

const region = (name: string): string => sourceRegion(thisFile, name);

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
const impl = { sayHello: (name: string) => `hello ${name}` };

let testApp: TestApp;
beforeAll(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-tpslimit'], { prefix: 'weft-tps-readme' });
});
afterAll(() => testApp.cleanup());
afterEach(() => vi.restoreAllMocks());

describe('README', () => {
  it('usage snippet runs: the third sayHello within a second is refused with limit-exceeded', async () => {
    const root = testApp.root;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // #region usage
    const app = await WeftApplication.start({ root, name: 'shop' });
    await app.export(Greeter, impl, {
      parameters: { tps: 100, 'tps.interval': 1000 }, // 100 calls per second, shared by the service's methods
      methods: { sayHello: { tps: 2 } }, // sayHello: 2 per second, in a window of its own
    });
    const greeter = await app.refer(Greeter, { retries: 0 });
    await greeter.sayHello('ann');
    await greeter.sayHello('bob');
    try {
      await greeter.sayHello('cy');
    } catch (error) {
      if (error instanceof RpcError && error.code === RpcErrorCode.LIMIT_EXCEEDED) console.log('slow down');
    }
    await app.shutdown();
    // #endregion usage
    // The snippet's own output (Weft's "[weft] exported …" info line aside).
    expect(log.mock.calls.filter((c) => !String(c[0]).startsWith('[weft] '))).toEqual([['slow down']]);
  });

  it('shows the usage snippet verbatim, and its diff adds exactly lines of the snippet', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
    const diff = /```diff\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const added = diff.split('\n').filter((l) => l.startsWith('+ ')).map((l) => l.slice(2));
    expect(added.length).toBeGreaterThan(2);
    for (const line of added) expect(region('usage').split('\n')).toContain(line);
  });

  it('documents every contributed extension and every URL key', () => {
    expect(readme).toContain('| `weft.rpc.Filter` | `tps` |');
    expect(readme).toContain('| `weft.filter.TpsLimiter` | `memory` |');
    expect(readme).toContain('| `weft.config.ConfigValidator` | `tps` |');
    for (const key of Object.values(TpsKeys)) expect(readme).toContain(`| \`${key}\` |`);
  });

  it('the manifests declare what the README says', () => {
    const read = (point: string) =>
      JSON.parse(readFileSync(fileURLToPath(new URL(`../META-INF/weft/${point}.json`, import.meta.url)), 'utf8')) as Record<string, unknown>;
    expect(read('weft.rpc.Filter')['tps']).toMatchObject({ activate: { group: ['provider'], value: ['tps'] } });
    expect(Object.keys(read('weft.filter.TpsLimiter')).filter((k) => k !== '$schema')).toEqual(['memory']);
    expect(read('weft.config.ConfigValidator')['tps']).toMatchObject({ activate: { group: ['provider'], value: ['tps'] } });
  });
});
