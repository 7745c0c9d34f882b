import { create, createFileRegistry, fromBinary, toBinary } from '@bufbuild/protobuf';
import {
  anyPack,
  anyUnpack,
  FileDescriptorProtoSchema,
  MethodOptions_IdempotencyLevel,
  StringValueSchema,
  timestampFromDate,
} from '@bufbuild/protobuf/wkt';
import { describe, expect, expectTypeOf, it } from 'vitest';

import { ExtensionError, IdlSerialization, RpcError, RpcErrorCode, Serialization, WeftApplication, type ServiceImplementation } from '@weft/core';
import { Code, defineProtoService, grpcError, ProtobufSerialization } from '@weft/serialization-protobuf';
import { createTestApp } from '@weft/test-utils';

import { EchoMessageSchema, Greeter, HelloReplySchema, HelloRequestSchema, Mood, type EchoMessage, type HelloReply, type HelloRequest } from '../example/gen/weft/example/v1/greeter_pb.js';

const protobuf = new ProtobufSerialization();
const GreeterService = defineProtoService(Greeter);

describe('defineProtoService', () => {
  it('defines the service under its protobuf name, one IDL method per RPC by local name', () => {
    expect(GreeterService.name).toBe('weft.example.v1.Greeter');
    expect(GreeterService.methodNames).toEqual(['sayHello', 'echo']);
    const sayHello = GreeterService.getMethod('sayHello');
    expect(sayHello?.idl).toEqual({
      serialization: 'protobuf',
      input: HelloRequestSchema,
      output: HelloReplySchema,
      name: 'SayHello',
      kind: 'unary',
      descriptor: Greeter.method.sayHello,
    });
  });

  it('declares a method with `idempotency_level = NO_SIDE_EFFECTS` safe (plain-HTTP GET may invoke it), the others not', () => {
    const file = create(FileDescriptorProtoSchema, {
      name: 'acme/admin.proto',
      package: 'acme',
      syntax: 'proto3',
      messageType: [{ name: 'Empty' }],
      service: [
        {
          name: 'Admin',
          method: [
            { name: 'Status', inputType: '.acme.Empty', outputType: '.acme.Empty', options: { idempotencyLevel: MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS } },
            { name: 'Get', inputType: '.acme.Empty', outputType: '.acme.Empty', options: { idempotencyLevel: MethodOptions_IdempotencyLevel.IDEMPOTENT } },
            { name: 'Purge', inputType: '.acme.Empty', outputType: '.acme.Empty' },
          ],
        },
      ],
    });
    const desc = createFileRegistry(file, () => undefined).getService('acme.Admin');
    if (desc === undefined) throw new Error('no acme.Admin');
    const Admin = defineProtoService(desc as unknown as Parameters<typeof defineProtoService>[0]);
    expect(Admin.methodNames.map((m) => [m, Admin.getMethod(m)?.safe])).toEqual([
      ['status', true],
      ['get', false],
      ['purge', false],
    ]);
    expect(GreeterService.getMethod('sayHello')?.safe).toBe(false);
  });

  it('types the proxy (init shape in, message out) and the implementation (message in, init shape out)', () => {
    type Impl = ServiceImplementation<typeof GreeterService.methods>;
    expectTypeOf<Parameters<Impl['sayHello']>>().toEqualTypeOf<[request: HelloRequest]>();
    const impl: Impl = { sayHello: (req) => ({ message: `Hello, ${req.name}!` }), echo: (m: EchoMessage) => m };
    expect(impl.sayHello(create(HelloRequestSchema, { name: 'x' }))).toEqual({ message: 'Hello, x!' });
    type Proxy = import('@weft/core').ServiceProxy<typeof GreeterService.methods>;
    expectTypeOf<ReturnType<Proxy['sayHello']>>().toEqualTypeOf<Promise<HelloReply>>();
    expectTypeOf<Proxy['sayHello']>().toBeCallableWith({ name: 'world' });
  });

  it('refuses what is not a service descriptor, naming what it expects', () => {
    expect(() => defineProtoService({} as typeof Greeter)).toThrow(ExtensionError);
    expect(() => defineProtoService({} as typeof Greeter)).toThrow('defineProtoService(): expected a protobuf service descriptor');
  });

  it('carries streaming RPCs with their kind (server, client, bidi)', () => {
    const base = Greeter.methods[0] as (typeof Greeter.methods)[number];
    const streaming = {
      ...Greeter,
      methods: [
        { ...base, name: 'LotsOfReplies', localName: 'lotsOfReplies', methodKind: 'server_streaming' },
        { ...base, name: 'Record', localName: 'record', methodKind: 'client_streaming' },
        { ...base, name: 'Chat', localName: 'chat', methodKind: 'bidi_streaming' },
      ],
    } as unknown as typeof Greeter;
    const service = defineProtoService(streaming);
    expect(service.getMethod('lotsOfReplies')?.stream).toBe('server');
    expect(service.getMethod('lotsOfReplies')?.idl?.kind).toBe('server-streaming');
    expect(service.getMethod('record')?.stream).toBe('client');
    expect(service.getMethod('chat')?.stream).toBe('bidi');
  });
});

describe('ProtobufSerialization', () => {
  const full = create(EchoMessageSchema, {
    text: 'héllo',
    big: -9007199254740993n,
    blob: new Uint8Array([0, 255]),
    numbers: [1, -2, 3],
    labels: { a: 'b' },
    mood: Mood.GRUMPY,
    nested: { name: 'n' },
    at: timestampFromDate(new Date('2026-01-02T03:04:05.678Z')),
    choice: { case: 'amount', value: 1.5 },
  });

  it('round-trips every field kind in binary, wire-compatible with toBinary', () => {
    const bytes = protobuf.encodeMessage(full, EchoMessageSchema);
    expect(Buffer.from(bytes)).toEqual(Buffer.from(toBinary(EchoMessageSchema, full)));
    expect(protobuf.decodeMessage(Buffer.from(bytes), EchoMessageSchema)).toEqual(full);
    const decoded = protobuf.decodeMessage(Buffer.from(bytes), EchoMessageSchema) as EchoMessage;
    expect(Object.getPrototypeOf(decoded.blob)).toBe(Uint8Array.prototype);
  });

  it('accepts init shapes (absent fields take defaults)', () => {
    const bytes = protobuf.encodeMessage({ name: 'world' }, HelloRequestSchema);
    expect(fromBinary(HelloRequestSchema, bytes)).toEqual(create(HelloRequestSchema, { name: 'world' }));
    expect(protobuf.encodeMessage(undefined, HelloReplySchema)).toEqual(new Uint8Array(0));
  });

  it('speaks the protobuf JSON mapping (int64 as strings, bytes base64, enums by name, lowerCamel names)', () => {
    const text = Buffer.from(protobuf.encodeJson(full, EchoMessageSchema)).toString('utf8');
    expect(JSON.parse(text)).toEqual({
      text: 'héllo',
      big: '-9007199254740993',
      blob: 'AP8=',
      numbers: [1, -2, 3],
      labels: { a: 'b' },
      mood: 'MOOD_GRUMPY',
      nested: { name: 'n' },
      at: '2026-01-02T03:04:05.678Z',
      amount: 1.5,
    });
    expect(protobuf.decodeJson(Buffer.from(text), EchoMessageSchema)).toEqual(full);
    expect(protobuf.fromJson(undefined, HelloRequestSchema)).toEqual(create(HelloRequestSchema));
  });

  it('fails with a serialization RpcError naming the message type', () => {
    const wrongType = () => protobuf.encodeMessage(create(HelloReplySchema), HelloRequestSchema);
    expect(wrongType).toThrow(RpcError);
    expect(wrongType).toThrow('protobuf: expected a weft.example.v1.HelloRequest message, got a weft.example.v1.HelloReply.');
    expect(() => protobuf.encodeMessage('world', HelloRequestSchema)).toThrow('protobuf: expected a weft.example.v1.HelloRequest message (an object), got string.');
    expect(() => protobuf.decodeMessage(new Uint8Array([0x0a, 0x05, 0x61]), HelloRequestSchema)).toThrow(/^protobuf: cannot decode weft\.example\.v1\.HelloRequest: /);
    expect(() => protobuf.fromJson({ nmae: 'x' }, HelloRequestSchema)).toThrow(/^protobuf: cannot read weft\.example\.v1\.HelloRequest from JSON: .*nmae/);
    expect(() => protobuf.decodeJson(Buffer.from('{'), HelloRequestSchema)).toThrow(/^protobuf: cannot read weft\.example\.v1\.HelloRequest from JSON: /);
    const refused = (() => {
      try {
        protobuf.serialize({ a: 1 });
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).code).toBe(RpcErrorCode.SERIALIZATION);
    expect((refused as RpcError).message).toContain('serialization=protobuf encodes messages of IDL services only');
  });

  it('copies messages structurally (what injvm needs)', () => {
    const copy = protobuf.copy(full);
    expect(copy).toEqual(full);
    expect(copy).not.toBe(full);
  });

  it('encodes and decodes google.rpc.Status with Any details', () => {
    const detail = anyPack(StringValueSchema, create(StringValueSchema, { value: 'why' }));
    const bytes = protobuf.encodeStatus({ code: Code.NOT_FOUND, message: 'no user 42', details: [detail, 'not an Any'] });
    // google.rpc.Status on the wire: code = 1 (varint), message = 2, details = 3 (the one Any; the string is dropped).
    const message = Buffer.from('no user 42');
    expect(Buffer.from(bytes.subarray(0, 4 + message.length))).toEqual(Buffer.concat([Buffer.from([0x08, 5, 0x12, message.length]), message]));
    expect(bytes[4 + message.length]).toBe(0x1a);
    const decoded = protobuf.decodeStatus(bytes);
    expect(decoded.message).toBe('no user 42');
    expect(decoded.details).toHaveLength(1);
    expect(decoded.code).toBe(5);
    expect(anyUnpack(decoded.details[0] as typeof detail, StringValueSchema)?.value).toBe('why');
    expect(() => protobuf.decodeStatus(new Uint8Array([0xff]))).toThrow(/^protobuf: cannot decode google\.rpc\.Status: /);
  });
});

describe('grpcError', () => {
  it('makes an RpcError with the exact status, its details, and the RpcError code Weft reads', () => {
    const detail = anyPack(StringValueSchema, create(StringValueSchema, { value: 'd' }));
    const notFound = grpcError(Code.NOT_FOUND, 'no user 42', { details: [detail] });
    expect(notFound).toBeInstanceOf(RpcError);
    expect(notFound.grpcStatus).toBe(5);
    expect(notFound.code).toBe(RpcErrorCode.BIZ);
    expect(notFound.retryable).toBe(false);
    expect(notFound.details).toEqual([detail]);
    expect(grpcError(Code.PERMISSION_DENIED, 'm').code).toBe(RpcErrorCode.FORBIDDEN);
    expect(grpcError(Code.UNAUTHENTICATED, 'm').code).toBe(RpcErrorCode.AUTHORIZATION);
    expect(grpcError(Code.RESOURCE_EXHAUSTED, 'm').code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    expect(grpcError(Code.DEADLINE_EXCEEDED, 'm').code).toBe(RpcErrorCode.TIMEOUT);
    expect(grpcError(Code.UNIMPLEMENTED, 'm').code).toBe(RpcErrorCode.METHOD_NOT_FOUND);
    expect(grpcError(Code.CANCELLED, 'm').code).toBe(RpcErrorCode.CANCELLED);
    const unavailable = grpcError(Code.UNAVAILABLE, 'try elsewhere');
    expect(unavailable.code).toBe(RpcErrorCode.NETWORK);
    expect(unavailable.retryable).toBe(true);
  });
});

describe('the protobuf extension', () => {
  it('is discovered from the manifest as weft.rpc.Serialization "protobuf", an IdlSerialization', async () => {
    const testApp = createTestApp(['@weft/core', '@weft/serialization-protobuf'], { prefix: 'weft-protobuf-test' });
    const app = await WeftApplication.start({ root: testApp.root, name: 'protobuf-app' });
    try {
      const loader = app.model.getExtensionLoader(Serialization);
      expect(loader.getSupportedExtensions()).toContain('protobuf');
      const extension = loader.getExtension('protobuf');
      expect(extension).toBeInstanceOf(IdlSerialization);
      expect(extension.contentSubtype).toBe('proto');
    } finally {
      await app.shutdown({ timeout: 1000 });
      testApp.cleanup();
    }
  });
});

describe('a proto service over injvm', () => {
  it('copies messages (bigint, bytes, nested) through the protobuf serialization, not JSON', async () => {
    const testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/serialization-protobuf'], { prefix: 'weft-protobuf-injvm' });
    const app = await WeftApplication.start({ root: testApp.root, name: 'protobuf-injvm' });
    try {
      const received: EchoMessage[] = [];
      await app.export(GreeterService, {
        sayHello: (request) => ({ message: `Hello, ${request.name}!` }),
        echo: (message) => {
          received.push(message);
          return message;
        },
      });
      const greeter = await app.refer(GreeterService);
      expect((await greeter.sayHello({ name: 'ann' })).message).toBe('Hello, ann!');
      const sent = create(EchoMessageSchema, { big: 2n ** 60n, blob: new Uint8Array([1, 2]), nested: { name: 'n' } });
      const reply = await greeter.echo(sent);
      expect(reply).toEqual(sent);
      expect(reply).not.toBe(sent);
      expect(received[0]).not.toBe(sent);
      expect(reply.big).toBe(2n ** 60n);
    } finally {
      await app.shutdown({ timeout: 1000 });
      testApp.cleanup();
    }
  });
});
