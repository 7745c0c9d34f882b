// The frame layer against the spec's worked frames (§1.14) and decoder checklist (§6.1): header bytes, request and
// response bodies, events, splitting at every offset, ids at the 64-bit edges, the payload check before buffering.
import { describe, expect, it } from 'vitest';

import { RpcErrorCode } from '@weft/core';
import {
  DubboStatus,
  encodeFrame,
  Flag,
  FrameDecoder,
  FrameWriter,
  intVersion,
  readResponseBody,
  requestId,
  splitDescriptor,
  statusError,
  supportsResponseAttachments,
  writeRequestBody,
  writeStringBody,
  writeValueBody,
  failureMessage,
  type Frame,
} from '@weft/protocol-dubbo';
import { RpcError } from '@weft/core';

import { FakeHessian } from './support/fake-hessian.js';

const hessian = new FakeHessian();
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const str = (s: string) => Buffer.concat([Buffer.from([s.length]), Buffer.from(s)]).toString('hex');
const DEMO = 'org.apache.dubbo.demo.DemoService';
const demo = `3021${Buffer.from(DEMO).toString('hex')}`;

function collect(payload = 8 << 20) {
  const frames: Frame[] = [];
  const oversized: [Frame, number][] = [];
  const corrupt: string[] = [];
  const decoder = new FrameDecoder(payload, { frame: (f) => frames.push(f), oversized: (h, n) => oversized.push([h, n]), corrupt: (r) => corrupt.push(r) });
  return { decoder, frames, oversized, corrupt };
}

describe('dubbo frame: the worked frames of §1.14', () => {
  it('writes the sayHello("world") request byte for byte (header 0xc2, id 1, length 228)', () => {
    const body = writeRequestBody(
      hessian,
      { dubboVersion: '2.0.2', path: DEMO, version: '0.0.0', method: 'sayHello', descriptor: 'Ljava/lang/String;' },
      ['world'],
      [String],
      { path: DEMO, 'remote.application': 'demo-consumer', interface: DEMO, version: '0.0.0', timeout: '3000' },
    );
    const frame = encodeFrame(Flag.REQUEST | Flag.TWO_WAY | 2, 0, 0, 1, body);
    expect(hex(frame.subarray(0, 16))).toBe('dabbc200000000000000000100000' + '0e4');
    expect(hex(body)).toBe(
      str('2.0.2') + demo + str('0.0.0') + str('sayHello') + str('Ljava/lang/String;') + str('world') +
        '48' + str('path') + demo + str('remote.application') + str('demo-consumer') + str('interface') + demo + str('version') + str('0.0.0') + str('timeout') + str('3000') + '5a',
    );
  });

  it('writes the flag-4, flag-5, flag-1 and status-70 responses byte for byte', () => {
    const value = writeValueBody(hessian, 'Hello world', String, { dubbo: '2.0.2' });
    expect(hex(encodeFrame(0x02, 20, 0, 1, value))).toBe('dabb021400000000000000010000001b' + '940b48656c6c6f20776f726c64' + '4805647562626f05322e302e325a');
    expect(hex(encodeFrame(0x02, 20, 0, 1, writeValueBody(hessian, null, String, { dubbo: '2.0.2' })))).toBe('dabb021400000000000000010000000f' + '95' + '4805647562626f05322e302e325a');
    expect(hex(encodeFrame(0x02, 20, 0, 1, writeValueBody(hessian, 'Hello world', String, undefined)))).toBe('dabb021400000000000000010000000d' + '910b48656c6c6f20776f726c64');
    expect(hex(encodeFrame(0x02, DubboStatus.SERVICE_ERROR, 0, 1, writeStringBody(hessian, 'boom')))).toBe('dabb0246000000000000000100000005' + '04626f6f6d');
  });

  it('writes the heartbeat request, heartbeat response and read-only notice byte for byte', () => {
    const nul = Buffer.from([0x4e]);
    expect(hex(encodeFrame(0xe2, 0, 0, 5, nul))).toBe('dabbe200000000000000000500000001' + '4e');
    expect(hex(encodeFrame(Flag.EVENT | 2, 20, 0, 5, nul))).toBe('dabb2214000000000000000500000001' + '4e');
    expect(hex(encodeFrame(Flag.REQUEST | Flag.EVENT | 2, 0, 0, 6, writeStringBody(hessian, 'R')))).toBe('dabba200000000000000000600000002' + '0152');
  });

  it('reads each response kind back: value, null, exception, with and without attachments', () => {
    const a = readResponseBody(hessian, writeValueBody(hessian, 'x', String, { dubbo: '2.0.2', k: 'v' }), String, null);
    expect(a.value).toBe('x');
    expect([...(a.attachments ?? [])]).toEqual([['dubbo', '2.0.2'], ['k', 'v']]);
    expect(readResponseBody(hessian, writeValueBody(hessian, null, String, undefined), String, null)).toEqual({ value: null, error: undefined, attachments: undefined });
    expect(() => readResponseBody(hessian, Uint8Array.of(0x97), String, null)).toThrow("Unknown result flag, expect '0' '1' '2' '3' '4' '5', but received: 7");
    // apache-dubbo-service sends a plain string in the exception slot.
    const plain = readResponseBody(hessian, Uint8Array.from([0x90, ...Buffer.from(str('nope'), 'hex')]), String, null);
    expect(plain.error?.message).toBe('nope');
  });
});

describe('dubbo frame: the decoder (§6.1.2–3)', () => {
  const frames = [
    encodeFrame(0xc2, 0, 0, 1, Buffer.from('hello')),
    encodeFrame(0xe2, 0, 0, 2, Buffer.from([0x4e])),
    encodeFrame(0x02, 20, 0, 3, Buffer.alloc(0)),
  ];
  const stream = Buffer.concat(frames);

  it('reads three frames from one chunk, including a 0-length body', () => {
    const { decoder, frames: out } = collect();
    decoder.push(stream);
    expect(out.map((f) => [f.flag, f.idLow, f.body.toString('hex')])).toEqual([
      [0xc2, 1, Buffer.from('hello').toString('hex')],
      [0xe2, 2, '4e'],
      [0x02, 3, ''],
    ]);
  });

  it('reads the same frames split at every byte offset, and byte by byte', () => {
    for (let cut = 1; cut < stream.length; cut++) {
      const { decoder, frames: out } = collect();
      decoder.push(stream.subarray(0, cut));
      decoder.push(stream.subarray(cut));
      expect(out.map((f) => f.idLow)).toEqual([1, 2, 3]);
      expect(out[0]?.body.toString()).toBe('hello');
    }
    const { decoder, frames: out } = collect();
    for (const byte of stream) decoder.push(Buffer.from([byte]));
    expect(out.map((f) => f.body.length)).toEqual([5, 1, 0]);
    expect(decoder.buffered).toBe(0);
  });

  it('reads a body over 64 KiB arriving in many reads (collected as it arrives, not preallocated)', () => {
    const body = Buffer.alloc(300_000);
    for (let i = 0; i < body.length; i++) body[i] = i % 251;
    const frame = encodeFrame(0xc2, 0, 0, 9, body);
    const { decoder, frames: out } = collect();
    for (let at = 0; at < frame.length; at += 7000) decoder.push(frame.subarray(at, at + 7000));
    expect(out).toHaveLength(1);
    expect(out[0]?.body.equals(body)).toBe(true);
  });

  it('keeps request ids as their 64 raw bits: 0, 1, 2^63-1, -1, -2^63', () => {
    const ids: [number, number, bigint][] = [
      [0, 0, 0n],
      [0, 1, 1n],
      [0x7fffffff, 0xffffffff, 2n ** 63n - 1n],
      [0xffffffff, 0xffffffff, -1n],
      [0x80000000, 0, -(2n ** 63n)],
    ];
    for (const [high, low, id] of ids) {
      const { decoder, frames: out } = collect();
      decoder.push(encodeFrame(0xc2, 0, high, low, Buffer.alloc(0)));
      expect(requestId(out[0] as Frame)).toBe(id);
      expect(encodeFrame(0x02, 20, (out[0] as Frame).idHigh, (out[0] as Frame).idLow, Buffer.alloc(0)).subarray(4, 12)).toEqual(
        Buffer.from(BigInt.asUintN(64, id).toString(16).padStart(16, '0'), 'hex'),
      );
    }
  });

  it('skips a body over payload without buffering it, and stays in step for the next frame', () => {
    const { decoder, frames: out, oversized } = collect(1024);
    const big = encodeFrame(0xc2, 0, 0, 7, Buffer.alloc(10_000, 1));
    decoder.push(big.subarray(0, 20));
    expect(oversized).toHaveLength(1);
    expect(oversized[0]?.[1]).toBe(10_000);
    expect(oversized[0]?.[0].idLow).toBe(7);
    expect(decoder.buffered).toBe(0);
    decoder.push(Buffer.concat([big.subarray(20), encodeFrame(0xc2, 0, 0, 8, Buffer.from('ok'))]));
    expect(out.map((f) => [f.idLow, f.body.toString()])).toEqual([[8, 'ok']]);
  });

  it('reports a wrong magic and a negative length as corrupt, and ignores what follows', () => {
    const a = collect();
    a.decoder.push(Buffer.from('GET / HTTP/1.1\r\n\r\n'));
    a.decoder.push(frames[0] as Buffer);
    expect(a.corrupt).toEqual(['bad magic 0x4745 (expected 0xdabb): not a Dubbo frame']);
    expect(a.frames).toHaveLength(0);
    const b = collect();
    const negative = Buffer.from(frames[0] as Buffer);
    negative.writeInt32BE(-5, 12);
    b.decoder.push(negative);
    expect(b.corrupt).toEqual(['negative body length -5 in a frame header']);
  });
});

describe('dubbo frame: versions, descriptors, statuses', () => {
  it('answers with attachment flags for request versions 2.0.2–2.0.99 only (§6.1.4)', () => {
    expect(intVersion('2.0.2')).toBe(2000200);
    expect(intVersion('2.6.0')).toBe(2060000);
    const cases: [string | null, boolean][] = [
      ['2.0.2', true],
      ['2.0.99', true],
      ['2.0.10', true],
      ['2.0.0', false],
      ['2.6.0', false],
      ['', false],
      [null, false],
    ];
    for (const [version, expected] of cases) expect(supportsResponseAttachments(version)).toBe(expected);
  });

  it('splits parameter descriptors as desc2classArray does, and refuses malformed ones', () => {
    expect(splitDescriptor('')).toEqual([]);
    expect(splitDescriptor('IJ')).toEqual(['I', 'J']);
    expect(splitDescriptor('Ljava/lang/String;[I[[Ljava/lang/String;Lcom/foo/Outer$Inner;')).toEqual(['Ljava/lang/String;', '[I', '[[Ljava/lang/String;', 'Lcom/foo/Outer$Inner;']);
    expect(splitDescriptor('Ljava/lang/String')).toBeUndefined();
    expect(splitDescriptor('Q')).toBeUndefined();
  });

  it('maps statuses to RpcError codes, and reads back the exact code a Weft provider names', () => {
    const where = 'Call Greeter.sayHello() to 127.0.0.1:20880';
    expect(statusError(31, null, where).code).toBe(RpcErrorCode.TIMEOUT);
    expect(statusError(25, 'too large', where).code).toBe(RpcErrorCode.SERIALIZATION);
    expect(statusError(40, 'x', where).code).toBe(RpcErrorCode.SERIALIZATION);
    expect(statusError(60, 'x', where).code).toBe(RpcErrorCode.NO_INVOKER);
    expect(statusError(100, 'x', where).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    const boom = statusError(70, 'boom', where);
    expect(boom.code).toBe(RpcErrorCode.NETWORK);
    expect(boom.message).toBe(`${where} failed: status 70 SERVICE_ERROR: boom`);
    const weft = statusError(70, failureMessage(new RpcError(RpcErrorCode.FORBIDDEN, 'Invalid token')), where);
    expect(weft.code).toBe(RpcErrorCode.FORBIDDEN);
    expect(weft.message).toBe(`${where} failed: status 70 SERVICE_ERROR: Invalid token`);
  });
});

describe('FrameWriter', () => {
  it('writes the frames of one tick in order, in batches of at most 16 frames (the first full batch at once)', async () => {
    const writes: Buffer[] = [];
    const socket = { destroyed: false, write: (b: Buffer) => writes.push(Buffer.from(b)) } as unknown as import('node:net').Socket;
    const writer = new FrameWriter(socket);
    const frames = Array.from({ length: 20 }, (_, i) => encodeFrame(0x02, DubboStatus.OK, 0, i, Buffer.from([0x90 + (i % 16)])));
    for (const frame of frames) writer.write(frame);
    expect(writes.length).toBe(1);
    expect(writes[0]).toEqual(Buffer.concat(frames.slice(0, 16)));
    await new Promise((resolve) => process.nextTick(resolve));
    expect(writes.length).toBe(2);
    expect(writes[1]).toEqual(Buffer.concat(frames.slice(16)));
  });

  it('writes frames given by header fields exactly as encodeFrame would, mixed with whole frames, in order', async () => {
    const writes: Buffer[] = [];
    const socket = { destroyed: false, write: (b: Buffer) => writes.push(Buffer.from(b)) } as unknown as import('node:net').Socket;
    const writer = new FrameWriter(socket);
    const body = Buffer.from('0568656c6c6f', 'hex');
    writer.writeFrame(0xc2, 0, 0xffffffff, -2, body); // ids as raw 32-bit halves, a negative low half included
    writer.write(encodeFrame(0x22, DubboStatus.OK, 0, 7, Buffer.from([0x4e])));
    writer.writeFrame(0x02, DubboStatus.SERVICE_ERROR, 1, 2, new Uint8Array(0));
    await new Promise((resolve) => process.nextTick(resolve));
    expect(writes).toHaveLength(1);
    expect(hex(writes[0] as Buffer)).toBe(
      hex(Buffer.concat([encodeFrame(0xc2, 0, 0xffffffff, -2, body), encodeFrame(0x22, DubboStatus.OK, 0, 7, Buffer.from([0x4e])), encodeFrame(0x02, DubboStatus.SERVICE_ERROR, 1, 2, new Uint8Array(0))])),
    );
    writer.writeFrame(0x02, DubboStatus.OK, 0, 9, body); // a lone frame by its fields: still one write of header + body
    await new Promise((resolve) => process.nextTick(resolve));
    expect(hex(writes[1] as Buffer)).toBe(hex(encodeFrame(0x02, DubboStatus.OK, 0, 9, body)));
  });
});
