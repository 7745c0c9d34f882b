// The routers inside real applications: three tri providers on an embedded registry, a consumer with
// @weft/routers and a third-party router installed from a manifest (test/fixtures/pin-port-router). Checks the
// chain's activation order, the `router` key, legacy routers URLs written to the registry, v3 YAML rules in the
// embedded config centre, and tag propagation from a provider's handler to its downstream calls.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, RegistryDirectory, RouterFactory, URL, WeftApplication, type CallableProxy } from '@weft/core';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

const Greeter = defineService('org.acme.Greeter', {
  whoami: { returns: String },
  relay: { returns: String },
});
const Backend = defineService('org.acme.Backend', {
  whoami: { returns: String },
});
type GreeterProxy = CallableProxy<(typeof Greeter)['methods']>;

const PACKAGES = ['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/registry-embedded', '@weft/routers', '@weft/filter-context'];
const fixture = fileURLToPath(new globalThis.URL('./fixtures/pin-port-router', import.meta.url));

let testApp: TestApp;
let dir: string;
let registry: string;
const apps: WeftApplication[] = [];
const ports: number[] = [];

/** The consumer's application root: the packages, plus the fixture router installed like any dependency. */
function withFixture(app: TestApp): void {
  mkdirSync(join(app.root, 'node_modules', '@fixture'), { recursive: true });
  symlinkSync(fixture, join(app.root, 'node_modules', '@fixture', 'pin-port-router'), 'dir');
  const pkg = JSON.parse(readFileSync(join(app.root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  pkg.dependencies['@fixture/pin-port-router'] = '*';
  writeFileSync(join(app.root, 'package.json'), JSON.stringify(pkg, null, 2));
}

async function start(name: string, logger = new RecordingLogger()): Promise<WeftApplication> {
  const app = await WeftApplication.start({ root: testApp.root, name, registry, logger });
  apps.push(app);
  return app;
}

async function answers(proxy: GreeterProxy, calls = 9): Promise<string[]> {
  const seen = new Set<string>();
  for (let i = 0; i < calls; i++) seen.add(await proxy.whoami());
  return [...seen].sort();
}

async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`not met within ${ms} ms (last: ${JSON.stringify(v)})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  testApp = createTestApp(PACKAGES, { prefix: 'weft-routers' });
  withFixture(testApp);
  dir = mkdtempSync(join(tmpdir(), 'weft-routers-registry-'));
  registry = `embedded://${dir}?poll.interval=50&file-cache=false`;
  // Backend providers b1 (untagged) and b2 (static tag gray); Greeter providers p1..p3 call the backend in relay().
  for (const [label, tag] of [['b1', undefined], ['b2', 'gray']] as const) {
    const app = await start(`backend-${label}`);
    await app.export(Backend, { whoami: () => label }, { protocol: 'tri', host: '127.0.0.1', port: await freePort(), ...(tag ? { parameters: { 'dubbo.tag': tag } } : {}) });
  }
  for (const label of ['p1', 'p2', 'p3']) {
    const app = await start('greeter-provider');
    const backend = await app.refer(Backend, { check: false, loadbalance: 'roundrobin' });
    const port = await freePort();
    ports.push(port);
    await app.export(Greeter, { whoami: () => label, relay: async () => `${label}>${await backend.whoami()}` }, { protocol: 'tri', host: '127.0.0.1', port });
  }
}, 30_000);

afterAll(async () => {
  for (const app of apps.splice(0).reverse()) await app.shutdown({ timeout: 1000 });
  testApp?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('routers in an application', () => {
  it('activates tag, condition, then the third-party router from its manifest; `router=-name` removes one', async () => {
    const consumer = await start('shop');
    expect(consumer.model.getExtensionLoader(RouterFactory).selectActivateNames(URL.parse('consumer://127.0.0.1/org.acme.Greeter'), 'router', 'consumer')).toEqual(['tag', 'condition', 'pin']);
    const pinned = await consumer.refer(Greeter, { parameters: { 'pin.port': ports[1]! } });
    expect(await answers(pinned)).toEqual(['p2']);
    const directory = consumer.getDirectory(pinned) as RegistryDirectory;
    expect(directory.getRouterChain()?.routers.map((r) => r.name)).toEqual(['tag', 'condition', 'pin']);
    const unpinned = await consumer.refer(Greeter, { loadbalance: 'roundrobin', parameters: { 'pin.port': ports[1]!, router: '-pin' } });
    expect(await answers(unpinned)).toEqual(['p1', 'p2', 'p3']);
  });

  it('obeys a legacy condition URL registered in the routers category, and stops when it is removed', async () => {
    const consumer = await start('shop');
    const greeter = await consumer.refer(Greeter, { loadbalance: 'roundrobin' });
    expect(await answers(greeter)).toEqual(['p1', 'p2', 'p3']);
    const rule = URL.parse(`condition://0.0.0.0/org.acme.Greeter?category=routers&dynamic=false&force=true&rule=${URL.encode(`method = whoami => port != ${ports[0]}`)}`);
    await consumer.registry!.register(rule);
    await eventually(() => answers(greeter), (a) => a.join() === 'p2,p3');
    expect(await greeter.relay()).toMatch(/^p[123]>/); // relay is not concerned
    await consumer.registry!.unregister(rule);
    await eventually(() => answers(greeter), (a) => a.join() === 'p1,p2,p3');
  });

  it('obeys v3 YAML rules in the embedded config centre (service condition route, provider-application tag route); deleting them restores traffic', async () => {
    const logger = new RecordingLogger();
    const consumer = await start('shop', logger);
    const registry = consumer.registry!;
    const greeter = await consumer.refer(Greeter, { loadbalance: 'roundrobin' });
    const blue = await consumer.refer(Greeter, { loadbalance: 'roundrobin', parameters: { 'dubbo.tag': 'blue' } });
    expect(await answers(greeter)).toEqual(['p1', 'p2', 'p3']);

    const condition = 'org.acme.Greeter::.condition-router';
    expect(registry.configPath(condition)).toBe(join(dir, 'dubbo', 'config', 'dubbo', 'org.acme.Greeter%3A%3A.condition-router'));
    await registry.publishConfig(condition, `configVersion: v3.0\nscope: service\nkey: org.acme.Greeter\nforce: true\nconditions:\n  - 'method = whoami => port = ${ports[2]}'\n`);
    await eventually(() => answers(greeter), (a) => a.join() === 'p3');
    // A rule that does not parse is refused, its file named; the previous rule stays in force.
    await registry.publishConfig(condition, `conditions: ['=> port == ${ports[0]}']`);
    await eventually(async () => logger.of('error'), (e) => e.some((m) => m.includes(`Rejected the condition rule at ${registry.configPath(condition)}`)));
    expect(await answers(greeter)).toEqual(['p3']);
    await registry.publishConfig(condition, undefined);
    await eventually(() => answers(greeter), (a) => a.join() === 'p1,p2,p3');

    // The provider application's tag rule: blue → p1; untagged calls then avoid p1.
    const tag = 'greeter-provider.tag-router';
    await registry.publishConfig(tag, `force: false\nkey: greeter-provider\ntags:\n  - name: blue\n    addresses: ['127.0.0.1:${ports[0]}']\n`);
    await eventually(() => answers(blue), (a) => a.join() === 'p1');
    expect(await answers(greeter)).toEqual(['p2', 'p3']);
    await registry.publishConfig(tag, undefined);
    await eventually(() => answers(blue), (a) => a.join() === 'p1,p2,p3');
    expect(await answers(greeter)).toEqual(['p1', 'p2', 'p3']);
  });

  it('without @weft/routers, routing rules are ignored with one warning naming the package', async () => {
    const bare = createTestApp(['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/registry-embedded'], { prefix: 'weft-no-routers' });
    const logger = new RecordingLogger();
    const consumer = await WeftApplication.start({ root: bare.root, name: 'shop', registry, logger });
    apps.push(consumer);
    try {
      const greeter = await consumer.refer(Greeter, { loadbalance: 'roundrobin' });
      const rule = URL.parse(`condition://0.0.0.0/org.acme.Greeter?category=routers&dynamic=false&rule=${URL.encode('=> host = 1.2.3.4')}`);
      await consumer.registry!.register(rule);
      await eventually(async () => logger.of('warn'), (w) => w.some((m) => m.includes('routing rules for org.acme.Greeter are ignored')));
      expect(logger.of('warn').filter((m) => m.includes('routing rules'))).toEqual([
        'routing rules for org.acme.Greeter are ignored: no router is installed (install @weft/routers for condition and tag routes)',
      ]);
      expect(await answers(greeter)).toEqual(['p1', 'p2', 'p3']);
      await consumer.registry!.unregister(rule);
    } finally {
      bare.cleanup();
    }
  });

  it('propagates the request tag: a gray call to a Greeter makes its backend call gray too', async () => {
    const consumer = await start('shop');
    const greeter = await consumer.refer(Greeter);
    // No Greeter provider is tagged: gray calls fall back to untagged Greeters, whose backend calls stay gray.
    for (let i = 0; i < 4; i++) expect(await greeter.$call('relay', [], { attachments: { 'dubbo.tag': 'gray' } })).toMatch(/^p[123]>b2$/);
    for (let i = 0; i < 4; i++) expect(await greeter.relay()).toMatch(/^p[123]>b1$/);
    // A reference's own tag routes its calls (the Greeter has no gray provider: fallback), and is not sent on.
    const grayRef = await consumer.refer(Greeter, { parameters: { 'dubbo.tag': 'gray' } });
    expect(await grayRef.whoami()).toMatch(/^p[123]$/);
  });
});
