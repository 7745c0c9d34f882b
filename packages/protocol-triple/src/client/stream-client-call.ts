import http2, { type ClientHttp2Stream, type IncomingHttpHeaders } from 'node:http2';

import { Result, RpcError, RpcErrorCode, StreamPort, isStreamSource, type Invocation, type MethodDescriptor, type StreamKind } from '@weft/core/spi';

import { readAttachmentHeaders } from '../codec/attachment-headers.js';
import { encodeCompressedFrame } from '../codec/compression.js';
import { decompress, encodeFrame, FrameError, GrpcMessageReader, isSupportedEncoding } from '../codec/grpc-frame.js';
import { GrpcStatus, httpStatusToGrpc, rpcErrorCodeFromWire } from '../codec/grpc-status.js';
import type { TripleCodec } from '../codec/triple-codec.js';
import { InboundMessages } from '../stream/inbound-messages.js';
import { writeMessages, type WriteControl } from '../stream/write-messages.js';
import { TripleHeaders } from '../triple-keys.js';
import type { SessionHandle } from './connection-pool.js';
import { header, statusError } from './status-error.js';

const { NGHTTP2_CANCEL, NGHTTP2_NO_ERROR } = http2.constants;

/** What a {@link StreamClientCall} needs from its invoker. */
export interface StreamClientInit {
  readonly codec: TripleCodec;
  readonly payload: number;
  /** `Call {service}.{method}() to {address}`, the start of every message. */
  readonly where: string;
  readonly method: { readonly name: string; readonly descriptor: MethodDescriptor | undefined };
  readonly kind: StreamKind;
  /** `grpc-encoding` of the requests (`undefined`: identity). */
  readonly compression?: string | undefined;
}

/**
 * One streaming call on the consumer side (§A.12): the requests are written from the caller's iterable with
 * back-pressure (the next one is pulled only when the stream is writable), the responses are handed to the
 * invocation's {@link StreamPort} as an {@link InboundMessages} iterator (which pauses the stream, closing the HTTP/2
 * window, while the caller reads slowly), and the call's `Result` settles once the trailers arrived — OK, or
 * rejected with the status as an `RpcError` carrying `grpcStatus`.
 *
 * @remarks
 * The caller's `break` (the port closed early), its signal or the deadline reset the stream with RST_STREAM
 * CANCEL. Streams are never retried (their requests cannot be sent again): every error is `retryable: false`.
 */
export class StreamClientCall {
  private stream: ClientHttp2Stream | undefined;
  private handle: SessionHandle | undefined;
  private reader: GrpcMessageReader | undefined;
  private responses: InboundMessages<unknown> | undefined;
  private headers: IncomingHttpHeaders | undefined;
  private trailers: IncomingHttpHeaders | undefined;
  private encoding: string | undefined;
  /** Set while the single response message is being inflated. */
  private inflating = false;
  private failure: RpcError | undefined;
  private error: Error | undefined;
  private readonly control: WriteControl = { stopped: false, wake: undefined };
  private onAbort: (() => void) | undefined;
  /** Whether the call settled. */
  done = false;

  constructor(
    private readonly init: StreamClientInit,
    private readonly invocation: Invocation,
    private readonly resolve: (result: Result) => void,
    private readonly reject: (error: unknown) => void,
  ) {
    const signal = invocation.signal;
    if (signal !== undefined) {
      this.onAbort = () => this.cancel(RpcErrorCode.CANCELLED, 'was cancelled by its caller');
      signal.addEventListener('abort', this.onAbort, { once: true });
    }
  }

  /** Starts the call on `stream` (opened on `handle`'s session). */
  start(stream: ClientHttp2Stream, handle: SessionHandle): void {
    this.stream = stream;
    this.handle = handle;
    const { codec, payload, method, kind } = this.init;
    stream.on('response', (headers: IncomingHttpHeaders) => this.response(headers));
    stream.on('data', (chunk: Buffer) => this.data(chunk));
    stream.on('trailers', (trailers: IncomingHttpHeaders) => (this.trailers = trailers));
    stream.on('end', () => this.finish());
    stream.on('close', () => this.closed());
    stream.on('error', (error: Error) => (this.error = error));
    if (kind !== 'client') {
      const responses = new InboundMessages<unknown>(stream, (bytes) => codec.decodeResult(bytes, method.descriptor), undefined, payload, () =>
        this.cancel(RpcErrorCode.CANCELLED, 'was cancelled: the caller stopped reading'),
      );
      this.responses = responses;
      const port = StreamPort.of(this.invocation);
      if (port !== undefined) {
        port.open(responses);
        void port.closed.then((reason) => {
          if (reason !== undefined) this.cancel(RpcErrorCode.CANCELLED, 'was cancelled: the caller stopped reading');
        });
      }
    }
    if (kind === 'server') {
      let frame: Buffer;
      try {
        const message = this.checkSize(codec.encodeArguments(this.invocation.args, method.descriptor));
        frame = this.init.compression === undefined ? encodeFrame(message) : encodeCompressedFrame(message, this.init.compression);
      } catch (error) {
        this.abandon(RpcError.from(error, RpcErrorCode.SERIALIZATION));
        return;
      }
      stream.end(frame);
      return;
    }
    const requests = this.invocation.args[0];
    if (!isStreamSource(requests)) {
      this.abandon(
        new RpcError(RpcErrorCode.SERIALIZATION, `${this.init.where} failed: a ${kind}-streaming call takes an iterable of requests, not ${typeof requests}.`, {
          retryable: false,
        }),
      );
      return;
    }
    writeMessages(stream, toAsync(requests), (value) => this.checkSize(codec.encodeArguments([value], method.descriptor)), this.control, undefined, this.init.compression).then(
      () => {
        if (!stream.destroyed && !this.control.stopped) stream.end();
      },
      (error: unknown) => this.abandon(RpcError.from(error, RpcErrorCode.SERIALIZATION)),
    );
  }

  /** A request message over `payload` is not sent: the call fails with `limit-exceeded` (RESOURCE_EXHAUSTED). */
  private checkSize(message: Uint8Array): Uint8Array {
    if (message.length <= this.init.payload) return message;
    throw new RpcError(
      RpcErrorCode.LIMIT_EXCEEDED,
      `${this.init.where} failed: a request message of ${message.length} bytes exceeds the limit of ${this.init.payload} bytes (URL key "payload"); it was not sent.`,
      { grpcStatus: GrpcStatus.RESOURCE_EXHAUSTED, retryable: false },
    );
  }

  private response(headers: IncomingHttpHeaders): void {
    this.headers = headers;
    const httpStatus = Number(headers[':status']);
    const contentType = header(headers, 'content-type');
    const grpc = contentType !== undefined && contentType.startsWith('application/grpc');
    if (!grpc || (httpStatus !== 200 && headers[TripleHeaders.GRPC_STATUS] === undefined)) {
      const grpcStatus = httpStatus === 200 ? GrpcStatus.UNKNOWN : httpStatusToGrpc(httpStatus);
      this.failure = final(
        rpcErrorCodeFromWire(grpcStatus, undefined),
        `${this.init.where} failed: the provider answered HTTP ${httpStatus}${grpc ? '' : ` with invalid content-type: ${contentType ?? 'none'}`}.`,
      );
      return;
    }
    const encoding = header(headers, TripleHeaders.GRPC_ENCODING);
    if (!isSupportedEncoding(encoding)) {
      this.failure = final(RpcErrorCode.SERIALIZATION, `${this.init.where} failed: unsupported response grpc-encoding "${encoding}".`);
      return;
    }
    this.encoding = encoding;
    const compression = encoding !== undefined && encoding !== 'identity';
    const responses = this.responses;
    this.reader =
      responses === undefined
        ? new GrpcMessageReader(this.init.payload, compression)
        : new GrpcMessageReader(this.init.payload, compression, Number.POSITIVE_INFINITY, (bytes, compressed) => responses.push(bytes, compressed));
    // Compressed responses are inflated as read, with the response's encoding.
    if (responses !== undefined) responses.encoding = encoding;
  }

  private data(chunk: Buffer): void {
    if (this.failure !== undefined || this.done) return;
    const reader = this.reader;
    if (reader === undefined) {
      this.failure = final(RpcErrorCode.UNKNOWN, `${this.init.where} failed: DATA before the response headers.`);
      return;
    }
    try {
      reader.push(chunk);
    } catch (error) {
      // Settled now: a paused stream (a slow reader) may not report its close for a while.
      this.abandon(frameFailure(error, this.init.where));
    }
  }

  /** END_STREAM from the provider: settle from the status. */
  private finish(): void {
    if (this.done) return;
    if (this.failure !== undefined) {
      this.fail(this.failure);
      return;
    }
    const headers = this.headers;
    const trailers = this.trailers ?? (headers !== undefined && headers[TripleHeaders.GRPC_STATUS] !== undefined ? headers : undefined);
    if (trailers === undefined) return;
    // The provider ended while requests were still being sent: they are not wanted any more.
    this.control.stopped = true;
    this.control.wake?.();
    const status = Number(header(trailers, TripleHeaders.GRPC_STATUS));
    if (status !== GrpcStatus.OK) {
      this.fail(statusError(this.init.codec, this.init.where, status, trailers, true));
      return;
    }
    try {
      this.reader?.end();
    } catch (error) {
      this.fail(frameFailure(error, this.init.where));
      return;
    }
    if (this.responses !== undefined) {
      this.responses.end();
      this.succeed(Result.of(undefined), trailers);
      return;
    }
    const message = this.reader?.message;
    if (message === undefined) {
      this.fail(final(RpcErrorCode.UNKNOWN, `${this.init.where} failed: the response has no message.`));
      return;
    }
    const complete = (bytes: Uint8Array) => {
      let value: unknown;
      try {
        value = this.init.codec.decodeResult(bytes, this.init.method.descriptor);
      } catch (error) {
        this.fail(RpcError.from(error, RpcErrorCode.SERIALIZATION));
        return;
      }
      this.succeed(Result.of(value), trailers);
    };
    if (this.reader?.compressed === true) {
      // Settled by the inflation, not by the stream's close meanwhile.
      this.inflating = true;
      decompress(message, this.encoding, this.init.payload).then(complete, (error: unknown) => this.fail(frameFailure(error, this.init.where)));
    } else complete(message);
  }

  private closed(): void {
    this.handle?.end();
    if (this.done || this.inflating) return;
    if (this.failure !== undefined) {
      this.fail(this.failure);
      return;
    }
    const rstCode = this.stream?.rstCode;
    let code: RpcErrorCode = RpcErrorCode.NETWORK;
    let why: string;
    if (rstCode === NGHTTP2_CANCEL) {
      code = RpcErrorCode.CANCELLED;
      why = 'the provider cancelled the stream';
    } else if (this.error !== undefined) why = `the connection failed (${this.error.message})`;
    else if (rstCode !== undefined && rstCode !== NGHTTP2_NO_ERROR) why = `the provider reset the stream (code ${rstCode})`;
    else if (this.headers !== undefined) {
      code = RpcErrorCode.UNKNOWN;
      why = 'missing GRPC status in response';
    } else why = 'the stream closed before the response completed';
    this.fail(new RpcError(code, `${this.init.where} failed: ${why}.`, this.error === undefined ? { retryable: false } : { cause: this.error, retryable: false }));
  }

  /** The deadline passed: reset the stream (RST_STREAM CANCEL). */
  expire(): void {
    this.cancel(RpcErrorCode.TIMEOUT, 'timed out (deadline)');
  }

  private cancel(code: RpcErrorCode, what: string): void {
    if (this.done) return;
    this.abandon(final(code, `${this.init.where} ${what}.`));
  }

  /** Fails the call and resets its stream. */
  private abandon(error: RpcError): void {
    this.fail(error);
    const stream = this.stream;
    if (stream !== undefined && !stream.destroyed) stream.close(NGHTTP2_CANCEL);
  }

  private succeed(result: Result, trailers: IncomingHttpHeaders): void {
    if (this.done) return;
    if (this.trailers !== undefined) readAttachmentHeaders(trailers, result);
    this.settle();
    this.resolve(result);
    this.closeUpload();
  }

  /** The provider ended while the requests were still open: cancel our half (§A.12, as Dubbo's Java client does). */
  private closeUpload(): void {
    const stream = this.stream;
    if (stream !== undefined && !stream.destroyed && !stream.writableEnded) stream.close(NGHTTP2_CANCEL);
  }

  /** Settles the call with a failure (once); the responses end (the caller reads the status from the Result). */
  fail(error: RpcError): void {
    if (this.done) return;
    this.settle();
    this.responses?.end();
    this.reject(error);
    this.closeUpload();
  }

  private settle(): void {
    this.done = true;
    this.control.stopped = true;
    this.control.wake?.();
    if (this.onAbort !== undefined) this.invocation.signal?.removeEventListener('abort', this.onAbort);
  }
}

function final(code: RpcErrorCode, message: string): RpcError {
  return new RpcError(code, message, { retryable: false });
}

function frameFailure(error: unknown, where: string): RpcError {
  if (error instanceof FrameError) {
    const code = error.status === GrpcStatus.RESOURCE_EXHAUSTED ? RpcErrorCode.LIMIT_EXCEEDED : RpcErrorCode.SERIALIZATION;
    return new RpcError(code, `${where} failed: ${error.message}`, { cause: error, grpcStatus: error.status, retryable: false });
  }
  return RpcError.from(error, RpcErrorCode.SERIALIZATION);
}

async function* fromSync(source: Iterable<unknown>): AsyncGenerator<unknown, void, undefined> {
  yield* source;
}

function toAsync(source: AsyncIterable<unknown> | Iterable<unknown>): AsyncIterable<unknown> {
  return Symbol.asyncIterator in source ? source : fromSync(source);
}
