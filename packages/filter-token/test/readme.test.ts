import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { defineService, RpcError, RpcErrorCode, WeftApplication } from '@weft/core';
import { createTestApp, RecordingLogger, sourceRegion, type TestApp } from '@weft/test-utils';

const here = dirname(fileURLToPath(import.meta.url));
const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(here, '..', 'META-INF', 'weft', 'weft.rpc.Filter.json'), 'utf8')) as Record<
  string,
  { activate?: { group?: string[]; value?: string[]; order?: number } }
>;

const region = (name: string): string => sourceRegion(thisFile, name);

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });

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
  it('usage snippet runs: the injvm consumer passes, a guessed token is refused', async () => {
    testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-token']);
    app = await WeftApplication.start({ root: testApp.root, name: 'shop', logger: new RecordingLogger() });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

    // #region usage
    const { url } = await app.export(Greeter, { sayHello: (name: string) => `hello ${name}` }, { parameters: { token: true } });
    console.log(url.getParameter('token')); // a random UUID, e.g. 0b9e7a3c-1f2d-4e5f-8a9b-0c1d2e3f4a5b
    const greeter = await app.refer(Greeter, { retries: 0 });
    console.log(await greeter.sayHello('ann')); // hello ann
    await greeter
      .$call('sayHello', ['eve'], { attachments: { token: 'guessed', 'remote.application': 'intruder' } })
      .catch((error: RpcError) => console.log(error.code, error.message));
    // forbidden Failed to invoke the method sayHello … Last error is: Invalid token: call to org.acme.Greeter.sayHello()
    // from consumer intruder refused (its token does not match the provider's).
    // #endregion usage

    expect(log.mock.calls).toHaveLength(3);
    expect(log.mock.calls[0]?.[0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(log.mock.calls[1]).toEqual(['hello ann']);
    expect(log.mock.calls[2]?.[0]).toBe(RpcErrorCode.FORBIDDEN);
    expect(log.mock.calls[2]?.[1]).toContain(
      "Invalid token: call to org.acme.Greeter.sayHello() from consumer intruder refused (its token does not match the provider's).",
    );
  });

  it('shows the usage snippet verbatim', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
  });

  it('describes the extension as the manifest declares it', () => {
    expect(manifest['token']?.activate).toEqual({ group: ['provider'], value: ['token'] });
    expect(readme).toContain('| `weft.rpc.Filter` | `token` | group `provider`, when the provider URL has `token`');
    expect(readme).toContain('| `forbidden` (Dubbo 4) |');
  });
});
