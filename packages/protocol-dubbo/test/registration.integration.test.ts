// Registrations Dubbo tools understand (spec §4): the keys a Weft provider and consumer write, read back from the
// embedded registry's files, and one service exported on dubbo and tri at once.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { URL } from '@weft/core';

import { Greeter, greeterImpl, Harness, freePort } from './support/harness.js';

/** Calls `probe` until it returns `expected` (an override rule or a provider change arriving by poll), or fails. */
async function eventually<T>(probe: () => Promise<T>, expected: T, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < end) {
    last = await probe();
    if (last === expected) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`expected ${String(expected)}, last got ${String(last)}`);
}

const harness = new Harness(['@weft/core', '@weft/cluster', '@weft/protocol-dubbo', '@weft/protocol-triple', '@weft/registry-embedded', '@weft/filter-echo', '@weft/serialization-hessian2', '@weft/mock'], false);
const dirs: string[] = [];
afterEach(async () => {
  await harness.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const coreVersion = (JSON.parse(readFileSync(fileURLToPath(new globalThis.URL('../../core/package.json', import.meta.url)), 'utf8')) as { version: string }).version;

function registry(): { url: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'weft-dubbo-reg-'));
  dirs.push(dir);
  return { url: `embedded://${dir}?poll.interval=50&file-cache=false`, dir };
}

function entries(dir: string, category: string): URL[] {
  const folder = join(dir, 'dubbo', Greeter.name, category);
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .map((f) => URL.parse((JSON.parse(readFileSync(join(folder, f), 'utf8')) as { url: string }).url));
}

describe('dubbo registrations', () => {
  it('registers a provider with the keys Dubbo 2.7/3.x providers write, on dubbo and tri at once', async () => {
    const { url, dir } = registry();
    const provider = await harness.start('demo-provider', { registry: url });
    const dubboPort = await freePort();
    const triPort = await freePort();
    const before = Date.now();
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port: dubboPort });
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port: triPort });
    const providers = entries(dir, 'providers');
    expect(providers.map((u) => `${u.protocol}://${u.host}:${u.port}`).sort()).toEqual([`dubbo://127.0.0.1:${dubboPort}`, `tri://127.0.0.1:${triPort}`]);
    const dubbo = providers.find((u) => u.protocol === 'dubbo') as URL;
    expect([...dubbo.parameters.keys()].sort()).toEqual([
      'anyhost',
      'application',
      'deprecated',
      'dubbo',
      'dynamic',
      'generic',
      'interface',
      'methods',
      'pid',
      'release',
      'side',
      'timestamp',
      // Weft's own key (Dubbo tools ignore it): the declared return types, for the console's mock checks
      'weft.returns',
    ]);
    expect(Object.fromEntries([...dubbo.parameters].filter(([k]) => k !== 'timestamp'))).toEqual({
      anyhost: 'false',
      application: 'demo-provider',
      deprecated: 'false',
      dubbo: '2.0.2',
      dynamic: 'true',
      generic: 'false',
      interface: 'org.acme.Greeter',
      methods: 'add,crash,decline,join,nothing,notify,repeat,sayHello,sleep',
      pid: String(process.pid),
      release: `weft-${coreVersion}`,
      side: 'provider',
      'weft.returns': 'add:Number,crash:void,decline:void,join:String,nothing:void,notify:void,repeat:String,sayHello:String,sleep:Number',
    });
    expect(Number(dubbo.getParameter('timestamp'))).toBeGreaterThanOrEqual(before);
    // The tri registration carries the same keys (keys Dubbo tools read are protocol-independent).
    const tri = providers.find((u) => u.protocol === 'tri') as URL;
    expect(tri.getParameter('dubbo')).toBe('2.0.2');
    expect(tri.getParameter('release')).toBe(`weft-${coreVersion}`);
    expect(tri.getParameter('weft.returns')).toBe(dubbo.getParameter('weft.returns'));
  });

  it('registers a consumer with category=consumers, dubbo, pid, release and timestamp, and calls over both protocols', async () => {
    const { url, dir } = registry();
    const provider = await harness.start('demo-provider', { registry: url });
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port: await freePort() });
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port: await freePort() });
    const consumer = await harness.start('demo-consumer', { registry: url });
    const before = Date.now();
    const greeter = await consumer.refer(Greeter, { retries: 0, timeout: 3000 });
    const [registered] = entries(dir, 'consumers');
    expect(registered?.protocol).toBe('consumer');
    expect(Object.fromEntries([...(registered as URL).parameters].filter(([k]) => k !== 'timestamp'))).toMatchObject({
      application: 'demo-consumer',
      category: 'consumers',
      check: 'false',
      dubbo: '2.0.2',
      interface: 'org.acme.Greeter',
      pid: String(process.pid),
      release: `weft-${coreVersion}`,
      side: 'consumer',
    });
    expect(Number(registered?.getParameter('timestamp'))).toBeGreaterThanOrEqual(before);
    const protocols = (consumer.getDirectory(greeter)?.getAllInvokers() ?? []).map((i) => i.getUrl().protocol).sort();
    expect(protocols).toEqual(['dubbo', 'tri']);
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => greeter.add(i, 1)));
    expect(answers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  });

  it('applies override rules from the registry and fail-mock to dubbo:// references', async () => {
    const { url } = registry();
    const provider = await harness.start('demo-provider', { registry: url });
    const exported = await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port: await freePort() });
    const consumer = await harness.start('demo-consumer', { registry: url });
    const greeter = await consumer.refer(Greeter, { retries: 0, timeout: 1000, mock: 'fail:return "fallback"' });
    expect(await greeter.sayHello('a')).toBe('hello a');
    expect(await greeter.add(1, 2)).toBe(3);
    // An override rule pushed to the registry: add() is force-mocked, sayHello() still reaches the provider.
    await consumer.registry?.register(URL.parse('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&add.mock=force:return+7'));
    await eventually(() => greeter.add(1, 2), 7);
    expect(await greeter.sayHello('b')).toBe('hello b');
    // The provider goes away: fail-mock answers.
    await exported.unexport();
    await eventually(() => greeter.sayHello('c').catch((e: unknown) => String(e)), 'fallback');
  });
});
