import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterEach, describe, expect, it, vi } from 'vitest';

import {
  buildFilterChain,
  callerIdentityOf,
  defineService,
  ExtensionError,
  Filter,
  Invocation,
  isSecretKey,
  maskSecrets,
  Invoker,
  Result,
  RpcError,
  RpcErrorCode,
  URL,
  WeftApplication,
  type CallerIdentity,
} from '@weft/core';
import { setPeerCertificate } from '@weft/core/spi';
import { AuthAttachments, AuthFilter, AuthKeys } from '@weft/filter-auth';
import { createTestApp, RecordingLogger, StubInvoker, type TestApp } from '@weft/test-utils';

// ---------------------------------------------------------------------------------------------------------------
// Harness: a real application (core + cluster + this package); consumer and provider chains built by the loader.

const Billing = defineService('org.acme.Billing', {
  charge: { args: [String, Number], returns: String },
  refund: { args: [String, Number], returns: String },
  transfer: { args: [String, Number], returns: String },
});

const seen: { identity: CallerIdentity | undefined; attachments: Map<string, unknown> }[] = [];
const implementation = {
  charge: (who: string, cents: number) => `charged ${who} ${cents}`,
  refund: (who: string, cents: number) => `refunded ${who} ${cents}`,
  transfer: (who: string, cents: number) => `transferred ${who} ${cents}`,
};

/** A provider filter inside `auth` that records what the implementation side sees. */
class InsideFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    seen.push({ identity: callerIdentityOf(invocation), attachments: new Map(invocation.getAttachments()) });
    return invoker.invoke(invocation);
  }
}

/** Nonces of the attempts of a `fail-once` call. */
const nonces: string[] = [];

/** A consumer filter inside `auth` (after signing) that tampers with calls carrying attachment `tamper`. */
class TamperFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const how = invocation.getAttachment('tamper');
    if (how === 'amount') invocation.args[1] = 999_999;
    if (how === 'method') return invoker.invoke((new Invocation({ methodName: 'refund', args: invocation.args, service: Billing, attachments: invocation.getAttachments() })));
    if (how === 'sig') invocation.setAttachment(AuthAttachments.SIGNATURE, `v1=${'A'.repeat(43)}`);
    if (how === 'fail-once') {
      nonces.push(String(invocation.getAttachment(AuthAttachments.NONCE)));
      if (nonces.length === 1) return Promise.reject(new RpcError(RpcErrorCode.NETWORK, 'connection reset (test)'));
    }
    if (how === 'strip') for (const key of Object.values(AuthAttachments)) invocation.removeAttachment(key);
    invocation.removeAttachment('tamper');
    return invoker.invoke(invocation);
  }
}

/** A provider filter before `auth` that stands for an mTLS handshake: a verified client certificate. */
class FakeTlsFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const cn = invocation.getAttachment('test-cn');
    if (cn !== undefined) {
      setPeerCertificate(invocation, {
        subject: `CN=${String(cn)}`,
        commonName: String(cn),
        subjectAltNames: [],
        issuer: 'CN=Test CA',
        fingerprint256: 'AB:CD',
        serialNumber: '01',
        validTo: '2030-01-01T00:00:00.000Z',
      });
    }
    return invoker.invoke(invocation);
  }
}

const apps: { app: WeftApplication; testApp: TestApp }[] = [];
const dirs: string[] = [];

async function start(keys?: Record<string, string>) {
  const testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-auth']);
  const logger = new RecordingLogger();
  const app = await WeftApplication.start({ root: testApp.root, name: 'billing', logger });
  apps.push({ app, testApp });
  if (keys !== undefined) app.model.registerService(AuthKeys, new AuthKeys(keys));
  const filters = app.model.getExtensionLoader(Filter);
  filters.addExtension('test-inside', InsideFilter, { activate: { group: ['provider'], order: 100 } });
  filters.addExtension('test-tamper', TamperFilter, { activate: { group: ['consumer'], order: 100 } });
  filters.addExtension('test-tls', FakeTlsFilter, { activate: { group: ['provider'], order: -200000 } });
  return { app, filters, logger };
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'weft-auth-'));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  vi.useRealTimers();
  for (const { app, testApp } of apps.splice(0)) {
    await app.shutdown();
    testApp.cleanup();
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  seen.length = 0;
  nonces.length = 0;
});

async function rejection(call: Result | Promise<unknown>): Promise<RpcError> {
  const error = await Promise.resolve(call).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

const SECRET = 'shop-secret-0123456789';

// ---------------------------------------------------------------------------------------------------------------

describe('manifest', () => {
  it('activates auth on consumers with auth.key-id and on providers with auth.keys, auth.keys-file or auth.callers (any level)', async () => {
    const { app, filters } = await start({ shop: SECRET });
    const { url } = await app.export(Billing, implementation, { parameters: { 'auth.keys': 'shop' } });
    expect(filters.selectActivateNames(url, 'service.filter', 'provider')).toEqual(['test-tls', 'auth', 'test-inside']);
    const bare = url.removeParameter('auth.keys');
    expect(filters.selectActivateNames(bare, 'service.filter', 'provider')).not.toContain('auth');
    expect(filters.selectActivateNames(bare.addParameter('auth.keys-file', '/x'), 'service.filter', 'provider')).toContain('auth');
    expect(filters.selectActivateNames(bare.addParameter('transfer.auth.callers', 'ops'), 'service.filter', 'provider')).toContain('auth');
    const consumer = URL.parse('injvm://127.0.0.1/org.acme.Billing?interface=org.acme.Billing&side=consumer');
    expect(filters.selectActivateNames(consumer, 'reference.filter', 'consumer')).not.toContain('auth');
    expect(filters.selectActivateNames(consumer.addParameter('auth.key-id', 'shop'), 'reference.filter', 'consumer')).toEqual(['auth', 'test-tamper']);
    expect(filters.getExtension('auth')).toBeInstanceOf(AuthFilter);
  });

  it('sits inside echo (-110000) and outside timeout (-10000)', () => {
    const manifest = JSON.parse(readFileSync(new globalThis.URL('../META-INF/weft/weft.rpc.Filter.json', import.meta.url), 'utf8')) as Record<string, { activate: { order: number } }>;
    expect(manifest['auth']?.activate.order).toBe(-100000);
  });
});

describe('signed calls over injvm', () => {
  it('a consumer with auth.key-id and auth.secret is accepted; the implementation sees the identity and no auth attachments', async () => {
    const { app } = await start({ shop: SECRET });
    await app.export(Billing, implementation, { parameters: { 'auth.keys': 'shop' } });
    const billing = await app.refer(Billing, { retries: 0, parameters: { 'auth.key-id': 'shop', 'auth.secret': SECRET } });
    expect(await billing.charge('ann', 500)).toBe('charged ann 500');
    expect(seen).toHaveLength(1);
    expect(seen[0]?.identity).toEqual({ principal: 'shop', via: 'signature' });
    expect([...(seen[0]?.attachments.keys() ?? [])].filter((k) => k.startsWith('weft-auth'))).toEqual([]);
  });

  it('a consumer without auth.secret signs with the AuthKeys secret of its key id', async () => {
    const { app } = await start({ shop: SECRET });
    await app.export(Billing, implementation, { parameters: { 'auth.keys': '*' } });
    const billing = await app.refer(Billing, { retries: 0, parameters: { 'auth.key-id': 'shop' } });
    expect(await billing.charge('ann', 1)).toBe('charged ann 1');
  });

  it('refuses a wrong secret, an unknown key id, an unsigned call and a tampered call, never echoing a secret', async () => {
    const { app } = await start({ shop: SECRET, ops: 'ops-secret-abcdefgh' });
    await app.export(Billing, implementation, { parameters: { 'auth.keys': 'shop' } });
    const wrong = await app.refer(Billing, { retries: 0, parameters: { 'auth.key-id': 'shop', 'auth.secret': 'guessed-secret' } });
    let error = await rejection(wrong.charge('ann', 5));
    expect(error.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(error.message).toContain('auth: call to org.acme.Billing.charge() from an unidentified consumer refused: bad signature');
    expect(error.message).not.toMatch(/guessed-secret|shop-secret/);

    const stranger = await app.refer(Billing, { retries: 0, parameters: { 'auth.key-id': 'ops', 'auth.secret': 'x' } });
    error = await rejection(stranger.charge('ann', 5));
    expect(error.message).toContain('refused: unknown key id "ops".');
    expect(error.message).not.toContain('shop');

    const plain = await app.refer(Billing, { retries: 0 });
    error = await rejection(plain.charge('ann', 5));
    expect(error.message).toContain('refused: the call is not signed (no weft-auth-sig attachment), and this service accepts signed calls only.');

    const good = await app.refer(Billing, { retries: 0, parameters: { 'auth.key-id': 'shop', 'auth.secret': SECRET } });
    error = await rejection(good.$call('charge', ['ann', 5], { attachments: { tamper: 'amount' } }));
    expect(error.message).toContain('refused: bad signature');
    error = await rejection(good.$call('charge', ['ann', 5], { attachments: { tamper: 'method' } }));
    expect(error.message).toContain('auth: call to org.acme.Billing.refund() from an unidentified consumer refused: bad signature');
    error = await rejection(good.$call('charge', ['ann', 5], { attachments: { tamper: 'sig' } }));
    expect(error.message).toContain('refused: bad signature');
    error = await rejection(good.$call('charge', ['ann', 5], { attachments: { tamper: 'strip' } }));
    expect(error.message).toContain('the call is not signed');
    expect(seen).toHaveLength(0);
  });

  it('a retried call is signed again, with a fresh nonce (each attempt passes through the filter)', async () => {
    const { app } = await start({ shop: SECRET });
    await app.export(Billing, implementation, { parameters: { 'auth.keys': 'shop' } });
    const billing = await app.refer(Billing, { retries: 1, parameters: { 'auth.key-id': 'shop' } });
    expect(await billing.$call('charge', ['ann', 5], { attachments: { tamper: 'fail-once' } })).toBe('charged ann 5');
    expect(nonces).toHaveLength(2);
    expect(nonces[0]).not.toBe(nonces[1]);
  });

  it('auth.sign-arguments=false signs without the arguments: an altered argument then passes', async () => {
    const { app } = await start({ shop: SECRET });
    await app.export(Billing, implementation, { parameters: { 'auth.keys': 'shop' } });
    const billing = await app.refer(Billing, { retries: 0, parameters: { 'auth.key-id': 'shop', 'auth.sign-arguments': false } });
    expect(await billing.$call('charge', ['ann', 5], { attachments: { tamper: 'amount' } })).toBe('charged ann 999999');
  });
});

describe('consumer side', () => {
  it('auth.secret is a secret key: masked in URLs (and so left out of registered consumer URLs)', () => {
    expect(isSecretKey('auth.secret')).toBe(true);
    expect(isSecretKey('auth.key-id')).toBe(false);
    const url = URL.parse('tri://127.0.0.1:50051/org.acme.Billing?auth.key-id=shop&auth.secret=s3cret-value');
    expect(maskSecrets(url)).toContain('auth.secret=***');
    expect(maskSecrets(url)).not.toContain('s3cret-value');
  });

  it('refuses to send a call it cannot sign: the key left AuthKeys, or the arguments are beyond the canonical bounds', async () => {
    const { app } = await start({ shop: SECRET });
    await app.export(Billing, implementation, { parameters: { 'auth.keys': '*' } });
    const billing = await app.refer(Billing, { retries: 0, parameters: { 'auth.key-id': 'shop' } });
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    let error = await rejection(billing.$call('charge', [cyclic as never, 1]));
    expect(error.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(error.message).toContain('Cannot sign the arguments of org.acme.Billing.charge(): the arguments nest deeper than 64 levels (or refer to themselves). Pass smaller arguments, or sign without them (auth.sign-arguments=false).');
    app.model.getService(AuthKeys).delete('shop');
    error = await rejection(billing.charge('ann', 1));
    expect(error.message).toContain('Cannot sign the call to org.acme.Billing.charge(): there is no secret for auth.key-id=shop');
    expect(seen).toHaveLength(0);
  });
});

describe('per-method callers', () => {
  it('auth.callers at method level admits the listed signature principals only, naming method and principal (not the list)', async () => {
    const { app } = await start({ shop: SECRET, ops: 'ops-secret-abcdefgh', billing: 'billing-secret-xyz' });
    await app.export(Billing, implementation, { parameters: { 'auth.keys': '*', 'transfer.auth.callers': 'billing,ops' } });
    const shop = await app.refer(Billing, { retries: 0, parameters: { 'auth.key-id': 'shop' } });
    const ops = await app.refer(Billing, { retries: 0, parameters: { 'auth.key-id': 'ops' } });
    expect(await shop.charge('ann', 1)).toBe('charged ann 1'); // no list on charge
    expect(await ops.transfer('ann', 2)).toBe('transferred ann 2');
    const error = await rejection(shop.transfer('ann', 3));
    expect(error.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(error.message).toContain('refused: principal "shop" (via signature) is not allowed to call transfer() (auth.callers).');
    expect(error.message).not.toMatch(/billing,|ops/);
  });

  it('works with an mTLS identity alone (auth.callers without keys), and refuses anonymous callers', async () => {
    const { app } = await start();
    await app.export(Billing, implementation, { parameters: { 'auth.callers': 'ops' } });
    const billing = await app.refer(Billing, { retries: 0 });
    expect(await billing.$call('charge', ['ann', 1], { attachments: { 'test-cn': 'ops' } })).toBe('charged ann 1');
    expect(seen[0]?.identity).toMatchObject({ principal: 'ops', via: 'tls' });
    let error = await rejection(billing.$call('charge', ['ann', 1], { attachments: { 'test-cn': 'intruder' } }));
    expect(error.message).toContain('refused: principal "intruder" (via tls) is not allowed to call charge() (auth.callers).');
    error = await rejection(billing.charge('ann', 1));
    expect(error.message).toContain('refused: the caller is anonymous (neither a verified signature nor a client certificate), and charge() admits listed callers only (auth.callers).');
  });

  it('a signature identity keeps the connection certificate; * admits any authenticated caller', async () => {
    const { app } = await start({ shop: SECRET });
    await app.export(Billing, implementation, { parameters: { 'auth.keys': 'shop', 'auth.callers': '*' } });
    const billing = await app.refer(Billing, { retries: 0, parameters: { 'auth.key-id': 'shop' } });
    expect(await billing.$call('charge', ['ann', 1], { attachments: { 'test-cn': 'gateway' } })).toBe('charged ann 1');
    expect(seen[0]?.identity).toMatchObject({ principal: 'shop', via: 'signature', certificate: { commonName: 'gateway' } });
  });
});

describe('provider key file', () => {
  it('verifies with the file’s secrets and follows its changes', async () => {
    const dir = tempDir();
    const path = join(dir, 'keys.json');
    writeFileSync(path, JSON.stringify({ shop: SECRET }), { mode: 0o600 });
    const { app, logger } = await start();
    await app.export(Billing, implementation, { parameters: { 'auth.keys-file': path } });
    const billing = await app.refer(Billing, { retries: 0, parameters: { 'auth.key-id': 'shop', 'auth.secret': SECRET } });
    expect(await billing.charge('ann', 1)).toBe('charged ann 1');

    writeFileSync(path, JSON.stringify({ shop: 'rotated-secret-000' }), { mode: 0o600 });
    await vi.waitFor(async () => expect((await rejection(billing.charge('ann', 1))).message).toContain('bad signature'), { timeout: 5000, interval: 200 });
    chmodSync(path, 0o644);
    await vi.waitFor(async () => expect((await rejection(billing.charge('ann', 1))).message).toContain("the provider's key file cannot be used"), { timeout: 5000, interval: 200 });
    expect(logger.of('warn').join('\n')).toContain(`auth: signed calls are refused: auth.keys-file ${path} has mode 0644`);
    expect(logger.of('warn').join('\n')).not.toContain('rotated-secret');
  });

  it('is refused at export when group or world readable, naming the mode', async () => {
    const dir = tempDir();
    const path = join(dir, 'keys.json');
    writeFileSync(path, JSON.stringify({ shop: SECRET }), { mode: 0o640 });
    chmodSync(path, 0o640);
    const { app } = await start();
    const error = await app.export(Billing, implementation, { parameters: { 'auth.keys-file': path } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as Error).message).toContain(`auth.keys-file ${path} has mode 0640: its group or other users may access it`);
    expect((error as Error).message).toContain(`chmod 600 ${path}`);
    expect((error as Error).message).not.toContain(SECRET);
  });
});

describe('configuration checks', () => {
  it('refuses a consumer key id without a secret, and provider key ids missing from the store', async () => {
    const { app } = await start({ shop: SECRET });
    await expect(app.refer(Billing, { parameters: { 'auth.key-id': 'nobody' } })).rejects.toThrow(
      'auth.key-id=nobody has no secret: set auth.secret on the reference, or register AuthKeys with key id "nobody"',
    );
    await expect(app.export(Billing, implementation, { parameters: { 'auth.keys': 'shop,ghost' } })).rejects.toThrow('auth.keys names key id ghost, not in');
    await expect(app.export(Billing, implementation, { parameters: { 'auth.keys': 'shop', 'auth.replay-window': 0 } })).rejects.toThrow(
      'auth.replay-window=0 is not valid: expected an integer > 0.',
    );
  });

  it('refuses auth.keys without any key store', async () => {
    const { app } = await start();
    await expect(app.export(Billing, implementation, { parameters: { 'auth.keys': 'shop' } })).rejects.toThrow(
      'auth.keys=shop needs the secrets of its keys: set auth.keys-file, or register AuthKeys',
    );
  });
});

describe('in a chain built by the loader', () => {
  const providerUrl = URL.parse('injvm://127.0.0.1/org.acme.Billing?interface=org.acme.Billing&side=provider&auth.keys=shop');
  const consumerUrl = URL.parse('injvm://127.0.0.1/org.acme.Billing?interface=org.acme.Billing&side=consumer&auth.key-id=shop');

  function chain(app: WeftApplication, inner: Invoker, group: 'provider' | 'consumer'): Invoker {
    const filters = app.model.getExtensionLoader(Filter);
    const active = filters.getActivateExtensions(inner.getUrl(), group === 'provider' ? 'service.filter' : 'reference.filter', group).filter((f) => f instanceof AuthFilter);
    return buildFilterChain(inner, active, (f) => filters.getExtensionName(f) ?? '?', app.model.logger);
  }

  /** Signs one call on the consumer side and returns the invocation as sent. */
  async function signed(app: WeftApplication, args: unknown[] = ['ann', 5]): Promise<Invocation> {
    let sent: Invocation | undefined;
    const consumer = chain(app, new StubInvoker(consumerUrl, (invocation) => ((sent = invocation), Result.of('ok'))), 'consumer');
    await consumer.invoke(new Invocation({ methodName: 'charge', args, service: Billing }));
    return sent as Invocation;
  }

  function resend(invocation: Invocation, attachments: Record<string, string> = {}): Invocation {
    const copy = new Invocation({ methodName: invocation.methodName, args: [...invocation.args], service: Billing, attachments: invocation.getAttachments() });
    for (const [key, value] of Object.entries(attachments)) copy.setAttachment(key, value);
    return copy;
  }

  it('answers a verified synchronous call with the Result itself; a replayed nonce is refused', async () => {
    const { app } = await start({ shop: SECRET });
    const expected = Result.of('charged');
    const provider = chain(app, new StubInvoker(providerUrl, () => expected), 'provider');
    const sent = await signed(app);
    expect(String(sent.getAttachment(AuthAttachments.SIGNATURE))).toMatch(/^v1=[A-Za-z0-9_-]{43}$/);
    expect(String(sent.getAttachment(AuthAttachments.NONCE))).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(sent.getAttachment(AuthAttachments.ARGUMENTS)).toBe('sha256');
    const replay = resend(sent);
    expect(provider.invoke(sent)).toBe(expected);
    const error = await rejection(provider.invoke(replay));
    expect(error.message).toContain('refused: replayed nonce: a call with this nonce was already accepted.');
  });

  it('refuses timestamps outside the window both ways, naming the skew; accepts skew within it', async () => {
    const { app } = await start({ shop: SECRET });
    const provider = chain(app, new StubInvoker(providerUrl, () => Result.of('ok')), 'provider');
    const now = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now - 400_000);
    const old = await signed(app);
    vi.setSystemTime(now + 301_000);
    const future = await signed(app);
    vi.setSystemTime(now - 290_000);
    const skewed = await signed(app);
    vi.setSystemTime(now);
    expect((await rejection(provider.invoke(old))).message).toContain('refused: expired timestamp: 400000 ms in the past, more than the 300000 ms auth.replay-window allows');
    expect((await rejection(provider.invoke(future))).message).toContain('refused: future timestamp: 301000 ms ahead of the provider');
    expect((await Promise.resolve(provider.invoke(skewed))).value).toBe('ok');
  });

  it('refuses malformed attachments and other signature versions', async () => {
    const { app } = await start({ shop: SECRET });
    const provider = chain(app, new StubInvoker(providerUrl, () => Result.of('ok')), 'provider');
    const sent = await signed(app);
    const cases: [Record<string, string>, string][] = [
      [{ [AuthAttachments.TIMESTAMP]: 'soon' }, 'malformed or missing weft-auth-ts attachment'],
      [{ [AuthAttachments.NONCE]: 'short' }, 'malformed or missing weft-auth-nonce attachment'],
      [{ [AuthAttachments.ARGUMENTS]: 'md5' }, 'malformed or missing weft-auth-args attachment'],
      [{ [AuthAttachments.SIGNATURE]: 'v2=abc' }, 'unsupported signature version "v2" (this provider verifies v1)'],
      [{ [AuthAttachments.SIGNATURE]: 'v1=abc' }, 'malformed weft-auth-sig attachment'],
      [{ [AuthAttachments.ARGUMENTS]: 'unsigned' }, 'bad signature'],
      [{ [AuthAttachments.KEY_ID]: 'x'.repeat(100) }, `unknown key id "${'x'.repeat(64)}…"`],
    ];
    for (const [attachments, message] of cases) expect((await rejection(provider.invoke(resend(sent, attachments)))).message).toContain(message);
    // None of them consumed the nonce: the genuine call still passes.
    expect((await Promise.resolve(provider.invoke(sent))).value).toBe('ok');
  });

  it('refuses when the nonce cache is full of unexpired nonces, logging once, and recovers as they expire', async () => {
    const { app, logger } = await start({ shop: SECRET });
    const url = providerUrl.addParameters({ 'auth.nonce-cache': 2, 'auth.replay-window': 1000 });
    const provider = chain(app, new StubInvoker(url, () => Result.of('ok')), 'provider');
    const now = Date.now();
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(now);
    const calls = [await signed(app), await signed(app), await signed(app), await signed(app)];
    expect((await Promise.resolve(provider.invoke(calls[0] as Invocation))).value).toBe('ok');
    expect((await Promise.resolve(provider.invoke(calls[1] as Invocation))).value).toBe('ok');
    expect((await rejection(provider.invoke(calls[2] as Invocation))).message).toContain("refused: the provider's nonce cache is full (2 unexpired nonces): try again later.");
    expect((await rejection(provider.invoke(resend(calls[3] as Invocation)))).message).toContain('nonce cache is full');
    expect(logger.of('warn').filter((m) => m.includes('nonce cache holds 2 unexpired nonces'))).toHaveLength(1);
    vi.setSystemTime(now + 1001);
    const later = await signed(app);
    expect((await Promise.resolve(provider.invoke(later))).value).toBe('ok');
  });
});
