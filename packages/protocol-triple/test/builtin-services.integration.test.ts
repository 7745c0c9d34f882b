// tri's built-in gRPC services against a real @grpc/grpc-js client that loads gRPC's health and reflection .proto
// files with @grpc/proto-loader: grpc.health.v1.Health (Check, List, Watch following export, unexport and graceful
// shutdown), server reflection v1 and v1alpha (every request kind, descriptors with their dependencies), a
// grpcurl-style flow (list → describe → invoke from the reflected descriptors alone), and the `health`/`reflection`
// keys turning them off.
import { fileURLToPath } from 'node:url';

import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { afterEach, describe, expect, it } from 'vitest';

import { defineService, Filter, RpcError, RpcErrorCode, type Invocation, type Invoker, type Result } from '@weft/core';
import { defineProtoService } from '@weft/serialization-protobuf';
import { freePort } from '@weft/test-utils';

import { Catalog as CatalogDesc } from './gen/weft/catalog/v1/catalog_pb.js';
import { BASE_PACKAGES, Greeter, greeterImpl, Harness, waitFor } from './support/harness.js';

const Catalog = defineProtoService(CatalogDesc);
const PROTO_ROOT = fileURLToPath(new URL('../proto', import.meta.url));
const harness = new Harness([...BASE_PACKAGES, '@weft/serialization-protobuf']);
const closers: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await harness.close();
});

const LOAD_OPTIONS: protoLoader.Options = { includeDirs: [PROTO_ROOT], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };
const loaded = grpc.loadPackageDefinition(
  protoLoader.loadSync(['grpc/health/v1/health.proto', 'grpc/reflection/v1/reflection.proto', 'grpc/reflection/v1alpha/reflection.proto'], LOAD_OPTIONS),
) as unknown as {
  grpc: {
    health: { v1: { Health: grpc.ServiceClientConstructor } };
    reflection: { v1: { ServerReflection: grpc.ServiceClientConstructor }; v1alpha: { ServerReflection: grpc.ServiceClientConstructor } };
  };
};

interface HealthReply {
  readonly status: string;
}

const catalogImpl = {
  getItem: (request: { name: string }) => ({ name: request.name, kind: 1 }),
  async *follow(request: { name: string }) {
    yield { name: request.name };
  },
};

/** Rejects every call that reaches the provider chain (the built-ins must never pass it). */
function rejectingFilter(seen: string[]): new () => Filter {
  return class Rejecting extends Filter {
    invoke(_invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
      seen.push(invocation.methodName);
      throw new RpcError(RpcErrorCode.FORBIDDEN, 'the provider chain refuses everything');
    }
  };
}

async function provider(options: { readonly parameters?: Record<string, string>; readonly reject?: string[] } = {}) {
  const port = await freePort();
  const app = await harness.start('builtin-provider');
  if (options.reject !== undefined) app.model.getExtensionLoader(Filter).addExtension('rejecting', rejectingFilter(options.reject), { activate: { group: 'provider' } });
  const catalog = await app.export(Catalog, catalogImpl, { protocol: 'tri', port, parameters: options.parameters });
  const greeter = await app.export(Greeter, greeterImpl(), { protocol: 'tri', port, version: '2.0.0', parameters: options.parameters });
  return { app, port, catalog, greeter };
}

function client<T extends grpc.Client>(Ctor: grpc.ServiceClientConstructor, port: number): T {
  const c = new Ctor(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as unknown as T;
  closers.push(() => c.close());
  return c;
}

type HealthClient = grpc.Client & {
  Check(request: { service: string }, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, reply: HealthReply) => void): grpc.ClientUnaryCall;
  List(request: object, options: grpc.CallOptions, callback: (error: grpc.ServiceError | null, reply: { statuses: Record<string, HealthReply> }) => void): grpc.ClientUnaryCall;
  Watch(request: { service: string }): grpc.ClientReadableStream<HealthReply>;
};

function check(health: HealthClient, service: string): Promise<HealthReply> {
  return new Promise((resolve, reject) => health.Check({ service }, { deadline: Date.now() + 3000 }, (error, reply) => (error ? reject(error) : resolve(reply))));
}

async function checkError(health: HealthClient, service: string): Promise<grpc.ServiceError> {
  try {
    await check(health, service);
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error(`Check(${service}) succeeded`);
}

/** A Watch stream, recording the statuses and the final status. */
function watch(health: HealthClient, service: string) {
  const statuses: string[] = [];
  let final: grpc.StatusObject | undefined;
  const call = health.Watch({ service });
  call.on('data', (reply: HealthReply) => statuses.push(reply.status));
  call.on('error', () => undefined);
  call.on('status', (status: grpc.StatusObject) => (final = status));
  closers.push(() => call.cancel());
  return { statuses, final: () => final, call };
}

interface ReflectionReply {
  readonly valid_host: string;
  readonly original_request: Record<string, unknown>;
  readonly message_response: string;
  readonly file_descriptor_response?: { file_descriptor_proto: Buffer[] };
  readonly list_services_response?: { service: { name: string }[] };
  readonly all_extension_numbers_response?: { base_type_name: string; extension_number: number[] };
  readonly error_response?: { error_code: number; error_message: string };
}

/** One reflection stream: send a request, await its response (in order). */
function reflection(port: number, version: 'v1' | 'v1alpha' = 'v1') {
  const c = client<grpc.Client & { ServerReflectionInfo(): grpc.ClientDuplexStream<object, ReflectionReply> }>(loaded.grpc.reflection[version].ServerReflection, port);
  const stream = c.ServerReflectionInfo();
  const waiting: { resolve: (reply: ReflectionReply) => void; reject: (error: Error) => void }[] = [];
  let failure: Error | undefined;
  stream.on('data', (reply: ReflectionReply) => waiting.shift()?.resolve(reply));
  stream.on('error', (error: Error) => {
    failure = error;
    for (const waiter of waiting.splice(0)) waiter.reject(error);
  });
  closers.push(() => stream.cancel());
  return {
    ask(request: object): Promise<ReflectionReply> {
      if (failure !== undefined) return Promise.reject(failure);
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        stream.write({ host: 'localhost', ...request });
      });
    },
    end: () => stream.end(),
    stream,
  };
}

function decodeFiles(reply: ReflectionReply): FileDescriptorProto[] {
  expect(reply.message_response).toBe('file_descriptor_response');
  return (reply.file_descriptor_response?.file_descriptor_proto ?? []).map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes));
}

describe('grpc.health.v1.Health (grpc-js client on the published health.proto)', () => {
  it('Check: the server ("") and each exported service by key and interface name are SERVING; unknown → NOT_FOUND; never through the filter chain', async () => {
    const rejected: string[] = [];
    const { port } = await provider({ reject: rejected });
    const health = client<HealthClient>(loaded.grpc.health.v1.Health, port);
    expect(await check(health, '')).toEqual({ status: 'SERVING' });
    expect(await check(health, 'weft.catalog.v1.Catalog')).toEqual({ status: 'SERVING' });
    expect(await check(health, 'org.acme.Greeter')).toEqual({ status: 'SERVING' });
    expect(await check(health, 'org.acme.Greeter:2.0.0')).toEqual({ status: 'SERVING' });
    const unknown = await checkError(health, 'org.acme.Nope');
    expect(unknown.code).toBe(grpc.status.NOT_FOUND);
    expect(unknown.details).toContain('Unknown service "org.acme.Nope"');
    expect(unknown.details).toContain('org.acme.Greeter:2.0.0');
    // The provider chain refuses every call of the exported services, and never saw the health checks.
    expect(rejected).toEqual([]);
    const raw = client<grpc.Client>(grpc.makeGenericClientConstructor({}, 'Raw'), port);
    const refused = await new Promise<grpc.ServiceError | null>((resolve) =>
      raw.makeUnaryRequest('/weft.catalog.v1.Catalog/GetItem', (b: Buffer) => b, (b: Buffer) => b, Buffer.alloc(0), (error) => resolve(error)),
    );
    expect(refused?.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(rejected).toEqual(['getItem']);
    const list = await new Promise<{ statuses: Record<string, HealthReply> }>((resolve, reject) =>
      health.List({}, { deadline: Date.now() + 3000 }, (error, reply) => (error ? reject(error) : resolve(reply))),
    );
    expect(list.statuses).toEqual({
      '': { status: 'SERVING' },
      'weft.catalog.v1.Catalog': { status: 'SERVING' },
      'org.acme.Greeter:2.0.0': { status: 'SERVING' },
      'org.acme.Greeter': { status: 'SERVING' },
    });
  });

  it('Watch: the current status at once, NOT_SERVING on unexport, SERVING again on re-export; an unknown service gets SERVICE_UNKNOWN and stays watched', async () => {
    const { app, port, catalog } = await provider();
    const health = client<HealthClient>(loaded.grpc.health.v1.Health, port);
    const watched = watch(health, 'weft.catalog.v1.Catalog');
    const later = watch(health, 'weft.catalog.v1.Catalog:9.0.0');
    await waitFor(() => watched.statuses.length === 1 && later.statuses.length === 1, 5000, 'the first statuses');
    expect(watched.statuses).toEqual(['SERVING']);
    expect(later.statuses).toEqual(['SERVICE_UNKNOWN']);
    await catalog.unexport();
    await waitFor(() => watched.statuses.length === 2, 5000, 'NOT_SERVING');
    expect(watched.statuses).toEqual(['SERVING', 'NOT_SERVING']);
    expect(await check(health, 'weft.catalog.v1.Catalog')).toEqual({ status: 'NOT_SERVING' });
    // The server stays up (the Greeter is still exported), and a later export is seen by both watches.
    expect(await check(health, '')).toEqual({ status: 'SERVING' });
    await app.export(Catalog, catalogImpl, { protocol: 'tri', port, version: '9.0.0' });
    await waitFor(() => watched.statuses.length === 3 && later.statuses.length === 2, 5000, 'SERVING again');
    expect(watched.statuses).toEqual(['SERVING', 'NOT_SERVING', 'SERVING']);
    expect(later.statuses).toEqual(['SERVICE_UNKNOWN', 'SERVING']);
    expect(watched.final()).toBeUndefined();
  });

  it('an interface name stays SERVING while another version of it is exported', async () => {
    const { app, port, greeter } = await provider();
    const second = await app.export(Greeter, greeterImpl(), { protocol: 'tri', port, version: '3.0.0' });
    const health = client<HealthClient>(loaded.grpc.health.v1.Health, port);
    await greeter.unexport();
    expect(await check(health, 'org.acme.Greeter:2.0.0')).toEqual({ status: 'NOT_SERVING' });
    expect(await check(health, 'org.acme.Greeter')).toEqual({ status: 'SERVING' });
    await second.unexport();
    expect(await check(health, 'org.acme.Greeter')).toEqual({ status: 'NOT_SERVING' });
  });

  it('graceful shutdown: NOT_SERVING reaches the watches at once, while a call in flight still drains; they end UNAVAILABLE', async () => {
    const { app, port } = await provider();
    const health = client<HealthClient>(loaded.grpc.health.v1.Health, port);
    const server = watch(health, '');
    await waitFor(() => server.statuses.length === 1, 5000, 'the first status');
    const json = (value: unknown) => Buffer.from(JSON.stringify(value));
    const raw = client<grpc.Client>(grpc.makeGenericClientConstructor({}, 'Raw'), port);
    const call = new Promise<{ error: grpc.ServiceError | null; value: unknown }>((resolve) =>
      raw.makeUnaryRequest('/org.acme.Greeter/sleep', json, (b: Buffer) => JSON.parse(b.toString('utf8')) as unknown, [600], (error, value) => resolve({ error, value })),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    const shutdown = app.shutdown({ timeout: 5000 });
    let drained = false;
    void call.then(() => (drained = true));
    await waitFor(() => server.statuses.length === 2, 400, 'NOT_SERVING while the call drains');
    expect(server.statuses).toEqual(['SERVING', 'NOT_SERVING']);
    expect(drained).toBe(false);
    expect(await call).toEqual({ error: null, value: 600 });
    await shutdown;
    await waitFor(() => server.final() !== undefined, 5000, 'the watch to end');
    expect(server.final()?.code).toBe(grpc.status.UNAVAILABLE);
  });

  it('graceful shutdown: every Watch receives NOT_SERVING, then the stream ends UNAVAILABLE', async () => {
    const { app, port } = await provider();
    const health = client<HealthClient>(loaded.grpc.health.v1.Health, port);
    const server = watch(health, '');
    const catalog = watch(health, 'weft.catalog.v1.Catalog');
    await waitFor(() => server.statuses.length === 1 && catalog.statuses.length === 1, 5000, 'the first statuses');
    const started = Date.now();
    await app.shutdown({ timeout: 5000 });
    await waitFor(() => server.final() !== undefined && catalog.final() !== undefined, 5000, 'the watches to end');
    expect(server.statuses).toEqual(['SERVING', 'NOT_SERVING']);
    expect(catalog.statuses).toEqual(['SERVING', 'NOT_SERVING']);
    expect(server.final()?.code).toBe(grpc.status.UNAVAILABLE);
    expect(server.final()?.details).toContain('shutting down');
    // The open watches did not hold the shutdown for its timeout.
    expect(Date.now() - started).toBeLessThan(4000);
  });
});

describe('server reflection (grpc-js client on the published reflection.proto)', () => {
  it('list_services names the .proto services and the built-ins, not JSON services', async () => {
    const { port } = await provider();
    for (const version of ['v1', 'v1alpha'] as const) {
      const r = reflection(port, version);
      const reply = await r.ask({ list_services: '' });
      expect(reply.message_response).toBe('list_services_response');
      expect(reply.valid_host).toBe('localhost');
      expect(reply.list_services_response?.service.map((s) => s.name)).toEqual([
        'grpc.health.v1.Health',
        'grpc.reflection.v1.ServerReflection',
        'grpc.reflection.v1alpha.ServerReflection',
        'weft.catalog.v1.Catalog',
      ]);
      const files = decodeFiles(await r.ask({ file_containing_symbol: 'weft.catalog.v1.Catalog.Follow' }));
      expect(files[0]?.service[0]?.method.map((m) => m.name)).toEqual(['GetItem', 'Follow']);
    }
  });

  it('file_containing_symbol, file_by_filename and the extension requests answer FileDescriptorProtos with their dependencies', async () => {
    const rejected: string[] = [];
    const { port } = await provider({ reject: rejected });
    const r = reflection(port);

    const bySymbol = decodeFiles(await r.ask({ file_containing_symbol: 'weft.catalog.v1.Catalog' }));
    expect(bySymbol.map((f) => f.name)).toEqual([
      'weft/catalog/v1/catalog.proto',
      'weft/catalog/v1/types.proto',
      'google/protobuf/descriptor.proto',
      'google/protobuf/timestamp.proto',
    ]);
    const service = bySymbol[0]?.service[0];
    expect(service?.name).toBe('Catalog');
    expect(service?.method.map((m) => [m.name, m.inputType, m.outputType, m.serverStreaming])).toEqual([
      ['GetItem', '.weft.catalog.v1.GetItemRequest', '.weft.catalog.v1.Item', false],
      ['Follow', '.weft.catalog.v1.GetItemRequest', '.weft.catalog.v1.Item', true],
    ]);
    expect(bySymbol[0]?.dependency).toEqual(['weft/catalog/v1/types.proto']);

    // Methods, messages, nested enums and fields are symbols too.
    for (const symbol of ['weft.catalog.v1.Catalog.GetItem', 'weft.catalog.v1.Item', 'weft.catalog.v1.Item.Kind', '.weft.catalog.v1.Item.added']) {
      expect(decodeFiles(await r.ask({ file_containing_symbol: symbol }))[0]?.name).toBe(symbol.includes('Catalog') ? 'weft/catalog/v1/catalog.proto' : 'weft/catalog/v1/types.proto');
    }
    const timestamp = decodeFiles(await r.ask({ file_by_filename: 'google/protobuf/timestamp.proto' }));
    expect(timestamp.map((f) => f.name)).toEqual(['google/protobuf/timestamp.proto']);
    expect(timestamp[0]?.messageType.map((m) => m.name)).toEqual(['Timestamp']);
    const types = decodeFiles(await r.ask({ file_by_filename: 'weft/catalog/v1/types.proto' }));
    expect(types[0]?.messageType.map((m) => m.name)).toEqual(['Item', 'GetItemRequest']);
    expect(types[0]?.extension.map((e) => [e.name, e.number, e.extendee])).toEqual([['audit', 50001, '.google.protobuf.MethodOptions']]);

    const byExtension = decodeFiles(await r.ask({ file_containing_extension: { containing_type: 'google.protobuf.MethodOptions', extension_number: 50001 } }));
    expect(byExtension[0]?.name).toBe('weft/catalog/v1/types.proto');
    const numbers = await r.ask({ all_extension_numbers_of_type: 'google.protobuf.MethodOptions' });
    expect(numbers.all_extension_numbers_response).toEqual({ base_type_name: 'google.protobuf.MethodOptions', extension_number: [50001] });
    const none = await r.ask({ all_extension_numbers_of_type: 'weft.catalog.v1.Item' });
    expect(none.all_extension_numbers_response).toEqual({ base_type_name: 'weft.catalog.v1.Item', extension_number: [] });

    // The built-ins describe themselves.
    expect(decodeFiles(await r.ask({ file_containing_symbol: 'grpc.health.v1.Health' }))[0]?.name).toBe('grpc/health/v1/health.proto');
    expect(rejected).toEqual([]);
  });

  it('answers NOT_FOUND (an error_response, the stream goes on) for unknown files, symbols, extensions and types', async () => {
    const { port } = await provider();
    const r = reflection(port);
    const cases: [object, string][] = [
      [{ file_containing_symbol: 'weft.catalog.v1.Catalg' }, 'Did you mean "weft.catalog.v1.Catalog"?'],
      [{ file_containing_symbol: 'org.acme.Greeter' }, 'only services defined from a .proto are described'],
      [{ file_by_filename: 'weft/catalog/v1/nope.proto' }, 'File "weft/catalog/v1/nope.proto" not found'],
      [{ file_containing_extension: { containing_type: 'google.protobuf.MethodOptions', extension_number: 7 } }, 'Extension 7 of "google.protobuf.MethodOptions" not found'],
      [{ all_extension_numbers_of_type: 'weft.catalog.v1.Nope' }, 'Type "weft.catalog.v1.Nope" not found'],
    ];
    for (const [request, message] of cases) {
      const reply = await r.ask(request);
      expect(reply.message_response).toBe('error_response');
      expect(reply.error_response?.error_code).toBe(grpc.status.NOT_FOUND);
      expect(reply.error_response?.error_message).toContain(message);
      expect(reply.original_request).toMatchObject(request);
    }
    const empty = await r.ask({});
    expect(empty.error_response?.error_code).toBe(grpc.status.INVALID_ARGUMENT);
    // Still answering after the errors.
    expect((await r.ask({ list_services: '*' })).list_services_response?.service.length).toBe(4);
  });

  it('a grpcurl-style flow: list, describe by symbol, then invoke from the reflected descriptors alone', async () => {
    const { port } = await provider();
    const r = reflection(port);
    const services = (await r.ask({ list_services: '' })).list_services_response?.service.map((s) => s.name) ?? [];
    expect(services).toContain('weft.catalog.v1.Catalog');
    const reply = await r.ask({ file_containing_symbol: 'weft.catalog.v1.Catalog' });
    r.end();
    // A FileDescriptorSet (field 1, repeated FileDescriptorProto) of what reflection sent, loaded by proto-loader:
    // nothing of the Catalog's .proto or generated code is used on this side.
    const set = Buffer.concat(
      (reply.file_descriptor_response?.file_descriptor_proto ?? []).flatMap((bytes) => [Buffer.from([0x0a]), varint(bytes.length), bytes]),
    );
    const definition = protoLoader.loadFileDescriptorSetFromBuffer(set, { keepCase: true, defaults: true, enums: String });
    const method = (definition['weft.catalog.v1.Catalog'] as protoLoader.ServiceDefinition).GetItem;
    expect([method?.path, method?.requestStream, method?.responseStream]).toEqual(['/weft.catalog.v1.Catalog/GetItem', false, false]);
    const CatalogClient = grpc.makeClientConstructor(definition['weft.catalog.v1.Catalog'] as grpc.ServiceDefinition, 'Catalog');
    const catalog = client<grpc.Client & { GetItem(request: object, callback: (error: grpc.ServiceError | null, reply: object) => void): void }>(CatalogClient, port);
    const item = await new Promise((resolve, reject) => catalog.GetItem({ name: 'dune' }, (error, value) => (error ? reject(error) : resolve(value))));
    expect(item).toMatchObject({ name: 'dune', kind: 'KIND_BOOK' });
  });
});

describe('the health and reflection keys', () => {
  it('an exported service of the same name wins over the built-in', async () => {
    const port = await freePort();
    const app = await harness.start('own-health');
    const OwnHealth = defineService('grpc.health.v1.Health', { check: { args: [Object], returns: String } });
    await app.export(OwnHealth, { check: () => 'my own health' }, { protocol: 'tri', port });
    const raw = client<grpc.Client>(grpc.makeGenericClientConstructor({}, 'Raw'), port);
    const answer = await new Promise<unknown>((resolve, reject) =>
      raw.makeUnaryRequest(
        '/grpc.health.v1.Health/Check',
        (value: unknown) => Buffer.from(JSON.stringify(value)),
        (b: Buffer) => JSON.parse(b.toString('utf8')) as unknown,
        [{}],
        (error, value) => (error ? reject(error) : resolve(value)),
      ),
    );
    expect(answer).toBe('my own health');
  });

  it('health=false and reflection=false turn the built-ins off (UNIMPLEMENTED); user services still answer', async () => {
    const { port } = await provider({ parameters: { health: 'false', reflection: 'false' } });
    const health = client<HealthClient>(loaded.grpc.health.v1.Health, port);
    const error = await checkError(health, '');
    expect(error.code).toBe(grpc.status.UNIMPLEMENTED);
    expect(error.details).toContain('no service grpc.health.v1.Health is exported');
    const r = reflection(port);
    const failed = await r.ask({ list_services: '' }).then(
      () => undefined,
      (e: grpc.ServiceError) => e,
    );
    expect(failed?.code).toBe(grpc.status.UNIMPLEMENTED);
  });

  it('reflection=false leaves health on, and the other way round', async () => {
    const { port } = await provider({ parameters: { reflection: 'false' } });
    const health = client<HealthClient>(loaded.grpc.health.v1.Health, port);
    expect(await check(health, '')).toEqual({ status: 'SERVING' });
    const failed = await reflection(port).ask({ list_services: '' }).then(
      () => undefined,
      (e: grpc.ServiceError) => e,
    );
    expect(failed?.code).toBe(grpc.status.UNIMPLEMENTED);
    await harness.close();
    const second = await provider({ parameters: { health: 'false' } });
    const services = (await reflection(second.port).ask({ list_services: '' })).list_services_response?.service.map((s) => s.name);
    expect(services).toEqual(['grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection', 'weft.catalog.v1.Catalog']);
    const off = await checkError(client<HealthClient>(loaded.grpc.health.v1.Health, second.port), '');
    expect(off.code).toBe(grpc.status.UNIMPLEMENTED);
  });
});

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return Buffer.from(out);
}
