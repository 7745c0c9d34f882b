// The README's usage snippet runs as written (a region of this file, shown verbatim in the README), its diff
// adds exactly the snippet's lines, and the README documents the extension and its URL keys.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { defineService, WeftApplication } from '@weft/core';
import { createTestApp, sourceRegion, type TestApp } from '@weft/test-utils';

const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

const region = (name: string): string => sourceRegion(thisFile, name);

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
/** Executions in flight, and the most at once. */
const inFlight = { now: 0, peak: 0 };
const impl = {
  sayHello: async (name: string) => {
    inFlight.peak = Math.max(inFlight.peak, ++inFlight.now);
    await new Promise((resolve) => setTimeout(resolve, 20));
    inFlight.now--;
    return `hello ${name}`;
  },
};

let testApp: TestApp;
beforeAll(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-activelimit'], { prefix: 'weft-activelimit-readme' });
});
afterAll(() => testApp.cleanup());
afterEach(() => vi.restoreAllMocks());

describe('README', () => {
  it('usage snippet runs: three concurrent calls, two at a time, all answered', async () => {
    const root = testApp.root;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // #region usage
    const app = await WeftApplication.start({ root, name: 'shop' });
    await app.export(Greeter, impl);
    const greeter = await app.refer(Greeter, {
      timeout: 200, // a call waits at most 200 ms for a free slot (0: it never waits)
      parameters: { actives: 2 }, // at most 2 calls of each method in flight to each provider
    });
    const answers = await Promise.all([greeter.sayHello('ann'), greeter.sayHello('bob'), greeter.sayHello('cy')]);
    console.log(answers); // [ 'hello ann', 'hello bob', 'hello cy' ]
    await app.shutdown();
    // #endregion usage
    // The snippet's own output (Weft's "[weft] exported …" info line aside).
    expect(log.mock.calls.filter((c) => !String(c[0]).startsWith('[weft] '))).toEqual([[['hello ann', 'hello bob', 'hello cy']]]);
    expect(inFlight.peak).toBe(2);
  });

  it('shows the usage snippet verbatim, and its diff adds exactly lines of the snippet', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
    const diff = /```diff\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const added = diff.split('\n').filter((l) => l.startsWith('+ ')).map((l) => l.slice(2));
    expect(added.length).toBeGreaterThan(2);
    for (const line of added) expect(region('usage').split('\n')).toContain(line);
  });

  it('documents the extension and its URL keys, as the manifest declares it', () => {
    expect(readme).toContain('| `weft.rpc.Filter` | `active-limit` |');
    for (const key of ['actives', '<method>.actives', 'timeout', '<method>.timeout']) expect(readme).toContain(`| \`${key}\` |`);
    const manifest = JSON.parse(readFileSync(fileURLToPath(new URL('../META-INF/weft/weft.rpc.Filter.json', import.meta.url)), 'utf8')) as Record<string, unknown>;
    expect(manifest['active-limit']).toMatchObject({ activate: { group: ['consumer'], value: ['actives'] } });
  });
});
