// tri with the JSON codec vs @grpc/grpc-js with JSON (de)serializers: unary echo at 64 B, 64 KiB and 1 MiB with 64
// calls in flight, then the 64 × 1 MiB burst (twice, counting executions). Servers and clients in this process; prints
// the tables, then one JSON line ({ rows, burst }) for run.mjs.
//   node --expose-gc packages/benchmarks/bench/tri-json.mjs
//
// The payload is records (objects of strings, numbers, booleans, a small array), the shape JSON APIs carry; the
// echo declares `Object`, so Weft realises it on both sides. The tri provider raises `max-connection-buffer` and
// `max-server-buffer` to admit 64 MiB of requests in flight on its one connection (the defaults, 32 MiB / 64 MiB,
// refuse the calls past them); grpc-js has no such cap.
import * as grpc from '@grpc/grpc-js';
import { defineService, Logger, WeftApplication } from '@weft/core';
import { createTestApp, freePort } from '@weft/test-utils';

import { formatRatio, printTable, summarize } from '../../core/bench/harness.mjs';

const quick = process.env.WEFT_BENCH_QUICK === '1';
const CONCURRENCY = 64;
const ROUNDS = quick ? 2 : 4;
const silent = new (class extends Logger {
  debug() {}
  info() {}
  warn() {}
  error() {}
})();

function records(bytes) {
  const out = [];
  for (let i = 0, length = 2; length < bytes; i++) {
    const record = { id: i, name: `user-${i}`, email: `user${i}@example.com`, active: i % 2 === 0, score: i * 1.5, tags: ['alpha', 'beta'] };
    out.push(record);
    length += JSON.stringify(record).length + 1;
  }
  return out;
}
const payloads = [
  { label: '64 B', value: { name: 'weft', id: 42, tags: ['alpha'], ok: true } },
  { label: '64 KiB', value: records(64 * 1024) },
  { label: '1 MiB', value: records(1024 * 1024) },
];

// @grpc/grpc-js with JSON serializers (what a grpc-js user writes).
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
const grpcServer = new grpc.Server({ 'grpc.max_receive_message_length': 8 << 20 });
grpcServer.addService(grpcDefinition, { echo: (call, callback) => callback(null, call.request) });
const grpcPort = await freePort();
await new Promise((resolve, reject) =>
  grpcServer.bindAsync(`127.0.0.1:${grpcPort}`, grpc.ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())),
);
const GrpcClient = grpc.makeGenericClientConstructor(grpcDefinition, 'Echo');
const grpcClient = new GrpcClient(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure(), { 'grpc.max_receive_message_length': 8 << 20 });
const grpcCall = (payload) => new Promise((resolve, reject) => grpcClient.echo(payload, (error, value) => (error ? reject(error) : resolve(value))));

// Weft tri, default settings except the buffer caps (above).
const Echo = defineService('bench.Echo', { echo: { args: [Object], returns: Object }, size: { args: [String], returns: Number } });
const { root, cleanup } = createTestApp(['@weft/core', '@weft/cluster', '@weft/protocol-triple'], { prefix: 'weft-bench-tri-json' });
const provider = await WeftApplication.start({ root, name: 'bench-provider', logger: silent });
const triPort = await freePort();
let executions = 0;
await provider.export(
  Echo,
  {
    echo: async (value) => value,
    size: async (blob) => {
      executions++;
      return blob.length;
    },
  },
  { protocol: 'tri', port: triPort, parameters: { 'max-connection-buffer': 128 << 20, 'max-server-buffer': 256 << 20 } },
);
const consumer = await WeftApplication.start({ root, name: 'bench-consumer', logger: silent });
const echo = await consumer.refer(Echo, { url: `tri://127.0.0.1:${triPort}`, timeout: 30_000 });
const weftCall = (payload) => echo.echo(payload);

/** Keeps 64 calls in flight for `ms`; ns per completed call. */
async function round(call, payload, ms) {
  let completed = 0;
  const start = process.hrtime.bigint();
  const end = Date.now() + ms;
  const worker = async () => {
    while (Date.now() < end) {
      await call(payload);
      completed++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return Number(process.hrtime.bigint() - start) / completed;
}

const rows = [];
for (const { label, value } of payloads) {
  const expected = JSON.stringify(value);
  for (const call of [grpcCall, weftCall]) {
    const answer = await call(value);
    if (JSON.stringify(answer) !== expected) throw new Error(`echo of ${label} answered something else`);
  }
  const ms = label === '1 MiB' ? (quick ? 1500 : 3000) : quick ? 600 : 1200;
  const grpcSamples = [];
  const weftSamples = [];
  await round(grpcCall, value, ms / 2);
  await round(weftCall, value, ms / 2);
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 === 0 ? [weftCall, grpcCall] : [grpcCall, weftCall];
    for (const call of order) (call === weftCall ? weftSamples : grpcSamples).push(await round(call, value, ms));
  }
  const table = [summarize(`@grpc/grpc-js, JSON, ${label}`, grpcSamples, 1), summarize(`weft tri, json codec, ${label}`, weftSamples, 1)];
  printTable(`unary echo of ${label} (JSON), ${CONCURRENCY} in flight, ${ROUNDS} interleaved rounds`, table, { baseline: table[0].name });
  rows.push({ label, grpc: table[0].nsPerOp, weft: table[1].nsPerOp, perRound: weftSamples.map((w, i) => grpcSamples[i] / w) });
}

// The burst: 64 concurrent 1 MiB calls, twice; every call must succeed and run once.
const blob = 'x'.repeat(1 << 20);
executions = 0;
let failures = 0;
for (let i = 0; i < 2; i++) {
  const settled = await Promise.allSettled(Array.from({ length: 64 }, () => echo.size(blob)));
  failures += settled.filter((s) => s.status === 'rejected').length;
}
const burst = { calls: 128, failures, executions };
console.log(`\n64 × 1 MiB burst, twice: ${failures} failures, ${executions} executions for 128 calls`);

grpcClient.close();
grpcServer.forceShutdown();
await consumer.shutdown();
await provider.shutdown();
cleanup();
console.log(JSON.stringify({ rows, burst, ratio: Object.fromEntries(rows.map((r) => [r.label, formatRatio(r.grpc / r.weft)])) }));
