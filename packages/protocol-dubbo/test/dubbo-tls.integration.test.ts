// TLS and mTLS on dubbo://: Weft consumer ↔ Weft provider on loopback with throwaway certificates (createTestPki):
// values and attachments over TLS, the client certificate as the caller identity, every refusal (no client
// certificate, an untrusted one, an untrusted server, the wrong name, plaintext against TLS and back) as a `network`
// error saying why, certificate reload, encrypted keys, and the TLS settings services sharing a port must agree on.
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import tls from 'node:tls';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { callerIdentityOf, Filter, Invocation, RpcContext, RpcError, RpcErrorCode, URL, type CallerIdentity } from '@weft/core';
import { createTestPki, type TestPki } from '@weft/test-utils';

import { Greeter, greeterImpl, Harness, HESSIAN_PACKAGES, freePort, recordingFilter, waitFor } from './support/harness.js';

// filter-context: the implementation reads its invocation through RpcContext.
const harness = new Harness([...HESSIAN_PACKAGES, '@weft/filter-context', '@weft/registry-embedded'], false);
afterEach(() => harness.close());

let dir: string;
let pki: TestPki;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-dubbo-tls-'));
  pki = createTestPki(join(dir, 'pki'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Provider keys: TLS with the localhost certificate (mTLS with `trust`). */
function serverTls(extra: Record<string, string> = {}): Record<string, string> {
  return { 'ssl-enabled': 'true', 'ssl.server-key-cert-chain-path': pki.serverCert, 'ssl.server-private-key-path': pki.serverKey, ...extra };
}

/** Consumer keys: TLS trusting the test CA. */
function clientTls(extra: Record<string, string> = {}): Record<string, string> {
  return { 'ssl-enabled': 'true', 'ssl.client-trust-cert-collection-path': pki.ca, ...extra };
}

const CLIENT_CERT = (): Record<string, string> => ({ 'ssl.client-key-cert-chain-path': pki.clientCert, 'ssl.client-private-key-path': pki.clientKey });

/** The certificate a plain TLS client sees on `port` (verifying it against the test CA for `servername`). */
function serverCertificateCn(port: number, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, ca: [readCa()], rejectUnauthorized: true }, () => {
      const cn = socket.getPeerCertificate().subject.CN;
      socket.destroy();
      resolve(String(Array.isArray(cn) ? cn[0] : cn));
    });
    socket.once('error', reject);
  });
}

function readCa(): string {
  return readFileSync(pki.ca, 'utf8');
}

async function failure(call: Promise<unknown>): Promise<RpcError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

describe('dubbo over TLS', () => {
  it('round-trips values and attachments, with no ALPN and no caller identity without mTLS', async () => {
    const { greeter, consumer, port, seen } = await harness.pair({ export: { parameters: serverTls() }, refer: { parameters: clientTls() } });
    expect(await greeter.sayHello('tls')).toBe('hello tls');
    expect(await greeter.join(['a', 'b'])).toBe('a+b');
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => greeter.add(i, 1)));
    expect(answers).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    const invoker = await harness.referInvoker(consumer, port, clientTls());
    const result = await invoker.invoke(new Invocation({ methodName: 'sayHello', args: ['x'], service: Greeter, attachments: { traceId: 't-tls', n: 7 } }));
    expect(result.value).toBe('hello x');
    const got = seen.at(-1) as Invocation;
    expect(got.getAttachment('traceId')).toBe('t-tls');
    expect(got.getAttachment('n')).toBe(7);
    expect(callerIdentityOf(got)).toBeUndefined();
    await invoker.destroy();
    // The port speaks TLS with the configured certificate and agrees to no ALPN protocol (as Java's SslHandler).
    const alpn = await new Promise<string | false>((resolve, reject) => {
      const socket = tls.connect({ host: '127.0.0.1', port, ca: [readCa()], ALPNProtocols: ['h2'] }, () => {
        resolve(socket.alpnProtocol ?? false);
        socket.destroy();
      });
      socket.once('error', reject);
    });
    expect(alpn).toBe(false);
    expect(await serverCertificateCn(port, 'localhost')).toBe('localhost');
  });

  it('keeps heartbeats and graceful shutdown working over TLS', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    const exported = await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, parameters: { ...serverTls(), heartbeat: 100 } });
    const consumer = await harness.start('consumer');
    const invoker = await harness.referInvoker(consumer, port, clientTls({ heartbeat: '100' }));
    await new Promise((r) => setTimeout(r, 700));
    expect(invoker.isAvailable()).toBe(true);
    expect(harness.logger.messages.filter((m) => m.message.includes('closing idle connection') || m.message.includes('read nothing for'))).toEqual([]);
    const slow = Promise.resolve(invoker.invoke(new Invocation({ methodName: 'sleep', args: [300], service: Greeter })));
    await new Promise((r) => setTimeout(r, 50));
    const closing = exported.unexport();
    // The readonly event arrives over TLS: the invoker is unavailable while the call in flight completes.
    await waitFor(() => !invoker.isAvailable(), 2000, 'the readonly event');
    expect((await slow).value).toBe(300);
    await closing;
    await invoker.destroy();
  });
});

describe('dubbo over TLS: shutdown', () => {
  it('closes promptly while a client sits in its TLS handshake (it is ended, not waited for)', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    const exported = await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, parameters: serverTls() });
    // A TCP client that never sends its ClientHello: the handshake would wait 10 s for it.
    const stalled = net.connect({ host: '127.0.0.1', port });
    await new Promise((resolve) => stalled.once('connect', resolve));
    const closed = new Promise((resolve) => stalled.once('close', resolve));
    const started = Date.now();
    await exported.unexport();
    await closed;
    expect(Date.now() - started).toBeLessThan(3000);
  });
});

describe('dubbo over mTLS', () => {
  it('accepts a client with a certificate of the trusted CA: the filter and the implementation see it as the caller', async () => {
    const callers: (CallerIdentity | undefined)[] = [];
    const impl = {
      ...greeterImpl(),
      sayHello: (name: string) => {
        const invocation = RpcContext.current()?.invocation;
        callers.push(invocation === undefined ? undefined : callerIdentityOf(invocation));
        return `hello ${name}`;
      },
    };
    const port = await freePort();
    const seen: Invocation[] = [];
    const provider = await harness.start('provider');
    provider.model.getExtensionLoader(Filter).addExtension('recorder', recordingFilter(seen), { activate: { group: 'provider' } });
    await provider.export(Greeter, impl, { protocol: 'dubbo', port, parameters: serverTls({ 'ssl.server-trust-cert-collection-path': pki.ca }) });
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `dubbo://127.0.0.1:${port}`, retries: 0, timeout: 3000, parameters: clientTls(CLIENT_CERT()) });
    expect(await greeter.sayHello('billing')).toBe('hello billing');
    expect(await greeter.sayHello('again')).toBe('hello again');
    const identity = callerIdentityOf(seen.at(-1) as Invocation);
    expect(identity).toMatchObject({ principal: 'billing', via: 'tls' });
    expect(identity?.certificate?.subjectAltNames).toContain('URI:spiffe://acme/billing');
    expect(identity?.certificate?.issuer).toContain('CN=Weft Test CA');
    expect(callers).toHaveLength(2);
    expect(callers[0]).toMatchObject({ principal: 'billing', via: 'tls' });
    expect(callers[0]?.certificate?.subjectAltNames).toEqual(['URI:spiffe://acme/billing']);
  });

  it('refuses a client without a certificate: the call fails with `network` saying TLS failed and why', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, parameters: serverTls({ 'ssl.server-trust-cert-collection-path': pki.ca }) });
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `dubbo://127.0.0.1:${port}`, retries: 0, timeout: 3000, parameters: clientTls() });
    const started = Date.now();
    const error = await failure(greeter.sayHello('anonymous'));
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error.code).toBe(RpcErrorCode.NETWORK);
    expect(error.message).toContain(`TLS with 127.0.0.1:${port} failed`);
    expect(error.message).toMatch(/requires a client certificate|refused the handshake/);
  });

  it('refuses a client whose certificate comes from an untrusted CA (the rogue certificate)', async () => {
    const port = await freePort();
    const seen: Invocation[] = [];
    const provider = await harness.start('provider');
    await provider.export(Greeter, { ...greeterImpl(), sayHello: (name) => (seen.push(new Invocation({ methodName: name })), name) }, {
      protocol: 'dubbo',
      port,
      parameters: serverTls({ 'ssl.server-trust-cert-collection-path': pki.ca }),
    });
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, {
      url: `dubbo://127.0.0.1:${port}`,
      retries: 0,
      timeout: 3000,
      parameters: clientTls({ 'ssl.client-key-cert-chain-path': pki.rogueCert, 'ssl.client-private-key-path': pki.rogueKey }),
    });
    const error = await failure(greeter.sayHello('rogue'));
    expect(error.code).toBe(RpcErrorCode.NETWORK);
    expect(error.message).toContain(`TLS with 127.0.0.1:${port} failed`);
    expect(error.message).toMatch(/refused our client certificate|refused the handshake or our client certificate/);
    expect(seen).toEqual([]);
  });
});

describe('dubbo over TLS: the consumer verifies the provider', () => {
  it('refuses a provider whose certificate is not signed by the CAs it trusts (rogue-ca only)', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, parameters: serverTls() });
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, {
      url: `dubbo://127.0.0.1:${port}`,
      retries: 0,
      timeout: 3000,
      parameters: clientTls({ 'ssl.client-trust-cert-collection-path': pki.rogueCa }),
    });
    const error = await failure(greeter.sayHello('x'));
    expect(error.code).toBe(RpcErrorCode.NETWORK);
    expect(error.message).toContain(`TLS with 127.0.0.1:${port} failed: the provider's certificate is signed by an unknown authority`);
    // OpenSSL's own reason and code follow.
    expect(error.message).toMatch(/\((unable to verify the first certificate|unable to get local issuer certificate), [A-Z_]+\)/);
  });

  it('refuses a provider whose certificate does not carry ssl.server-name', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, parameters: serverTls() });
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, {
      url: `dubbo://127.0.0.1:${port}`,
      retries: 0,
      timeout: 3000,
      parameters: clientTls({ 'ssl.server-name': 'other.example' }),
    });
    const error = await failure(greeter.sayHello('x'));
    expect(error.code).toBe(RpcErrorCode.NETWORK);
    expect(error.message).toContain(`TLS with 127.0.0.1:${port} failed: the provider's certificate is not for the name checked`);
    expect(error.message).toContain('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(error.message).toContain('other.example');
  });

  it('fails a plaintext consumer against a TLS port cleanly, within the timeout', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, parameters: serverTls() });
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `dubbo://127.0.0.1:${port}`, retries: 0, timeout: 2000 });
    const started = Date.now();
    const error = await failure(greeter.sayHello('plain'));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.code).toBe(RpcErrorCode.NETWORK);
    expect(error.message).toContain(`127.0.0.1:${port}`);
    expect(error.message).toContain('before answering anything: does it serve TLS? Then refer with ssl-enabled=true');
  });

  it('fails a TLS consumer against a plaintext port, saying that TLS failed', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port });
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `dubbo://127.0.0.1:${port}`, retries: 0, timeout: 2000, parameters: clientTls() });
    const error = await failure(greeter.sayHello('x'));
    expect(error.code).toBe(RpcErrorCode.NETWORK);
    expect(error.message).toContain(`TLS with 127.0.0.1:${port} failed`);
    expect(error.message).toMatch(/serving plaintext/);
    await waitFor(() => harness.logger.of('warn').some((m) => m.includes('this port serves plaintext')), 2000, "the provider's log");
  });
});

describe('dubbo over TLS: certificates', () => {
  it('reloads replaced certificate files: new connections see the new certificate', async () => {
    const own = mkdtempSync(join(dir, 'reload-'));
    const cert = join(own, 'server.pem');
    const key = join(own, 'server.key');
    copyFileSync(pki.serverCert, cert);
    copyFileSync(pki.serverKey, key);
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), {
      protocol: 'dubbo',
      port,
      parameters: { 'ssl-enabled': 'true', 'ssl.server-key-cert-chain-path': cert, 'ssl.server-private-key-path': key },
    });
    expect(await serverCertificateCn(port, 'localhost')).toBe('localhost');
    copyFileSync(pki.otherServerKey, key);
    copyFileSync(pki.otherServerCert, cert);
    const end = Date.now() + 3500;
    let cn = 'localhost';
    while (cn !== 'other.example' && Date.now() < end) {
      await new Promise((r) => setTimeout(r, 200));
      cn = await serverCertificateCn(port, 'other.example').catch(() => 'localhost');
    }
    expect(cn).toBe('other.example');
    // A Weft consumer expecting the new name now connects.
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `dubbo://127.0.0.1:${port}`, retries: 0, timeout: 3000, parameters: clientTls({ 'ssl.server-name': 'other.example' }) });
    expect(await greeter.sayHello('renewed')).toBe('hello renewed');
    expect(harness.logger.of('info').some((m) => m.includes('TLS certificates reloaded'))).toBe(true);
  });

  it('serves with an encrypted key and ssl.server-key-password; a wrong password fails at export naming the key', async () => {
    const { greeter } = await harness.pair({
      export: { parameters: serverTls({ 'ssl.server-private-key-path': pki.serverKeyEncrypted, 'ssl.server-key-password': pki.passphrase }) },
      refer: { parameters: clientTls() },
    });
    expect(await greeter.sayHello('sealed')).toBe('hello sealed');
    const app = await harness.start('wrong-password');
    const error = (await app
      .export(Greeter, greeterImpl(), {
        protocol: 'dubbo',
        port: await freePort(),
        parameters: serverTls({ 'ssl.server-private-key-path': pki.serverKeyEncrypted, 'ssl.server-key-password': 'not-the-passphrase' }),
      })
      .catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain('the private key (ssl.server-private-key-path) is encrypted and ssl.server-key-password is missing or wrong');
    expect(error.message).not.toContain('not-the-passphrase');
  });

  it('refuses ssl-enabled=true without certificates at export, naming the missing keys', async () => {
    const app = await harness.start('no-certificates');
    const error = (await app.export(Greeter, greeterImpl(), { protocol: 'dubbo', port: await freePort(), parameters: { 'ssl-enabled': 'true' } }).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(Error);
    expect(error.message).toContain('missing: ssl.server-key-cert-chain-path and ssl.server-private-key-path');
  });
});

describe('dubbo over TLS: one port, one TLS setting', () => {
  it('refuses a plaintext export on a TLS port and a TLS export on a plaintext port, naming both settings', async () => {
    const tlsPort = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port: tlsPort, parameters: serverTls() });
    const plain = (await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port: tlsPort, version: '2.0' }).catch((e: unknown) => e)) as Error;
    expect(plain).toBeInstanceOf(Error);
    expect(plain.message).toContain(`cannot be served on 127.0.0.1:${tlsPort} with plaintext (no ssl-enabled=true)`);
    expect(plain.message).toContain(`already serves org.acme.Greeter with TLS (ssl.server-key-cert-chain-path=${pki.serverCert}, ssl.server-private-key-path=${pki.serverKey})`);

    const plainPort = await freePort();
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port: plainPort });
    const secure = (await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port: plainPort, version: '2.0', parameters: serverTls() }).catch((e: unknown) => e)) as Error;
    expect(secure.message).toContain(`cannot be served on 127.0.0.1:${plainPort} with TLS (`);
    expect(secure.message).toContain('with plaintext (no ssl-enabled=true)');
  });

  it('refuses other TLS settings on a TLS port (mTLS vs TLS), and shares the port when they agree', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, parameters: serverTls() });
    const mutual = (await provider
      .export(Greeter, greeterImpl(), { protocol: 'dubbo', port, version: '2.0', parameters: serverTls({ 'ssl.server-trust-cert-collection-path': pki.ca }) })
      .catch((e: unknown) => e)) as Error;
    expect(mutual.message).toContain(`with mTLS (ssl.server-key-cert-chain-path=${pki.serverCert}, ssl.server-private-key-path=${pki.serverKey}, ssl.server-trust-cert-collection-path=${pki.ca})`);
    expect(mutual.message).toContain('already serves org.acme.Greeter with TLS (');
    await provider.export(Greeter, { ...greeterImpl(), sayHello: (name) => `v2 ${name}` }, { protocol: 'dubbo', port, version: '2.0', parameters: serverTls() });
    const consumer = await harness.start('consumer');
    const v2 = await consumer.refer(Greeter, { url: `dubbo://127.0.0.1:${port}`, version: '2.0', retries: 0, timeout: 3000, parameters: clientTls() });
    expect(await v2.sayHello('x')).toBe('v2 x');
  });
});

describe('dubbo over TLS: through a registry', () => {
  it('registers ssl-enabled=true without the certificate keys; discovering consumers use TLS (system CAs unless they set theirs)', async () => {
    const registryDir = mkdtempSync(join(dir, 'registry-'));
    const registry = `embedded://${registryDir}?poll.interval=50&file-cache=false`;
    const provider = await harness.start('tls-provider', { registry });
    await provider.export(Greeter, greeterImpl(), { protocol: 'dubbo', port: await freePort(), parameters: serverTls() });
    const folder = join(registryDir, 'dubbo', Greeter.name, 'providers');
    const [registered] = readdirSync(folder)
      .filter((f) => f.endsWith('.json'))
      .map((f) => URL.parse((JSON.parse(readFileSync(join(folder, f), 'utf8')) as { url: string }).url));
    expect(registered?.getParameter('ssl-enabled')).toBe('true');
    expect([...(registered?.parameters.keys() ?? [])].filter((key) => key.startsWith('ssl.'))).toEqual([]);

    // No CA of its own: the system's CAs, which do not know the test CA — TLS, never plaintext.
    const system = await harness.start('system-ca-consumer', { registry });
    const plain = await system.refer(Greeter, { retries: 0, timeout: 3000 });
    const error = await failure(plain.sayHello('x'));
    expect(error.code).toBe(RpcErrorCode.NETWORK);
    expect(error.message).toContain("failed: the provider's certificate is signed by an unknown authority");

    const trusting = await harness.start('trusting-consumer', { registry });
    const greeter = await trusting.refer(Greeter, { retries: 0, timeout: 3000, parameters: clientTls() });
    expect(await greeter.sayHello('discovered')).toBe('hello discovered');
  });
});
