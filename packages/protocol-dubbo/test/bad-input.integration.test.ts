// Hostile and malformed input at a Weft dubbo:// provider (§6.1, §1.11): each gets the right status or a closed
// connection with a logged reason, the server stays up, and memory stays bounded (measured in a child process).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { DubboStatus, encodeFrame, Flag, requestId, writeRequestBody } from '@weft/protocol-dubbo';

import { FakeHessian } from './support/fake-hessian.js';
import { Greeter, greeterImpl, Harness, freePort } from './support/harness.js';
import { RawPeer } from './support/raw-peer.js';

const harness = new Harness();
afterEach(() => harness.close());
const hessian = new FakeHessian();

const readString = (body: Uint8Array) => hessian.createInput(body).readString();

function sayHello(version = '2.0.2', name = 'raw'): Uint8Array {
  return writeRequestBody(hessian, { dubboVersion: version, path: Greeter.name, version: '0.0.0', method: 'sayHello', descriptor: 'Ljava/lang/String;' }, [name], [String], {
    path: Greeter.name,
  });
}

async function provider(parameters: Record<string, string | number> = {}): Promise<number> {
  const port = await freePort();
  const app = await harness.start('provider');
  await app.export(Greeter, greeterImpl(), { protocol: 'dubbo', port, parameters });
  return port;
}

/** A call over a fresh raw connection still works: the server stayed up. */
async function stillServes(port: number): Promise<void> {
  const peer = await RawPeer.connect(port);
  peer.write(encodeFrame(0xc2, 0, 0, 99, sayHello()));
  const answer = await peer.frame();
  expect(answer.status).toBe(DubboStatus.OK);
  expect(hessian.createInput(answer.body).readInt()).toBe(4);
  peer.destroy();
}

describe('dubbo bad input: the connection', () => {
  it('closes a connection that sends a wrong magic, with a logged reason', async () => {
    const port = await provider();
    const peer = await RawPeer.connect(port);
    peer.write(Buffer.from('GET / HTTP/1.1\r\nHost: x\r\n\r\n'));
    await peer.closed;
    expect(peer.frames).toHaveLength(0);
    expect(harness.logger.of('warn').some((m) => /dubbo: closing connection from 127\.0\.0\.1:\d+: bad magic 0x4745 \(expected 0xdabb\)/.test(m))).toBe(true);
    await stillServes(port);
  });

  it('answers a header claiming more than `payload` with status 40 before reading the body, and stays in step', async () => {
    const port = await provider({ payload: 1024 });
    const peer = await RawPeer.connect(port);
    const header = encodeFrame(0xc2, 0, 0, 7, Buffer.alloc(0));
    header.writeInt32BE(5000, 12);
    peer.write(header);
    const refusal = await peer.frame();
    expect(refusal.status).toBe(DubboStatus.BAD_REQUEST);
    expect(refusal.idLow).toBe(7);
    expect(readString(refusal.body)).toMatch(/^Data length too large: 5000, max payload: 1024, channel: 127\.0\.0\.1:\d+$/);
    expect(harness.logger.of('warn').some((m) => m.includes('5000 bytes exceed the payload limit of 1024 bytes (URL key "payload")'))).toBe(true);
    // The announced body is skipped as it arrives; the next frame on the same connection is answered.
    peer.write(Buffer.alloc(5000, 0x41));
    peer.write(encodeFrame(0xc2, 0, 0, 8, sayHello()));
    const next = await peer.frame(2);
    expect([next.idLow, next.status]).toEqual([8, DubboStatus.OK]);
    peer.destroy();
  });

  it('survives a truncated body (the peer goes away mid-frame)', async () => {
    const port = await provider();
    const peer = await RawPeer.connect(port);
    const frame = encodeFrame(0xc2, 0, 0, 1, sayHello());
    peer.write(frame.subarray(0, frame.length - 5));
    await new Promise((r) => setTimeout(r, 50));
    expect(peer.frames).toHaveLength(0);
    peer.destroy();
    await stillServes(port);
  });
});

describe('dubbo bad input: requests', () => {
  it('answers an unknown serialization id with status 40 naming the codecs it reads', async () => {
    const port = await provider();
    const peer = await RawPeer.connect(port);
    peer.write(encodeFrame(Flag.REQUEST | Flag.TWO_WAY | 9, 0, 0, 3, sayHello()));
    const answer = await peer.frame();
    expect([answer.status, answer.idLow, answer.flag]).toEqual([DubboStatus.BAD_REQUEST, 3, 2]);
    expect(readString(answer.body)).toBe('Fail to decode request due to: unknown serialization id 9 (this provider reads: hessian2=2)');
    peer.destroy();
  });

  it('answers a garbage body with status 40, and a one-way garbage body with nothing', async () => {
    const port = await provider();
    const peer = await RawPeer.connect(port);
    peer.write(encodeFrame(0x82, 0, 0, 4, Buffer.from([0xff, 0xfe, 0x01])));
    peer.write(encodeFrame(0xc2, 0, 0, 5, Buffer.from([0xff, 0xfe, 0x01])));
    const answer = await peer.frame();
    expect([answer.status, answer.idLow]).toEqual([DubboStatus.BAD_REQUEST, 5]);
    expect(readString(answer.body)).toMatch(/^Fail to decode request due to: RpcError: unknown tag 0xff at offset 0/);
    await new Promise((r) => setTimeout(r, 50));
    expect(peer.frames).toHaveLength(1);
    peer.destroy();
    await stillServes(port);
  });

  it('answers an unknown service and an unknown method with status 40, as a Java 3.3 provider does', async () => {
    const port = await provider();
    const peer = await RawPeer.connect(port);
    const unknownService = writeRequestBody(hessian, { dubboVersion: '2.0.2', path: 'org.acme.Nope', version: '0.0.0', method: 'x', descriptor: '' }, [], [], {});
    const unknownMethod = writeRequestBody(hessian, { dubboVersion: '2.0.2', path: Greeter.name, version: '0.0.0', method: 'shout', descriptor: '' }, [], [], {});
    const wrongArity = writeRequestBody(hessian, { dubboVersion: '2.0.2', path: Greeter.name, version: '0.0.0', method: 'add', descriptor: 'I' }, [1], [Number], {});
    peer.write(encodeFrame(0xc2, 0, 0, 1, unknownService));
    peer.write(encodeFrame(0xc2, 0, 0, 2, unknownMethod));
    peer.write(encodeFrame(0xc2, 0, 0, 3, wrongArity));
    const [a, b, c] = [await peer.frame(1), await peer.frame(2), await peer.frame(3)];
    expect([a.status, b.status, c.status]).toEqual([40, 40, 40]);
    expect(readString(a.body)).toBe('Fail to decode request due to: java.io.IOException: Service org.acme.Nope:0.0.0 not found, invocation rejected. (exported here: org.acme.Greeter)');
    expect(readString(b.body)).toContain('java.lang.IllegalArgumentException: Service not found:org.acme.Greeter, shout (methods: sayHello, add,');
    expect(readString(c.body)).toContain('the descriptor "I" has 1 parameter(s), the method declares 2');
    peer.destroy();
  });

  it('answers heartbeats with the same id (even -1), ignores one-way ones, refuses events over 15 bytes', async () => {
    const port = await provider();
    const peer = await RawPeer.connect(port);
    peer.write(encodeFrame(Flag.REQUEST | Flag.EVENT | 2, 0, 0, 1, Buffer.from([0x4e])));
    peer.write(encodeFrame(0xe2, 0, 0xffffffff, 0xffffffff, Buffer.from([0x4e])));
    const beat = await peer.frame();
    expect(Buffer.from(encodeFrame(beat.flag, beat.status, beat.idHigh, beat.idLow, beat.body)).toString('hex')).toBe('dabb2214ffffffffffffffff000000014e');
    expect(requestId(beat)).toBe(-1n);
    const long = hessian.createOutput();
    long.writeString('a long event name!');
    peer.write(encodeFrame(0xe2, 0, 0, 2, long.finish()));
    const refusal = await peer.frame(2);
    expect(refusal.status).toBe(DubboStatus.BAD_REQUEST);
    expect(readString(refusal.body)).toBe('Fail to decode request due to: Event data too long, actual size 19, threshold 15');
    peer.destroy();
  });

  it('answers a request of body version 2.0.0 with flag 1 (no attachments), and 2.0.2 with flag 4 + dubbo=2.0.2', async () => {
    const port = await provider();
    const peer = await RawPeer.connect(port);
    peer.write(encodeFrame(0xc2, 0, 0, 1, sayHello('2.0.0', 'old')));
    peer.write(encodeFrame(0xc2, 0, 0, 2, sayHello('2.0.2', 'new')));
    const [old, fresh] = [await peer.frame(1), await peer.frame(2)];
    expect(Buffer.from(old.body).toString('hex')).toBe('91' + '09' + Buffer.from('hello old').toString('hex'));
    expect(Buffer.from(fresh.body).toString('hex')).toBe('94' + '09' + Buffer.from('hello new').toString('hex') + '4805647562626f05322e302e325a');
    peer.destroy();
  });
});

describe('dubbo bad input: memory', () => {
  it('stays bounded under oversized headers, stalled large bodies and garbage (RSS of a child-process provider)', async () => {
    const child = spawn(process.execPath, ['--expose-gc', fileURLToPath(new URL('./support/rss-provider.mjs', import.meta.url)), harness.root, String(await freePort())], {
      stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, WEFT_LOG: 'error' },
    });
    harness.onClose(() => {
      child.kill('SIGKILL');
    });
    const lines: string[] = [];
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (text: string) => lines.push(...text.trim().split('\n')));
    const waitLine = async (prefix: string) => {
      const end = Date.now() + 10_000;
      for (;;) {
        const line = lines.find((l) => l.startsWith(prefix));
        if (line !== undefined) return line.slice(prefix.length);
        if (Date.now() > end) throw new Error(`child said no "${prefix}" (said: ${lines.join(' | ')})`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const port = Number(await waitLine('port '));
    const before = Number(await waitLine('rss '));
    const peers: RawPeer[] = [];
    // 40 connections announce an 8 MiB body (the limit) and send 4 KiB of it, then stall.
    for (let i = 0; i < 40; i++) {
      const peer = await RawPeer.connect(port);
      const header = encodeFrame(0xc2, 0, 0, i, Buffer.alloc(0));
      header.writeInt32BE(8 * 1024 * 1024, 12);
      peer.write(Buffer.concat([header, Buffer.alloc(4096, 0x41)]));
      peers.push(peer);
    }
    // 40 more announce 1 GiB each (refused from the header), and 40 send garbage frames.
    for (let i = 0; i < 40; i++) {
      const peer = await RawPeer.connect(port);
      const header = encodeFrame(0xc2, 0, 0, i, Buffer.alloc(0));
      header.writeInt32BE(1 << 30, 12);
      peer.write(header);
      peer.write(encodeFrame(0xc2, 0, 0, i, Buffer.alloc(0)));
      peers.push(peer);
      const garbage = await RawPeer.connect(port);
      garbage.write(Buffer.alloc(64 * 1024, 0x37));
      peers.push(garbage);
    }
    await new Promise((r) => setTimeout(r, 300));
    child.stdin.write('measure\n');
    const after = Number(await waitLine('rss-after '));
    for (const peer of peers) peer.destroy();
    const grownMiB = (after - before) / (1024 * 1024);
    // 40 × 8 MiB preallocated would be 320 MiB; bodies are held only as far as they arrived.
    if (process.env['WEFT_DUBBO_RSS'] === '1') process.stdout.write(`dubbo provider RSS: before ${(before / 2 ** 20).toFixed(1)} MiB, after ${(after / 2 ** 20).toFixed(1)} MiB\n`);
    expect(grownMiB).toBeLessThan(48);
  }, 20_000);
});
