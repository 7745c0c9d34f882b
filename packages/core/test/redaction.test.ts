// Every message that shows a URL — errors and log lines — masks the password of its user info and the values of
// secret keys (token, password, *.token, *.password, …), whatever path formatted it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import {
  AbstractRegistry,
  Cluster,
  defineService,
  Logger,
  maskedIdentity,
  maskSecrets,
  maskUrlText,
  URL,
  WeftApplication,
} from '@weft/core';

import { FirstCluster } from './support/first-cluster.js';

const SECRETS = ['Pa55word', 'T0kenValue', 'R3disPw', 'M3thodTok', 'Ap1Key'];
const QUERY = 'token=T0kenValue&tps.redis.password=R3disPw&sayHello.token=M3thodTok&api-key=Ap1Key&timeout=1000';

/** Fails the test if any secret survived into `text`; returns it for further checks. */
function clean(text: string): string {
  for (const secret of SECRETS) expect(text, `a secret leaked into: ${text}`).not.toContain(secret);
  return text;
}

class Lines extends Logger {
  readonly all: string[] = [];
  debug(message: string): void {
    this.all.push(message);
  }
  info(message: string): void {
    this.all.push(message);
  }
  warn(message: string, error?: unknown): void {
    this.all.push(`${message} ${error instanceof Error ? error.message : ''}`);
  }
  error(message: string, error?: unknown): void {
    this.all.push(`${message} ${error instanceof Error ? error.message : ''}`);
  }
}

const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
const roots: string[] = [];
const apps: WeftApplication[] = [];

async function start(logger = new Lines(), registry?: string): Promise<WeftApplication> {
  const root = mkdtempSync(join(tmpdir(), 'weft-redact-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0' }));
  const app = await WeftApplication.start({ root, name: 'shop', logger, registry });
  apps.push(app);
  app.model.getExtensionLoader(Cluster).addExtension('failover', FirstCluster);
  return app;
}

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.shutdown({ timeout: 100 })));
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

async function messageOf(action: () => Promise<unknown>): Promise<string> {
  try {
    await action();
  } catch (error) {
    return clean(String((error as Error).message));
  }
  throw new Error('expected a failure');
}

describe('masking helpers', () => {
  it('maskUrlText masks user-info passwords and secret parameter values in text that need not parse', () => {
    expect(maskUrlText(`tri://ann:Pa55word@10.0.0.1:x/org.acme.Greeter?${QUERY}`)).toBe(
      'tri://ann:***@10.0.0.1:x/org.acme.Greeter?token=***&tps.redis.password=***&sayHello.token=***&api-key=***&timeout=1000',
    );
    expect(maskUrlText('tri://h/x?tps.redis.address=redis%3A%2F%2Fu%3AR3disPw%40h%3A6379&a=b')).toBe(
      'tri://h/x?tps.redis.address=redis%3A%2F%2Fu%3A***%40h%3A6379&a=b',
    );
    expect(maskUrlText('%%bad%%?to%6Ben=T0kenValue')).toBe('%%bad%%?to%6Ben=***');
    expect(maskUrlText('no url at all')).toBe('no url at all');
  });

  it('maskedIdentity and maskSecrets never show the password', () => {
    const url = URL.parse(`zookeeper://admin:Pa55word@10.0.0.5:2181/registry?${QUERY}`);
    expect(maskedIdentity(url)).toBe('zookeeper://admin:***@10.0.0.5:2181/registry');
    clean(maskSecrets(url));
    expect(maskedIdentity(URL.parse('zookeeper://10.0.0.5:2181'))).toBe('zookeeper://10.0.0.5:2181');
  });
});

describe('error paths that format a URL', () => {
  it('refer({ url }) that does not parse, has no protocol, or carries an unknown key', async () => {
    const lines = new Lines();
    const app = await start(lines);
    expect(await messageOf(() => app.refer(Greeter, { url: `tri://ann:Pa55word@10.0.0.1:99999/org.acme.Greeter?${QUERY}` }))).toContain(
      'url=tri://ann:***@10.0.0.1:99999/org.acme.Greeter?token=***',
    );
    expect(await messageOf(() => app.refer(Greeter, { url: `://ann:Pa55word@10.0.0.1/x?${QUERY}` }))).toContain('token=***');
    await app.refer(Greeter, { url: `injvm://ann:Pa55word@127.0.0.1/org.acme.Greeter?${QUERY}&timeuot=5` });
    const warning = lines.all.find((line) => line.includes('timeuot'));
    expect(warning).toBeDefined();
    expect(clean(warning as string)).toContain('url=injvm://ann:***@127.0.0.1/org.acme.Greeter?token=***');
  });

  it('start({ registry }) that does not parse or names a missing registry type', async () => {
    const root = mkdtempSync(join(tmpdir(), 'weft-redact-'));
    roots.push(root);
    writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0' }));
    const bad = await messageOf(() => WeftApplication.start({ root, registry: 'zookeeper://admin:Pa55word@10.0.0.5:99999?token=T0kenValue' }));
    expect(bad).toContain('registry=zookeeper://admin:***@10.0.0.5:99999?token=***');
    const missing = await messageOf(() => WeftApplication.start({ root, registry: 'nacos://admin:Pa55word@10.0.0.5:8848?api-key=Ap1Key' }));
    expect(missing).toContain('registry=nacos://admin:***@10.0.0.5:8848?api-key=***');
  });

  it('a malformed value of a secret key is not echoed; the URL in the message has no password', () => {
    const url = URL.parse('tri://ann:Pa55word@10.0.0.1/x?token=T0kenValue');
    let message = '';
    try {
      url.getParameter('token', 5);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(clean(message)).toBe('Invalid value (not shown: a secret) of parameter "token" in URL "tri://ann:***@10.0.0.1/x": expected a finite decimal number.');
  });

  it('registry failures: register errors, retry warnings and the registry address', async () => {
    const lines = new Lines();
    class Failing extends AbstractRegistry {
      protected async doRegister(): Promise<void> {
        throw new Error('connection refused');
      }
      protected async doUnregister(): Promise<void> {
        throw new Error('connection refused');
      }
      protected async doSubscribe(): Promise<void> {
        throw new Error('connection refused');
      }
      protected async doUnsubscribe(): Promise<void> {}
      isAvailable(): boolean {
        return false;
      }
    }
    const registry = new Failing(URL.parse('failing://admin:Pa55word@10.0.0.5:2181?check=true&file-cache=false'), lines);
    const provider = URL.parse(`tri://ann:Pa55word@10.0.0.1:50051/org.acme.Greeter?${QUERY}`);
    const message = await messageOf(() => registry.register(provider));
    expect(message).toContain('Failed to register tri://ann:***@10.0.0.1:50051/org.acme.Greeter?token=***');
    expect(message).toContain('to failing://admin:***@10.0.0.5:2181');
    const lenient = new Failing(URL.parse('failing://admin:Pa55word@10.0.0.5:2181?check=false&retry.period=60000&file-cache=false'), lines);
    await lenient.register(provider);
    await lenient.unregister(provider);
    await lenient.destroy();
    expect(lines.all.length).toBeGreaterThan(0);
    for (const line of lines.all) clean(line);
    await registry.destroy();
  });

  it('log lines of export show the URL masked', async () => {
    const lines = new Lines();
    const app = await start(lines);
    await app.export(Greeter, { sayHello: (name: string) => name }, { parameters: { token: 'T0kenValue', 'api-key': 'Ap1Key' } });
    expect(lines.all.some((line) => line.startsWith('exported org.acme.Greeter at injvm://'))).toBe(true);
    for (const line of lines.all) clean(line);
  });
});
