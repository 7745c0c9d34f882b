// A provider with a token, over tri, behind a registry: the registry carries that a token is required, never the
// token; a remote consumer calls with the token its reference is given and is refused without it.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { RpcError, RpcErrorCode, WeftApplication } from '@weft/core';
import { createTestPki, freePort } from '@weft/test-utils';

import { BASE_PACKAGES, Greeter, greeterImpl, Harness } from './support/harness.js';

const harness = new Harness([...BASE_PACKAGES, '@weft/registry-embedded', '@weft/filter-token']);
const dirs: string[] = [];
afterEach(async () => {
  await harness.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(name: string, registry: string, secret?: string[]): Promise<WeftApplication> {
  const app = await WeftApplication.start({ root: harness.root, name, logger: harness.logger, registry, parameters: { secret } });
  harness.apps.push(app);
  return app;
}

/** Every byte the embedded registry holds, as text. */
function registryText(dir: string): string {
  const walk = (at: string): string =>
    readdirSync(at, { withFileTypes: true })
      .map((entry) => (entry.isDirectory() ? walk(join(at, entry.name)) : `${decodeURIComponent(entry.name)}\n${readFileSync(join(at, entry.name), 'utf8')}`))
      .join('\n');
  return walk(dir);
}

describe('token behind a registry', () => {
  it('registers token=true, not the token; only a consumer given the token gets through', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-token-'));
    dirs.push(dir);
    const registry = `embedded://${dir}?poll.interval=50&file-cache=false`;
    const provider = await start('vault', registry);
    const exported = await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port: await freePort(), parameters: { token: 'c0rrect-h0rse' } });
    expect(exported.url.getParameter('token')).toBe('c0rrect-h0rse');

    const consumer = await start('shop', registry);
    const without = await consumer.refer(Greeter, { retries: 0, timeout: 3000 });
    const seen = consumer.getDirectory(without)?.getAllInvokers().map((invoker) => invoker.getUrl().getParameter('token'));
    expect(seen).toEqual(['true']);
    expect(registryText(dir)).toContain('token=true');
    expect(registryText(dir)).not.toContain('c0rrect-h0rse');

    const refused = await without.sayHello('eve').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).code).toBe(RpcErrorCode.FORBIDDEN);
    expect((refused as RpcError).message).toContain('refused (it carried no token). Remote consumers send the token their reference is given');
    expect((refused as RpcError).message).not.toContain('c0rrect-h0rse');

    const given = await consumer.refer(Greeter, { retries: 0, timeout: 3000, parameters: { token: 'c0rrect-h0rse' } });
    expect(await given.sayHello('ann')).toBe('hello ann');
    const wrong = await consumer.refer(Greeter, { retries: 0, timeout: 3000, parameters: { token: 'guess' } });
    await expect(wrong.sayHello('eve')).rejects.toThrow("its token does not match the provider's");
    // The consumers' registrations leave their tokens out too.
    expect(registryText(dir)).toContain('category=consumers');
    expect(registryText(dir)).not.toContain('c0rrect-h0rse');
    expect(registryText(dir)).not.toContain('guess');
  });

  it('a TLS provider registers ssl-enabled=true, never its certificate paths, passphrase or declared secrets; a consumer trusting the CA calls it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weft-tls-registry-'));
    dirs.push(dir);
    const pki = createTestPki(join(dir, 'pki'));
    const registry = `embedded://${join(dir, 'registry')}?poll.interval=50&file-cache=false`;
    const provider = await start('vault', registry, ['vault.signing-key']);
    await provider.export(Greeter, greeterImpl(), {
      protocol: 'tri',
      port: await freePort(),
      parameters: {
        'vault.signing-key': 'k3y-material',
        'ssl-enabled': 'true',
        'ssl.server-key-cert-chain-path': pki.serverCert,
        'ssl.server-private-key-path': pki.serverKeyEncrypted,
        'ssl.server-key-password': pki.passphrase,
      },
    });
    const consumer = await start('shop', registry);
    const greeter = await consumer.refer(Greeter, {
      retries: 0,
      timeout: 3000,
      parameters: { 'ssl-enabled': 'true', 'ssl.client-trust-cert-collection-path': pki.ca, 'x-app-secret': 'sesame-42' },
    });
    expect(await greeter.sayHello('tls')).toBe('hello tls');
    const text = registryText(join(dir, 'registry'));
    expect(text).toContain('ssl-enabled=true');
    expect(text).not.toContain('ssl.server');
    expect(text).not.toContain('ssl.client');
    expect(text).not.toContain(pki.passphrase);
    expect(text).not.toContain('sesame-42');
    // A key the application declares secret is left out of the registration too.
    expect(text).not.toContain('k3y-material');
  });
});
