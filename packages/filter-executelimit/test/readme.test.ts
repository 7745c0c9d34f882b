// The README's usage snippet runs as written (a region of this file, shown verbatim in the README), its diff
// adds exactly the snippet's lines, and the README documents the extension and its URL key.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { defineService, RpcError, RpcErrorCode, RpcStatusRegistry, WeftApplication } from '@weft/core';
import { createTestApp, sourceRegion, type TestApp } from '@weft/test-utils';

const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(fileURLToPath(new URL('../README.md', import.meta.url)), 'utf8');

const region = (name: string): string => sourceRegion(thisFile, name);

const Search = defineService('org.acme.Search', { reindex: { returns: Number }, find: { args: [String], returns: [String] } });
const impl = {
  reindex: async () => {
    await new Promise((resolve) => setTimeout(resolve, 30));
    return 42;
  },
  find: (text: string) => [text],
};

let testApp: TestApp;
beforeAll(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-executelimit'], { prefix: 'weft-executelimit-readme' });
});
afterAll(() => testApp.cleanup());
afterEach(() => vi.restoreAllMocks());

describe('README', () => {
  it('usage snippet runs: a second concurrent reindex is refused while the first is counted', async () => {
    const root = testApp.root;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    // #region usage
    const app = await WeftApplication.start({ root, name: 'shop' });
    const { url } = await app.export(Search, impl, {
      parameters: { executes: 8 }, // at most 8 executions of each method at once
      methods: { reindex: { executes: 1 } }, // and a single reindex
    });
    const search = await app.refer(Search, { retries: 0 });
    const first = search.reindex();
    const second = await search.reindex().catch((error: unknown) => error);
    console.log(second instanceof RpcError && second.code === RpcErrorCode.LIMIT_EXCEEDED); // true
    console.log(app.model.getService(RpcStatusRegistry).getMethodStatus(url, 'reindex').active); // 1
    await first;
    await app.shutdown();
    // #endregion usage
    // The snippet's own output (Weft's "[weft] exported …" info line aside).
    expect(log.mock.calls.filter((c) => !String(c[0]).startsWith('[weft] '))).toEqual([[true], [1]]);
  });

  it('shows the usage snippet verbatim, and its diff adds exactly lines of the snippet', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
    const diff = /```diff\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const added = diff.split('\n').filter((l) => l.startsWith('+ ')).map((l) => l.slice(2));
    expect(added.length).toBeGreaterThan(2);
    const lines = region('usage').split('\n');
    for (const line of added) expect(lines.some((l) => l.endsWith(line))).toBe(true);
  });

  it('documents the extension and its URL keys, as the manifest declares it', () => {
    expect(readme).toContain('| `weft.rpc.Filter` | `executelimit` |');
    expect(readme).toContain('| `executes` |');
    expect(readme).toContain('| `<method>.executes` |');
    const manifest = JSON.parse(readFileSync(fileURLToPath(new URL('../META-INF/weft/weft.rpc.Filter.json', import.meta.url)), 'utf8')) as Record<string, unknown>;
    expect(manifest['executelimit']).toMatchObject({ activate: { group: ['provider'], value: ['executes'] } });
  });
});
