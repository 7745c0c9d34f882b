// TLS and mTLS on tri, against real @grpc/grpc-js peers both ways and between Weft applications, with certificates
// generated for the test by openssl (createTestPki): ALPN h2, server verification, client certificates and the
// caller identity they give, refusals, plain HTTP over TLS, certificate reload, and every export-time error.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import tls from 'node:tls';

import * as grpc from '@grpc/grpc-js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import {
  callerIdentityOf,
  Filter,
  RpcError,
  RpcErrorCode,
  TlsKeys,
  type CallerIdentity,
  type ExtensionError,
  type Invocation,
  type Invoker,
  type Result,
  type ServiceImplementation,
  type WeftApplication,
} from '@weft/core';
import { defineProtoService } from '@weft/serialization-protobuf';
import { createTestPki, freePort, type TestPki } from '@weft/test-utils';

import { Interop as InteropDesc } from './gen/weft/interop/v1/interop_pb.js';
import { loadService, unaryOutcome } from './support/grpc-js-peer.js';
import { BASE_PACKAGES, Greeter, greeterImpl, Harness, waitFor } from './support/harness.js';

const Interop = defineProtoService(InteropDesc);
const InteropClient = loadService('interop', 'Interop');
const harness = new Harness([...BASE_PACKAGES, '@weft/serialization-protobuf']);
afterEach(() => harness.close());

let pki: TestPki;
let scratch: string;
beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'weft-tri-tls-'));
  pki = createTestPki(join(scratch, 'pki'));
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const read = (path: string) => readFileSync(path);

/** Provider keys: the localhost certificate, and (mutual) the CA client certificates must chain to. */
function serverTls(options: { readonly mutual?: boolean; readonly cert?: string; readonly key?: string } = {}): Record<string, string> {
  return {
    [TlsKeys.ENABLED]: 'true',
    [TlsKeys.SERVER_CERT]: options.cert ?? pki.serverCert,
    [TlsKeys.SERVER_KEY]: options.key ?? pki.serverKey,
    ...(options.mutual === true ? { [TlsKeys.SERVER_TRUST]: pki.ca } : {}),
  };
}

/** Consumer keys: trust the test CA, and (client) present the billing certificate. */
function clientTls(options: { readonly client?: 'billing' | 'rogue'; readonly ca?: string; readonly name?: string } = {}): Record<string, string> {
  return {
    [TlsKeys.ENABLED]: 'true',
    [TlsKeys.CLIENT_TRUST]: options.ca ?? pki.ca,
    ...(options.client === 'billing' ? { [TlsKeys.CLIENT_CERT]: pki.clientCert, [TlsKeys.CLIENT_KEY]: pki.clientKey } : {}),
    ...(options.client === 'rogue' ? { [TlsKeys.CLIENT_CERT]: pki.rogueCert, [TlsKeys.CLIENT_KEY]: pki.rogueKey } : {}),
    ...(options.name === undefined ? {} : { [TlsKeys.SERVER_NAME]: options.name }),
  };
}

const interopImpl: ServiceImplementation<typeof Interop.methods> = {
  echo: (request) => ({ text: request.text, payload: request.payload, big: request.big, labels: request.labels }),
  fail: () => {
    throw new Error('unused');
  },
  sleep: (request) => ({ slept: request.ms }),
};

/** A provider filter recording each call's caller identity (as per-method authorisation would read it). */
function callerRecorder(callers: (CallerIdentity | undefined)[]): new () => Filter {
  return class CallerRecorder extends Filter {
    invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
      callers.push(callerIdentityOf(invocation));
      return invoker.invoke(invocation);
    }
  };
}

/** Starts a provider application whose calls' caller identities land in `callers`. */
async function provider(callers: (CallerIdentity | undefined)[] = []): Promise<WeftApplication> {
  const app = await harness.start('tls-provider');
  app.model.getExtensionLoader(Filter).addExtension('callers', callerRecorder(callers), { activate: { group: 'provider' } });
  return app;
}

/** A Weft Interop provider over TLS; `callers` records each call's caller identity. */
async function weftInteropProvider(parameters: Record<string, string>, callers: (CallerIdentity | undefined)[] = []): Promise<number> {
  const port = await freePort();
  await (await provider(callers)).export(Interop, interopImpl, { protocol: 'tri', port, parameters });
  return port;
}

/** Polls an async condition. */
async function eventually(condition: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function grpcClient(port: number, credentials: grpc.ChannelCredentials): grpc.Client {
  const client = new InteropClient(`127.0.0.1:${port}`, credentials);
  harness.onClose(() => client.close());
  return client;
}

function echo(client: grpc.Client, text: string) {
  const fn = (client as unknown as Record<string, (...args: unknown[]) => grpc.ClientUnaryCall>)['echo'] as (...args: unknown[]) => grpc.ClientUnaryCall;
  return unaryOutcome<Record<string, unknown>>((callback) => fn.call(client, { text }, new grpc.Metadata(), { deadline: Date.now() + 5000 }, callback));
}

async function rejection(work: Promise<unknown>): Promise<Error> {
  try {
    await work;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('grpc-js client → Weft provider over TLS', () => {
  it('a TLS client verifying the server against the CA calls the provider (ALPN h2)', async () => {
    const port = await weftInteropProvider(serverTls());
    const outcome = await echo(grpcClient(port, grpc.credentials.createSsl(read(pki.ca))), 'over tls');
    expect(outcome.error).toBeNull();
    expect(outcome.value?.['text']).toBe('over tls');
  });

  it('a plaintext client cannot talk to a TLS port', async () => {
    const port = await weftInteropProvider(serverTls());
    const outcome = await echo(grpcClient(port, grpc.credentials.createInsecure()), 'x');
    expect(outcome.error?.code).toBe(grpc.status.UNAVAILABLE);
  });

  it('under mTLS a client with a CA-signed certificate is accepted and the provider sees who it is', async () => {
    const callers: (CallerIdentity | undefined)[] = [];
    const port = await weftInteropProvider(serverTls({ mutual: true }), callers);
    const outcome = await echo(grpcClient(port, grpc.credentials.createSsl(read(pki.ca), read(pki.clientKey), read(pki.clientCert))), 'me');
    expect(outcome.error).toBeNull();
    expect(callers[0]?.principal).toBe('billing');
    expect(callers[0]?.via).toBe('tls');
    expect(callers[0]?.certificate?.subject).toBe('O=Acme, CN=billing');
    expect(callers[0]?.certificate?.subjectAltNames).toEqual(['URI:spiffe://acme/billing']);
    expect(callers[0]?.certificate?.issuer).toBe('CN=Weft Test CA');
    expect(callers[0]?.certificate?.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
  });

  it('under mTLS a client without a certificate, or with one from another CA, is refused', async () => {
    const callers: (CallerIdentity | undefined)[] = [];
    const port = await weftInteropProvider(serverTls({ mutual: true }), callers);
    const anonymous = await echo(grpcClient(port, grpc.credentials.createSsl(read(pki.ca))), 'anonymous');
    expect(anonymous.error?.code).toBe(grpc.status.UNAVAILABLE);
    const rogue = await echo(grpcClient(port, grpc.credentials.createSsl(read(pki.ca), read(pki.rogueKey), read(pki.rogueCert))), 'rogue');
    expect(rogue.error?.code).toBe(grpc.status.UNAVAILABLE);
    expect(callers).toHaveLength(0);
  });

  it('without mTLS the caller has no identity', async () => {
    const callers: (CallerIdentity | undefined)[] = [];
    const port = await weftInteropProvider(serverTls(), callers);
    const outcome = await echo(grpcClient(port, grpc.credentials.createSsl(read(pki.ca), read(pki.clientKey), read(pki.clientCert))), 'x');
    expect(outcome.error).toBeNull();
    expect(callers).toEqual([undefined]);
  });
});

describe('Weft consumer → grpc-js server over TLS', () => {
  async function grpcJsTlsServer(mutual: boolean): Promise<number> {
    const server = new grpc.Server();
    server.addService(InteropClient.service, {
      echo: (call: grpc.ServerUnaryCall<{ text: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        const peer = (call as unknown as { getAuthContext?: () => { sslPeerCertificate?: { subject?: { CN?: string } } } }).getAuthContext?.();
        callback(null, { text: `${call.request.text} (peer ${peer?.sslPeerCertificate?.subject?.CN ?? 'anonymous'})` });
      },
    });
    const port = await freePort();
    const credentials = grpc.ServerCredentials.createSsl(mutual ? read(pki.ca) : null, [{ cert_chain: read(pki.serverCert), private_key: read(pki.serverKey) }], mutual);
    await new Promise<void>((resolve, reject) => server.bindAsync(`127.0.0.1:${port}`, credentials, (error) => (error ? reject(error) : resolve())));
    harness.onClose(() => server.forceShutdown());
    return port;
  }

  it('calls a grpc-js TLS server, verifying its certificate against the CA', async () => {
    const port = await grpcJsTlsServer(false);
    const consumer = await harness.start('tls-consumer');
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 5000, parameters: clientTls() });
    await expect(interop.echo({ text: 'hi' })).resolves.toMatchObject({ text: 'hi (peer anonymous)' });
  });

  it('presents its client certificate to a grpc-js server that requires one (mTLS)', async () => {
    const port = await grpcJsTlsServer(true);
    const consumer = await harness.start('tls-consumer');
    const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 5000, parameters: clientTls({ client: 'billing' }) });
    await expect(interop.echo({ text: 'hi' })).resolves.toMatchObject({ text: 'hi (peer billing)' });
  });

  it('refuses a server its trust collection does not vouch for, or whose certificate names another host', async () => {
    const port = await grpcJsTlsServer(false);
    const consumer = await harness.start('tls-consumer');
    const rogueTrust = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0, parameters: clientTls({ ca: pki.rogueCa }) });
    const untrusted = await rejection(rogueTrust.echo({ text: 'x' }));
    expect(untrusted).toBeInstanceOf(RpcError);
    expect(untrusted.message).toContain(`TLS with 127.0.0.1:${port} failed`);
    expect(untrusted.message).toMatch(/unable to (get local issuer|verify the first) certificate|self[- ]signed certificate/);
    const otherName = await consumer.refer(Interop, { url: `tri://127.0.0.1:${port}`, retries: 0, parameters: clientTls({ name: 'other.example' }) });
    const misnamed = await rejection(otherName.echo({ text: 'x' }));
    expect(misnamed.message).toContain("Hostname/IP does not match certificate's altnames");
    expect(misnamed.message).toContain('other.example');
  });
});

describe('Weft ↔ Weft over TLS', () => {
  it('JSON services work over TLS and mTLS, and the provider sees the caller certificate', async () => {
    const callers: (CallerIdentity | undefined)[] = [];
    const port = await freePort();
    await (await provider(callers)).export(Greeter, greeterImpl(), { protocol: 'tri', port, parameters: serverTls({ mutual: true }) });
    const consumer = await harness.start('consumer-app');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0, parameters: clientTls({ client: 'billing' }) });
    await expect(greeter.sayHello('ada')).resolves.toBe('hello ada');
    await expect(greeter.add(2, 3)).resolves.toBe(5);
    expect(callers.map((caller) => caller?.principal)).toEqual(['billing', 'billing']);
  });

  it('a consumer without a client certificate is refused under mTLS, with the reason', async () => {
    const port = await freePort();
    const provider = await harness.start('provider-app');
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port, parameters: serverTls({ mutual: true }) });
    const consumer = await harness.start('consumer-app');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0, parameters: clientTls() });
    const error = await rejection(greeter.sayHello('anonymous'));
    expect((error as RpcError).code).toBe(RpcErrorCode.NETWORK);
    expect(error.message).toContain(`TLS with 127.0.0.1:${port} failed`);
    expect(error.message).toMatch(/certificate required|handshake failure|socket hang up|ECONNRESET/);
  });

  it('a plaintext consumer against a TLS port fails within its connect timeout, never hangs', async () => {
    const port = await freePort();
    const provider = await harness.start('provider-app');
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port, parameters: serverTls() });
    const consumer = await harness.start('consumer-app');
    const started = Date.now();
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 5000, parameters: { 'connect-timeout': '1500' } });
    const error = await rejection(greeter.sayHello('plaintext'));
    expect((error as RpcError).code).toBe(RpcErrorCode.NETWORK);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('plain HTTP/1.1 JSON calls work over TLS (https)', async () => {
    const port = await freePort();
    const provider = await harness.start('provider-app');
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port, parameters: serverTls() });
    const body = await new Promise<string>((resolve, reject) => {
      const request = https.request(
        { host: '127.0.0.1', port, method: 'POST', path: '/org.acme.Greeter/sayHello', ca: read(pki.ca), headers: { 'content-type': 'application/json' } },
        (response) => {
          let text = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => (text += chunk));
          response.on('end', () => resolve(`${response.statusCode} ${text}`));
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify(['https']));
    });
    expect(body).toBe('200 "hello https"');
  });

  it('new connections get renewed certificates once the files change; a half-written pair keeps the old one', async () => {
    const dir = mkdtempSync(join(scratch, 'reload-'));
    const cert = join(dir, 'server.pem');
    const key = join(dir, 'server.key');
    copyFileSync(pki.serverCert, cert);
    copyFileSync(pki.serverKey, key);
    const port = await freePort();
    const provider = await harness.start('provider-app');
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port, parameters: serverTls({ cert, key }) });
    const subject = () =>
      new Promise<string>((resolve, reject) => {
        const socket = tls.connect({ host: '127.0.0.1', port, ca: read(pki.ca), ALPNProtocols: ['h2'], servername: 'localhost', rejectUnauthorized: false }, () => {
          const cn = socket.getPeerCertificate().subject.CN;
          socket.destroy();
          resolve(Array.isArray(cn) ? cn.join() : (cn ?? ''));
        });
        socket.on('error', reject);
      });
    expect(await subject()).toBe('localhost');
    // The certificate alone first: it does not match the key, so the old pair stays in use (and a warning says so).
    copyFileSync(pki.otherServerCert, cert);
    await waitFor(() => harness.logger.of('warn').some((line) => line.includes('the changed TLS files do not load')), 5000);
    expect(await subject()).toBe('localhost');
    copyFileSync(pki.otherServerKey, key);
    await eventually(async () => (await subject()) === 'other.example', 5000);
    expect(harness.logger.of('info').some((line) => line.includes('TLS certificates reloaded'))).toBe(true);
  });
});

describe('TLS settings that cannot be honoured fail at export, naming the key', () => {
  async function exportError(parameters: Record<string, string>): Promise<ExtensionError> {
    const provider = await harness.start('provider-app');
    return (await rejection(provider.export(Greeter, greeterImpl(), { protocol: 'tri', port: await freePort(), parameters }))) as ExtensionError;
  }

  it('a missing certificate key or an unreadable file', async () => {
    const missing = await exportError({ [TlsKeys.ENABLED]: 'true', [TlsKeys.SERVER_CERT]: pki.serverCert });
    expect(missing.message).toContain('missing: ssl.server-private-key-path');
    const absent = await exportError(serverTls({ key: join(scratch, 'nope.key') }));
    expect(absent.message).toBe(`export(org.acme.Greeter): cannot read ssl.server-private-key-path=${join(scratch, 'nope.key')}: no such file.`);
  });

  it('a key that does not belong to the certificate, or a file that is not PEM', async () => {
    const mismatch = await exportError(serverTls({ key: pki.otherServerKey }));
    expect(mismatch.message).toContain('the private key (ssl.server-private-key-path) does not belong to the certificate (ssl.server-key-cert-chain-path)');
    const notPem = await exportError(serverTls({ cert: join(scratch, 'pki', 'server.ext') }));
    expect(notPem.message).toContain('is not a PEM file');
  });

  it('an encrypted key works with its passphrase; a wrong one is named, never shown', async () => {
    const wrong = await exportError({ ...serverTls({ key: pki.serverKeyEncrypted }), [TlsKeys.SERVER_KEY_PASSWORD]: 'not-it-42' });
    expect(wrong.message).toContain('is encrypted and ssl.server-key-password is missing or wrong');
    expect(wrong.message).not.toContain('not-it-42');
    const { greeter } = await harness.pair({
      export: { parameters: { ...serverTls({ key: pki.serverKeyEncrypted }), [TlsKeys.SERVER_KEY_PASSWORD]: pki.passphrase } },
      refer: { parameters: clientTls() },
    });
    await expect(greeter.sayHello('enc')).resolves.toBe('hello enc');
  });

  it('services sharing a port must agree on its transport', async () => {
    const port = await freePort();
    const provider = await harness.start('provider-app');
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port, parameters: serverTls() });
    const error = await rejection(provider.export(Interop, interopImpl, { protocol: 'tri', port }));
    expect(error.message).toContain(`the tri port 127.0.0.1:${port} already serves other services with other TLS settings`);
  });
});
