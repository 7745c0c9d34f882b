import { fork } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { defineService, RegistryCategory, RegistryFactory, URL, WeftApplication, type Registry } from '@weft/core';
import { EmbeddedRegistry } from '@weft/registry-embedded';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  count: { returns: Number },
});

let testApp: TestApp;
let dir: string;
let registryUrl: string;
const apps: WeftApplication[] = [];

beforeEach(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/registry-embedded']);
  dir = mkdtempSync(join(tmpdir(), 'weft-embedded-'));
  registryUrl = `embedded://${dir}?poll.interval=50&file-cache=false`;
});

afterEach(async () => {
  for (const app of apps.splice(0)) await app.shutdown({ timeout: 1000 });
  testApp.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function start(name: string, logger = new RecordingLogger()): Promise<WeftApplication> {
  const app = await WeftApplication.start({ root: testApp.root, name, registry: registryUrl, logger });
  apps.push(app);
  return app;
}

async function eventually<T>(probe: () => Promise<T> | T, ok: (value: T) => boolean, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms (last value: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function registryOf(app: WeftApplication): Registry {
  if (app.registry === undefined) throw new Error('no registry');
  return app.registry;
}

describe('the embedded registry', () => {
  it('is the embedded extension of weft.registry.RegistryFactory, and the default', async () => {
    const app = await start('shop');
    const factories = app.model.getExtensionLoader(RegistryFactory);
    expect(factories.getSupportedExtensions()).toEqual(['embedded']);
    expect(factories.getDefaultExtensionName()).toBe('embedded');
    expect(app.registry).toBeInstanceOf(EmbeddedRegistry);
  });

  it("keeps Dubbo's layout: <group>/<interface>/<category>/<entry>, one URL per entry, ephemeral entries owned by a pid", async () => {
    const app = await start('shop');
    const provider = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?interface=org.acme.Greeter&side=provider&application=shop');
    await registryOf(app).register(provider);
    const folder = join(dir, 'dubbo', 'org.acme.Greeter', 'providers');
    const files = readdirSync(folder);
    expect(files).toHaveLength(1);
    const entry = JSON.parse(readFileSync(join(folder, files[0] as string), 'utf8')) as { url: string; pid?: number };
    expect(URL.parse(entry.url).equals(provider)).toBe(true);
    expect(entry.pid).toBe(process.pid);
    await registryOf(app).unregister(provider);
    expect(readdirSync(folder)).toEqual([]);
  });

  it('persists dynamic=false entries and the group root; writes consumers under consumers', async () => {
    const app = await start('shop');
    const rule = URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&timeout=50');
    await registryOf(app).register(rule);
    const [file] = readdirSync(join(dir, 'dubbo', 'org.acme.Greeter', 'configurators'));
    const entry = JSON.parse(readFileSync(join(dir, 'dubbo', 'org.acme.Greeter', 'configurators', file as string), 'utf8')) as { pid?: number };
    expect(entry.pid).toBeUndefined();
    await registryOf(app).register(URL.parse('consumer://10.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&side=consumer&category=consumers'));
    expect(readdirSync(join(dir, 'dubbo', 'org.acme.Greeter', 'consumers'))).toHaveLength(1);
  });

  it('notifies full category lists, with empty:// for an empty category', async () => {
    const app = await start('shop');
    const seen: { category: string; urls: string[] }[] = [];
    const subscription = URL.parse('consumer://10.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&category=providers,configurators');
    await registryOf(app).subscribe(subscription, (category, urls) => seen.push({ category, urls: urls.map((u) => u.protocol) }));
    expect(seen).toEqual([
      { category: RegistryCategory.PROVIDERS, urls: ['empty'] },
      { category: RegistryCategory.CONFIGURATORS, urls: ['empty'] },
    ]);
    await registryOf(app).register(URL.parse('mock://0.0.0.0/org.acme.Greeter?interface=org.acme.Greeter&dynamic=false'));
    await eventually(() => seen.length, (n) => n >= 3);
    expect(seen[2]).toEqual({ category: RegistryCategory.PROVIDERS, urls: ['mock'] });
  });

  it('ignores entries of other versions and groups, and malformed entry files', async () => {
    const app = await start('shop');
    const registry = registryOf(app);
    await registry.register(URL.parse('mock://0.0.0.0/org.acme.Greeter?interface=org.acme.Greeter&version=2.0.0&dynamic=false'));
    await registry.register(URL.parse('mock://0.0.0.0/org.acme.Greeter?interface=org.acme.Greeter&group=blue&dynamic=false'));
    writeFileSync(join(dir, 'dubbo', 'org.acme.Greeter', 'providers', 'garbage.json'), '{not json');
    let providers: string[] = [];
    await registry.subscribe(URL.parse('consumer://10.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&version=1.0.0'), (c, urls) => {
      if (c === RegistryCategory.PROVIDERS) providers = urls.map((u) => u.protocol);
    });
    expect(providers).toEqual(['empty']);
  });
});

describe('registry directory over the embedded registry', () => {
  it('picks up a mock:// provider and answers forced calls from it', async () => {
    const admin = await start('admin');
    await registryOf(admin).register(
      URL.parse('mock://0.0.0.0/org.acme.Greeter?interface=org.acme.Greeter&dynamic=false&sayHello.mock=return+aa'),
    );
    const consumer = await start('shop');
    const greeter = await consumer.refer(Greeter, { mock: 'force:return null' });
    expect(await greeter.sayHello('x')).toBe('aa');
    expect(await greeter.count()).toBeNull();
  });

  it('applies a pushed override on the next call, rejects an invalid one (keeping the previous behaviour), and removes it', async () => {
    const admin = await start('admin');
    const registry = registryOf(admin);
    await registry.register(URL.parse('mock://0.0.0.0/org.acme.Greeter?interface=org.acme.Greeter&dynamic=false&sayHello.mock=return+%22from+provider%22'));
    const logger = new RecordingLogger();
    const consumer = await start('shop', logger);
    const greeter = await consumer.refer(Greeter, { mock: 'force:return null', retries: 0 });
    expect(await greeter.sayHello('x')).toBe('from provider');

    const good = URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&count.mock=force:return+42');
    await registry.register(good);
    await eventually(() => consumer.getReferenceUrl(greeter)?.getParameter('count.mock'), (v) => v === 'force:return+42');
    expect(await greeter.count()).toBe(42);

    // priority=1 makes it apply after (and so win over) the good rule; equal rules apply in no defined order
    const bad = URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&priority=1&count.mock=force:throw+NoSuchError');
    await registry.register(bad);
    await eventually(() => logger.of('error'), (errors) => errors.some((e) => e.includes('Rejected override rule')));
    expect(logger.of('error').find((e) => e.includes('Rejected override rule'))).toContain('NoSuchError');
    expect(await greeter.count()).toBe(42);

    await registry.unregister(bad);
    await registry.unregister(good);
    await eventually(() => consumer.getReferenceUrl(greeter)?.getParameter('count.mock'), (v) => v === undefined);
    expect(await greeter.count()).toBeNull();
  });

  it("a provider-addressed rule's mock reaches the consumer's mock decision (as Dubbo 2.6/2.7 consumers did)", async () => {
    const admin = await start('admin');
    const registry = registryOf(admin);
    const provider = URL.parse('mock://10.1.2.3:20880/org.acme.Greeter?interface=org.acme.Greeter&dynamic=false&sayHello.mock=return+%22real%22');
    await registry.register(provider);
    const consumer = await start('shop');
    const greeter = await consumer.refer(Greeter, { mock: 'fail:return null', retries: 0 });
    const rule = URL.parse('override://10.1.2.3:20880/org.acme.Greeter?category=configurators&dynamic=false&count.mock=force:return+7');
    await registry.register(rule);
    await eventually(() => consumer.getReferenceUrl(greeter)?.getParameter('count.mock'), (v) => v === 'force:return+7');
    expect(await greeter.count()).toBe(7);
    // the port-less 0.0.0.0 form targets the consumer directly
    await registry.unregister(rule);
    await registry.register(URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&application=shop&count.mock=force:return+8'));
    await eventually(() => consumer.getReferenceUrl(greeter)?.getParameter('count.mock'), (v) => v === 'force:return+8');
    expect(await greeter.count()).toBe(8);
  });

  it('drops the entries of a crashed process: its provider disappears from the consumer', async () => {
    const script = join(testApp.root, 'crash.mjs');
    writeFileSync(
      script,
      `import { URL } from '@weft/core';
       import { EmbeddedRegistry } from '@weft/registry-embedded';
       const logger = { debug() {}, info() {}, warn() {}, error() {} };
       const registry = new EmbeddedRegistry(URL.parse(process.argv[2]), logger, '/tmp');
       await registry.register(URL.parse('mock://10.9.9.9:1/org.acme.Greeter?interface=org.acme.Greeter&sayHello.mock=return+%22crashy%22'));
       process.send('registered');
       setInterval(() => {}, 1000);`,
    );
    const child = fork(script, [registryUrl], { cwd: testApp.root, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
    });
    const consumer = await start('shop');
    const greeter = await consumer.refer(Greeter, { mock: 'force:return null' });
    expect(await greeter.sayHello('x')).toBe('crashy');
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    await eventually(() => consumer.getDirectory(greeter)?.getAllInvokers().length, (n) => n === 0);
    expect(await greeter.sayHello('x')).toBeNull();
    expect(readdirSync(join(dir, 'dubbo', 'org.acme.Greeter', 'providers'))).toEqual([]);
  });

  it('refuses a refer without providers when check is on, and waits for them with check: false', async () => {
    const consumer = await start('shop');
    await expect(consumer.refer(Greeter)).rejects.toMatchObject({ code: 'no-invoker' });
    const greeter = await consumer.refer(Greeter, { check: false, mock: 'force:return null' });
    const admin = await start('admin');
    await registryOf(admin).register(URL.parse('mock://0.0.0.0/org.acme.Greeter?interface=org.acme.Greeter&sayHello.mock=return+late'));
    await eventually(() => greeter.sayHello('x'), (v) => v === 'late');
  });

  it('registers the consumer under consumers and removes ephemeral entries on shutdown', async () => {
    const admin = await start('admin');
    await registryOf(admin).register(URL.parse('mock://0.0.0.0/org.acme.Greeter?interface=org.acme.Greeter&dynamic=false&sayHello.mock=return+x'));
    const consumer = await start('shop');
    await consumer.refer(Greeter, { mock: 'force:return null' });
    const consumers = join(dir, 'dubbo', 'org.acme.Greeter', 'consumers');
    expect(readdirSync(consumers)).toHaveLength(1);
    await consumer.shutdown();
    apps.splice(apps.indexOf(consumer), 1);
    expect(readdirSync(consumers)).toEqual([]);
    expect(existsSync(join(dir, 'dubbo', 'org.acme.Greeter', 'providers'))).toBe(true);
  });

  it('registers the declared return types as weft.returns, next to the keys Dubbo writes', async () => {
    const consumer = await start('shop');
    await consumer.refer(Greeter, { check: false });
    const consumers = join(dir, 'dubbo', 'org.acme.Greeter', 'consumers');
    const [file] = readdirSync(consumers);
    const entry = JSON.parse(readFileSync(join(consumers, file as string), 'utf8')) as { url: string };
    const registered = URL.parse(entry.url);
    expect(registered.getParameter('weft.returns')).toBe('count:Number,sayHello:String');
    expect(entry.url).toContain('weft.returns=count:Number,sayHello:String');
    expect(registered.getParameter('methods')).toBe('count,sayHello');
    expect(registered.getParameter('release')).toMatch(/^weft-/);
  });
});
