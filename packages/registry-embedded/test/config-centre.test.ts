// The embedded registry's config centre: documents as private files under <root>/config/<config.group>/, the YAML
// configurator rules of a subscription's application and service (translated to override URLs, refused ones logged
// with the previous rules kept), routing rules of the consumer, the service and the provider applications, limits,
// and config-center=false.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { defineService, RegistryCategory, URL, WeftApplication } from '@weft/core';
import { EmbeddedRegistry } from '@weft/registry-embedded';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

let dir: string;
const registries: EmbeddedRegistry[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-embedded-config-'));
});
afterEach(async () => {
  for (const registry of registries.splice(0)) await registry.destroy();
  rmSync(dir, { recursive: true, force: true });
});

function open(query = '', logger = new RecordingLogger()): EmbeddedRegistry {
  const registry = new EmbeddedRegistry(URL.parse(`embedded://${dir}?poll.interval=40&file-cache=false${query}`), logger, dir);
  registries.push(registry);
  return registry;
}

const SUBSCRIPTION = URL.parse(
  'consumer://127.0.0.1/org.acme.Greeter?application=shop&category=providers,configurators,routers&interface=org.acme.Greeter&side=consumer',
);

/** Subscribes and keeps the last list of each category (as decoded strings). */
async function subscribe(registry: EmbeddedRegistry): Promise<Map<string, string[]>> {
  const last = new Map<string, string[]>();
  await registry.subscribe(SUBSCRIPTION, (category, urls) => last.set(category, urls.map((u) => u.toDecodedString())));
  return last;
}

async function eventually<T>(probe: () => T, ok: (value: T) => boolean, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms (last value: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TIMEOUT_RULE = 'configVersion: v3.0\nscope: service\nkey: org.acme.Greeter\nconfigs:\n  - side: consumer\n    parameters: {timeout: 6000}\n';
const APP_RULE = 'configVersion: v3.0\nscope: application\nkey: shop\nconfigs:\n  - side: consumer\n    parameters: {retries: 5}\n';

describe('embedded config centre: documents', () => {
  it('keeps each document in a private file named by its key; reads it back; deletes it', async () => {
    const registry = open();
    const key = 'org.acme.Greeter:1.0.0:.condition-router';
    const path = registry.configPath(key);
    expect(path).toBe(join(dir, 'dubbo', 'config', 'dubbo', 'org.acme.Greeter%3A1.0.0%3A.condition-router'));
    expect(await registry.getConfig(key)).toBeUndefined();
    await registry.publishConfig(key, 'conditions: ["=> host = 1.2.3.4"]');
    expect(readFileSync(path!, 'utf8')).toBe('conditions: ["=> host = 1.2.3.4"]');
    expect(statSync(path!).mode & 0o777).toBe(0o600);
    expect(await registry.getConfig(key)).toBe('conditions: ["=> host = 1.2.3.4"]');
    await registry.publishConfig(key, undefined);
    expect(await registry.getConfig(key)).toBeUndefined();
    await registry.publishConfig(key, undefined); // deleting what is absent is no error
  });

  it('puts documents under config.group, and never lists the config folder as a service', async () => {
    const registry = open('&config.group=governance');
    expect(registry.configPath('shop.configurators')).toBe(join(dir, 'dubbo', 'config', 'governance', 'shop.configurators'));
    await registry.publishConfig('shop.configurators', APP_RULE);
    await registry.register(URL.parse('tri://127.0.0.1:20880/org.acme.Greeter?interface=org.acme.Greeter&side=provider'));
    expect(await registry.listServices()).toEqual(['org.acme.Greeter']);
  });

  it('config-center=false: no config centre (no path, writes refused, documents not read)', async () => {
    const registry = open('&config-center=false');
    expect(registry.configPath('shop.configurators')).toBeUndefined();
    await expect(registry.publishConfig('shop.configurators', APP_RULE)).rejects.toThrow(/config centre is off \(config-center=false\): cannot write shop\.configurators/);
    expect(await registry.getConfig('shop.configurators')).toBeUndefined();
    // A file put there by hand is not read.
    await open().publishConfig('shop.configurators', APP_RULE);
    const last = await subscribe(registry);
    await pause(120);
    expect(last.get(RegistryCategory.CONFIGURATORS)).toEqual(['empty://127.0.0.1/org.acme.Greeter?application=shop&category=configurators&interface=org.acme.Greeter&side=consumer']);
  });
});

describe('embedded config centre: what subscriptions get', () => {
  it('delivers YAML configurator rules of the application and the service as override URLs, after the entries', async () => {
    const registry = open();
    await registry.register(URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&loadbalance=roundrobin'));
    await registry.publishConfig('org.acme.Greeter::.configurators', TIMEOUT_RULE);
    const last = await subscribe(registry);
    expect(last.get(RegistryCategory.CONFIGURATORS)).toEqual([
      'override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&loadbalance=roundrobin',
      'override://0.0.0.0/org.acme.Greeter?category=dynamicconfigurators&side=consumer&timeout=6000&enabled=true&configVersion=v3.0',
    ]);
    // Application rules come before service rules; an app rule for every service gets the subscriber's group/version.
    await registry.publishConfig('shop.configurators', APP_RULE);
    await eventually(() => last.get(RegistryCategory.CONFIGURATORS)?.length, (n) => n === 3);
    expect(last.get(RegistryCategory.CONFIGURATORS)?.[1]).toMatch(/^override:\/\/0\.0\.0\.0\/\*\?category=appdynamicconfigurators&side=consumer&retries=5&application=shop&enabled=true&configVersion=v3\.0$/);
  });

  it('refuses a rule that does not parse, naming its file, and keeps the previous rules; deleting the document clears them', async () => {
    const logger = new RecordingLogger();
    const registry = open('', logger);
    const key = 'org.acme.Greeter::.configurators';
    await registry.publishConfig(key, TIMEOUT_RULE);
    const last = await subscribe(registry);
    expect(last.get(RegistryCategory.CONFIGURATORS)).toHaveLength(1);
    await registry.publishConfig(key, 'configVersion: v3.0\nkey: org.acme.Greeter\nconfigs:\n  - parameters: {timeout: 1}\n');
    const errors = await eventually(() => logger.of('error'), (e) => e.length > 0);
    expect(errors[0]).toContain(`Rejected the configurator rule at ${registry.configPath(key)}:`);
    expect(errors[0]).toContain('The previous rules of this document stay (1 override URL(s)).');
    expect(last.get(RegistryCategory.CONFIGURATORS)?.[0]).toContain('timeout=6000');
    await registry.publishConfig(key, undefined);
    await eventually(() => last.get(RegistryCategory.CONFIGURATORS)?.[0], (u) => u?.startsWith('empty://') === true);
  });

  it('delivers routing rules of the consumer application, the service and each provider application as routers URLs', async () => {
    const registry = open();
    const last = await subscribe(registry);
    await registry.publishConfig('org.acme.Greeter::.condition-router', "conditions: ['=> port = 20880']");
    await registry.publishConfig('shop.condition-router', "conditions: ['=> port = 20881']");
    // A provider application's rules are read once one of its providers is seen.
    await registry.publishConfig('demo-provider.tag-router', "tags: [{name: blue, addresses: ['127.0.0.1:20880']}]");
    await registry.register(URL.parse('tri://127.0.0.1:20880/org.acme.Greeter?application=demo-provider&interface=org.acme.Greeter&side=provider'));
    const routers = await eventually(() => last.get(RegistryCategory.ROUTERS) ?? [], (r) => r.length === 3);
    const file = (key: string) => registry.configPath(key);
    expect(routers).toEqual([
      `route://0.0.0.0/org.acme.Greeter?category=routers&router=condition&rule.scope=application&rule.source=${file('shop.condition-router')}&rule.yaml=conditions: ['=> port = 20881']`,
      `route://0.0.0.0/org.acme.Greeter?category=routers&router=condition&rule.scope=service&rule.source=${file('org.acme.Greeter::.condition-router')}&rule.yaml=conditions: ['=> port = 20880']`,
      `route://0.0.0.0/org.acme.Greeter?category=routers&router=tag&rule.scope=provider-application&rule.source=${file('demo-provider.tag-router')}&rule.yaml=tags: [{name: blue, addresses: ['127.0.0.1:20880']}]`,
    ]);
  });

  it('refuses a document larger than rule.yaml.max-bytes unread (once, until it changes); the previous rules stay', async () => {
    const logger = new RecordingLogger();
    const registry = open('&rule.yaml.max-bytes=400', logger);
    const key = 'org.acme.Greeter::.configurators';
    await registry.publishConfig(key, TIMEOUT_RULE);
    const last = await subscribe(registry);
    const before = { ...registry.reads };
    writeFileSync(registry.configPath(key)!, `${TIMEOUT_RULE}# ${'x'.repeat(500)}\n`);
    await eventually(() => logger.of('error'), (e) => e.length > 0);
    await pause(200); // several polls
    expect(logger.of('error')).toEqual([
      `Refused the config-centre rule ${registry.configPath(key)}: ${TIMEOUT_RULE.length + 503} bytes, more than rule.yaml.max-bytes=400 (a key of the registry URL); ` +
        'it is not read (nor re-read until it changes), and the previous rules of this document stay (1 override URL(s)).',
    ]);
    expect(registry.reads).toEqual(before);
    expect(last.get(RegistryCategory.CONFIGURATORS)?.[0]).toContain('timeout=6000');
  });
});

describe('embedded config centre: a consumer', () => {
  let app: TestApp;
  beforeEach(() => {
    app = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/registry-embedded']);
  });
  afterEach(() => app.cleanup());

  it('applies a YAML override rule written with publishConfig on its next call', async () => {
    const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
    const registryUrl = `embedded://${dir}?poll.interval=40&file-cache=false`;
    const admin = await WeftApplication.start({ root: app.root, name: 'admin', registry: registryUrl, logger: new RecordingLogger() });
    const consumer = await WeftApplication.start({ root: app.root, name: 'shop', registry: registryUrl, logger: new RecordingLogger() });
    try {
      await admin.registry!.register(URL.parse('mock://0.0.0.0/org.acme.Greeter?interface=org.acme.Greeter&dynamic=false&sayHello.mock=return+%22real%22'));
      const greeter = await consumer.refer(Greeter, { mock: 'force:return null', retries: 0 });
      expect(await greeter.sayHello('x')).toBe('real');
      await admin.registry!.publishConfig(
        'shop.configurators',
        'configVersion: v3.0\nscope: application\nkey: shop\nconfigs:\n  - side: consumer\n    parameters: {sayHello.mock: "force:return \\"overridden\\""}\n',
      );
      await eventually(() => consumer.getReferenceUrl(greeter)?.getParameter('sayHello.mock'), (v) => v !== undefined);
      expect(await greeter.sayHello('x')).toBe('overridden');
      await admin.registry!.publishConfig('shop.configurators', undefined);
      await eventually(() => consumer.getReferenceUrl(greeter)?.getParameter('sayHello.mock'), (v) => v === undefined);
      expect(await greeter.sayHello('x')).toBe('real');
    } finally {
      await consumer.shutdown({ timeout: 1000 });
      await admin.shutdown({ timeout: 1000 });
    }
  });
});
