// Hostile and broken peers: malformed gRPC frames, oversized messages refused before buffering, garbage on the
// raw TCP port, more concurrent streams than allowed, oversized headers — and a provider that answers nonsense to
// a Weft consumer. After each, the server (or consumer) keeps working.
import http2 from 'node:http2';
import net from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { RpcError, RpcErrorCode } from '@weft/core';
import { freePort } from '@weft/test-utils';

import { Greeter, greeterImpl, Harness } from './support/harness.js';

const harness = new Harness();
const cleanups: (() => void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) cleanup();
  await harness.close();
});

function connect(port: number): http2.ClientHttp2Session {
  const session = http2.connect(`http://127.0.0.1:${port}`);
  session.on('error', () => undefined);
  cleanups.push(() => session.destroy());
  return session;
}

function prefix(flags: number, length: number): Buffer {
  const out = Buffer.alloc(5);
  out[0] = flags;
  out.writeUInt32BE(length, 1);
  return out;
}

function frame(json: string, flags = 0): Buffer {
  const body = Buffer.from(json);
  return Buffer.concat([prefix(flags, body.length), body]);
}

/** Opens a gRPC stream and resolves with the status headers (trailers, or trailers-only response headers). */
function grpcStatusOf(stream: http2.ClientHttp2Stream): Promise<{ status: string | undefined; message: string | undefined; rstCode: number }> {
  return new Promise((resolve) => {
    let status: string | undefined;
    let message: string | undefined;
    const take = (headers: http2.IncomingHttpHeaders) => {
      if (headers['grpc-status'] !== undefined) {
        status = String(headers['grpc-status']);
        message = headers['grpc-message'] === undefined ? undefined : decodeURIComponent(String(headers['grpc-message']));
      }
    };
    stream.on('response', take);
    stream.on('trailers', take);
    stream.on('error', () => undefined);
    stream.on('close', () => resolve({ status, message, rstCode: stream.rstCode ?? -1 }));
    stream.resume();
  });
}

function grpcRequest(session: http2.ClientHttp2Session, method: string, headers: Record<string, string> = {}): http2.ClientHttp2Stream {
  return session.request({ ':method': 'POST', ':path': `/org.acme.Greeter/${method}`, 'content-type': 'application/grpc+json', te: 'trailers', ...headers });
}

async function stillServes(port: number): Promise<void> {
  const consumer = await harness.start(`check-${Math.random().toString(36).slice(2)}`);
  const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0 });
  expect(await greeter.sayHello('still here')).toBe('hello still here');
}

describe('malformed gRPC requests', () => {
  it('refuses a compressed flag without grpc-encoding, and reserved flag bits, with INTERNAL', async () => {
    const { port, seen } = await harness.pair();
    const session = connect(port);
    const compressed = grpcRequest(session, 'sayHello');
    const a = grpcStatusOf(compressed);
    compressed.end(frame('["x"]', 1));
    expect((await a).status).toBe('13');
    expect((await a).message).toContain('compressed flag');
    const reserved = grpcRequest(session, 'sayHello');
    const b = grpcStatusOf(reserved);
    reserved.end(frame('["x"]', 0x80));
    expect((await b).status).toBe('13');
    expect((await b).message).toContain('reserved flag bits');
    expect(seen).toHaveLength(0);
    await stillServes(port);
  });

  it('refuses a message cut short by END_STREAM, a stream with no message, and two messages in a unary call', async () => {
    const { port, seen } = await harness.pair();
    const session = connect(port);
    const truncated = grpcRequest(session, 'sayHello');
    const a = grpcStatusOf(truncated);
    truncated.end(Buffer.concat([prefix(0, 100), Buffer.from('["only a part"]')]));
    expect((await a).status).toBe('13');
    expect((await a).message).toContain('Truncated');
    const headerOnly = grpcRequest(session, 'sayHello');
    const b = grpcStatusOf(headerOnly);
    headerOnly.end(Buffer.from([0, 0]));
    expect((await b).status).toBe('13');
    const empty = grpcRequest(session, 'sayHello');
    const c = grpcStatusOf(empty);
    empty.end();
    expect((await c).status).toBe('13');
    expect((await c).message).toContain('without a request message');
    const two = grpcRequest(session, 'sayHello');
    const d = grpcStatusOf(two);
    two.end(Buffer.concat([frame('["a"]'), frame('["b"]')]));
    expect((await d).status).toBe('13');
    expect(seen).toHaveLength(0);
    await stillServes(port);
  });

  it('answers INTERNAL for undecodable JSON, UNKNOWN for an unsupported codec subtype, UNIMPLEMENTED for an unknown grpc-encoding', async () => {
    const { port, seen } = await harness.pair();
    const session = connect(port);
    const json = grpcRequest(session, 'sayHello');
    const a = grpcStatusOf(json);
    json.end(frame('["unterminated'));
    expect((await a).status).toBe('13');
    const proto = grpcRequest(session, 'sayHello', { 'content-type': 'application/grpc+proto' });
    const b = grpcStatusOf(proto);
    proto.end(frame('["x"]'));
    expect((await b).status).toBe('2');
    expect((await b).message).toContain("Unsupported Media Type 'application/grpc+proto'");
    const snappy = grpcRequest(session, 'sayHello', { 'grpc-encoding': 'snappy' });
    const c = grpcStatusOf(snappy);
    snappy.end(frame('["x"]', 1));
    expect((await c).status).toBe('12');
    expect(seen).toHaveLength(0);
    await stillServes(port);
  });
});

describe('size limits: refused before buffering', () => {
  it('refuses a message whose prefix declares more than `payload` at once, and resets the upload', async () => {
    const { port, seen } = await harness.pair({ export: { parameters: { payload: 1024 } } });
    const session = connect(port);
    const stream = grpcRequest(session, 'sayHello');
    const outcome = grpcStatusOf(stream);
    stream.write(prefix(0, 2048)); // the body never comes, and the stream is not ended
    const { status, message } = await outcome;
    expect(status).toBe('8');
    expect(message).toContain('2048');
    expect(seen).toHaveLength(0);
    // Exactly at the limit is fine.
    const fits = grpcRequest(session, 'join');
    const ok = new Promise<string>((resolve) => {
      let body = Buffer.alloc(0);
      fits.on('data', (chunk: Buffer) => (body = Buffer.concat([body, chunk])));
      fits.on('end', () => resolve(body.subarray(5).toString()));
    });
    const parts = JSON.stringify([['x'.repeat(1024 - 6)]]);
    expect(Buffer.byteLength(parts)).toBe(1024);
    fits.end(frame(parts));
    expect(await ok).toBe(JSON.stringify('x'.repeat(1024 - 6)));
  });

  it('a 100 MiB declared message with a few KiB sent is refused without the server buffering it', async () => {
    const { port, seen } = await harness.pair();
    const session = connect(port);
    const before = process.memoryUsage().arrayBuffers;
    const outcomes = [];
    for (let i = 0; i < 5; i++) {
      const stream = grpcRequest(session, 'sayHello');
      outcomes.push(grpcStatusOf(stream));
      stream.write(Buffer.concat([prefix(0, 100 * 1024 * 1024), Buffer.alloc(4096, 0x20)]));
    }
    for (const outcome of outcomes) expect((await outcome).status).toBe('8');
    const grown = process.memoryUsage().arrayBuffers - before;
    expect(grown).toBeLessThan(16 * 1024 * 1024);
    expect(seen).toHaveLength(0);
    // Plain HTTP: a declared content-length over the limit is refused before reading.
    const plain = session.request({ ':method': 'POST', ':path': '/org.acme.Greeter/sayHello', 'content-type': 'application/json', 'content-length': String(100 * 1024 * 1024) });
    const status = new Promise<number>((resolve) => plain.on('response', (h) => resolve(Number(h[':status']))));
    plain.on('error', () => undefined);
    plain.write(Buffer.alloc(4096, 0x20));
    expect(await status).toBe(413);
    await stillServes(port);
  });

  it('refuses a request whose headers exceed max-header-list-size, and keeps serving', async () => {
    const { port, seen } = await harness.pair({ export: { parameters: { 'max-header-list-size': 4096 } } });
    const session = connect(port);
    await new Promise((resolve) => session.once('remoteSettings', resolve));
    expect(session.remoteSettings.maxHeaderListSize).toBe(4096);
    const stream = grpcRequest(session, 'sayHello', { 'x-huge': 'h'.repeat(16 * 1024) });
    const outcome = new Promise<string>((resolve) => {
      stream.on('response', (h) => resolve(`status ${String(h['grpc-status'] ?? h[':status'])}`));
      stream.on('error', (e: NodeJS.ErrnoException) => resolve(`error ${e.code ?? ''}`));
      stream.on('close', () => resolve(`closed ${stream.rstCode ?? ''}`));
    });
    stream.end(frame('["x"]'));
    expect(await outcome).not.toBe('status 0');
    expect(seen).toHaveLength(0);
    await stillServes(port);
  });
});

describe('connections', () => {
  it('closes a connection that starts with garbage, and keeps serving', async () => {
    const { port } = await harness.pair();
    const closed = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write('\x16\x03\x01 definitely not http\r\n\r\n'));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(true));
      socket.resume();
    });
    expect(closed).toBe(true);
    // Garbage after a valid HTTP/2 preface: a protocol error for that connection only.
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.write(Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.alloc(64, 0xff)])));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve());
      socket.resume();
    });
    // A malformed HTTP/1 request line: 400.
    const reply = await new Promise<string>((resolve) => {
      let text = '';
      const socket = net.connect(port, '127.0.0.1', () => socket.write('GET \x01\x02 HTTP/1.1\r\n\r\n'));
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(text));
    });
    expect(reply).toMatch(/^HTTP\/1\.1 400/);
    await stillServes(port);
  });

  it('advertises max-concurrent-streams; more calls than that all complete, never more than the limit at once', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    let running = 0;
    let peak = 0;
    await provider.export(
      Greeter,
      {
        ...greeterImpl(),
        sleep: async (ms: number) => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((resolve) => setTimeout(resolve, ms));
          running--;
          return ms;
        },
      },
      { protocol: 'tri', port, parameters: { 'max-concurrent-streams': 4 } },
    );
    const session = connect(port);
    await new Promise((resolve) => session.once('remoteSettings', resolve));
    expect(session.remoteSettings.maxConcurrentStreams).toBe(4);
    const consumer = await harness.start('consumer');
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 10_000 });
    const answers = await Promise.all(Array.from({ length: 20 }, () => greeter.sleep(50)));
    expect(answers).toEqual(Array.from({ length: 20 }, () => 50));
    expect(peak).toBeGreaterThan(1);
    expect(peak).toBeLessThanOrEqual(4);
  });
});

describe('a provider answering nonsense to a Weft consumer', () => {
  async function fakeProvider(answer: (stream: http2.ServerHttp2Stream) => void): Promise<number> {
    const server = http2.createServer();
    server.on('stream', (stream) => {
      stream.on('error', () => undefined);
      stream.resume();
      stream.on('end', () => answer(stream));
    });
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    cleanups.push(() => server.close());
    return port;
  }

  async function callError(port: number, parameters: Record<string, string | number> = {}): Promise<RpcError> {
    const consumer = await harness.start(`consumer-${port}`);
    const greeter = await consumer.refer(Greeter, { url: `tri://127.0.0.1:${port}`, retries: 0, timeout: 2000, parameters });
    const error = await greeter.sayHello('x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    return error as RpcError;
  }

  it('reports a response without grpc-status, a non-gRPC answer, an oversized or truncated message', async () => {
    const noStatus = await fakeProvider((stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' });
      stream.end(frame('"x"'));
    });
    const missing = await callError(noStatus);
    expect(missing.code).toBe(RpcErrorCode.UNKNOWN);
    expect(missing.message).toContain('missing GRPC status');

    const html = await fakeProvider((stream) => {
      stream.respond({ ':status': 503, 'content-type': 'text/html' });
      stream.end('<h1>busy</h1>');
    });
    const busy = await callError(html);
    expect(busy.code).toBe(RpcErrorCode.NETWORK);
    expect(busy.message).toContain('invalid content-type: text/html');

    const huge = await fakeProvider((stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(frame(JSON.stringify('y'.repeat(4096))));
    });
    const tooBig = await callError(huge, { payload: 1024 });
    expect(tooBig.code).toBe(RpcErrorCode.LIMIT_EXCEEDED);

    const cut = await fakeProvider((stream) => {
      stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
      stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
      stream.end(Buffer.concat([prefix(0, 50), Buffer.from('"short"')]));
    });
    const truncated = await callError(cut);
    expect(truncated.code).toBe(RpcErrorCode.SERIALIZATION);
    expect(truncated.message).toContain('Truncated');
  });

  it('reports a reset stream as `network` (REFUSED_STREAM) or `cancelled` (CANCEL)', async () => {
    const refused = await fakeProvider((stream) => stream.close(http2.constants.NGHTTP2_REFUSED_STREAM));
    const a = await callError(refused);
    expect(a.code).toBe(RpcErrorCode.NETWORK);
    expect(a.message).toContain('refused the stream');
    const cancelled = await fakeProvider((stream) => stream.close(http2.constants.NGHTTP2_CANCEL));
    expect((await callError(cancelled)).code).toBe(RpcErrorCode.CANCELLED);
  });
});
