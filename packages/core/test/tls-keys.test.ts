import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { Cluster, defineService, ExtensionError, ExtensionErrorCode, Logger, Protocol, WeftApplication, type Exporter, type Invoker } from '@weft/core';

import { FirstCluster } from './support/first-cluster.js';

class SilentLogger extends Logger {
  debug(): void {}
  info(): void {}
  warn(): void {}
  error(): void {}
}

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
});

const roots: string[] = [];
const apps: WeftApplication[] = [];

afterEach(async () => {
  for (const app of apps.splice(0)) await app.shutdown();
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

async function startApp(): Promise<WeftApplication> {
  const root = mkdtempSync(join(tmpdir(), 'weft-tls-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 't', version: '1.0.0' }));
  const app = await WeftApplication.start({ root, name: 't', logger: new SilentLogger() });
  apps.push(app);
  app.model.getExtensionLoader(Cluster).addExtension('failover', FirstCluster);
  return app;
}

async function rejection(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

class PlainProtocol extends Protocol {
  getDefaultPort(): number {
    return 7000;
  }
  async export(): Promise<Exporter> {
    throw new Error('not reached: the TLS check comes first');
  }
  async refer(): Promise<Invoker> {
    throw new Error('not reached: the TLS check comes first');
  }
  async destroy(): Promise<void> {}
}

const impl = { sayHello: async (name: string) => `hello ${name}` };

describe('ssl-enabled is never a silent plaintext downgrade', () => {
  it('export with ssl-enabled=true and no certificate is refused, naming the missing keys', async () => {
    const app = await startApp();
    const error = await rejection(app.export(Greeter, impl, { parameters: { 'ssl-enabled': 'true', 'ssl.server-private-key-path': '/x/k.pem' } }));
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    expect(error.message).toBe(
      'export(org.acme.Greeter): ssl-enabled=true needs ssl.server-key-cert-chain-path (the certificate chain, PEM) and ' +
        'ssl.server-private-key-path (its private key, PEM); missing: ssl.server-key-cert-chain-path.',
    );
    expect(app.serviceStatus().providers).toHaveLength(0);
  });

  it('a protocol that does not speak TLS refuses ssl-enabled=true at export and at refer', async () => {
    const app = await startApp();
    app.model.getExtensionLoader(Protocol).addExtension('plain', PlainProtocol);
    const tls = { 'ssl-enabled': 'true', 'ssl.server-key-cert-chain-path': '/x/c.pem', 'ssl.server-private-key-path': '/x/k.pem' };
    const exported = await rejection(app.export(Greeter, impl, { protocol: 'plain', parameters: tls }));
    expect(exported.message).toMatch(/^export\(org\.acme\.Greeter\): ssl-enabled=true cannot be honoured: protocol "plain" does not speak TLS/);
    expect(exported.message).toContain('refuses to serve in plaintext');
    const referred = await rejection(app.refer(Greeter, { url: 'plain://127.0.0.1:7000', parameters: { 'ssl-enabled': 'true' } }));
    expect(referred.message).toContain('protocol "plain" does not speak TLS');
    expect(referred.message).toContain('refuses to call in plaintext');
  });

  it('ssl.* keys without ssl-enabled=true are refused (they would be ignored)', async () => {
    const app = await startApp();
    const exported = await rejection(app.export(Greeter, impl, { parameters: { 'ssl.server-trust-cert-collection-path': '/x/ca.pem' } }));
    expect(exported.message).toContain('ssl.server-trust-cert-collection-path is set but ssl-enabled is not true');
    expect(exported.message).toContain('the service would be served in plaintext');
    const referred = await rejection(app.refer(Greeter, { parameters: { 'ssl-enabled': 'false', 'ssl.client-trust-cert-collection-path': '/x/ca.pem' } }));
    expect(referred.message).toContain('ssl.client-trust-cert-collection-path is set but ssl-enabled is not true');
  });

  it('a client certificate needs its key (and the other way round)', async () => {
    const app = await startApp();
    const error = await rejection(app.refer(Greeter, { parameters: { 'ssl-enabled': 'true', 'ssl.client-key-cert-chain-path': '/x/c.pem' } }));
    expect(error.message).toContain('a client certificate needs both ssl.client-key-cert-chain-path and ssl.client-private-key-path; missing: ssl.client-private-key-path');
  });

  it('in-process calls honour ssl-enabled=true trivially (nothing crosses a network)', async () => {
    const app = await startApp();
    const greeter = await app.refer(Greeter, { parameters: { 'ssl-enabled': 'TRUE' } });
    await app.export(Greeter, impl);
    await expect(greeter.sayHello('ada')).resolves.toBe('hello ada');
  });

  it('ssl-enabled=false (and absent) is plaintext as asked; a non-boolean value is refused', async () => {
    const app = await startApp();
    await app.export(Greeter, impl, { parameters: { 'ssl-enabled': 'false' } });
    const greeter = await app.refer(Greeter, { parameters: { 'ssl-enabled': 'false' } });
    await expect(greeter.sayHello('ada')).resolves.toBe('hello ada');
    const error = await rejection(app.refer(Greeter, { parameters: { 'ssl-enabled': 'yes' } }));
    expect(error.message).toContain('ssl-enabled=yes is not a boolean');
  });
});
