// Signed calls of a protobuf service (defineProtoService) over `tri`, binary protobuf on the wire: a consumer's init
// object (fields left out, a oneof unset) verifies against the full message the provider decodes; a full message
// (create()) verifies too; an argument altered after signing is refused.
import { create } from '@bufbuild/protobuf';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Filter, Invocation, Invoker, Result, RpcError, RpcErrorCode, WeftApplication } from '@weft/core';
import { AuthKeys } from '@weft/filter-auth';
import { defineProtoService } from '@weft/serialization-protobuf';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

import { EchoMessageSchema, Greeter as GreeterDesc } from './gen/greeter_pb.js';

const Greeter = defineProtoService(GreeterDesc);

/** Consumer side, after signing: changes the text of calls carrying attachment `tamper`. */
class TamperFilter extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    if (invocation.getAttachment('tamper') !== undefined) invocation.args[0] = { ...(invocation.args[0] as object), text: 'altered' };
    return invoker.invoke(invocation);
  }
}

const PACKAGES = ['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/serialization-protobuf', '@weft/filter-auth'];
let roots: TestApp[] = [];
let provider: WeftApplication;
let consumer: WeftApplication;
let port: number;

beforeAll(async () => {
  roots = [createTestApp(PACKAGES, { prefix: 'weft-auth-pb-provider' }), createTestApp(PACKAGES, { prefix: 'weft-auth-pb-consumer' })];
  port = await freePort();
  provider = await WeftApplication.start({ root: (roots[0] as TestApp).root, name: 'greeter', logger: new RecordingLogger() });
  provider.model.registerService(AuthKeys, new AuthKeys({ shop: 'shop-secret-1234' }));
  await provider.export(Greeter, { sayHello: (request) => ({ message: `Hello, ${request.name}!` }), echo: (message) => message }, {
    protocol: 'tri',
    port,
    parameters: { 'auth.keys': 'shop' },
  });
  consumer = await WeftApplication.start({ root: (roots[1] as TestApp).root, name: 'shop', logger: new RecordingLogger() });
  consumer.model.getExtensionLoader(Filter).addExtension('test-tamper', TamperFilter, { activate: { group: ['consumer'], order: 100 } });
}, 30_000);

afterAll(async () => {
  await consumer?.shutdown({ timeout: 2000 });
  await provider?.shutdown({ timeout: 2000 });
  for (const root of roots) root.cleanup();
});

describe('signed protobuf calls over tri', () => {
  it('an init object and a full message both verify; an altered one is refused', async () => {
    const greeter = await consumer.refer(Greeter, {
      url: `tri://127.0.0.1:${port}`,
      retries: 0,
      timeout: 5000,
      parameters: { 'auth.key-id': 'shop', 'auth.secret': 'shop-secret-1234' },
    });
    expect((await greeter.sayHello({ name: 'ann' })).message).toBe('Hello, ann!');
    const echoed = await greeter.echo({ text: 'hi', big: 5n, labels: { a: 'b' }, choice: { case: 'amount', value: 2.5 } });
    expect(echoed.big).toBe(5n);
    const full = create(EchoMessageSchema, { text: 'full', blob: new Uint8Array([1, 2]), numbers: [3, 4], nested: { name: 'n' } });
    expect((await greeter.echo(full)).text).toBe('full');

    const error = await greeter.$call('echo', [{ text: 'original' }], { attachments: { tamper: 'yes' } }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.FORBIDDEN);
    expect((error as RpcError).message).toContain('refused: bad signature');
  });
});
