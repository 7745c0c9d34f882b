import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { defineService, WeftApplication } from '@weft/core';
import { createTestApp, RecordingLogger, sourceRegion, type TestApp } from '@weft/test-utils';

const here = dirname(fileURLToPath(import.meta.url));
const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(join(here, '..', 'README.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(here, '..', 'META-INF', 'weft', 'weft.rpc.Filter.json'), 'utf8')) as Record<
  string,
  { activate?: { group?: string[]; order?: number } }
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
  it('usage snippet runs: $echo answers without calling the implementation', async () => {
    testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-echo']);
    app = await WeftApplication.start({ root: testApp.root, name: 'shop', logger: new RecordingLogger() });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

    // #region usage
    let calls = 0;
    await app.export(Greeter, {
      sayHello(name: string) {
        calls++;
        return `hello ${name}`;
      },
    });
    const greeter = await app.refer(Greeter);
    console.log(await greeter.$echo('ping'), await greeter.$echo({ n: 1 }), calls);
    // ping { n: 1 } 0
    // #endregion usage

    expect(log.mock.calls).toEqual([['ping', { n: 1 }, 0]]);
  });

  it('shows the usage snippet verbatim', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
  });

  it('describes the extension as the manifest declares it', () => {
    expect(manifest['echo']?.activate).toEqual({ group: ['provider'], order: -110000 });
    expect(readme).toContain('| `weft.rpc.Filter` | `echo` | group `provider` (every export), order `-110000` |');
    expect(readme).toContain('| `method-not-found` (Dubbo 11) |');
  });
});
