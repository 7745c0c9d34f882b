// Dubbo 3's Triple wrapper for interface services (wire-and-registry.md §A.10, dubbo-protocol-and-hessian2.md §5):
// the wrapper bytes against the spec, a raw HTTP/2 client speaking exactly what Dubbo's Java consumer sends, and
// Weft ↔ Weft round trips with Hessian2 inside the wrapper (typed values, POJOs, null, declared and undeclared
// business errors through tri-exception-code).
import http2 from 'node:http2';

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { defineService, java, JsonSerialization, RpcError, RpcErrorCode, type ObjectSerialization, type ServiceImplementation, type TypeDescriptor } from '@weft/core';
import { Hessian2Serialization } from '@weft/serialization-hessian2';
import { freePort } from '@weft/test-utils';

import { decodeRequestWrapper, decodeResponseWrapper, encodeRequestWrapper, encodeResponseWrapper, SerializationCodec, WrapperCodec } from '@weft/protocol-triple';
import { BASE_PACKAGES, Harness } from './support/harness.js';

class User {
  static readonly javaClass = 'org.acme.User';
  static readonly fields = { id: java.long, name: String, age: java.int };
  id = 0n as bigint | number;
  name = '';
  age = 0;
}

class UserNotFound extends Error {
  static readonly javaClass = 'org.acme.UserNotFoundException';
  override name = 'UserNotFound';
}

const Users = defineService('org.acme.UserService', {
  greet: { args: [String], returns: String },
  add: { args: [java.int, java.int], returns: java.int },
  next: { args: [java.long], returns: java.long },
  total: { args: [java.map(String, java.int)], returns: java.int },
  count: { args: [java.list(String)], returns: java.int },
  rename: { args: [User, String], returns: User },
  find: { args: [java.long], returns: User, throws: [UserNotFound] },
  crash: { args: [String], returns: String },
  nothing: {},
});

const impl: ServiceImplementation<typeof Users.methods> = {
  greet: (name) => `hello ${name}`,
  add: (a, b) => a + b,
  next: (n) => (typeof n === 'bigint' ? n + 1n : n + 1),
  total: (map) => [...map.values()].reduce((a, b) => a + b, 0),
  count: (list) => list.length,
  rename: (user, name) => Object.assign(new User(), { id: user.id, name, age: user.age + 1 }),
  find: (id) => {
    throw new UserNotFound(`no user ${String(id)}`);
  },
  crash: (why) => {
    throw new TypeError(`crashed: ${why}`);
  },
  nothing: () => undefined,
};

const hessian: ObjectSerialization = new Hessian2Serialization();
const harness = new Harness([...BASE_PACKAGES, '@weft/serialization-hessian2']);
let port: number;

beforeAll(async () => {
  port = await freePort();
  const provider = await harness.start('users');
  await provider.export(Users, impl, { protocol: 'tri', port, parameters: { serialization: 'hessian2' } });
});
afterAll(() => harness.close());

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const ascii = (text: string) => Buffer.from(text, 'latin1').toString('hex');
function hessianOf(value: unknown, type?: TypeDescriptor): Uint8Array {
  const out = hessian.createOutput();
  out.writeObject(value, type);
  return out.finish();
}

describe('the wrapper bytes', () => {
  it("encode as Java's hand-written encoder: field 1, every field 2, every field 3, all length-delimited", () => {
    const bytes = encodeRequestWrapper({ serializeType: 'hessian4', args: [Uint8Array.of(0x05, ...Buffer.from('world')), Uint8Array.of(0x91)], argTypes: ['java.lang.String', 'int'] });
    expect(hex(bytes)).toBe(`0a08${ascii('hessian4')}` + `1206${'05' + ascii('world')}` + '120191' + `1a10${ascii('java.lang.String')}` + `1a03${ascii('int')}`);
    // A null (void) result is the Hessian byte 4e, always present; `type` is the declared return class or "void".
    expect(hex(encodeResponseWrapper({ serializeType: 'hessian4', data: Uint8Array.of(0x4e), type: 'void' }))).toBe(`0a08${ascii('hessian4')}12014e1a04${ascii('void')}`);
    // Lengths past 127 take a two-byte varint; strings are UTF-8 (a lone surrogate as U+FFFD, as Java's encoder).
    const long = new Uint8Array(300).fill(0x4e);
    const wide = encodeResponseWrapper({ serializeType: 'hessian2', data: long, type: 'com.acme.Café\ud800' });
    expect(hex(wide)).toBe(`0a08${ascii('hessian2')}12ac02${'4e'.repeat(300)}1a11${ascii('com.acme.Caf')}c3a9efbfbd`);
    const read = decodeResponseWrapper(wide);
    expect([read.serializeType, hex(read.data), read.type]).toEqual(['hessian2', '4e'.repeat(300), 'com.acme.Café\ufffd']);
  });

  it('decode what Dubbo writes, and refuse any other field or wire type, or truncated bytes', () => {
    const request = decodeRequestWrapper(Buffer.from(`0a08${ascii('hessian4')}120191120192` + `1a03${ascii('int')}1a03${ascii('int')}`, 'hex'));
    expect(request.serializeType).toBe('hessian4');
    expect(request.args.map(hex)).toEqual(['91', '92']);
    expect(request.argTypes).toEqual(['int', 'int']);
    expect(() => decodeRequestWrapper(Buffer.from('2200', 'hex'))).toThrow('Malformed TripleRequestWrapper: field 4 has wire type 2 (only fields 1–3, length-delimited, are allowed).');
    expect(() => decodeRequestWrapper(Buffer.from('0801', 'hex'))).toThrow('field 1 has wire type 0');
    expect(() => decodeResponseWrapper(Buffer.from('0a05ab', 'hex'))).toThrow('field 1 claims 5 bytes but only 1 remain');
    expect(() => decodeResponseWrapper(Buffer.from('0a', 'hex'))).toThrow('it ends inside a varint');
    // Go may omit field 2 for null: read as null.
    expect(hex(decodeResponseWrapper(Buffer.from(`0a08${ascii('hessian2')}`, 'hex')).data)).toBe('4e');
  });
});

/** One unary call as Dubbo's Java consumer makes it: POST, application/grpc+proto, a request wrapper in one frame. */
async function javaStyleCall(method: string, args: Uint8Array[], argTypes: string[], serializeType = 'hessian4') {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  try {
    const body = encodeRequestWrapper({ serializeType, args, argTypes });
    const frame = Buffer.concat([Buffer.from([0, (body.length >>> 24) & 255, (body.length >>> 16) & 255, (body.length >>> 8) & 255, body.length & 255]), body]);
    const stream = session.request({ ':method': 'POST', ':path': `/org.acme.UserService/${method}`, 'content-type': 'application/grpc+proto', te: 'trailers' });
    const chunks: Buffer[] = [];
    let headers: http2.IncomingHttpHeaders = {};
    let trailers: http2.IncomingHttpHeaders = {};
    stream.on('response', (h) => (headers = h));
    stream.on('trailers', (t) => (trailers = t));
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.end(frame);
    await new Promise((resolve) => stream.on('close', resolve));
    const data = Buffer.concat(chunks);
    return { headers, trailers, message: data.length >= 5 ? data.subarray(5) : undefined };
  } finally {
    session.close();
  }
}

describe('a Java-style consumer → Weft provider (serialization=hessian2)', () => {
  it('answers a wrapped call with a response wrapper: hessian4, the Hessian2 result, the declared return class', async () => {
    const { headers, trailers, message } = await javaStyleCall('add', [hessianOf(2, java.int), hessianOf(40, java.int)], ['int', 'int']);
    expect(headers[':status']).toBe(200);
    expect(String(headers['content-type'])).toMatch(/^application\/grpc/);
    expect(trailers['grpc-status']).toBe('0');
    const response = decodeResponseWrapper(message as Uint8Array);
    expect(response.serializeType).toBe('hessian4');
    expect(response.type).toBe('int');
    expect(hessian.createInput(response.data).readObject(java.int)).toBe(42);
  });

  it('accepts serializeType hessian2 (as Go sends) and refuses another name, naming it', async () => {
    const ok = await javaStyleCall('greet', [hessianOf('go')], ['java.lang.String'], 'hessian2');
    expect(hessian.createInput(decodeResponseWrapper(ok.message as Uint8Array).data).readObject()).toBe('hello go');
    const refused = await javaStyleCall('greet', [hessianOf('x')], ['java.lang.String'], 'fastjson2');
    expect(refused.trailers['grpc-status'] ?? refused.headers['grpc-status']).toBe('13');
    expect(decodeURIComponent(String(refused.trailers['grpc-message'] ?? refused.headers['grpc-message']))).toContain('Unexpected serialization type "fastjson2"');
  });

  it('sends a business error as tri-exception-code 3 with a Hessian2 Throwable, the declared return class as type', async () => {
    const { headers, trailers, message } = await javaStyleCall('find', [hessianOf(7, java.long)], ['long']);
    expect(headers['tri-exception-code']).toBe('3');
    expect(trailers['grpc-status']).toBe('0');
    const response = decodeResponseWrapper(message as Uint8Array);
    expect(response.type).toBe('org.acme.User');
    const thrown = hessian.createInput(response.data).readThrowable();
    expect(thrown.name).toBe('org.acme.UserNotFoundException');
    expect(thrown.message).toBe('no user 7');
  });

  it('a void method answers data 4e and type void', async () => {
    const { message } = await javaStyleCall('nothing', [], []);
    const response = decodeResponseWrapper(message as Uint8Array);
    expect(hex(response.data)).toBe('4e');
    expect(response.type).toBe('void');
  });
});

describe('Weft ↔ Weft with Hessian2 inside the wrapper', () => {
  const local = new Harness([...BASE_PACKAGES, '@weft/serialization-hessian2']);
  afterEach(() => local.close());

  async function consumer(serialization = 'hessian2') {
    const app = await local.start('shop');
    return app.refer(Users, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 3000, parameters: { serialization } });
  }

  it('round-trips typed values, collections, POJOs and null', async () => {
    const users = await consumer();
    await expect(users.greet('ann')).resolves.toBe('hello ann');
    await expect(users.add(2, 3)).resolves.toBe(5);
    await expect(users.next(9007199254740993n)).resolves.toBe(9007199254740994n);
    await expect(users.total(new Map([['a', 1], ['b', 2]]))).resolves.toBe(3);
    await expect(users.count(['x', 'y', 'z'])).resolves.toBe(3);
    const renamed = await users.rename(Object.assign(new User(), { id: 5n, name: 'old', age: 41 }), 'new');
    expect(renamed).toBeInstanceOf(User);
    expect(renamed).toMatchObject({ name: 'new', age: 42 });
    expect(BigInt(renamed.id)).toBe(5n);
    await expect(users.nothing()).resolves.toBeUndefined();
  });

  it('rebuilds a declared business error as its class; an undeclared one keeps its Java class name', async () => {
    const users = await consumer();
    const declared = await users.find(3n).then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(declared).toBeInstanceOf(UserNotFound);
    expect(declared?.message).toBe('no user 3');
    const undeclared = await users.crash('boom').then(
      () => undefined,
      (error: unknown) => error as Error,
    );
    expect(undeclared).not.toBeInstanceOf(RpcError);
    expect(undeclared?.message).toBe('crashed: boom');
  });

  it("the same export also answers Weft's JSON consumers (application/grpc+json)", async () => {
    const users = await consumer('json');
    await expect(users.greet('json')).resolves.toBe('hello json');
    const error = await users.find(1).then(
      () => undefined,
      (thrown: unknown) => thrown as Error,
    );
    expect(error).toBeInstanceOf(UserNotFound);
    expect((error as RpcError).code).not.toBe(RpcErrorCode.SERIALIZATION);
  });
});

describe('streams with Hessian2 inside the wrapper (one argument per message)', () => {
  const Ticker = defineService('org.acme.Ticker', {
    countdown: { args: [java.int], returns: User, stream: 'server' },
    sum: { args: [java.long], returns: java.long, stream: 'client' },
    shout: { args: [String], returns: String, stream: 'bidi' },
  });
  const streams = new Harness([...BASE_PACKAGES, '@weft/serialization-hessian2']);
  afterAll(() => streams.close());

  it('server, client and bidi streams round-trip typed messages Weft ↔ Weft', async () => {
    const streamPort = await freePort();
    const provider = await streams.start('ticker');
    await provider.export(
      Ticker,
      {
        async *countdown(from) {
          for (let n = from; n > 0; n--) yield Object.assign(new User(), { id: BigInt(n), name: `n${n}`, age: n });
        },
        async sum(numbers) {
          let total = 0n;
          for await (const n of numbers) total += BigInt(n);
          return total;
        },
        async *shout(words) {
          for await (const word of words) yield `${word.toUpperCase()}!`;
        },
      },
      { protocol: 'tri', port: streamPort, parameters: { serialization: 'hessian2' } },
    );
    const consumer = await streams.start('watcher');
    const ticker = await consumer.refer(Ticker, { url: `tri://127.0.0.1:${streamPort}`, retries: 0, timeout: 5000, parameters: { serialization: 'hessian2' } });
    const ticks: User[] = [];
    for await (const tick of ticker.countdown(3)) ticks.push(tick);
    expect(ticks.map((t) => [t instanceof User, t.name, t.age])).toEqual([
      [true, 'n3', 3],
      [true, 'n2', 2],
      [true, 'n1', 1],
    ]);
    async function* numbers() {
      yield 9007199254740993n;
      yield 7n;
    }
    await expect(ticker.sum(numbers())).resolves.toBe(9007199254741000n);
    async function* words() {
      yield 'hi';
      yield 'there';
    }
    const shouted: string[] = [];
    for await (const word of ticker.shout(words())) shouted.push(word);
    expect(shouted).toEqual(['HI!', 'THERE!']);
  });

  it("a server-stream request lists Java's StreamObserver in argTypes, with the one argument (§A.10)", () => {
    const codec = new WrapperCodec(hessian, new SerializationCodec(new JsonSerialization()));
    const request = decodeRequestWrapper(codec.encodeArguments([3], Ticker.getMethod('countdown')));
    expect(request.argTypes).toEqual(['int', 'org.apache.dubbo.common.stream.StreamObserver']);
    expect(request.args.map(hex)).toEqual(['93']);
    const element = decodeRequestWrapper(codec.encodeArguments([5n], Ticker.getMethod('sum')));
    expect(element.argTypes).toEqual(['long']);
  });
});
