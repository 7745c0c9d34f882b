// Resource bounds of the tri server under hostile clients, measured from outside: the server runs in a child
// process (test/support/bounds-server.mjs) that reports its own RSS, and is attacked with raw node:http2 and net
// clients. Bounds asserted (documented in the README's "Resource limits"): peak RSS under 256 MiB for the gzip-bomb
// and stalled-upload attacks, connections closed by header-timeout / idle-timeout, stalled bodies reset by
// body-timeout, shutdown within one shutdown-timeout.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import http2, { type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

import { afterEach, describe, expect, it } from 'vitest';

import { createTestApp, freePort, type TestApp } from '@weft/test-utils';

import { Greeter, greeterImpl, Harness } from './support/harness.js';

const script = fileURLToPath(new URL('./support/bounds-server.mjs', import.meta.url));
const MIB = 1024 * 1024;
/** The documented RSS bound of a tri server under the attacks below. */
const RSS_BOUND = 256 * MIB;
const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const EMPTY_SETTINGS = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);

const children: ChildProcess[] = [];
const roots: TestApp[] = [];
const sessions: ClientHttp2Session[] = [];
const sockets: net.Socket[] = [];

const harness = new Harness();

afterEach(async () => {
  await harness.close();
  for (const session of sessions.splice(0)) session.destroy();
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const child of children.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, 'exit');
      process.kill(child.pid as number, 'SIGKILL');
      await exited;
    }
  }
  for (const root of roots.splice(0)) root.cleanup();
});

interface Server {
  readonly port: number;
  readonly child: ChildProcess;
  /** Sends a command and resolves with the next stdout line starting with its name. */
  ask(command: string): Promise<string[]>;
}

async function startServer(parameters: Record<string, string | number> = {}): Promise<Server> {
  const app = createTestApp(['@weft/core', '@weft/protocol-triple'], { prefix: 'weft-tri-bounds' });
  roots.push(app);
  const port = await freePort();
  const child = spawn(process.execPath, [script, app.root, String(port), JSON.stringify(parameters)], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, WEFT_LOG: 'silent' },
  });
  children.push(child);
  let output = '';
  const waiters: { name: string; resolve: (words: string[]) => void }[] = [];
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    let newline: number;
    while ((newline = output.indexOf('\n')) >= 0) {
      const line = output.slice(0, newline);
      output = output.slice(newline + 1);
      const words = line.split(' ');
      const index = waiters.findIndex((w) => w.name === words[0]);
      if (index >= 0) waiters.splice(index, 1)[0]?.resolve(words);
    }
  });
  let errors = '';
  child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const ask = (command: string) =>
    new Promise<string[]>((resolve) => {
      waiters.push({ name: command, resolve });
      if (command !== 'ready') child.stdin?.write(`${command}\n`);
    });
  const ready = ask('ready');
  const exited = once(child, 'exit').then(() => {
    throw new Error(`bounds server exited before it was ready:\n${errors}`);
  });
  await Promise.race([ready, exited]);
  return { port, child, ask };
}

async function rss(server: Server): Promise<{ peak: number; current: number; written: number }> {
  const [, peak, current, written] = await server.ask('rss');
  return { peak: Number(peak), current: Number(current), written: Number(written) };
}

function connect(port: number): ClientHttp2Session {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on('error', () => undefined);
  sessions.push(session);
  return session;
}

interface Answer {
  readonly status: string | undefined;
  readonly message: string;
  readonly at: number;
}

/** One raw gRPC call: writes `frames` (not ending the stream when `end` is false) and resolves with its status. */
function call(session: ClientHttp2Session, path: string, frames: readonly Buffer[], extra: Record<string, string> = {}, end = true): Promise<Answer> {
  return new Promise((resolve) => {
    const stream = session.request({
      ':method': 'POST',
      ':path': path,
      'content-type': 'application/grpc+json',
      te: 'trailers',
      ...extra,
    });
    let headers: IncomingHttpHeaders = {};
    const answer = (h: IncomingHttpHeaders) => {
      if (h['grpc-status'] !== undefined) headers = h;
    };
    stream.on('response', answer);
    stream.on('trailers', answer);
    stream.on('error', () => undefined);
    stream.on('data', () => undefined);
    stream.on('close', () =>
      resolve({ status: headers['grpc-status'] as string | undefined, message: decodeURIComponent(String(headers['grpc-message'] ?? '')), at: Date.now() }),
    );
    for (const frame of frames) stream.write(frame);
    if (end) stream.end();
  });
}

function frame(payload: Buffer, compressed = false): Buffer {
  const prefix = Buffer.alloc(5);
  prefix[0] = compressed ? 1 : 0;
  prefix.writeUInt32BE(payload.length, 1);
  return Buffer.concat([prefix, payload]);
}

/** A raw socket's bytes until it closes, and when it closed. */
function rawConnection(port: number, writes: readonly Buffer[]): Promise<{ readonly closedAfter: number; readonly frameTypes: number[] }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1', () => {
      for (const bytes of writes) socket.write(bytes);
    });
    sockets.push(socket);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const data = Buffer.concat(chunks);
      const frameTypes: number[] = [];
      for (let offset = 0; offset + 9 <= data.length; offset += 9 + data.readUIntBE(offset, 3)) frameTypes.push(data[offset + 3] as number);
      resolve({ closedAfter: Date.now() - started, frameTypes });
    });
  });
}

const GOAWAY = 7;

describe('tri resource bounds (server in a child process)', () => {
  it('100 concurrent gzip messages inflating to just under 8 MiB: RSS stays bounded, each is answered, other calls keep working', async () => {
    const server = await startServer();
    const bomb = frame(gzipSync(Buffer.alloc(8 * MIB - 1024, 0x20)), true);
    expect(bomb.length).toBeLessThan(16 * 1024);
    const before = await rss(server);
    const connections = [connect(server.port), connect(server.port), connect(server.port), connect(server.port)];
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => call(connections[i % 4] as ClientHttp2Session, '/org.acme.Sink/put', [bomb], { 'grpc-encoding': 'gzip' })),
    );
    const after = await rss(server);
    // Inflated a few at a time (the rest wait compressed); the inflated text is not JSON, so each fails to decode
    // (or, past a buffered-bytes cap, is refused with RESOURCE_EXHAUSTED).
    const exhausted = answers.filter((a) => a.status === '8');
    for (const answer of exhausted) expect(answer.message).toMatch(/would pass the cap of \d+ bytes per (connection|server)/);
    expect(answers.filter((a) => a.status !== '8').every((a) => a.status === '13' && /JSON/.test(a.message))).toBe(true);
    expect(after.peak, `peak RSS ${(after.peak / MIB).toFixed(0)} MiB (before ${(before.current / MIB).toFixed(0)} MiB)`).toBeLessThan(RSS_BOUND);
    console.log(`[bounds] gzip bomb x100: RSS ${(before.current / MIB).toFixed(0)} -> peak ${(after.peak / MIB).toFixed(0)} MiB; ${exhausted.length} refused`);
    // The server still answers on the same connections.
    const ok = await call(connections[0] as ClientHttp2Session, '/org.acme.Sink/put', [frame(Buffer.from('["fine"]'))]);
    expect(ok.status).toBe('0');
  }, 20_000);

  it('a message inflating past payload is refused with RESOURCE_EXHAUSTED, without inflating it whole', async () => {
    const server = await startServer({ payload: MIB });
    const session = connect(server.port);
    const answer = await call(session, '/org.acme.Sink/put', [frame(gzipSync(Buffer.alloc(64 * MIB)), true)], { 'grpc-encoding': 'gzip' });
    expect(answer.status).toBe('8');
    expect(answer.message).toContain('Decompressed gRPC message exceeds the limit of 1048576 bytes (URL key "payload")');
    expect((await rss(server)).peak).toBeLessThan(RSS_BOUND);
  }, 20_000);

  it('an unknown grpc-encoding is UNIMPLEMENTED with the grpc-accept-encoding the server supports', async () => {
    const server = await startServer();
    const session = connect(server.port);
    const headers = await new Promise<IncomingHttpHeaders>((resolve) => {
      const stream = session.request({ ':method': 'POST', ':path': '/org.acme.Sink/put', 'content-type': 'application/grpc', te: 'trailers', 'grpc-encoding': 'snappy' });
      stream.on('response', resolve);
      stream.on('error', () => undefined);
      stream.end(frame(Buffer.from('["x"]'), true));
    });
    expect(headers['grpc-status']).toBe('12');
    expect(headers['grpc-accept-encoding']).toBe('identity,gzip,deflate');
    expect(decodeURIComponent(String(headers['grpc-message']))).toContain('Unsupported grpc-encoding "snappy"');
  });

  it('120 stalled 8 MiB uploads (one connection each): the server cap refuses most at once, body-timeout resets the rest, RSS stays bounded', async () => {
    const server = await startServer({ 'body-timeout': 300 });
    const before = await rss(server);
    const chunk = Buffer.alloc(MIB, 0x20);
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(8 * MIB - 16, 1);
    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: 120 }, () => call(connect(server.port), '/org.acme.Sink/put', [prefix, chunk, chunk, chunk, chunk, chunk, chunk, chunk], {}, false)),
    );
    const after = await rss(server);
    const exhausted = answers.filter((a) => a.status === '8');
    const stalled = answers.filter((a) => a.status === '4');
    expect(exhausted.length + stalled.length).toBe(120);
    expect(exhausted.length).toBeGreaterThan(0);
    expect(exhausted[0]?.message).toMatch(/per server \(URL key "max-server-buffer"/);
    expect(stalled.length).toBeGreaterThan(0);
    expect(stalled[0]?.message).toBe('Request body stalled: no DATA for 300 ms (URL key "body-timeout"); the stream was reset.');
    expect(Math.max(...answers.map((a) => a.at - started))).toBeLessThan(8000);
    expect(after.peak, `peak RSS ${(after.peak / MIB).toFixed(0)} MiB`).toBeLessThan(RSS_BOUND);
    console.log(`[bounds] 120 stalled uploads: RSS ${(before.current / MIB).toFixed(0)} -> peak ${(after.peak / MIB).toFixed(0)} MiB; ${exhausted.length} refused, ${stalled.length} reset by body-timeout`);
    const ok = await call(connect(server.port), '/org.acme.Sink/put', [frame(Buffer.from('["fine"]'))]);
    expect(ok.status).toBe('0');
  }, 20_000);

  it('max-connection-buffer refuses the call that passes it on that connection; the others keep working', async () => {
    const server = await startServer({ 'max-connection-buffer': 1024 * 1024, 'body-timeout': 1000 });
    const session = connect(server.port);
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(900_000, 1);
    const first = call(session, '/org.acme.Sink/put', [prefix, Buffer.alloc(600_000, 0x20)], {}, false);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const second = await call(session, '/org.acme.Sink/put', [prefix, Buffer.alloc(600_000, 0x20)], {}, false);
    expect(second.status).toBe('8');
    expect(second.message).toMatch(/^Request refused: \d+ more buffered bytes would pass the cap of 1048576 bytes per connection \(URL key "max-connection-buffer", \d+ bytes held by calls not yet consumed\); other calls continue\.$/);
    // Another connection is not affected, nor a small call on this one.
    expect((await call(session, '/org.acme.Sink/put', [frame(Buffer.from('["small"]'))])).status).toBe('0');
    // On another connection the same upload is accepted (and, never finished, reset later by body-timeout).
    const elsewhere = await call(connect(server.port), '/org.acme.Sink/put', [prefix, Buffer.alloc(600_000, 0x20)], {}, false);
    expect(elsewhere.status).toBe('4');
    expect((await first).status).toBe('4');
  });

  it('idle-timeout closes a connection with no open stream with GOAWAY', async () => {
    const server = await startServer({ 'idle-timeout': 300 });
    const result = await rawConnection(server.port, [PREFACE, EMPTY_SETTINGS]);
    expect(result.frameTypes).toContain(GOAWAY);
    expect(result.closedAfter).toBeGreaterThanOrEqual(290);
    expect(result.closedAfter).toBeLessThan(3000);
  });

  it('header-timeout closes a connection that never completes its preface', async () => {
    const server = await startServer({ 'header-timeout': 300 });
    const result = await rawConnection(server.port, [PREFACE]);
    expect(result.closedAfter).toBeGreaterThanOrEqual(290);
    expect(result.closedAfter).toBeLessThan(3000);
  });

  it('header-timeout closes a connection whose header block stays unfinished, with GOAWAY', async () => {
    const server = await startServer({ 'header-timeout': 300 });
    // HEADERS on stream 1 without END_HEADERS (`:method POST`), and no CONTINUATION.
    const unfinished = Buffer.from([0, 0, 1, 1, 0, 0, 0, 0, 1, 0x83]);
    const result = await rawConnection(server.port, [PREFACE, EMPTY_SETTINGS, unfinished]);
    expect(result.frameTypes).toContain(GOAWAY);
    expect(result.closedAfter).toBeGreaterThanOrEqual(290);
    expect(result.closedAfter).toBeLessThan(3000);
  });

  it('a busy connection is not idle: calls keep it open past idle-timeout', async () => {
    const server = await startServer({ 'idle-timeout': 400 });
    const session = connect(server.port);
    const closed = once(session, 'close').then(() => Date.now());
    const started = Date.now();
    for (let i = 0; i < 8; i++) {
      expect((await call(session, '/org.acme.Sink/put', [frame(Buffer.from('["x"]'))])).status).toBe('0');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(Date.now() - started).toBeGreaterThan(800);
    expect(session.closed).toBe(false);
    expect((await closed) - started).toBeLessThan(800 + 3000);
  });

  it('shutdown with stalled uploads takes one shutdown-timeout, not two', async () => {
    const server = await startServer({ 'shutdown-timeout': 1000 });
    const session = connect(server.port);
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(MIB, 1);
    const pending = Array.from({ length: 10 }, () => call(session, '/org.acme.Sink/put', [prefix, Buffer.alloc(1000)], {}, false));
    await new Promise((resolve) => setTimeout(resolve, 200));
    const [, ms] = await server.ask('shutdown');
    expect(Number(ms)).toBeGreaterThanOrEqual(950);
    expect(Number(ms)).toBeLessThan(1000 + 400);
    await Promise.all(pending);
  });

  it('a provider streaming fast to a consumer that reads slowly stays bounded (flow control, the writer awaits drain)', async () => {
    const server = await startServer();
    const session = connect(server.port);
    // feed(100000, 65536): 6.5 GB if the provider were not held back.
    const stream = session.request({ ':method': 'POST', ':path': '/org.acme.Sink/feed', 'content-type': 'application/grpc+json', te: 'trailers' });
    stream.on('error', () => undefined);
    stream.end(frame(Buffer.from('[100000, 65536]')));
    await once(stream, 'response');
    let read = 0;
    for (let i = 0; i < 50; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      const chunk = stream.read() as Buffer | null;
      if (chunk !== null) read += chunk.length;
    }
    const { peak, written } = await rss(server);
    console.log(`[bounds] slow reader: read ${(read / MIB).toFixed(1)} MiB in 1 s, provider produced ${written} replies of 64 KiB, peak RSS ${(peak / MIB).toFixed(0)} MiB`);
    expect(read).toBeGreaterThan(0);
    // What was produced is what was read plus the windows and one write buffer, not what the generator could make.
    expect(written * 65536).toBeLessThan(read + 4 * MIB);
    expect(peak).toBeLessThan(RSS_BOUND);
    stream.close(http2.constants.NGHTTP2_CANCEL);
  });

  it('a consumer writing a client stream to a provider that reads slowly is held back, the provider stays bounded', async () => {
    const server = await startServer();
    const session = connect(server.port);
    const stream = session.request({ ':method': 'POST', ':path': '/org.acme.Sink/slowSum', 'content-type': 'application/grpc+json', te: 'trailers' });
    stream.on('error', () => undefined);
    const message = frame(Buffer.from(JSON.stringify(['m'.repeat(65536)])));
    let sent = 0;
    const until = Date.now() + 1500;
    while (Date.now() < until) {
      sent++;
      if (!stream.write(message)) {
        const drained = once(stream, 'drain').then(() => true);
        const late = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), Math.max(1, until - Date.now())));
        if (!(await Promise.race([drained, late]))) break;
      }
    }
    const { peak } = await rss(server);
    console.log(`[bounds] slow provider: the consumer could write ${sent} messages of 64 KiB in 1.5 s, provider peak RSS ${(peak / MIB).toFixed(0)} MiB`);
    // The provider reads one per 20 ms (~75 in 1.5 s), holds at most 16 unread, and the windows hold a few more.
    expect(sent).toBeLessThan(75 + 16 + 40);
    expect(peak).toBeLessThan(RSS_BOUND);
    stream.close(http2.constants.NGHTTP2_CANCEL);
  });

  it('body-timeout resets a client stream stuck in the middle of a message, not one resting between messages', async () => {
    const server = await startServer({ 'body-timeout': 300 });
    const session = connect(server.port);
    const whole = frame(Buffer.from(JSON.stringify(['ok'])));
    // Resting: two whole messages, a pause of 3 × body-timeout, one more, then END_STREAM.
    const resting = session.request({ ':method': 'POST', ':path': '/org.acme.Sink/slowSum', 'content-type': 'application/grpc+json', te: 'trailers' });
    let restingStatus: string | undefined;
    resting.on('trailers', (h) => (restingStatus = h['grpc-status'] as string));
    resting.on('response', (h) => (restingStatus ??= h['grpc-status'] as string | undefined));
    resting.on('data', () => undefined);
    resting.on('error', () => undefined);
    resting.write(whole);
    resting.write(whole);
    // Stuck: a message whose prefix declares 1000 bytes, 10 of them sent.
    const declared = Buffer.alloc(5);
    declared.writeUInt32BE(1000, 1);
    const stuck = call(session, '/org.acme.Sink/slowSum', [whole, declared, Buffer.alloc(10, 0x20)], {}, false);
    const started = Date.now();
    const answer = await stuck;
    expect(answer.status).toBe('4');
    expect(answer.message).toBe('Request body stalled: no DATA for 300 ms (URL key "body-timeout"); the stream was reset.');
    expect(answer.at - started).toBeLessThan(2000);
    await new Promise((resolve) => setTimeout(resolve, 900 - (Date.now() - started)));
    resting.end(whole);
    await once(resting, 'close');
    expect(restingStatus).toBe('0');
  });
});

describe('idle-timeout and a Weft consumer', () => {
  it('the consumer calls again after the provider closed its idle connection', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port, parameters: { 'idle-timeout': 300 } });
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0 });
    expect(await greeter.sayHello('before')).toBe('hello before');
    // Each pause outlasts the provider's idle-timeout: it closes the idle connection with GOAWAY(NO_ERROR), the
    // connection goes idle (no backoff: it was closed gracefully), stays available, and the next call connects.
    for (let round = 0; round < 3; round++) {
      await new Promise((resolve) => setTimeout(resolve, 700));
      expect(consumer.isAvailable(greeter)).toBe(true);
      expect(await greeter.sayHello(`after ${round}`)).toBe(`hello after ${round}`);
    }
  });
});
