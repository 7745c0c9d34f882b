// Rules pushed at runtime: over `tri` with providers discovered through the embedded registry, an override — by
// `app.override` on the reference, or a rule registered in the registry's configurators — reaches the provider
// invokers (the directory re-refers them with the new URL), so a reference that had no breaker gets one, a
// running breaker can be forced open (the fail mock answers) and released, and removing the rule removes it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { ApplicationEvents, defineService, Invocation, RpcError, URL, WeftApplication, type Registry } from '@weft/core';
import { circuitBreakersOf } from '@weft/filter-circuitbreaker';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });

class BusinessError extends Error {
  override name = 'BusinessError';
}

const behaviour = { fail: false, calls: 0 };
const impl = {
  sayHello: (name: string) => {
    behaviour.calls++;
    if (behaviour.fail) throw new BusinessError(`no hello for ${name}`);
    return `hello ${name}`;
  },
};

let testApp: TestApp;
let dir: string;
let registryUrl: string;
const apps: WeftApplication[] = [];

beforeEach(() => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/protocol-triple', '@weft/registry-embedded', '@weft/filter-circuitbreaker'], {
    prefix: 'weft-circuitbreaker-override',
  });
  dir = mkdtempSync(join(tmpdir(), 'weft-cb-registry-'));
  registryUrl = `embedded://${dir}?poll.interval=50&file-cache=false`;
  behaviour.fail = false;
  behaviour.calls = 0;
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
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function outcome(call: () => Promise<unknown>): Promise<string> {
  try {
    return `ok: ${String(await call())}`;
  } catch (error) {
    return error instanceof RpcError ? error.code : (error as Error).name;
  }
}

function registryOf(app: WeftApplication): Registry {
  if (app.registry === undefined) throw new Error('no registry');
  return app.registry;
}

async function setUp(): Promise<{ consumer: WeftApplication; greeter: { sayHello(name: string): Promise<string> } }> {
  const provider = await start('provider');
  await provider.export(Greeter, impl, { protocol: 'tri', port: await freePort() });
  const consumer = await start('consumer');
  const greeter = await consumer.refer(Greeter, { retries: 0, mock: 'fail:return "degraded"' });
  return { consumer, greeter };
}

describe('circuit breaker rules pushed at runtime (tri, embedded registry)', () => {
  it('app.override adds a breaker to a reference referred without one, forces it open (fail mock answers), and removes it', async () => {
    const { consumer, greeter } = await setUp();
    expect(await greeter.sayHello('a')).toBe('hello a');
    consumer.override(greeter, { circuitbreaker: 'error-count', 'circuitbreaker.threshold': 1, 'circuitbreaker.min-requests': 1 });
    behaviour.fail = true;
    // Once the provider invokers are re-referred with the rule, the second error trips the breaker and the fail mock answers.
    await eventually(() => outcome(() => greeter.sayHello('f')), (o) => o === 'ok: degraded');
    expect(circuitBreakersOf(consumer).get('org.acme.Greeter#sayHello')?.state).toBe('open');
    const before = behaviour.calls;
    for (let i = 0; i < 20; i++) expect(await greeter.sayHello('x')).toBe('degraded');
    expect(behaviour.calls).toBe(before);

    behaviour.fail = false;
    consumer.override(greeter, { circuitbreaker: 'error-count', 'circuitbreaker.force': 'closed' });
    await eventually(() => outcome(() => greeter.sayHello('b')), (o) => o === 'ok: hello b');
    expect(circuitBreakersOf(consumer).get('org.acme.Greeter#sayHello')?.state).toBe('forced-closed');

    consumer.override(greeter, { 'circuitbreaker.force': 'open' });
    await eventually(() => outcome(() => greeter.sayHello('c')), (o) => o === 'ok: degraded');
    expect(circuitBreakersOf(consumer).get('org.acme.Greeter#sayHello')?.state).toBe('forced-open');

    consumer.override(greeter, {});
    await eventually(() => outcome(() => greeter.sayHello('d')), (o) => o === 'ok: hello d');
    // The chain was rebuilt without the filter: the breaker is released, and says so.
    await eventually(() => circuitBreakersOf(consumer).get('org.acme.Greeter#sayHello')?.state ?? 'none', (s) => s === 'none');
    expect((consumer.model.logger as RecordingLogger).of('warn')).toContain(
      'circuit breaker org.acme.Greeter#sayHello: forced-open → closed (no provider chain has a rule for it any more; rule: forced open).',
    );
  });

  it('an override of another key keeps an open breaker open (same rule); an override without the rule releases the breaker', async () => {
    const { consumer, greeter } = await setUp();
    const removed: string[] = [];
    consumer.model.getService(ApplicationEvents).on('circuitbreaker.removed', (e) => removed.push(String(e['resource'])));
    const rule = { circuitbreaker: 'error-count', 'circuitbreaker.threshold': 1, 'circuitbreaker.min-requests': 1, 'circuitbreaker.open-duration': 60000 };
    consumer.override(greeter, rule);
    behaviour.fail = true;
    await eventually(() => outcome(() => greeter.sayHello('f')), (o) => o === 'ok: degraded');
    const breakers = circuitBreakersOf(consumer);
    const open = breakers.get('org.acme.Greeter#sayHello');
    expect(open?.state).toBe('open');
    behaviour.fail = false;

    // A timeout change re-refers the provider with a new URL: the same rule keeps the same breaker, still open.
    const url = consumer.override(greeter, { ...rule, timeout: 4000 });
    expect(url.getParameter('timeout')).toBe('4000');
    await eventually(() => consumer.getDirectory(greeter)?.list(new Invocation({ methodName: 'sayHello', args: ['t'] }))[0]?.getUrl().getParameter('timeout'), (t) => t === '4000');
    await new Promise((r) => setTimeout(r, 50));
    expect(breakers.get('org.acme.Greeter#sayHello')).toBe(open);
    expect(await greeter.sayHello('still')).toBe('degraded');
    expect(removed).toEqual([]);

    // The rule removed (the filter leaves the chain): the breaker goes, and the calls reach the provider again.
    consumer.override(greeter, { timeout: 4000 });
    await eventually(() => outcome(() => greeter.sayHello('back')), (o) => o === 'ok: hello back');
    await eventually(() => removed, (r) => r.length > 0);
    expect(removed).toEqual(['org.acme.Greeter#sayHello']);
    expect(breakers.get('org.acme.Greeter#sayHello')).toBeUndefined();
    expect(breakers.size).toBe(0);
  });

  it('a rule registered in the registry (configurators) forces the breaker open; unregistering it restores the calls', async () => {
    const { consumer, greeter } = await setUp();
    expect(await greeter.sayHello('a')).toBe('hello a');
    const admin = await start('admin');
    const rule = URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&sayHello.circuitbreaker.force=open');
    await registryOf(admin).register(rule);
    await eventually(() => outcome(() => greeter.sayHello('b')), (o) => o === 'ok: degraded');
    const logger = consumer.model.logger;
    expect(logger).toBeInstanceOf(RecordingLogger);
    expect((logger as RecordingLogger).of('warn')).toContain(
      'circuit breaker org.acme.Greeter#sayHello: closed → forced-open (the rule changed; rule: forced open).',
    );
    await registryOf(admin).unregister(rule);
    await eventually(() => outcome(() => greeter.sayHello('c')), (o) => o === 'ok: hello c');
  });

  it('an invalid pushed rule is refused by the validator and the previous configuration stays', async () => {
    const { consumer, greeter } = await setUp();
    expect(() => consumer.override(greeter, { circuitbreaker: 'error-rate' })).toThrow(
      'override(org.acme.Greeter): circuitbreaker=error-rate is not valid: expected one of slow-ratio, error-ratio, error-count.',
    );
    expect(await greeter.sayHello('a')).toBe('hello a');
  });
});
