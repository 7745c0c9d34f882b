// gRPC Length-Prefixed-Message framing (§A.5): encoding, incremental reading with the size limit checked on the
// prefix, malformed frames, and decompression bounded by the limit.
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';

import { describe, expect, it } from 'vitest';

import { decompress, encodeFrame, FrameError, frameOf, GrpcMessageReader, GrpcStatus, isSupportedEncoding, writeFrameAndEnd } from '@weft/protocol-triple';

function framed(payload: string, flags = 0): Buffer {
  const body = Buffer.from(payload);
  const out = Buffer.alloc(5 + body.length);
  out[0] = flags;
  out.writeUInt32BE(body.length, 1);
  body.copy(out, 5);
  return out;
}

function frameError(run: () => void): FrameError {
  try {
    run();
  } catch (error) {
    if (error instanceof FrameError) return error;
    throw error;
  }
  throw new Error('expected a FrameError');
}

describe('encodeFrame', () => {
  it('writes flag 0, the big-endian length and the payload, in one buffer', () => {
    const frame = encodeFrame(Buffer.from('["hi"]'));
    expect([...frame.subarray(0, 5)]).toEqual([0, 0, 0, 0, 6]);
    expect(frame.subarray(5).toString()).toBe('["hi"]');
    expect(encodeFrame(new Uint8Array(0))).toEqual(Buffer.from([0, 0, 0, 0, 0]));
  });
});

describe('frameOf and writeFrameAndEnd', () => {
  /** What a stream receives from writeFrameAndEnd, and the chunks it was written in. */
  async function written(frame: ReturnType<typeof frameOf>): Promise<{ bytes: Buffer; chunks: number }> {
    const stream = new PassThrough();
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    const ended = new Promise((resolve) => stream.on('end', resolve));
    writeFrameAndEnd(stream, frame);
    await ended;
    return { bytes: Buffer.concat(chunks), chunks: chunks.length };
  }

  it('frames a small message in one buffer, as encodeFrame does', async () => {
    const payload = Buffer.from('x'.repeat(16 * 1024 - 1));
    const frame = frameOf(payload);
    expect(Buffer.isBuffer(frame)).toBe(true);
    expect(frame).toEqual(encodeFrame(payload));
    expect((await written(frame)).bytes).toEqual(encodeFrame(payload));
  });

  it('frames a large message as its prefix and the payload itself (not copied), written in order', async () => {
    const payload = Buffer.from('y'.repeat(64 * 1024));
    const frame = frameOf(payload);
    if (Buffer.isBuffer(frame)) throw new Error('expected a split frame');
    expect(frame.payload).toBe(payload);
    expect([...frame.prefix]).toEqual([0, 0, 1, 0, 0]);
    const { bytes } = await written(frame);
    expect(bytes).toEqual(encodeFrame(payload));
    // What a reader makes of it: the one message.
    const reader = new GrpcMessageReader(1 << 20);
    reader.push(bytes.subarray(0, 3));
    reader.push(bytes.subarray(3));
    reader.end();
    expect(reader.message?.toString()).toBe(payload.toString());
  });
});

describe('GrpcMessageReader', () => {
  it('reads a message that arrives whole as a view of the chunk (no copy)', () => {
    const chunk = framed('{"a":1}');
    const reader = new GrpcMessageReader(1024);
    reader.push(chunk);
    reader.end();
    expect(reader.message?.toString()).toBe('{"a":1}');
    expect(reader.message?.buffer).toBe(chunk.buffer);
    expect(reader.count).toBe(1);
    expect(reader.compressed).toBe(false);
  });

  it('reassembles a message split at every byte, prefix included', () => {
    const frame = framed('["split", "everywhere"]');
    const reader = new GrpcMessageReader(1024);
    for (const byte of frame) reader.push(Buffer.from([byte]));
    reader.end();
    expect(reader.message?.toString()).toBe('["split", "everywhere"]');
  });

  it('reads an empty message', () => {
    const reader = new GrpcMessageReader(1024);
    reader.push(Buffer.from([0, 0, 0, 0, 0]));
    reader.end();
    expect(reader.message?.length).toBe(0);
  });

  it('refuses a message over the limit as soon as its prefix is read (RESOURCE_EXHAUSTED)', () => {
    const reader = new GrpcMessageReader(1024);
    const header = Buffer.from([0, 0x06, 0x40, 0, 0]); // 100 MiB
    const error = frameError(() => reader.push(header));
    expect(error.status).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(error.message).toContain('104857600');
    const exact = new GrpcMessageReader(5);
    exact.push(framed('12345'));
    expect(exact.message?.toString()).toBe('12345');
    expect(frameError(() => new GrpcMessageReader(4).push(framed('12345'))).status).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
  });

  it('refuses reserved flag bits, and the compressed flag without an encoding (INTERNAL)', () => {
    expect(frameError(() => new GrpcMessageReader(1024).push(framed('x', 2))).status).toBe(GrpcStatus.INTERNAL);
    expect(frameError(() => new GrpcMessageReader(1024).push(framed('x', 0x81))).message).toContain('reserved flag bits');
    expect(frameError(() => new GrpcMessageReader(1024).push(framed('x', 1))).message).toContain('compressed flag');
    const allowed = new GrpcMessageReader(1024, true);
    allowed.push(framed('x', 1));
    expect(allowed.compressed).toBe(true);
  });

  it('refuses a second message in a unary call', () => {
    const reader = new GrpcMessageReader(1024);
    const error = frameError(() => reader.push(Buffer.concat([framed('a'), framed('b')])));
    expect(error.status).toBe(GrpcStatus.INTERNAL);
    expect(reader.message?.toString()).toBe('a');
  });

  it('refuses END_STREAM in the middle of a prefix or a body', () => {
    const partialBody = new GrpcMessageReader(1024);
    partialBody.push(framed('0123456789').subarray(0, 9));
    expect(frameError(() => partialBody.end()).message).toContain('4 of the 10 bytes');
    const partialPrefix = new GrpcMessageReader(1024);
    partialPrefix.push(Buffer.from([0, 0]));
    expect(frameError(() => partialPrefix.end()).message).toContain('2 of the 5 prefix bytes');
  });

  it('hands every message to onMessage when streaming', () => {
    const messages: string[] = [];
    const reader = new GrpcMessageReader(1024, false, Infinity, (m) => messages.push(m.toString()));
    const stream = Buffer.concat([framed('one'), framed('two'), framed(''), framed('three')]);
    reader.push(stream.subarray(0, 7));
    reader.push(stream.subarray(7));
    reader.end();
    expect(messages).toEqual(['one', 'two', '', 'three']);
    expect(reader.message).toBeUndefined();
    expect(reader.count).toBe(4);
  });
});

describe('decompression', () => {
  it('knows identity, gzip and deflate (absent means identity)', () => {
    expect(isSupportedEncoding(undefined)).toBe(true);
    expect(isSupportedEncoding('gzip')).toBe(true);
    expect(isSupportedEncoding('snappy')).toBe(false);
  });

  it('inflates gzip, bounded by the limit', async () => {
    const packed = gzipSync(Buffer.from('y'.repeat(10_000)));
    expect((await decompress(packed, 'gzip', 20_000)).length).toBe(10_000);
    const bomb = await decompress(packed, 'gzip', 1000).catch((e: unknown) => e);
    expect(bomb).toBeInstanceOf(FrameError);
    expect((bomb as FrameError).status).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    const corrupt = await decompress(Buffer.from('not gzip'), 'gzip', 1000).catch((e: unknown) => e);
    expect((corrupt as FrameError).status).toBe(GrpcStatus.INTERNAL);
  });
});
