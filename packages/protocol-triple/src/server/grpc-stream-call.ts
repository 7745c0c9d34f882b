import http2, { type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';

import { Invocation, Result, RpcError, RpcErrorCode, StreamPort, isStreamSource, type StreamKind } from '@weft/core/spi';

import { writeAttachmentHeaders } from '../codec/attachment-headers.js';
import { decompress, encodeCompressedFrame } from '../codec/compression.js';
import { encodeFrame, FrameError, GrpcMessageReader } from '../codec/grpc-frame.js';
import { encodeGrpcMessage, GrpcStatus, grpcStatusOf } from '../codec/grpc-status.js';
import type { TripleCodec } from '../codec/triple-codec.js';
import { InboundMessages } from '../stream/inbound-messages.js';
import { writeMessages, type WriteControl } from '../stream/write-messages.js';
import { TripleHeaders } from '../triple-keys.js';
import { checkResponseSize, respondGrpcStatus } from './grpc-server-call.js';
import type { CallBuffer } from './buffer-budget.js';
import type { ServerMethod, TripleExporter } from './triple-exporter.js';
import type { TripleServer } from './triple-server.js';
import type { Upload } from './upload-watch.js';

const { NGHTTP2_CANCEL } = http2.constants;
const WAIT_FOR_TRAILERS: http2.ServerStreamResponseOptions & { readonly sendDate: boolean } = Object.freeze({ waitForTrailers: true, sendDate: false });

/** Why a stream call ended before its source did. */
type Stop = 'cancelled' | 'deadline';

/**
 * One streaming gRPC call on the server (server-, client- or bidi-streaming, §A.12): the requests reach the
 * implementation as an async iterable (client/bidi) or one message (server), its responses are written as they come
 * with back-pressure, and the trailers carry the final status.
 *
 * @remarks
 * The call passes the exported (filter-chained) invoker once; for streamed responses its invocation carries a
 * {@link StreamPort} the service invoker opens with the implementation's iterable, and the chain's `Result` settles
 * when the stream ended — so provider filters count the whole stream and see its final status. Requests are read
 * with back-pressure ({@link InboundMessages}), responses written only while the stream is writable
 * ({@link writeMessages}). A reset by the consumer (RST_STREAM CANCEL, a lost connection) aborts the invocation's
 * signal, fails the request iterable and calls the response generator's `return()`; the `grpc-timeout` deadline
 * covers the whole stream (DEADLINE_EXCEEDED, then the stream is reset).
 */
export class GrpcStreamCall implements Upload {
  lastProgress = Date.now();
  readonly paused = (): boolean => this.stream.isPaused();
  private readonly reader: GrpcMessageReader;
  private readonly buffer: CallBuffer;
  /** Whether the stalled-body timeout watches this call now. */
  private watched = false;
  /** Set once a request was refused: later DATA is dropped unread. */
  private refused = false;
  /** The `grpc-encoding` of the responses (`undefined`: identity). */
  private readonly responseEncoding: string | undefined;
  private readonly requests: InboundMessages<unknown> | undefined;
  private invocation: Invocation | undefined;
  private readonly control: WriteControl = { stopped: false, wake: undefined };
  private stop: Stop | undefined;
  private finished = false;
  private closed = false;
  private timer: NodeJS.Timeout | undefined;
  private trailers: Record<string, string> = { [TripleHeaders.GRPC_STATUS]: '0' };

  constructor(
    private readonly server: TripleServer,
    private readonly stream: ServerHttp2Stream,
    private readonly headers: IncomingHttpHeaders,
    private readonly exporter: TripleExporter,
    private readonly method: ServerMethod,
    private readonly kind: StreamKind,
    private readonly codec: TripleCodec,
    private readonly typedContentType: boolean,
    private readonly encoding: string | undefined,
    private readonly deadline: number | undefined,
  ) {
    exporter.inflight.enter();
    server.inflight.enter();
    const payload = server.options.payload;
    const compression = encoding !== undefined && encoding !== 'identity';
    this.buffer = server.bufferFor(stream);
    this.responseEncoding = server.options.compression === undefined ? undefined : server.responseEncoding(headers);
    const descriptor = method.descriptor;
    if (kind === 'server') {
      this.reader = new GrpcMessageReader(payload, compression);
    } else {
      const requests = new InboundMessages<unknown>(
        stream,
        (bytes) => this.codec.decodeArguments(bytes, descriptor)[0],
        encoding,
        payload,
        () => undefined,
        this.buffer,
      );
      this.requests = requests;
      this.reader = new GrpcMessageReader(payload, compression, Number.POSITIVE_INFINITY, (bytes, compressed) => requests.push(bytes, compressed));
    }
    stream.on('data', (chunk: Buffer) => this.data(chunk));
    stream.on('end', () => this.end());
    stream.on('close', () => this.onClose());
    stream.on('wantTrailers', () => this.sendTrailers());
    if (kind === 'server') {
      // One request message: watched from the headers to END_STREAM, like a unary call.
      this.watched = true;
      server.uploads.add(this);
    }
    if (deadline !== undefined) {
      this.timer = setTimeout(() => this.expire(), Math.max(0, deadline - Date.now()));
      this.timer.unref();
    }
    if (this.requests !== undefined) this.dispatch([this.requests]);
  }

  private data(chunk: Buffer): void {
    if (this.closed || this.refused) return;
    this.lastProgress = Date.now();
    if (!this.buffer.reserve(chunk.length)) {
      this.refuse(new FrameError(GrpcStatus.RESOURCE_EXHAUSTED, this.buffer.refusal()));
      return;
    }
    const reader = this.reader;
    try {
      reader.push(chunk);
    } catch (error) {
      this.refuse(error);
      return;
    }
    if (this.requests === undefined) return;
    // Client and bidi streams are watched only while a message is partly received.
    if (reader.partial !== this.watched) {
      this.watched = !this.watched;
      if (this.watched) this.server.uploads.add(this);
      else this.server.uploads.delete(this);
    }
  }

  /** The request body made no progress for `body-timeout`: refused, its buffer freed. */
  stalled(): void {
    if (this.closed) return;
    this.watched = false;
    const timeout = this.server.options.bodyTimeout;
    this.refuse(new FrameError(GrpcStatus.DEADLINE_EXCEEDED, `Request body stalled: no DATA for ${timeout} ms (URL key "body-timeout"); the stream was reset.`));
    const stream = this.stream;
    setImmediate(() => {
      if (!stream.destroyed) stream.close(NGHTTP2_CANCEL);
    });
    this.buffer.releaseAll();
  }

  private unwatch(): void {
    if (!this.watched) return;
    this.watched = false;
    this.server.uploads.delete(this);
  }

  private end(): void {
    this.unwatch();
    if (this.closed) return;
    try {
      this.reader.end();
    } catch (error) {
      this.refuse(error);
      return;
    }
    if (this.requests !== undefined) {
      this.requests.end();
      return;
    }
    const message = this.reader.message;
    if (message === undefined) {
      this.answer(GrpcStatus.INTERNAL, `Malformed server-streaming call: the stream ended without a request message.`);
      return;
    }
    const decodeOne = (bytes: Uint8Array) => {
      let args: unknown[];
      try {
        args = this.codec.decodeArguments(bytes, this.method.descriptor);
      } catch (error) {
        this.buffer.releaseAll();
        this.answerError(error);
        return;
      }
      this.buffer.releaseAll();
      this.dispatch(args);
    };
    if (this.reader.compressed) {
      decompress(message, this.encoding, this.server.options.payload, this.buffer).then(decodeOne, (error: unknown) => this.refuse(error));
    } else decodeOne(message);
  }

  private dispatch(args: unknown[]): void {
    const exporter = this.exporter;
    const invocation = Invocation.of(this.method.name, args, exporter.service);
    this.server.fillInvocation(invocation, this.headers, this.stream.session);
    invocation.deadline = this.deadline;
    this.invocation = invocation;
    const port = this.kind === 'client' ? undefined : StreamPort.attach(invocation);
    let answer: Promise<Result>;
    try {
      answer = Promise.resolve(exporter.invoker.invoke(invocation));
    } catch (error) {
      answer = Promise.reject(error);
    }
    const settled = answer.then(
      (result) => ({ result, error: undefined }),
      (error: unknown) => ({ result: undefined, error }),
    );
    if (port === undefined) {
      void settled.then((outcome) => this.complete(outcome.result, outcome.error, true));
      return;
    }
    // A filter may settle the call before the stream ended (the provider `timeout`): the writing stops there.
    void settled.then(() => {
      this.control.stopped = true;
      this.control.wake?.();
    });
    void Promise.race([port.opened, settled]).then(async (first) => {
      if (isStreamSource(first)) {
        const failure = await this.pump(first);
        port.close(failure ?? (this.stop === undefined ? undefined : this.stopReason()));
        const outcome = await settled;
        this.complete(outcome.result, outcome.error, false);
        return;
      }
      const outcome = first as { result: Result | undefined; error: unknown };
      const value = outcome.result?.hasException() === false ? outcome.result.value : undefined;
      // Answered without the port (a mock, a local answer): its value is the stream.
      if (isStreamSource(value)) {
        if (this.stop === undefined) this.control.stopped = false;
        const failure = await this.pump(toAsync(value));
        this.complete(failure === undefined ? outcome.result : Result.ofException(failure), undefined, false);
        return;
      }
      this.complete(outcome.result, outcome.error, false);
    });
  }

  /** Writes the responses; resolves with what failed them, if anything did. */
  private async pump(source: AsyncIterable<unknown>): Promise<unknown> {
    const descriptor = this.method.descriptor;
    try {
      const limit = this.server.options.payload;
      const where = `${this.exporter.key}.${this.method.name}()`;
      const encode = (value: unknown): Uint8Array => {
        const message = this.codec.encodeResult(value, descriptor);
        checkResponseSize(message, limit, where);
        return message;
      };
      await writeMessages(this.stream, source, encode, this.control, () => this.respondHeaders(), this.responseEncoding);
      return undefined;
    } catch (error) {
      return error;
    }
  }

  private respondHeaders(): void {
    const stream = this.stream;
    if (stream.headersSent || stream.destroyed) return;
    const headers = this.exporter.responseHeaders(this.codec, this.typedContentType);
    const encoding = this.responseEncoding;
    stream.respond(encoding === undefined ? headers : { ...headers, [TripleHeaders.GRPC_ENCODING]: encoding }, WAIT_FOR_TRAILERS);
  }

  /** The call's Result (or rejection) is known: answer the single response (client stream) and the final status. */
  private complete(result: Result | undefined, error: unknown, single: boolean): void {
    this.finish();
    if (this.closed || this.stop !== undefined) return;
    if (error !== undefined || result === undefined) {
      this.answerError(error);
      return;
    }
    if (result.hasException()) {
      this.answerError(result.exception);
      return;
    }
    try {
      if (result.hasAttachments()) writeAttachmentHeaders(this.trailers, result.getAttachments());
    } catch {
      // Attachments that cannot be headers are not sent; the status still is.
    }
    const stream = this.stream;
    if (stream.destroyed) return;
    try {
      if (single) {
        const payload = this.codec.encodeResult(result.value, this.method.descriptor);
        const frame = this.responseEncoding === undefined ? encodeFrame(payload) : encodeCompressedFrame(payload, this.responseEncoding);
        this.respondHeaders();
        stream.end(frame);
        return;
      }
      this.respondHeaders();
      stream.end();
    } catch (failure) {
      this.answerError(failure);
    }
  }

  private sendTrailers(): void {
    try {
      this.stream.sendTrailers(this.trailers);
    } catch {
      // Reset in between.
    }
  }

  /** Answers a failure: its status in the trailers (or trailers-only when nothing was sent yet). */
  private answerError(error: unknown): void {
    if (error instanceof FrameError) {
      // A request message refused while the provider read it (over the limit, corrupt).
      this.answer(error.status, error.message);
      return;
    }
    const rpc = error instanceof RpcError ? error : undefined;
    const status = rpc === undefined ? GrpcStatus.UNKNOWN : (rpc.grpcStatus ?? grpcStatusOf(rpc.code));
    const message = rpc?.message ?? (error instanceof Error ? error.message : String(error));
    const extra: Record<string, string> = {};
    if (this.method.descriptor?.idl !== undefined && this.codec.encodeStatus !== undefined) {
      try {
        const details = Buffer.from(this.codec.encodeStatus({ code: status, message, details: rpc?.details ?? [] }));
        extra[TripleHeaders.GRPC_STATUS_DETAILS] = details.toString('base64').replace(/=+$/, '');
      } catch {
        // Details that cannot be encoded: the status and message still go out.
      }
    }
    this.answer(status, message, rpc?.code ?? RpcErrorCode.BIZ, extra);
  }

  private answer(status: number, message: string, weftCode?: string, extra?: Readonly<Record<string, string>>): void {
    this.finish();
    const stream = this.stream;
    if (this.closed || stream.destroyed) return;
    if (!stream.headersSent) {
      respondGrpcStatus(stream, this.typedContentType ? this.codec.contentType : 'application/grpc', status, message, weftCode, extra);
      if (!stream.readableEnded) stream.close(http2.constants.NGHTTP2_NO_ERROR);
      return;
    }
    const trailers: Record<string, string> = {
      [TripleHeaders.GRPC_STATUS]: String(status),
      [TripleHeaders.GRPC_MESSAGE]: encodeGrpcMessage(message, extra !== undefined && TripleHeaders.GRPC_STATUS_DETAILS in extra),
      ...extra,
    };
    if (weftCode !== undefined) trailers[TripleHeaders.ERROR_CODE] = weftCode;
    this.trailers = trailers;
    try {
      if (!stream.writableEnded) stream.end();
    } catch {
      // Reset meanwhile.
    }
  }

  /** Refuses a malformed or oversized request message. */
  private refuse(error: unknown): void {
    this.refused = true;
    this.unwatch();
    this.requests?.fail(error);
    this.halt();
    if (error instanceof FrameError) this.answer(error.status, error.message, error.status === GrpcStatus.DEADLINE_EXCEEDED ? RpcErrorCode.TIMEOUT : undefined);
    else this.answerError(error);
    this.buffer.releaseAll();
  }

  /** The deadline passed: DEADLINE_EXCEEDED, the implementation is stopped, the stream reset. */
  private expire(): void {
    if (this.closed || this.stop !== undefined) return;
    const message = `Deadline exceeded: ${this.exporter.key}.${this.method.name}() was still streaming at the consumer's deadline.`;
    this.answer(GrpcStatus.DEADLINE_EXCEEDED, message, RpcErrorCode.TIMEOUT);
    this.stop = 'deadline';
    this.halt();
    const stream = this.stream;
    // The trailers go out, then the rest of the upload (if any) is cut off.
    setImmediate(() => {
      if (!stream.destroyed) stream.close(NGHTTP2_CANCEL);
    });
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.unwatch();
    this.buffer.releaseAll();
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (!this.finished && this.stop === undefined) {
      this.stop = 'cancelled';
      this.halt();
    }
    if (this.invocation === undefined) this.finish();
  }

  /** Stops reading and writing, aborts the invocation (its signal) and fails the request iterable. */
  private halt(): void {
    const control = this.control;
    control.stopped = true;
    control.wake?.();
    const reason = this.stopReason();
    this.requests?.fail(reason, true);
    this.invocation?.abort(reason);
  }

  private stopReason(): Error {
    return this.stop === 'deadline'
      ? new RpcError(RpcErrorCode.TIMEOUT, `${this.exporter.key}.${this.method.name}() passed the consumer's deadline.`, { grpcStatus: GrpcStatus.DEADLINE_EXCEEDED })
      : new RpcError(RpcErrorCode.CANCELLED, `The consumer cancelled ${this.exporter.key}.${this.method.name}() (the stream was reset).`, {
          grpcStatus: GrpcStatus.CANCELLED,
        });
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.exporter.inflight.exit();
    this.server.inflight.exit();
  }
}

async function* fromSync(source: Iterable<unknown>): AsyncGenerator<unknown, void, undefined> {
  yield* source;
}

function toAsync(source: AsyncIterable<unknown> | Iterable<unknown>): AsyncIterable<unknown> {
  return Symbol.asyncIterator in source ? source : fromSync(source);
}
