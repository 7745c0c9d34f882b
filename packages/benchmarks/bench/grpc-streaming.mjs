// Streaming over tri vs @grpc/grpc-js, each server in its own child process (bench/stream-server.mjs), the clients
// here, in the same run: `node --expose-gc packages/benchmarks/bench/grpc-streaming.mjs` (bench/run.mjs runs it).
//
//   server streaming  Download(count, 1 KiB): one stream of STREAM_MESSAGES chunks per round, rounds alternating
//                     between the stacks; ns per message received → messages/s and MiB/s of payload.
//   bidi ping-pong    PingPong: one stream per round, PINGS sequential round trips of one 1 KiB chunk (write one,
//                     wait for its echo, then the next); every round trip timed → p50 and p99.
//   idle connections  a fresh server process per stack; 1,000 HTTP/2 sessions (node:http2 with gRPC framing, the
//                     same client for both), each makes one Download(1 × 1 KiB) call and stays open; the server
//                     process's RSS before, with the 1,000 sessions open, and its peak (VmHWM).
//
// The floor is no RPC stack: bare node:http2 on both sides with gRPC framing and @bufbuild/protobuf per message
// (toBinary/fromBinary), the same calls — what any gRPC stack on node:http2 must pay; its rows say how much of each
// figure is Node's HTTP/2 itself (a latency target below the floor cannot be met by any stack on node:http2).
//
// Both servers are the default configuration of their stack (Weft: an async generator out, an async iterable in,
// the filter packages of a plain app, no tuning keys; grpc-js: write() then wait for 'drain'). The Weft consumer
// gives the stream a 60 s deadline (the default 1 s would cover the whole stream; a deadline is one timer per
// stream either way). Prints its tables, then one JSON line `{"figures": [...]}` for bench/run.mjs.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http2 from 'node:http2';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { WeftApplication } from '@weft/core';
import { defineProtoService } from '@weft/serialization-protobuf';
import { createTestApp } from '@weft/test-utils';

import { formatNs, formatRatio, printTable, summarize } from '../../core/bench/harness.mjs';
import { ChunkSchema, DownloadRequestSchema, StreamBench as StreamBenchDesc } from './gen/weft/bench/v1/stream_bench_pb.js';
import { frame, GrpcFrames } from './grpc-frames.mjs';

const quick = process.env.WEFT_BENCH_QUICK === '1';
const SIZE = 1024;
const STREAM_MESSAGES = quick ? 500 : 8192;
const STREAM_ROUNDS = quick ? 2 : 10;
const PINGS = quick ? 100 : 1000;
const PING_ROUNDS = quick ? 2 : 6;
const IDLE_SESSIONS = quick ? 50 : 1000;
const SERVER = fileURLToPath(new URL('./stream-server.mjs', import.meta.url));
const PROTO = fileURLToPath(new URL('./proto/weft/bench/v1/stream_bench.proto', import.meta.url));
const figures = [];

/** Starts `stream-server.mjs <stack>` and resolves when it listens. */
async function startServer(stack) {
  const child = spawn(process.execPath, [...(process.env.WEFT_BENCH_SERVER_ARGS ?? '').split(' ').filter(Boolean), SERVER, stack], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout });
  const [line] = await Promise.race([
    once(lines, 'line'),
    once(child, 'exit').then(([code]) => Promise.reject(new Error(`stream-server.mjs ${stack} exited (${code}) before listening`))),
  ]);
  const { port } = JSON.parse(line);
  return {
    port,
    pid: child.pid,
    async stop() {
      const exited = once(child, 'exit');
      process.kill(child.pid, 'SIGTERM');
      await exited;
    },
  };
}

/** VmRSS and VmHWM (peak) of a process, in MiB (Linux /proc). */
function memoryOf(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

/** CPU time (user + system) a process has used, in ms (Linux /proc; clock ticks of 10 ms). */
function cpuMsOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** A request iterable the caller pushes into (the bidi client side of Weft's ping-pong). */
function pushable() {
  const queued = [];
  let waiting;
  let ended = false;
  return {
    push(value) {
      if (waiting === undefined) queued.push(value);
      else {
        const resolve = waiting;
        waiting = undefined;
        resolve({ value, done: false });
      }
    },
    end() {
      ended = true;
      if (waiting !== undefined) waiting({ value: undefined, done: true });
      waiting = undefined;
    },
    next() {
      if (queued.length > 0) return Promise.resolve({ value: queued.shift(), done: false });
      if (ended) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return() {
      ended = true;
      return Promise.resolve({ value: undefined, done: true });
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Clients

const weftServer = await startServer('weft');
const grpcServer = await startServer('grpc-js');
const floorServer = await startServer('floor');

const testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/serialization-protobuf'], {
  prefix: 'weft-bench-stream-client',
});
const silent = { debug() {}, info() {}, warn() {}, error() {} };
const consumer = await WeftApplication.start({ root: testApp.root, name: 'bench-stream-consumer', logger: silent });
const weft = await consumer.refer(defineProtoService(StreamBenchDesc), { url: `tri://127.0.0.1:${weftServer.port}`, timeout: 60_000 });

const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(PROTO, { defaults: true }));
const grpcClient = new loaded.weft.bench.v1.StreamBench(`127.0.0.1:${grpcServer.port}`, grpc.credentials.createInsecure());

const chunk = { data: new Uint8Array(SIZE).fill(7) };
const floorSession = http2.connect(`http://127.0.0.1:${floorServer.port}`);
await once(floorSession, 'connect');
const floorChunk = create(ChunkSchema, chunk);
const FLOOR_HEADERS = (method) => ({ ':method': 'POST', ':path': `/weft.bench.v1.StreamBench/${method}`, 'content-type': 'application/grpc', te: 'trailers' });
const grpcChunk = { data: Buffer.alloc(SIZE, 7) };

/** One Download stream of `count` chunks; resolves with ns per message. */
async function weftDownload(count) {
  const start = process.hrtime.bigint();
  let received = 0;
  for await (const message of weft.download({ count, size: SIZE })) received += message.data.length === SIZE ? 1 : 0;
  if (received !== count) throw new Error(`weft: ${received} of ${count} chunks`);
  return Number(process.hrtime.bigint() - start) / count;
}

function grpcDownload(count) {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    let received = 0;
    const call = grpcClient.download({ count, size: SIZE });
    call.on('data', (message) => (received += message.data.length === SIZE ? 1 : 0));
    call.on('error', reject);
    call.on('end', () =>
      received === count ? resolve(Number(process.hrtime.bigint() - start) / count) : reject(new Error(`grpc-js: ${received} of ${count} chunks`)),
    );
  });
}

function floorDownload(count) {
  const start = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    let received = 0;
    const call = floorSession.request(FLOOR_HEADERS('Download'));
    const frames = new GrpcFrames((message) => (received += fromBinary(ChunkSchema, message).data.length === SIZE ? 1 : 0));
    call.on('data', (data) => frames.push(data));
    call.on('error', reject);
    call.on('end', () =>
      received === count ? resolve(Number(process.hrtime.bigint() - start) / count) : reject(new Error(`floor: ${received} of ${count} chunks`)),
    );
    call.end(frame(toBinary(DownloadRequestSchema, create(DownloadRequestSchema, { count, size: SIZE }))));
  });
}

/** One PingPong stream of `pings` sequential round trips; resolves with each round trip's ns. */
async function weftPingPong(pings) {
  const requests = pushable();
  const replies = weft.pingPong(requests)[Symbol.asyncIterator]();
  const times = new Array(pings);
  for (let i = 0; i < pings; i++) {
    const start = process.hrtime.bigint();
    requests.push(chunk);
    const { value, done } = await replies.next();
    times[i] = Number(process.hrtime.bigint() - start);
    if (done || value.data.length !== SIZE) throw new Error('weft: ping-pong stream ended early');
  }
  requests.end();
  const { done } = await replies.next();
  if (!done) throw new Error('weft: ping-pong answered more than it was sent');
  return times;
}

function grpcPingPong(pings) {
  return new Promise((resolve, reject) => {
    const call = grpcClient.pingPong();
    const times = new Array(pings);
    let i = 0;
    let start = 0n;
    const ping = () => {
      start = process.hrtime.bigint();
      call.write(grpcChunk);
    };
    call.on('data', (message) => {
      times[i++] = Number(process.hrtime.bigint() - start);
      if (message.data.length !== SIZE) reject(new Error('grpc-js: wrong chunk'));
      if (i < pings) ping();
      else call.end();
    });
    call.on('error', reject);
    call.on('end', () => (i === pings ? resolve(times) : reject(new Error(`grpc-js: ${i} of ${pings} pongs`))));
    ping();
  });
}

function floorPingPong(pings) {
  return new Promise((resolve, reject) => {
    const call = floorSession.request(FLOOR_HEADERS('PingPong'));
    const times = new Array(pings);
    let i = 0;
    let start = 0n;
    const ping = () => {
      start = process.hrtime.bigint();
      call.write(frame(toBinary(ChunkSchema, floorChunk)));
    };
    const frames = new GrpcFrames((message) => {
      times[i++] = Number(process.hrtime.bigint() - start);
      if (fromBinary(ChunkSchema, message).data.length !== SIZE) reject(new Error('floor: wrong chunk'));
      if (i < pings) ping();
      else call.end();
    });
    call.on('data', (data) => frames.push(data));
    call.on('error', reject);
    call.on('end', () => (i === pings ? resolve(times) : reject(new Error(`floor: ${i} of ${pings} pongs`))));
    ping();
  });
}

const DOWNLOADS = { weft: weftDownload, grpc: grpcDownload, floor: floorDownload };
const PING_PONGS = { weft: weftPingPong, grpc: grpcPingPong, floor: floorPingPong };
/** The order of the stacks in round `r`: each goes first, second and last equally often. */
const ORDERS = [
  ['weft', 'grpc', 'floor'],
  ['grpc', 'floor', 'weft'],
  ['floor', 'weft', 'grpc'],
];

// ---------------------------------------------------------------------------------------------------------------
// 1. Server-streaming throughput

console.log(`\n── tri streaming vs @grpc/grpc-js (servers in child processes: weft pid ${weftServer.pid}, grpc-js pid ${grpcServer.pid}, floor pid ${floorServer.pid}) ──`);
{
  for (let i = 0; i < 3; i++) {
    await weftDownload(STREAM_MESSAGES);
    await grpcDownload(STREAM_MESSAGES);
    await floorDownload(STREAM_MESSAGES);
  }
  const samples = { weft: [], grpc: [], floor: [] };
  // CPU used per message by the consumer (this process) and the provider (its process): on a machine whose cores are
  // all busy, throughput follows the CPU both sides need together, not the wall time of one side.
  const cpu = { weft: { client: 0, server: 0 }, grpc: { client: 0, server: 0 }, floor: { client: 0, server: 0 } };
  const serverPid = { weft: weftServer.pid, grpc: grpcServer.pid, floor: floorServer.pid };
  for (let r = 0; r < STREAM_ROUNDS; r++) {
    for (const stack of ORDERS[r % ORDERS.length]) {
      const client = process.cpuUsage();
      const server = cpuMsOf(serverPid[stack]);
      samples[stack].push(await DOWNLOADS[stack](STREAM_MESSAGES));
      const used = process.cpuUsage(client);
      cpu[stack].client += (used.user + used.system) / 1000;
      cpu[stack].server += cpuMsOf(serverPid[stack]) - server;
    }
  }
  const perMessage = (ms) => (ms * 1000) / (STREAM_ROUNDS * STREAM_MESSAGES);
  const cpuOf = (stack) => `${perMessage(cpu[stack].client).toFixed(2)} + ${perMessage(cpu[stack].server).toFixed(2)} µs`;
  const cpuTotal = (stack) => cpu[stack].client + cpu[stack].server;
  const rows = [
    summarize('weft tri: provider → consumer', samples.weft, STREAM_MESSAGES),
    summarize('@grpc/grpc-js server → client', samples.grpc, STREAM_MESSAGES),
    summarize('floor: node:http2 + gRPC framing + protobuf-es', samples.floor, STREAM_MESSAGES),
  ];
  printTable(`server streaming, ${SIZE} B messages, one stream of ${STREAM_MESSAGES} per round, ${STREAM_ROUNDS} rounds rotating the order of the stacks (ns per message)`, rows, {
    baseline: '@grpc/grpc-js server → client',
  });
  console.log(`  CPU per message, consumer + provider process: weft ${cpuOf('weft')}, grpc-js ${cpuOf('grpc')}, floor ${cpuOf('floor')}`);
  const [w, g, f] = rows;
  const mibs = (row) => ((row.opsPerSec * SIZE) / 2 ** 20).toFixed(1);
  const msgs = (row) => Math.round(row.opsPerSec).toLocaleString('en-US');
  figures.push(
    `server streaming (1 KiB messages): Weft ${msgs(w)} msg/s (${mibs(w)} MiB/s), grpc-js ${msgs(g)} msg/s (${mibs(g)} MiB/s): ` +
      `Weft = ${formatRatio(g.nsPerOp / w.nsPerOp)} grpc-js's throughput (target ≥ 2×); node:http2 floor ${msgs(f)} msg/s: Weft ${formatRatio(f.nsPerOp / w.nsPerOp)}, grpc-js ${formatRatio(f.nsPerOp / g.nsPerOp)} the floor; ` +
      `CPU per message (consumer + provider): Weft ${cpuOf('weft')}, grpc-js ${cpuOf('grpc')}, floor ${cpuOf('floor')} = Weft needs ${formatRatio(cpuTotal('weft') / cpuTotal('grpc'))} grpc-js's CPU`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// 2. Bidi ping-pong latency

{
  await weftPingPong(PINGS);
  await grpcPingPong(PINGS);
  await floorPingPong(PINGS);
  const times = { weft: [], grpc: [], floor: [] };
  for (let r = 0; r < PING_ROUNDS; r++) {
    for (const stack of ORDERS[r % ORDERS.length]) times[stack].push(...(await PING_PONGS[stack](PINGS)));
  }
  const percentile = (values, p) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  };
  const rows = [
    summarize('weft tri: consumer ⇄ provider', times.weft),
    summarize('@grpc/grpc-js client ⇄ server', times.grpc),
    summarize('floor: node:http2 + gRPC framing + protobuf-es', times.floor),
  ];
  printTable(`bidi ping-pong, one ${SIZE} B message each way, sequential on one stream (${PING_ROUNDS} streams × ${PINGS} round trips; ns/op = p50)`, rows, {
    baseline: '@grpc/grpc-js client ⇄ server',
  });
  const w50 = percentile(times.weft, 50);
  const g50 = percentile(times.grpc, 50);
  const w99 = percentile(times.weft, 99);
  const g99 = percentile(times.grpc, 99);
  const f50 = percentile(times.floor, 50);
  const f99 = percentile(times.floor, 99);
  console.log(`  p99: weft ${formatNs(w99)}, grpc-js ${formatNs(g99)}, floor ${formatNs(f99)}`);
  figures.push(
    `bidi ping-pong latency: p50 Weft ${formatNs(w50)} vs grpc-js ${formatNs(g50)} = ${formatRatio(w50 / g50)} (target ≤ 0.6×); ` +
      `p99 Weft ${formatNs(w99)} vs grpc-js ${formatNs(g99)} = ${formatRatio(w99 / g99)}; node:http2 floor p50 ${formatNs(f50)} = ${formatRatio(f50 / g50)} grpc-js's (Weft ${formatRatio(w50 / f50)} the floor)`,
  );
}

grpcClient.close();
floorSession.close();
await consumer.shutdown();
await weftServer.stop();
await grpcServer.stop();
await floorServer.stop();

// ---------------------------------------------------------------------------------------------------------------
// 3. Peak RSS of 1,000 idle connections (a fresh server process per stack)

const DOWNLOAD_ONE = (() => {
  const body = toBinary(DownloadRequestSchema, create(DownloadRequestSchema, { count: 1, size: SIZE }));
  const framed = Buffer.alloc(5 + body.length);
  framed.writeUInt32BE(body.length, 1);
  framed.set(body, 5);
  return framed;
})();
const REQUEST_HEADERS = { ':method': 'POST', ':path': '/weft.bench.v1.StreamBench/Download', 'content-type': 'application/grpc', te: 'trailers' };

/** Opens one session to `port`, makes one Download(1) call on it, resolves with the (still open) session. */
function idleSession(port) {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const stream = session.request(REQUEST_HEADERS);
    let bytes = 0;
    let status;
    stream.on('data', (data) => (bytes += data.length));
    stream.on('trailers', (trailers) => (status = trailers['grpc-status']));
    stream.on('error', reject);
    stream.on('close', () => (status === '0' && bytes === 5 + 3 + SIZE ? resolve(session) : reject(new Error(`call answered grpc-status ${status}, ${bytes} bytes`))));
    stream.end(DOWNLOAD_ONE);
  });
}

async function idleConnections(stack) {
  const server = await startServer(stack);
  // Warm the server up with the same calls first, so the baseline holds its compiled code too.
  const warm = [];
  for (let i = 0; i < 20; i++) warm.push(await idleSession(server.port));
  for (const session of warm) session.close();
  await new Promise((resolve) => setTimeout(resolve, 300));
  const before = memoryOf(server.pid);
  const sessions = [];
  for (let i = 0; i < IDLE_SESSIONS; i += 50) {
    sessions.push(...(await Promise.all(Array.from({ length: Math.min(50, IDLE_SESSIONS - i) }, () => idleSession(server.port)))));
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const open = memoryOf(server.pid);
  const stillOpen = sessions.filter((s) => !s.closed && !s.destroyed).length;
  for (const session of sessions) session.destroy();
  await server.stop();
  return { before, open, stillOpen };
}

{
  const weftIdle = await idleConnections('weft');
  const grpcIdle = await idleConnections('grpc-js');
  const mib = (n) => `${n.toFixed(1)} MiB`;
  console.log(`\nserver process RSS, ${IDLE_SESSIONS} idle HTTP/2 sessions (each made one call)`);
  console.log('                          before   with sessions   peak (VmHWM)   per session   still open');
  for (const [name, r] of [['weft tri', weftIdle], ['@grpc/grpc-js', grpcIdle]]) {
    const perSession = ((r.open.rss - r.before.rss) * 1024) / IDLE_SESSIONS;
    console.log(
      `  ${name.padEnd(22)}  ${mib(r.before.rss).padStart(9)}  ${mib(r.open.rss).padStart(14)}  ${mib(r.open.peak).padStart(13)}  ${`${perSession.toFixed(1)} KiB`.padStart(12)}  ${String(r.stillOpen).padStart(10)}`,
    );
  }
  figures.push(
    `${IDLE_SESSIONS} idle connections, server peak RSS: Weft ${mib(weftIdle.open.peak)} (${mib(weftIdle.before.rss)} before, ${mib(weftIdle.open.rss)} with them open) ` +
      `vs grpc-js ${mib(grpcIdle.open.peak)} (${mib(grpcIdle.before.rss)} before, ${mib(grpcIdle.open.rss)} open) = ${formatRatio(weftIdle.open.peak / grpcIdle.open.peak)}`,
  );
}

testApp.cleanup();
console.log(JSON.stringify({ figures }));
