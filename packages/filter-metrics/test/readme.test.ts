// The README's usage snippet runs as written (a region of this file, shown verbatim in the README), and the README
// documents the extension, its URL key and the metric families the package registers.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';

import { defineService, WeftApplication } from '@weft/core';
import { metricsOf, MetricsKeys } from '@weft/filter-metrics';
import { createTestApp, sourceRegion, type TestApp } from '@weft/test-utils';

const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(fileURLToPath(new globalThis.URL('../README.md', import.meta.url)), 'utf8');

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
const impl = { sayHello: (name: string) => `hello ${name}` };

let testApp: TestApp;
beforeAll(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-metrics'], { prefix: 'weft-metrics-readme' });
});
afterAll(() => testApp.cleanup());
afterEach(() => vi.restoreAllMocks());

describe('README', () => {
  it('usage snippet runs: one call, scraped from the endpoint', async () => {
    const root = testApp.root;
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    // #region usage
    const app = await WeftApplication.start({ root, name: 'shop' });
    const server = await metricsOf(app).listen({ port: 0 }); // 0: any free port (the default is 20888)
    await app.export(Greeter, impl);
    const greeter = await app.refer(Greeter);
    await greeter.sayHello('ann');
    const text = await (await fetch(server.url)).text();
    console.log(text.split('\n').find((line) => line.startsWith('dubbo_provider_requests_total{')));
    await app.shutdown();
    // #endregion usage
    expect(log.mock.calls.map((c) => String(c[0])).filter((line) => !line.startsWith('[weft]'))).toEqual([
      'dubbo_provider_requests_total{application_name="shop",interface="org.acme.Greeter",method="sayHello",group="",version=""} 1',
    ]);
  });

  it('shows the snippet verbatim and documents the key and every registered family', async () => {
    expect(readme).toContain(sourceRegion(thisFile, 'usage'));
    expect(readme).toContain(`\`${MetricsKeys.LEVEL}\``);
    const app = await WeftApplication.start({ root: testApp.root, name: 'readme-families', logger: { debug() {}, info() {}, warn() {}, error() {} } });
    try {
      const names = (await metricsOf(app).registry.getMetricsAsJSON()).map((m) => m.name);
      const undocumented = names.filter((name) => !readme.includes(name) && !readme.includes(name.replace(/^dubbo_(provider|consumer)_/, 'dubbo_{s}_')));
      expect(undocumented.filter((name) => !/_rt_milliseconds_(last|min|max|sum|avg|p50|p90|p95|p99)$/.test(name))).toEqual([]);
      expect(names).toHaveLength(48); // 20 per side, 1 consumer-only, 7 of Weft, registry and application
    } finally {
      await app.shutdown({ timeout: 2000 });
    }
  });
});
