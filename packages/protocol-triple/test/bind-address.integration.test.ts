// Listen vs advertise over tri: a provider bound to every address (0.0.0.0) registers a reachable address, never
// 0.0.0.0, and a consumer finds and calls it through the registry; the env overrides come from the injected env.
import { mkdtempSync, rmSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { firstExternalIpv4, WeftApplication, type AddressEnvironment, type URL } from '@weft/core';
import { freePort } from '@weft/test-utils';

import { BASE_PACKAGES, Greeter, greeterImpl, Harness } from './support/harness.js';

const harness = new Harness([...BASE_PACKAGES, '@weft/registry-embedded']);
const dirs: string[] = [];
afterEach(async () => {
  await harness.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(name: string, registry: string, env: AddressEnvironment): Promise<WeftApplication> {
  const app = await WeftApplication.start({ root: harness.root, name, logger: harness.logger, registry, env });
  harness.apps.push(app);
  return app;
}

/** The provider URLs a consumer's reference got from the registry. */
function providersSeen(consumer: WeftApplication, proxy: object): URL[] {
  return (consumer.getDirectory(proxy)?.getAllInvokers() ?? []).map((invoker) => invoker.getUrl());
}

function registryUrl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-bind-'));
  dirs.push(dir);
  return `embedded://${dir}?poll.interval=50&file-cache=false`;
}

describe('bind address vs registered address', () => {
  it('binds 0.0.0.0, registers the first non-loopback IPv4 address (not 0.0.0.0), and a consumer reaches it', async () => {
    const registry = registryUrl();
    const port = await freePort();
    const provider = await start('bind-provider', registry, {});
    const exported = await provider.export(Greeter, greeterImpl(), { protocol: 'tri', host: '0.0.0.0', port });
    const external = firstExternalIpv4(networkInterfaces());
    const expectedHost = external ?? '127.0.0.1';
    expect(exported.url.host).toBe(expectedHost);
    expect(exported.url.port).toBe(port);
    expect(exported.url.getParameter('bind.ip')).toBe('0.0.0.0');
    expect(exported.url.getParameter('anyhost')).toBe('true');
    if (external === undefined) expect(harness.logger.of('warn').join('\n')).toContain('no non-loopback IPv4 interface was found');

    // What the consumer read from the registry.
    const consumer = await start('bind-consumer', registry, {});
    const greeter = await consumer.refer(Greeter, { retries: 0, timeout: 3000 });
    const registered = providersSeen(consumer, greeter);
    expect(registered.map((url) => `${url.protocol}://${url.host}:${url.port}`)).toEqual([`tri://${expectedHost}:${port}`]);
    expect(registered[0]?.getParameter('bind.ip')).toBeUndefined();
    expect(registered[0]?.getParameter('anyhost')).toBe('true');
    expect(await greeter.sayHello('lan')).toBe('hello lan');
    // It listens on loopback too (every address).
    const direct = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 3000 });
    expect(await direct.sayHello('loopback')).toBe('hello loopback');
  });

  it('registers DUBBO_IP_TO_REGISTRY / DUBBO_PORT_TO_REGISTRY from the injected env, and listens on bind.ip / bind.port', async () => {
    const registry = registryUrl();
    const bindPort = await freePort();
    const provider = await start('env-provider', registry, { DUBBO_IP_TO_REGISTRY: '127.0.0.1', DUBBO_PORT_TO_REGISTRY: String(bindPort) });
    const exported = await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port: 1, bind: { ip: '0.0.0.0', port: bindPort } });
    expect(`${exported.url.host}:${exported.url.port}`).toBe(`127.0.0.1:${bindPort}`);
    expect([exported.url.getParameter('bind.ip'), exported.url.getParameter('bind.port')]).toEqual(['0.0.0.0', String(bindPort)]);
    const consumer = await start('env-consumer', registry, {});
    const greeter = await consumer.refer(Greeter, { retries: 0, timeout: 3000 });
    expect(providersSeen(consumer, greeter).map((url) => `${url.host}:${url.port}`)).toEqual([`127.0.0.1:${bindPort}`]);
    expect(await greeter.sayHello('env')).toBe('hello env');
  });

  it('keeps the loopback default: binds and registers 127.0.0.1', async () => {
    const registry = registryUrl();
    const port = await freePort();
    const provider = await start('loopback-provider', registry, {});
    const exported = await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    expect(`${exported.url.host}:${exported.url.port}`).toBe(`127.0.0.1:${port}`);
    expect([exported.url.getParameter('bind.ip'), exported.url.getParameter('anyhost')]).toEqual(['127.0.0.1', 'false']);
  });
});
