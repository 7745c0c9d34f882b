// Per-method authorisation by the mTLS client certificate alone (no signing keys), over tri and dubbo with real TLS:
// the provider requires client certificates (createTestPki's CA), `auth.callers` admits the certificate's principal
// (its common name) where listed and refuses it elsewhere, naming the method and the principal.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, RpcError, RpcErrorCode, WeftApplication } from '@weft/core';
import { createTestApp, createTestPki, freePort, RecordingLogger, type TestApp, type TestPki } from '@weft/test-utils';

const Ledger = defineService('org.acme.Ledger', {
  balance: { args: [String], returns: Number },
  transfer: { args: [String, Number], returns: String },
});
const impl = { balance: () => 42, transfer: (to: string, cents: number) => `sent ${cents} to ${to}` };

const PACKAGES = ['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/protocol-dubbo', '@weft/serialization-hessian2', '@weft/filter-auth'];
let scratch: string;
let pki: TestPki;
let root: TestApp;
let provider: WeftApplication;
let consumer: WeftApplication;
const ports: Record<string, number> = {};

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'weft-auth-mtls-'));
  pki = createTestPki(join(scratch, 'pki'));
  root = createTestApp(PACKAGES, { prefix: 'weft-auth-mtls' });
  provider = await WeftApplication.start({ root: root.root, name: 'ledger', logger: new RecordingLogger() });
  for (const protocol of ['tri', 'dubbo']) {
    ports[protocol] = await freePort();
    await provider.export(Ledger, impl, {
      protocol,
      port: ports[protocol],
      parameters: {
        'ssl-enabled': 'true',
        'ssl.server-key-cert-chain-path': pki.serverCert,
        'ssl.server-private-key-path': pki.serverKey,
        'ssl.server-trust-cert-collection-path': pki.ca,
        'auth.callers': 'billing,ops',
        'transfer.auth.callers': 'ops',
      },
    });
  }
  consumer = await WeftApplication.start({ root: root.root, name: 'billing', logger: new RecordingLogger() });
}, 30_000);

afterAll(async () => {
  await consumer?.shutdown({ timeout: 2000 });
  await provider?.shutdown({ timeout: 2000 });
  root?.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

describe.each(['tri', 'dubbo'])('auth.callers with mTLS identities over %s', (protocol) => {
  it('admits the certificate principal where listed and refuses it on a method it is not listed for', async () => {
    const ledger = await consumer.refer(Ledger, {
      url: `${protocol}://127.0.0.1:${ports[protocol]}`,
      retries: 0,
      timeout: 5000,
      parameters: {
        'ssl-enabled': 'true',
        'ssl.client-trust-cert-collection-path': pki.ca,
        'ssl.client-key-cert-chain-path': pki.clientCert,
        'ssl.client-private-key-path': pki.clientKey,
      },
    });
    await expect(ledger.balance('acct-1')).resolves.toBe(42);
    const refused = await ledger.transfer('mallory', 100).then(
      () => undefined,
      (error: unknown) => error as RpcError,
    );
    expect(refused).toBeInstanceOf(RpcError);
    expect(refused?.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(refused?.message).toContain('transfer');
    expect(refused?.message).toContain('billing');
    expect(refused?.message).not.toContain('ops');
  });
});
