// A Weft consumer and a Weft provider over `tri` and over `dubbo` (Hessian2) on loopback (two applications; the
// service exported on both protocols), with signed calls:
// typed arguments (a class with a Date, a Map) verify after the wire round trip; a tampered argument, a
// wrong secret and an unsigned call are refused with `forbidden`; per-method callers admit the listed signature
// principal only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { callerIdentityOf, defineService, Filter, Invocation, Invoker, mapOf, Result, RpcError, RpcErrorCode, WeftApplication, type FieldTypes } from '@weft/core';
import { AuthKeys } from '@weft/filter-auth';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

class Order {
  id = '';
  at = new Date(0);
  static readonly fields = { id: String, at: Date } satisfies FieldTypes<Order>;
}

const Ledger = defineService('org.acme.Ledger', {
  post: { args: [Order, mapOf(String, Number), Number], returns: String },
  transfer: { args: [String, Number], returns: String },
});

const principals: (string | undefined)[] = [];
const impl = {
  post: (order: Order, lines: Map<string, number>, cents: number) =>
    `${order.id}@${order.at.toISOString()} ${[...lines].map(([k, v]) => `${k}=${v}`).join(',')} ${cents}`,
  transfer: (to: string, cents: number) => `sent ${cents} to ${to}`,
};

/** Records the caller identity the provider's implementation side sees. */
class IdentityFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    principals.push(callerIdentityOf(invocation)?.principal);
    return invoker.invoke(invocation);
  }
}

/** Consumer side, after signing: alters the amount of calls carrying attachment `tamper` (a man in the middle). */
class TamperFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    if (invocation.getAttachment('tamper') !== undefined) invocation.args[invocation.args.length - 1] = 1_000_000;
    return invoker.invoke(invocation);
  }
}

const PACKAGES = ['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/protocol-dubbo', '@weft/serialization-hessian2', '@weft/filter-auth'];
let providerRoot: TestApp;
let consumerRoot: TestApp;
let provider: WeftApplication;
let consumer: WeftApplication;
const ports: Record<string, number> = {};

beforeAll(async () => {
  providerRoot = createTestApp(PACKAGES, { prefix: 'weft-auth-provider' });
  consumerRoot = createTestApp(PACKAGES, { prefix: 'weft-auth-consumer' });
  ports['tri'] = await freePort();
  ports['dubbo'] = await freePort();
  provider = await WeftApplication.start({ root: providerRoot.root, name: 'ledger', logger: new RecordingLogger() });
  provider.model.registerService(AuthKeys, new AuthKeys({ shop: 'shop-secret-1234', billing: 'billing-secret-5678' }));
  provider.model.getExtensionLoader(Filter).addExtension('test-identity', IdentityFilter, { activate: { group: ['provider'], order: 100 } });
  for (const protocol of ['tri', 'dubbo']) {
    await provider.export(Ledger, impl, { protocol, port: ports[protocol], parameters: { 'auth.keys': 'shop,billing', 'transfer.auth.callers': 'billing' } });
  }
  consumer = await WeftApplication.start({ root: consumerRoot.root, name: 'shop', logger: new RecordingLogger() });
  consumer.model.getExtensionLoader(Filter).addExtension('test-tamper', TamperFilter, { activate: { group: ['consumer'], order: 100 } });
}, 30_000);

afterAll(async () => {
  await consumer?.shutdown({ timeout: 2000 });
  await provider?.shutdown({ timeout: 2000 });
  providerRoot?.cleanup();
  consumerRoot?.cleanup();
});


async function rejection(call: Promise<unknown>): Promise<RpcError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RpcError);
  return error as RpcError;
}

function order(): Order {
  const o = new Order();
  o.id = 'o-1';
  o.at = new Date('2026-03-04T05:06:07.008Z');
  return o;
}

describe.each(['tri', 'dubbo'])('signed calls over %s', (protocol) => {
  const url = () => `${protocol}://127.0.0.1:${ports[protocol] as number}`;

  it('typed arguments verify after the wire round trip; the implementation sees the key id as principal', async () => {
    const ledger = await consumer.refer(Ledger, { url: url(), retries: 0, timeout: 5000, parameters: { 'auth.key-id': 'shop', 'auth.secret': 'shop-secret-1234' } });
    const lines = new Map([['b', 2], ['a', 1]]);
    expect(await ledger.post(order(), lines, 250)).toBe('o-1@2026-03-04T05:06:07.008Z b=2,a=1 250');
    expect(principals.at(-1)).toBe('shop');
    // Each call is a fresh nonce: the same call again is not a replay.
    expect(await ledger.post(order(), lines, 250)).toContain('a=1 250');
  });

  it('a tampered argument, a wrong secret and an unsigned call are refused with forbidden', async () => {
    const before = principals.length;
    const ledger = await consumer.refer(Ledger, { url: url(), retries: 0, timeout: 5000, parameters: { 'auth.key-id': 'shop', 'auth.secret': 'shop-secret-1234' } });
    let error = await rejection(ledger.$call('post', [order(), new Map([['a', 1]]), 250], { attachments: { tamper: 'yes' } }));
    expect(error.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(error.message).toContain('auth: call to org.acme.Ledger.post() from consumer shop');
    expect(error.message).toContain('refused: bad signature');

    const wrong = await consumer.refer(Ledger, { url: url(), retries: 0, timeout: 5000, parameters: { 'auth.key-id': 'shop', 'auth.secret': 'not-the-secret' } });
    error = await rejection(wrong.transfer('ann', 5));
    expect(error.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(error.message).toContain('refused: bad signature');
    expect(error.message).not.toMatch(/not-the-secret|shop-secret/);

    const plain = await consumer.refer(Ledger, { url: url(), retries: 0, timeout: 5000 });
    error = await rejection(plain.transfer('ann', 5));
    expect(error.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(error.message).toContain('the call is not signed');
    expect(principals.length).toBe(before);
  });

  it('per-method callers: transfer admits the billing key only', async () => {
    const shop = await consumer.refer(Ledger, { url: url(), retries: 0, timeout: 5000, parameters: { 'auth.key-id': 'shop', 'auth.secret': 'shop-secret-1234' } });
    const billing = await consumer.refer(Ledger, { url: url(), retries: 0, timeout: 5000, parameters: { 'auth.key-id': 'billing', 'auth.secret': 'billing-secret-5678' } });
    expect(await billing.transfer('ann', 7)).toBe('sent 7 to ann');
    expect(principals.at(-1)).toBe('billing');
    const error = await rejection(shop.transfer('ann', 7));
    expect(error.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(error.message).toContain('refused: principal "shop" (via signature) is not allowed to call transfer() (auth.callers).');
  });
});
