import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { defineService, URL, WeftApplication, type Registry } from '@weft/core';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

// Override rules pushed by a registry go through the unknown-key check: a warning naming the key, the rule and the
// closest known key — or, in strict mode, the whole rule is refused and nothing of it is applied.

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  count: { returns: Number },
});

let testApp: TestApp;
let dir: string;
let registryUrl: string;
const apps: WeftApplication[] = [];

beforeEach(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/filter-tpslimit', '@weft/registry-embedded']);
  dir = mkdtempSync(join(tmpdir(), 'weft-keys-'));
  registryUrl = `embedded://${dir}?poll.interval=50&file-cache=false`;
});

afterEach(async () => {
  for (const app of apps.splice(0)) await app.shutdown({ timeout: 1000 });
  testApp.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function start(name: string, logger: RecordingLogger, strict = false): Promise<WeftApplication> {
  const app = await WeftApplication.start({ root: testApp.root, name, registry: registryUrl, logger, strict });
  apps.push(app);
  return app;
}

async function eventually<T>(probe: () => T, ok: (value: T) => boolean, ms = 5000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms (last value: ${JSON.stringify(value)})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function consumerOf(strict: boolean) {
  const adminLog = new RecordingLogger();
  const admin = await start('admin', adminLog);
  const registry = admin.registry as Registry;
  await registry.register(URL.parse('mock://0.0.0.0/org.acme.Greeter?interface=org.acme.Greeter&dynamic=false&sayHello.mock=return+%22real%22'));
  const logger = new RecordingLogger();
  const consumer = await start('shop', logger, strict);
  const greeter = await consumer.refer(Greeter, { mock: 'force:return null', retries: 0 });
  return { registry, logger, consumer, greeter };
}

const from = () => URL.parse(registryUrl).toIdentityString();

describe('override rules with unknown keys', () => {
  it('are applied with a warning per unknown key, naming the rule and the closest key, once per rule', async () => {
    const { registry, logger, consumer, greeter } = await consumerOf(false);
    expect(logger.of('warn')).toEqual([]);
    await registry.register(URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&tsp=5&sayHelo.mock=force:return+1&timeout=700'));
    await eventually(() => consumer.getReferenceUrl(greeter)?.getParameter('timeout'), (v) => v === '700');
    const where = `override rule for org.acme.Greeter at 0.0.0.0 from ${from()}`;
    expect(logger.of('warn')).toEqual([
      `\`tsp\`: unknown parameter in ${where}; did you mean \`tps\`?`,
      `\`sayHelo.mock\`: unknown parameter in ${where}; did you mean \`sayHello.mock\`?`,
    ]);
    // a rule for another application does not concern this consumer
    await registry.register(URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&application=billing&tsp=9'));
    // another rule arrives: the first one is not reported again
    await registry.register(URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&priority=1&retries=1'));
    await eventually(() => consumer.getReferenceUrl(greeter)?.getParameter('retries'), (v) => v === '1');
    expect(logger.of('warn')).toHaveLength(2);
  });

  it('strict: the whole rule is refused and logged; the previous configuration stays', async () => {
    const { registry, logger, consumer, greeter } = await consumerOf(true);
    await registry.register(URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&tsp=5&timeout=700'));
    const [rejected] = await eventually(() => logger.of('error'), (errors) => errors.length > 0);
    expect(rejected).toContain('Rejected override rule(s) override://0.0.0.0/org.acme.Greeter?');
    expect(rejected).toContain(`\`tsp\`: unknown parameter in override rule for org.acme.Greeter at 0.0.0.0 from ${from()}; did you mean \`tps\`?`);
    expect(rejected).toContain('The previous configuration stays.');
    expect(consumer.getReferenceUrl(greeter)?.getParameter('timeout')).toBeUndefined();
    expect(await greeter.sayHello('x')).toBe('real');
    // once the bad rule is gone, a correct one applies (a notification is judged as a whole, like validation)
    await registry.unregister(URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&tsp=5&timeout=700'));
    await registry.register(URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&priority=1&tps=5&timeout=800'));
    await eventually(() => consumer.getReferenceUrl(greeter)?.getParameter('timeout'), (v) => v === '800');
  });
});
