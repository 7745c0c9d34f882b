import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { defineService, RpcError, RpcErrorCode, WeftApplication } from '@weft/core';
import { AuthKeys } from '@weft/filter-auth';
import { createTestApp, RecordingLogger, sourceRegion, type TestApp } from '@weft/test-utils';

const here = dirname(fileURLToPath(import.meta.url));
const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(here, '..', 'META-INF', 'weft', 'weft.rpc.Filter.json'), 'utf8')) as Record<
  string,
  { activate?: { group?: string[]; value?: string[]; order?: number } }
>;

const region = (name: string): string => sourceRegion(thisFile, name);

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String }, reset: { args: [], returns: String } });

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
  it('usage snippet runs: the signed consumer passes, the unlisted method and the wrong secret are refused', async () => {
    testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-auth']);
    const logger = new RecordingLogger();
    app = await WeftApplication.start({ root: testApp.root, name: 'shop', logger });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

    // #region usage
    app.model.registerService(AuthKeys, new AuthKeys({ shop: 'a-long-random-secret', ops: 'another-long-secret' }));
    await app.export(Greeter, { sayHello: (name: string) => `hello ${name}`, reset: () => 'reset' }, {
      parameters: { 'auth.keys': 'shop,ops', 'reset.auth.callers': 'ops' },
    });
    const shop = await app.refer(Greeter, { retries: 0, parameters: { 'auth.key-id': 'shop' } }); // secret from AuthKeys
    console.log(await shop.sayHello('ann')); // hello ann
    await shop.reset().catch((error: RpcError) => console.log(error.code, error.message));
    // forbidden … auth: call to org.acme.Greeter.reset() from an unidentified consumer refused:
    // principal "shop" (via signature) is not allowed to call reset() (auth.callers).
    const intruder = await app.refer(Greeter, { retries: 0, parameters: { 'auth.key-id': 'shop', 'auth.secret': 'guessed' } });
    await intruder.sayHello('eve').catch((error: RpcError) => console.log(error.code, error.message));
    // forbidden … refused: bad signature (a different secret, or the call was altered on the way: …).
    // #endregion usage

    expect(log.mock.calls).toHaveLength(3);
    expect(log.mock.calls[0]).toEqual(['hello ann']);
    expect(log.mock.calls[1]?.[0]).toBe(RpcErrorCode.FORBIDDEN);
    expect(log.mock.calls[1]?.[1]).toContain(
      'auth: call to org.acme.Greeter.reset() from an unidentified consumer refused: principal "shop" (via signature) is not allowed to call reset() (auth.callers).',
    );
    expect(log.mock.calls[2]?.[0]).toBe(RpcErrorCode.FORBIDDEN);
    expect(log.mock.calls[2]?.[1]).toContain('refused: bad signature (a different secret, or the call was altered on the way: ');
    expect(String(log.mock.calls[2]?.[1])).not.toMatch(/guessed|a-long-random-secret/);
    expect(logger.of('warn')).toEqual([]); // the auth.* keys are known: no unknown-parameter warning
  });

  it('shows the usage snippet verbatim', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
  });

  it('describes the extension as the manifest declares it', () => {
    expect(manifest['auth']?.activate).toEqual({
      group: ['consumer', 'provider'],
      value: ['auth.key-id', 'auth.keys', 'auth.keys-file', 'auth.callers'],
      order: -100000,
    });
    expect(readme).toContain('| `weft.rpc.Filter` | `auth` | groups `consumer` and `provider`, when the URL has `auth.key-id`, `auth.keys`, `auth.keys-file` or `auth.callers`');
    expect(readme).toContain('order `-100000`');
    expect(readme).toContain('## Differences from Dubbo');
  });
});
