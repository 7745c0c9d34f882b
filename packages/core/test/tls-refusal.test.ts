import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { Cluster, defineService, ExtensionError, ExtensionErrorCode, Logger, WeftApplication } from '@weft/core';

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

describe('ssl-enabled is never a silent plaintext downgrade', () => {
  it('export with ssl-enabled=true is refused, naming the key, the protocol and the certificate keys TLS needs', async () => {
    const app = await startApp();
    const error = await rejection(app.export(Greeter, { sayHello: async (name) => `hello ${name}` }, { parameters: { 'ssl-enabled': 'true' } }));
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    expect(error.message).toMatch(/^export\(org\.acme\.Greeter\): ssl-enabled=true cannot be honoured: protocol "injvm"/);
    expect(error.message).toContain('ssl.server-key-cert-chain-path and ssl.server-private-key-path');
    expect(app.serviceStatus().providers).toHaveLength(0);
  });

  it('refer with ssl-enabled=true is refused, naming the trust key a consumer would need', async () => {
    const app = await startApp();
    await app.export(Greeter, { sayHello: async (name) => `hello ${name}` });
    const error = await rejection(app.refer(Greeter, { parameters: { 'ssl-enabled': 'TRUE' } }));
    expect((error as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    expect(error.message).toContain('ssl-enabled=true cannot be honoured');
    expect(error.message).toContain('ssl.client-trust-cert-collection-path');
    expect(error.message).toContain('refuses to call in plaintext');
  });

  it('ssl-enabled=false (and absent) is plaintext as asked; a non-boolean value is refused', async () => {
    const app = await startApp();
    await app.export(Greeter, { sayHello: async (name) => `hello ${name}` }, { parameters: { 'ssl-enabled': 'false' } });
    const greeter = await app.refer(Greeter, { parameters: { 'ssl-enabled': 'false' } });
    await expect(greeter.sayHello('ada')).resolves.toBe('hello ada');
    const error = await rejection(app.refer(Greeter, { parameters: { 'ssl-enabled': 'yes' } }));
    expect(error.message).toContain('ssl-enabled=yes is not a boolean');
  });
});
