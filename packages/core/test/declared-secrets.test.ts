// Keys an extension (manifest "secret": true) or the application (parameters.secret) declares secret are masked
// like the built-in secret names in the messages that show a URL, per method too.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { Cluster, defineService, isSecretKey, Logger, maskSecrets, maskUrlText, URL, WeftApplication } from '@weft/core';
import { parseManifest } from '@weft/core/spi';

import { FirstCluster } from './support/first-cluster.js';

class RecordingLogger extends Logger {
  readonly lines: string[] = [];
  debug(message: string): void {
    this.lines.push(message);
  }
  info(message: string): void {
    this.lines.push(message);
  }
  warn(message: string): void {
    this.lines.push(message);
  }
  error(message: string): void {
    this.lines.push(message);
  }
}

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
const roots: string[] = [];
const apps: WeftApplication[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.shutdown({ timeout: 100 })));
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** An application depending on a third-party package whose manifest declares `vault.signing-key` secret. */
async function start(logger: Logger): Promise<WeftApplication> {
  const root = mkdtempSync(join(tmpdir(), 'weft-secrets-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: { 'acme-vault': '1.0.0' } }));
  const pkg = join(root, 'node_modules', 'acme-vault');
  mkdirSync(join(pkg, 'META-INF', 'weft'), { recursive: true });
  writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'acme-vault', version: '1.0.0' }));
  writeFileSync(
    join(pkg, 'META-INF', 'weft', 'acme.vault.Signer.json'),
    JSON.stringify({ hmac: { module: './dist/hmac.js', export: 'Hmac', keys: [{ key: 'vault.signing-key', method: true, secret: true }, 'vault.region'] } }),
  );
  const app = await WeftApplication.start({ root, name: 'shop', logger, parameters: { secret: ['shop.sig'] } });
  apps.push(app);
  app.model.getExtensionLoader(Cluster).addExtension('failover', FirstCluster);
  return app;
}

describe('declared secret keys', () => {
  it('a manifest key may be declared secret (a boolean)', () => {
    const { entries, problems } = parseManifest(JSON.stringify({ s: { module: './dist/s.js', keys: [{ key: 'vault.signing-key', secret: true }] } }));
    expect(problems).toEqual([]);
    expect(entries[0]?.keys).toEqual([{ key: 'vault.signing-key', method: false, secret: true }]);
    expect(parseManifest(JSON.stringify({ s: { module: './dist/s.js', keys: [{ key: 'k', secret: 'yes' }] } })).problems).toEqual(['/s/keys/0/secret: must be true or false']);
  });

  it("the application collects the extensions' and its own secret keys", async () => {
    const app = await start(new RecordingLogger());
    expect([...app.parameterKeys.secretKeys].sort()).toEqual(['shop.sig', 'vault.signing-key']);
    expect(app.parameterKeys.has('vault.region')).toBe(true);
  });

  it('isSecretKey, maskSecrets and maskUrlText mask declared keys, bare and per method, besides the built-in names', () => {
    const declared = new Set(['vault.signing-key']);
    expect(isSecretKey('vault.signing-key')).toBe(false);
    expect(isSecretKey('vault.signing-key', declared)).toBe(true);
    expect(isSecretKey('sayHello.vault.signing-key', declared)).toBe(true);
    expect(isSecretKey('vault.region', declared)).toBe(false);
    expect(isSecretKey('token', declared)).toBe(true);
    const url = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?vault.signing-key=k3y&sayHello.vault.signing-key=m3thod&vault.region=eu&token=t0k');
    const masked = maskSecrets(url, declared);
    expect(masked).toContain('vault.signing-key=***');
    expect(masked).toContain('sayHello.vault.signing-key=***');
    expect(masked).toContain('vault.region=eu');
    expect(masked).toContain('token=***');
    expect(masked).not.toMatch(/k3y|m3thod|t0k/);
    expect(maskUrlText('tri://h:x/S?vault.signing-key=k3y&a=1', declared)).toBe('tri://h:x/S?vault.signing-key=***&a=1');
  });

  it("the export line and a refer URL error mask the declared keys' values", async () => {
    const logger = new RecordingLogger();
    const app = await start(logger);
    await app.export(Greeter, { sayHello: (name: string) => `hello ${name}` }, { parameters: { 'vault.signing-key': 'k3y-material', 'shop.sig': 's1g' } });
    const exported = logger.lines.find((line) => line.startsWith('exported org.acme.Greeter'));
    expect(exported).toContain('vault.signing-key=***');
    expect(exported).toContain('shop.sig=***');
    expect(logger.lines.join('\n')).not.toMatch(/k3y-material|s1g/);
    const error = await app.refer(Greeter, { url: 'tri://127.0.0.1:notaport/S?vault.signing-key=k3y-material' }).then(
      () => undefined,
      (thrown: unknown) => thrown as Error,
    );
    expect(error?.message).toContain('vault.signing-key=***');
    expect(error?.message).not.toContain('k3y-material');
  });
});
