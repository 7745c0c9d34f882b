import { createGunzip, createInflate, deflateSync, gzipSync, type Gunzip, type Inflate } from 'node:zlib';

import { FrameError } from './grpc-frame-error.js';
import { GrpcStatus } from './grpc-status.js';

/**
 * `grpc-encoding` names this implementation decompresses and can be configured to send (`compression` key).
 *
 * @example
 * ```ts
 * SUPPORTED_ENCODINGS.includes('gzip'); // true
 * ```
 */
export const SUPPORTED_ENCODINGS: readonly string[] = ['identity', 'gzip', 'deflate'];

/**
 * The `grpc-accept-encoding` value sent with every request and response, and with an UNIMPLEMENTED refusal of an
 * unknown `grpc-encoding`.
 *
 * @example
 * ```ts
 * ACCEPT_ENCODING; // 'identity,gzip,deflate'
 * ```
 */
export const ACCEPT_ENCODING = SUPPORTED_ENCODINGS.join(',');

/**
 * Whether a `grpc-encoding` value (absent means identity) can be decoded.
 *
 * @example
 * ```ts
 * isSupportedEncoding('snappy'); // false: answered with UNIMPLEMENTED
 * ```
 */
export function isSupportedEncoding(encoding: string | undefined): boolean {
  return encoding === undefined || SUPPORTED_ENCODINGS.includes(encoding);
}

/**
 * Whether a peer's `grpc-accept-encoding` lists `encoding` (`identity` is always accepted).
 *
 * @example
 * ```ts
 * accepts('identity,deflate,gzip', 'gzip'); // true
 * ```
 */
export function accepts(acceptEncoding: string | undefined, encoding: string): boolean {
  if (encoding === 'identity') return true;
  if (acceptEncoding === undefined) return false;
  for (const name of acceptEncoding.split(',')) if (name.trim() === encoding) return true;
  return false;
}

/**
 * Frames one message compressed with `encoding` (`gzip` or `deflate`): the compressed flag set, the compressed length.
 *
 * @remarks
 * Compresses synchronously (the message is framed where it is sent); `identity` frames it uncompressed.
 *
 * @example
 * ```ts
 * stream.end(encodeCompressedFrame(codec.encodeValue(value, method), 'gzip'));
 * ```
 */
export function encodeCompressedFrame(payload: Uint8Array, encoding: string): Buffer {
  const compressed = encoding === 'gzip' ? gzipSync(payload) : encoding === 'deflate' ? deflateSync(payload) : undefined;
  const body = compressed ?? payload;
  const frame = Buffer.allocUnsafe(5 + body.length);
  frame[0] = compressed === undefined ? 0 : 1;
  frame.writeUInt32BE(body.length, 1);
  frame.set(body, 5);
  return frame;
}

/**
 * Inflated bytes of one message are accounted here while they are held (the server's buffered-bytes caps).
 *
 * @example
 * ```ts
 * const budget: InflateBudget = { reserve: (n) => call.reserve(n) };
 * ```
 */
export interface InflateBudget {
  /** Accounts `bytes` more; false refuses them (the inflation stops with RESOURCE_EXHAUSTED). */
  reserve(bytes: number): boolean;
  /** Why a refused reservation was refused, for the error message. */
  refusal?(): string;
  /** Runs an inflation when the server's concurrency allows (a queue, so few messages are inflated at once). */
  readonly schedule?: <T>(task: () => Promise<T>) => Promise<T>;
}

/**
 * Decompresses a message sent with the compressed flag, with a streaming inflater that stops as soon as the output
 * passes `limit` (or `budget` refuses it): a small "zip bomb" is never inflated past the limit.
 *
 * @example
 * ```ts
 * const message = reader.compressed ? await decompress(reader.message, 'gzip', payload) : reader.message;
 * ```
 *
 * @throws FrameError RESOURCE_EXHAUSTED when the inflated message exceeds `limit` or the budget, INTERNAL when it is
 * corrupt or its encoding unknown.
 */
export function decompress(message: Buffer, encoding: string | undefined, limit: number, budget?: InflateBudget): Promise<Buffer> {
  const schedule = budget?.schedule;
  return schedule === undefined ? inflateBounded(message, encoding, limit, budget) : schedule(() => inflateBounded(message, encoding, limit, budget));
}

function inflateBounded(message: Buffer, encoding: string | undefined, limit: number, budget: InflateBudget | undefined): Promise<Buffer> {
  let inflater: Gunzip | Inflate;
  if (encoding === 'gzip') inflater = createGunzip();
  else if (encoding === 'deflate') inflater = createInflate();
  else {
    return Promise.reject(new FrameError(GrpcStatus.INTERNAL, `Cannot decompress a gRPC message with grpc-encoding "${encoding ?? 'identity'}".`));
  }
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    let settled = false;
    const stop = (error: FrameError) => {
      if (settled) return;
      settled = true;
      parts.length = 0;
      inflater.destroy();
      reject(error);
    };
    inflater.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        stop(new FrameError(GrpcStatus.RESOURCE_EXHAUSTED, `Decompressed gRPC message exceeds the limit of ${limit} bytes (URL key "payload"); inflating stopped there.`));
        return;
      }
      if (budget !== undefined && !budget.reserve(chunk.length)) {
        stop(new FrameError(GrpcStatus.RESOURCE_EXHAUSTED, budget.refusal?.() ?? 'Decompressed gRPC message refused: the buffered-bytes cap is reached.'));
        return;
      }
      parts.push(chunk);
    });
    inflater.on('error', (error: Error) => stop(new FrameError(GrpcStatus.INTERNAL, `Corrupt ${encoding} gRPC message: ${error.message}`)));
    inflater.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size));
    });
    inflater.end(message);
  });
}
