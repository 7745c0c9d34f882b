// A StreamBench server in its own process, for bench/grpc-streaming.mjs: `node stream-server.mjs weft|grpc-js|floor`.
// Prints one JSON line `{"port":N}` when it listens, then serves until SIGTERM (Weft shuts down cleanly first).
// All serve the same prebuilt 1 KiB chunk, so none pays for building messages the others do not. `floor` is no RPC
// stack at all: bare node:http2 with gRPC framing and @bufbuild/protobuf toBinary/fromBinary per message — what any
// gRPC stack on node:http2 must pay (the reference the figures put both stacks against).
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const stack = process.argv[2];
const { freePort } = await import('@weft/test-utils');
const port = await freePort();
let stop;

if (stack === 'weft') {
  const { WeftApplication } = await import('@weft/core');
  const { defineProtoService } = await import('@weft/serialization-protobuf');
  const { createTestApp } = await import('@weft/test-utils');
  const { StreamBench: StreamBenchDesc } = await import('./gen/weft/bench/v1/stream_bench_pb.js');
  const StreamBench = defineProtoService(StreamBenchDesc);
  const testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/serialization-protobuf'], {
    prefix: 'weft-bench-stream-server',
  });
  const silent = { debug() {}, info() {}, warn() {}, error() {} };
  const app = await WeftApplication.start({ root: testApp.root, name: 'bench-stream-provider', logger: silent });
  const chunks = new Map();
  const chunkOf = (size) => {
    let chunk = chunks.get(size);
    if (chunk === undefined) chunks.set(size, (chunk = { data: new Uint8Array(size).fill(7) }));
    return chunk;
  };
  // The default configuration: an async generator out, an async iterable in, no tuning keys.
  await app.export(
    StreamBench,
    {
      async *download(request) {
        const chunk = chunkOf(request.size);
        for (let i = 0; i < request.count; i++) yield chunk;
      },
      async *pingPong(chunks) {
        for await (const chunk of chunks) yield chunk;
      },
    },
    { protocol: 'tri', port },
  );
  stop = async () => {
    await app.shutdown();
    testApp.cleanup();
  };
} else if (stack === 'grpc-js') {
  const grpc = await import('@grpc/grpc-js');
  const protoLoader = await import('@grpc/proto-loader');
  const PROTO = fileURLToPath(new URL('./proto/weft/bench/v1/stream_bench.proto', import.meta.url));
  const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(PROTO, { defaults: true }));
  const server = new grpc.Server();
  const chunks = new Map();
  const chunkOf = (size) => {
    let chunk = chunks.get(size);
    if (chunk === undefined) chunks.set(size, (chunk = { data: Buffer.alloc(size, 7) }));
    return chunk;
  };
  server.addService(loaded.weft.bench.v1.StreamBench.service, {
    // grpc-js's idiomatic writer: write until the stream reports a full buffer, then wait for 'drain'.
    async download(call) {
      const chunk = chunkOf(call.request.size);
      for (let i = 0; i < call.request.count; i++) {
        if (call.cancelled) return;
        if (!call.write(chunk)) await once(call, 'drain');
      }
      call.end();
    },
    pingPong(call) {
      call.on('data', (chunk) => call.write(chunk));
      call.on('end', () => call.end());
    },
  });
  await new Promise((resolve, reject) =>
    server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())),
  );
  stop = () => new Promise((resolve) => server.tryShutdown(resolve));
} else if (stack === 'floor') {
  const http2 = await import('node:http2');
  const { create, fromBinary, toBinary } = await import('@bufbuild/protobuf');
  const { ChunkSchema, DownloadRequestSchema } = await import('./gen/weft/bench/v1/stream_bench_pb.js');
  const { GrpcFrames, frame } = await import('./grpc-frames.mjs');
  const RESPONSE = { ':status': 200, 'content-type': 'application/grpc' };
  const TRAILERS = { 'grpc-status': '0' };
  const chunks = new Map();
  const chunkOf = (size) => {
    let chunk = chunks.get(size);
    if (chunk === undefined) chunks.set(size, (chunk = create(ChunkSchema, { data: new Uint8Array(size).fill(7) })));
    return chunk;
  };
  const server = http2.createServer();
  server.on('stream', (stream, headers) => {
    stream.respond(RESPONSE, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers(TRAILERS));
    if (headers[':path'] === '/weft.bench.v1.StreamBench/PingPong') {
      const frames = new GrpcFrames((message) => stream.write(frame(toBinary(ChunkSchema, fromBinary(ChunkSchema, message)))));
      stream.on('data', (data) => frames.push(data));
      stream.on('end', () => stream.end());
      return;
    }
    let request;
    const frames = new GrpcFrames((message) => (request = fromBinary(DownloadRequestSchema, message)));
    stream.on('data', (data) => frames.push(data));
    stream.on('end', async () => {
      const chunk = chunkOf(request.size);
      for (let i = 0; i < request.count; i++) {
        if (stream.destroyed) return;
        if (!stream.write(frame(toBinary(ChunkSchema, chunk)))) await once(stream, 'drain');
      }
      stream.end();
    });
  });
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  stop = () => new Promise((resolve) => server.close(resolve));
} else {
  console.error(`stream-server.mjs: unknown stack ${JSON.stringify(stack)} (expected weft, grpc-js or floor)`);
  process.exit(2);
}

process.once('SIGTERM', async () => {
  const forced = setTimeout(() => process.exit(0), 2000);
  forced.unref();
  await stop();
  process.exit(0);
});
console.log(JSON.stringify({ port, pid: process.pid }));
