// @grpc/grpc-js peers for the interop tests: services loaded from the real .proto files with @grpc/proto-loader,
// servers and clients stopped by the Harness, and readers of a call's whole outcome (messages, headers, status).
import { fileURLToPath } from 'node:url';

import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { freePort } from '@weft/test-utils';

import type { Harness } from './harness.js';

/** tri's default `payload` limit (8 MiB). */
export const LIMIT = 8 << 20;

/** Message size limits the grpc-js peers use, above tri's, so that tri's own limit is the one tested. */
const PEER_LIMITS = { 'grpc.max_receive_message_length': 16 << 20, 'grpc.max_send_message_length': 16 << 20 };

/**
 * A service of `test/proto/weft/interop/v1/<file>.proto` as @grpc/proto-loader loads it (int64 as strings, defaults
 * filled in, camelCase field names).
 */
export function loadService(file: 'interop' | 'streaming', name: 'Interop' | 'Streamer'): grpc.ServiceClientConstructor {
  const path = fileURLToPath(new URL(`../proto/weft/interop/v1/${file}.proto`, import.meta.url));
  const definition = protoLoader.loadSync(path, { longs: String, defaults: true, keepCase: false });
  const loaded = grpc.loadPackageDefinition(definition) as unknown as { weft: { interop: { v1: Record<string, grpc.ServiceClientConstructor> } } };
  return loaded.weft.interop.v1[name] as grpc.ServiceClientConstructor;
}

/** Starts a grpc-js server on a free loopback port with one service; the harness shuts it down. */
export async function startGrpcJsServer(
  harness: Harness,
  service: grpc.ServiceDefinition,
  handlers: grpc.UntypedServiceImplementation,
): Promise<number> {
  const server = new grpc.Server(PEER_LIMITS);
  server.addService(service, handlers);
  const port = await freePort();
  await new Promise<void>((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())),
  );
  harness.onClose(() => server.forceShutdown());
  return port;
}

/** A grpc-js client of `127.0.0.1:port` (a generated stub constructor, or the generic `grpc.Client`); the harness closes it. */
export function grpcJsClient<T extends grpc.Client = grpc.Client>(
  harness: Harness,
  port: number,
  Client: typeof grpc.Client = grpc.Client,
  options: grpc.ClientOptions = {},
): T {
  const client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure(), { ...PEER_LIMITS, ...options });
  harness.onClose(() => client.close());
  return client as T;
}

/** What a grpc-js unary (or client-streaming) call produced: its value or error, response headers and status. */
export interface UnaryOutcome<T> {
  readonly value: T | undefined;
  readonly error: grpc.ServiceError | null;
  readonly headers: grpc.Metadata | undefined;
  readonly status: grpc.StatusObject;
}

/** Runs a call that answers once (`start` passes the callback on to grpc-js) to its status. */
export function unaryOutcome<T>(
  start: (callback: (error: grpc.ServiceError | null, value?: T) => void) => grpc.ClientUnaryCall | grpc.ClientWritableStream<unknown>,
): Promise<UnaryOutcome<T>> {
  return new Promise((resolve) => {
    let headers: grpc.Metadata | undefined;
    let settled: { value: T | undefined; error: grpc.ServiceError | null } | undefined;
    let status: grpc.StatusObject | undefined;
    const finish = () => {
      if (settled !== undefined && status !== undefined) resolve({ ...settled, headers, status });
    };
    const call = start((error, value) => {
      settled = { value, error };
      finish();
    });
    call.on('metadata', (md: grpc.Metadata) => (headers = md));
    call.on('status', (s: grpc.StatusObject) => {
      status = s;
      finish();
    });
  });
}

/** What a grpc-js response stream produced, read to its status. */
export interface StreamOutcome<T> {
  readonly messages: T[];
  /** The error it ended with (none for OK). */
  readonly error: grpc.ServiceError | undefined;
  readonly headers: grpc.Metadata | undefined;
  readonly status: grpc.StatusObject;
}

/** Reads a grpc-js response stream (server-streaming or bidi) to its status. */
export function readAll<T>(stream: grpc.ClientReadableStream<T> | grpc.ClientDuplexStream<object, T>): Promise<StreamOutcome<T>> {
  return new Promise((resolve) => {
    const messages: T[] = [];
    let error: grpc.ServiceError | undefined;
    let headers: grpc.Metadata | undefined;
    stream.on('metadata', (md: grpc.Metadata) => (headers = md));
    stream.on('data', (message: T) => messages.push(message));
    stream.on('error', (e: grpc.ServiceError) => (error = e));
    stream.on('status', (status: grpc.StatusObject) =>
      setImmediate(() => resolve({ messages, error: status.code === grpc.status.OK ? undefined : error, headers, status })),
    );
  });
}
