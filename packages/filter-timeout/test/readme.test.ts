import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { defineService, Filter, RpcContext, RpcError, RpcErrorCode, WeftApplication, type Invocation, type Invoker, type Result } from '@weft/core';
import { createTestApp, RecordingLogger, sourceRegion, type TestApp } from '@weft/test-utils';

const here = dirname(fileURLToPath(import.meta.url));
const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(here, '..', 'META-INF', 'weft', 'weft.rpc.Filter.json'), 'utf8')) as Record<
  string,
  { activate?: { group?: string[]; order?: number } }
>;

const region = (name: string): string => sourceRegion(thisFile, name);

/** Stands in for @weft/filter-context (which this package's tests do not install): sets RpcContext.current(). */
class TestContextFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    return RpcContext.run(new RpcContext('provider', invocation, invoker.getUrl()), () => invoker.invoke(invocation));
  }
}

const Reports = defineService('org.acme.Reports', { build: { args: [String], returns: String } });

let testApp: TestApp | undefined;
let app: WeftApplication | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await app?.shutdown();
  testApp?.cleanup();
  app = undefined;
  testApp = undefined;
});

describe('README', () => {
  it('usage snippet runs: the implementation stops at the provider timeout and the caller gets timeout', async () => {
    testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-timeout']);
    const logger = new RecordingLogger();
    app = await WeftApplication.start({ root: testApp.root, name: 'shop', logger });
    app.model.getExtensionLoader(Filter).addExtension('test-context', TestContextFilter, { activate: { group: ['provider'], order: 1000 } });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const started = Date.now();

    // #region usage
    await app.export(
      Reports,
      {
        build: (id: string) =>
          new Promise<string>((resolve, reject) => {
            const signal = RpcContext.current()?.signal;
            const timer = setTimeout(() => resolve(`report ${id}`), 10_000);
            signal?.addEventListener('abort', () => {
              clearTimeout(timer); // stop working: nobody waits for the report any more
              reject(signal.reason);
            });
          }),
      },
      { methods: { build: { timeout: 100 } } },
    );
    const reports = await app.refer(Reports, { timeout: 5000, retries: 0 });
    await reports.build('q3').catch((error: RpcError) => console.log(error.code));
    // timeout — after 100 ms, and the provider logged
    // "invoke timed out: service org.acme.Reports, method build, elapsed 100 ms (budget 100 ms, provider timeout); …"
    // #endregion usage

    expect(log.mock.calls).toEqual([[RpcErrorCode.TIMEOUT]]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(logger.of('warn')).toEqual([
      expect.stringMatching(/^invoke timed out: service org\.acme\.Reports, method build, elapsed \d+ ms \(budget 100 ms, provider timeout\); /),
    ]);
  });

  it('shows the usage snippet verbatim', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
  });

  it('describes the extension as the manifest declares it, and both error codes', () => {
    expect(manifest['timeout']?.activate).toEqual({ group: ['provider'], order: -10000 });
    expect(readme).toContain('| `weft.rpc.Filter` | `timeout` | group `provider` (every export), order `-10000` |');
    expect(readme).toContain('| `timeout` (Dubbo 2) |');
    expect(readme).toContain('| `timeout-terminate` (Dubbo 8) |');
    expect(new RpcError(RpcErrorCode.TIMEOUT_TERMINATE, 'x').dubboCode).toBe(8);
  });
});
