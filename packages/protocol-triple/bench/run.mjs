// Benchmark of @weft/protocol-triple: unary echo throughput over 127.0.0.1 with 64 calls in flight, first with JSON
// messages, then with protobuf (an IDL service of @weft/serialization-protobuf against grpc-js with proto-loader).
// Run: `node packages/protocol-triple/bench/run.mjs` (needs a built dist/), or `npm run bench` at the root.
//
//   floor    a bare node:http2 echo server + client with gRPC framing: the client frames JSON.stringify(payload),
//            the server reads the frame, JSON.parse + JSON.stringify, answers HEADERS + DATA + trailers
//            (grpc-status 0), the client parses the frame. No RPC framework at all: what any gRPC stack must pay.
//   grpc-js  @grpc/grpc-js client + server with JSON (de)serializers on the same payload.
//   weft tri a Weft consumer proxy (failover cluster, consumer chain) → tri → provider (chain, implementation),
//            the payload declared as `Object` so it is realised on both sides.
//
// All three run in this process, one after another in interleaved rounds, so a busy machine slows them alike.
// grpc-js runs last in every round and floor and weft take turns going first: switching stacks leaves garbage and
// deoptimised shared node:http2 code behind, and grpc-js in particular slows whatever runs right after it, so each
// of the two pays for that equally often. Each measurement first runs SETTLE_MS unmeasured, then keeps 64 calls in
// flight for ROUND_MS and reports ns per completed call. No forced GC between rounds: a full GC shrinks the young
// generation, and the stacks that allocate more per call (grpc-js most) would then pay for regrowing it in every
// short round — steady-state throughput is what is compared. The table shows the median over rounds and the ratio to the floor (cost: lower is better); the "Figures"
// block gives throughput ratios (higher is better): the target is weft ≥ 0.8× the floor, about 2× grpc-js.
import http2 from 'node:http2';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';

import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { defineService, WeftApplication } from '@weft/core';
import { defineProtoService } from '@weft/serialization-protobuf';
import { createTestApp, freePort } from '@weft/test-utils';

import { formatRatio, printTable, summarize } from '../../core/bench/harness.mjs';
import { EchoReplySchema, EchoRequestSchema, Interop as InteropDesc } from './gen/weft/interop/v1/interop_pb.js';

const CONCURRENCY = 64;
const ROUND_MS = 400;
const ROUNDS = 10;
const WARMUP_MS = 1500;
/** Unmeasured lead-in of every round: the variant does not pay for the previous one's garbage and deoptimisations. */
const SETTLE_MS = 150;

const payload = { name: 'weft', id: 42, tags: ['alpha', 'beta', 'gamma'], nested: { x: 1.5, y: 'hello world', ok: true } };
const expected = JSON.stringify(payload);

console.log('\n══ @weft/protocol-triple — unary echo, 64 in flight ══');
console.log(`node ${process.version}, ${process.platform}/${process.arch}, ${cpus().length} CPUs, load average ${loadavg()[0].toFixed(2)}`);

// ---------------------------------------------------------------------------------------------------------------
// Floor: bare node:http2 with gRPC framing

function frame(buffer) {
  const out = Buffer.allocUnsafe(5 + buffer.length);
  out[0] = 0;
  out.writeUInt32BE(buffer.length, 1);
  buffer.copy(out, 5);
  return out;
}

const FLOOR_RESPONSE = { ':status': 200, 'content-type': 'application/grpc+json' };
const FLOOR_TRAILERS = { 'grpc-status': '0' };
const floorServer = http2.createServer();
floorServer.on('stream', (stream) => {
  const chunks = [];
  stream.on('data', (chunk) => chunks.push(chunk));
  stream.on('end', () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const value = JSON.parse(body.subarray(5).toString('utf8'));
    stream.respond(FLOOR_RESPONSE, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers(FLOOR_TRAILERS));
    stream.end(frame(Buffer.from(JSON.stringify(value))));
  });
});
const floorPort = await freePort();
await new Promise((resolve) => floorServer.listen(floorPort, '127.0.0.1', resolve));
const floorSession = http2.connect(`http://127.0.0.1:${floorPort}`);
await new Promise((resolve) => floorSession.once('connect', resolve));
const FLOOR_REQUEST = {
  ':method': 'POST',
  ':path': '/bench.Echo/echo',
  'content-type': 'application/grpc+json',
  te: 'trailers',
};
function floorCall() {
  return new Promise((resolve, reject) => {
    const stream = floorSession.request(FLOOR_REQUEST);
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('trailers', () => {});
    stream.on('error', reject);
    stream.on('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      resolve(JSON.parse(body.subarray(5).toString('utf8')));
    });
    stream.end(frame(Buffer.from(JSON.stringify(payload))));
  });
}

// ---------------------------------------------------------------------------------------------------------------
// @grpc/grpc-js with JSON serializers

const jsonSerialize = (value) => Buffer.from(JSON.stringify(value));
const jsonDeserialize = (bytes) => JSON.parse(bytes.toString('utf8'));
const grpcDefinition = {
  echo: {
    path: '/bench.Echo/echo',
    requestStream: false,
    responseStream: false,
    requestSerialize: jsonSerialize,
    requestDeserialize: jsonDeserialize,
    responseSerialize: jsonSerialize,
    responseDeserialize: jsonDeserialize,
  },
};
const grpcServer = new grpc.Server();
grpcServer.addService(grpcDefinition, { echo: (call, callback) => callback(null, call.request) });
const grpcPort = await freePort();
await new Promise((resolve, reject) =>
  grpcServer.bindAsync(`127.0.0.1:${grpcPort}`, grpc.ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())),
);
const GrpcClient = grpc.makeGenericClientConstructor(grpcDefinition, 'Echo');
const grpcClient = new GrpcClient(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
function grpcCall() {
  return new Promise((resolve, reject) => grpcClient.echo(payload, (error, value) => (error ? reject(error) : resolve(value))));
}

// ---------------------------------------------------------------------------------------------------------------
// Weft tri

const Echo = defineService('bench.Echo', { echo: { args: [Object], returns: Object } });
const testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/serialization-protobuf'], { prefix: 'weft-bench-tri' });
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const provider = await WeftApplication.start({ root: testApp.root, name: 'bench-provider', logger: silent });
const triPort = await freePort();
await provider.export(Echo, { echo: (value) => value }, { protocol: 'tri', port: triPort });
const consumer = await WeftApplication.start({ root: testApp.root, name: 'bench-consumer', logger: silent });
const echo = await consumer.refer(Echo, { url: `tri://127.0.0.1:${triPort}`, timeout: 5000 });
const weftCall = () => echo.echo(payload);

// ---------------------------------------------------------------------------------------------------------------
// Measurement

/** Keeps CONCURRENCY calls in flight for `ms`; returns ns per completed call. */
async function round(call, ms) {
  let completed = 0;
  const start = process.hrtime.bigint();
  const end = Date.now() + ms;
  const worker = async () => {
    while (Date.now() < end) {
      await call();
      completed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return Number(process.hrtime.bigint() - start) / completed;
}

/** Measures [floor, grpc-js, weft] in interleaved rounds and prints the table and the throughput ratios. */
async function measure(title, variants) {
  for (const variant of variants) await round(variant.call, WARMUP_MS);
  const [floorVariant, grpcVariant, weftVariant] = variants;
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [floorVariant, weftVariant, grpcVariant] : [weftVariant, floorVariant, grpcVariant];
    for (const variant of order) {
      await round(variant.call, SETTLE_MS);
      variant.samples.push(await round(variant.call, ROUND_MS));
    }
  }
  const rows = variants.map((v) => summarize(v.name, v.samples, 1));
  printTable(`${title}, ${CONCURRENCY} calls in flight, ${ROUNDS} interleaved rounds of ${ROUND_MS} ms`, rows, {
    baseline: variants[0].name,
  });
  const [floorRow, grpcRow, weftRow] = rows;
  const throughput = (row) => `${Math.round(row.opsPerSec).toLocaleString('en-US')} calls/s`;
  const figures = [
    ['floor throughput', throughput(floorRow)],
    ['grpc-js throughput', throughput(grpcRow)],
    ['weft tri throughput', throughput(weftRow)],
    ['weft tri ÷ floor (throughput, target ≥ 0.8×)', formatRatio(floorRow.nsPerOp / weftRow.nsPerOp)],
    ['weft tri ÷ grpc-js (throughput, target ≥ 2×)', formatRatio(grpcRow.nsPerOp / weftRow.nsPerOp)],
    ['grpc-js ÷ floor (throughput)', formatRatio(floorRow.nsPerOp / grpcRow.nsPerOp)],
  ];
  console.log('\nFigures:');
  const labelWidth = Math.max(...figures.map(([label]) => label.length));
  for (const [label, value] of figures) console.log(`  ${`${label}:`.padEnd(labelWidth + 1)}  ${value}`);
}

const jsonVariants = [
  { name: 'floor: node:http2 + gRPC framing', call: floorCall, samples: [] },
  { name: '@grpc/grpc-js client + server', call: grpcCall, samples: [] },
  { name: 'weft tri: proxy → provider', call: weftCall, samples: [] },
];
for (const variant of jsonVariants) {
  const answer = await variant.call();
  if (JSON.stringify(answer) !== expected) throw new Error(`${variant.name} answered ${JSON.stringify(answer)}`);
}
await measure('unary echo (JSON)', jsonVariants);

// ---------------------------------------------------------------------------------------------------------------
// Protobuf unary echo: weft.interop.v1.Interop/Echo (the interop tests' .proto), the same message for all three.
//
//   floor    node:http2 + gRPC framing, @bufbuild/protobuf fromBinary/toBinary on both sides
//   grpc-js  @grpc/grpc-js client + server, the .proto loaded with @grpc/proto-loader (protobufjs)
//   weft tri a defineProtoService() proxy → tri → provider, @weft/serialization-protobuf

console.log('\n── protobuf unary echo (weft.interop.v1.Interop/Echo) ──');
const protoRequest = { text: 'weft', payload: new Uint8Array(32).fill(7), big: 42n, labels: { alpha: 'beta', gamma: 'delta' } };
const protoRequestMessage = create(EchoRequestSchema, protoRequest);
const replyOf = (r) => ({ text: r.text, payload: r.payload, big: r.big, labels: r.labels });

const PROTO_FLOOR_RESPONSE = { ':status': 200, 'content-type': 'application/grpc' };
const protoFloorServer = http2.createServer();
protoFloorServer.on('stream', (stream) => {
  const chunks = [];
  stream.on('data', (chunk) => chunks.push(chunk));
  stream.on('end', () => {
    const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    const request = fromBinary(EchoRequestSchema, body.subarray(5));
    stream.respond(PROTO_FLOOR_RESPONSE, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers(FLOOR_TRAILERS));
    stream.end(frame(Buffer.from(toBinary(EchoReplySchema, create(EchoReplySchema, replyOf(request))))));
  });
});
const protoFloorPort = await freePort();
await new Promise((resolve) => protoFloorServer.listen(protoFloorPort, '127.0.0.1', resolve));
const protoFloorSession = http2.connect(`http://127.0.0.1:${protoFloorPort}`);
await new Promise((resolve) => protoFloorSession.once('connect', resolve));
const PROTO_FLOOR_REQUEST = { ':method': 'POST', ':path': '/weft.interop.v1.Interop/Echo', 'content-type': 'application/grpc', te: 'trailers' };
function protoFloorCall() {
  return new Promise((resolve, reject) => {
    const stream = protoFloorSession.request(PROTO_FLOOR_REQUEST);
    const chunks = [];
    stream.on('data', (chunk) => chunks.push(chunk));
    stream.on('trailers', () => {});
    stream.on('error', reject);
    stream.on('end', () => {
      const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      resolve(fromBinary(EchoReplySchema, body.subarray(5)));
    });
    stream.end(frame(Buffer.from(toBinary(EchoRequestSchema, create(EchoRequestSchema, protoRequest)))));
  });
}

const PROTO = fileURLToPath(new URL('../test/proto/weft/interop/v1/interop.proto', import.meta.url));
const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(PROTO, { longs: String, defaults: true }));
const InteropClient = loaded.weft.interop.v1.Interop;
const protoGrpcServer = new grpc.Server();
protoGrpcServer.addService(InteropClient.service, {
  echo: (call, callback) => callback(null, replyOf(call.request)),
});
const protoGrpcPort = await freePort();
await new Promise((resolve, reject) =>
  protoGrpcServer.bindAsync(`127.0.0.1:${protoGrpcPort}`, grpc.ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())),
);
const protoGrpcClient = new InteropClient(`127.0.0.1:${protoGrpcPort}`, grpc.credentials.createInsecure());
const grpcRequest = { ...protoRequest, payload: Buffer.from(protoRequest.payload), big: String(protoRequest.big) };
function protoGrpcCall() {
  return new Promise((resolve, reject) => protoGrpcClient.echo(grpcRequest, (error, value) => (error ? reject(error) : resolve(value))));
}

const Interop = defineProtoService(InteropDesc);
const protoPort = await freePort();
await provider.export(Interop, { echo: replyOf, fail: () => ({}), sleep: (r) => ({ slept: r.ms }) }, { protocol: 'tri', port: protoPort });
const interop = await consumer.refer(Interop, { url: `tri://127.0.0.1:${protoPort}`, timeout: 5000 });
const protoWeftCall = () => interop.echo(protoRequestMessage);

const protoVariants = [
  { name: 'floor: node:http2 + gRPC framing + protobuf-es', call: protoFloorCall, samples: [] },
  { name: '@grpc/grpc-js client + server (proto-loader)', call: protoGrpcCall, samples: [] },
  { name: 'weft tri: proto proxy → provider', call: protoWeftCall, samples: [] },
];
for (const variant of protoVariants) {
  const answer = await variant.call();
  if (answer.text !== 'weft' || answer.labels.gamma !== 'delta' || String(answer.big) !== '42' || answer.payload.length !== 32) {
    throw new Error(`${variant.name} answered ${JSON.stringify(answer, (_k, v) => (typeof v === 'bigint' ? String(v) : v))}`);
  }
}
await measure('protobuf unary echo', protoVariants);

protoGrpcClient.close();
await new Promise((resolve) => protoGrpcServer.tryShutdown(resolve));
protoFloorSession.close();
await new Promise((resolve) => protoFloorServer.close(resolve));
await consumer.shutdown();
await provider.shutdown();
grpcClient.close();
await new Promise((resolve) => grpcServer.tryShutdown(resolve));
floorSession.close();
await new Promise((resolve) => floorServer.close(resolve));
testApp.cleanup();
