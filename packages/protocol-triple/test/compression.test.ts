// Compression helpers: grpc-accept-encoding negotiation, compressed framing, and bounded streaming inflation.
import { createGzip, gunzipSync } from 'node:zlib';

import { describe, expect, it } from 'vitest';

import { accepts, ACCEPT_ENCODING, decompress, encodeCompressedFrame, FrameError, GrpcStatus, isSupportedEncoding } from '@weft/protocol-triple';

/** gzip of `size` zero bytes, compressed as a stream (never holding the inflated bytes). */
async function gzipZeros(size: number): Promise<Buffer> {
  const gzip = createGzip({ level: 9 });
  const parts: Buffer[] = [];
  gzip.on('data', (chunk: Buffer) => parts.push(chunk));
  const block = Buffer.alloc(1024 * 1024);
  for (let written = 0; written < size; written += block.length) {
    if (!gzip.write(block)) await new Promise((resolve) => gzip.once('drain', resolve));
  }
  gzip.end();
  await new Promise((resolve) => gzip.once('end', resolve));
  return Buffer.concat(parts);
}

describe('compression', () => {
  it('negotiates by grpc-accept-encoding; identity is always accepted', () => {
    expect(ACCEPT_ENCODING).toBe('identity,gzip,deflate');
    expect(accepts('identity,deflate,gzip', 'gzip')).toBe(true);
    expect(accepts('identity, gzip', 'gzip')).toBe(true);
    expect(accepts('identity', 'gzip')).toBe(false);
    expect(accepts(undefined, 'gzip')).toBe(false);
    expect(accepts(undefined, 'identity')).toBe(true);
    expect(isSupportedEncoding(undefined)).toBe(true);
    expect(isSupportedEncoding('snappy')).toBe(false);
  });

  it('frames a compressed message with the compressed flag and the compressed length', () => {
    const payload = Buffer.from('hello '.repeat(1000));
    const frame = encodeCompressedFrame(payload, 'gzip');
    expect(frame[0]).toBe(1);
    expect(frame.readUInt32BE(1)).toBe(frame.length - 5);
    expect(gunzipSync(frame.subarray(5))).toStrictEqual(payload);
    const identity = encodeCompressedFrame(payload, 'identity');
    expect(identity[0]).toBe(0);
    expect(identity.subarray(5)).toStrictEqual(payload);
  });

  it('inflates within the limit, and stops a bomb as soon as it passes the limit', async () => {
    const small = encodeCompressedFrame(Buffer.from('abc'.repeat(100)), 'deflate').subarray(5);
    expect((await decompress(small, 'deflate', 1000)).toString()).toBe('abc'.repeat(100));
    // 512 MiB of zeros in about 500 KiB: refused after the first MiB, long before it would be inflated whole.
    const bomb = await gzipZeros(512 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    const before = process.memoryUsage().arrayBuffers;
    const error = await decompress(bomb, 'gzip', 1024 * 1024).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FrameError);
    expect((error as FrameError).status).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect((error as FrameError).message).toBe('Decompressed gRPC message exceeds the limit of 1048576 bytes (URL key "payload"); inflating stopped there.');
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(64 * 1024 * 1024);
  }, 20_000);

  it('stops when the budget refuses, with its message; corrupt input is INTERNAL', async () => {
    const message = encodeCompressedFrame(Buffer.alloc(200_000, 1), 'gzip').subarray(5);
    let reserved = 0;
    const refused = await decompress(message, 'gzip', 1 << 20, {
      reserve: (bytes) => (reserved += bytes) <= 50_000,
      refusal: () => 'cap reached',
    }).then(
      () => undefined,
      (e: unknown) => e as FrameError,
    );
    expect(refused?.status).toBe(GrpcStatus.RESOURCE_EXHAUSTED);
    expect(refused?.message).toBe('cap reached');
    const corrupt = await decompress(Buffer.from('not gzip'), 'gzip', 1000).then(
      () => undefined,
      (e: unknown) => e as FrameError,
    );
    expect(corrupt?.status).toBe(GrpcStatus.INTERNAL);
    expect(corrupt?.message).toMatch(/^Corrupt gzip gRPC message: /);
  });
});
