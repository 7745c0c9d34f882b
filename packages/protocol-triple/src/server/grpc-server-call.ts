import http2, { type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';

import { Invocation, Result, RpcError, RpcErrorCode } from '@weft/core/spi';

import { writeAttachmentHeaders } from '../codec/attachment-headers.js';
import { ACCEPT_ENCODING, decompress, encodeCompressedFrame } from '../codec/compression.js';
import { FrameError, frameOf, GrpcMessageReader, writeFrameAndEnd } from '../codec/grpc-frame.js';
import { BIZ_EXCEPTION_CODE, encodeGrpcMessage, GrpcStatus, grpcStatusOf } from '../codec/grpc-status.js';
import type { TripleCodec } from '../codec/triple-codec.js';
import { TripleHeaders } from '../triple-keys.js';
import type { CallBuffer } from './buffer-budget.js';
import type { ServerMethod, TripleExporter } from './triple-exporter.js';
import type { TripleServer } from './triple-server.js';
import type { Upload } from './upload-watch.js';

const { NGHTTP2_NO_ERROR } = http2.constants;

const OK_TRAILERS: Readonly<Record<string, string>> = Object.freeze({ [TripleHeaders.GRPC_STATUS]: '0' });
/**
 * Response options of gRPC answers: no `date` header (gRPC does not use it; Node adds one unless told not to —
 * `sendDate` is read by Node's `respond()` but missing from its type).
 */
const WAIT_FOR_TRAILERS: http2.ServerStreamResponseOptions & { readonly sendDate: boolean } = Object.freeze({ waitForTrailers: true, sendDate: false });
const GRPC_END_STREAM: http2.ServerStreamResponseOptions & { readonly sendDate: boolean } = Object.freeze({ endStream: true, sendDate: false });

const CALL = Symbol('weft.tri.call');
/** A server stream carrying the gRPC call it belongs to (so stream listeners are shared functions, not closures). */
type CallStream = ServerHttp2Stream & { [CALL]?: GrpcServerCall };

function onCallData(this: CallStream, chunk: Buffer): void {
  this[CALL]?.data(chunk);
}

function onCallEnd(this: CallStream): void {
  this[CALL]?.end();
}

function onCallClose(this: CallStream): void {
  this[CALL]?.closed();
}

function onWantTrailers(this: CallStream): void {
  const call = this[CALL];
  try {
    this.sendTrailers(call === undefined ? OK_TRAILERS : call.trailers);
  } catch {
    // The stream was reset in between: nothing to send to.
  }
}


/**
 * One gRPC unary call on the server: reads the request message, dispatches the invocation through the exported
 * invoker and writes the response (HEADERS, one DATA message, trailers) or a trailers-only status.
 */
export class GrpcServerCall implements Upload {
  /** Trailers sent when the response message has been written. */
  trailers: Readonly<Record<string, string>> = OK_TRAILERS;
  lastProgress = Date.now();
  private readonly reader: GrpcMessageReader;
  private readonly buffer: CallBuffer;
  private invocation: Invocation | undefined;
  /** Set once a response (or a refusal) was started: later events are ignored. */
  private answered = false;
  /** Set once the call stopped counting as in flight (answered, refused, or its invocation settled). */
  private finished = false;

  constructor(
    private readonly server: TripleServer,
    private readonly stream: CallStream,
    private readonly headers: IncomingHttpHeaders,
    private readonly exporter: TripleExporter,
    private readonly method: ServerMethod,
    private readonly codec: TripleCodec,
    private readonly typedContentType: boolean,
    private readonly encoding: string | undefined,
    private readonly deadline: number | undefined,
  ) {
    this.reader = new GrpcMessageReader(server.options.payload, encoding !== undefined && encoding !== 'identity');
    // In flight from its headers on: an unexport or a shutdown waits for calls still uploading their message too.
    exporter.inflight.enter();
    server.inflight.enter();
    this.buffer = server.bufferFor(stream);
    server.uploads.add(this);
    stream[CALL] = this;
    stream.on('data', onCallData);
    stream.on('end', onCallEnd);
    stream.on('close', onCallClose);
  }

  data(chunk: Buffer): void {
    if (this.answered) return;
    this.lastProgress = Date.now();
    if (!this.buffer.reserve(chunk.length)) {
      this.refuse(new FrameError(GrpcStatus.RESOURCE_EXHAUSTED, this.buffer.refusal()));
      return;
    }
    try {
      this.reader.push(chunk);
    } catch (error) {
      this.refuse(error);
    }
  }

  end(): void {
    this.server.uploads.delete(this);
    if (this.answered) return;
    try {
      this.reader.end();
    } catch (error) {
      this.refuse(error);
      return;
    }
    const message = this.reader.message;
    if (message === undefined) {
      this.respondStatus(GrpcStatus.INTERNAL, 'Malformed unary call: the stream ended without a request message.');
      return;
    }
    if (this.reader.compressed) {
      decompress(message, this.encoding, this.server.options.payload, this.buffer).then(
        (inflated) => this.dispatch(inflated),
        (error: unknown) => this.refuse(error),
      );
    } else {
      this.dispatch(message);
    }
  }

  /** The stream closed: if the call is still running, the consumer cancelled it. */
  closed(): void {
    this.server.uploads.delete(this);
    this.buffer.releaseAll();
    this.stream[CALL] = undefined;
    this.answered = true;
    if (this.invocation === undefined) this.finish();
    else if (!this.finished) {
      this.invocation.abort(new DOMException('The consumer cancelled the call (stream closed before the response).', 'AbortError'));
    }
  }

  /** The request body made no progress for `body-timeout`: refused, its buffer freed. */
  stalled(): void {
    const timeout = this.server.options.bodyTimeout;
    this.refuse(new FrameError(GrpcStatus.DEADLINE_EXCEEDED, `Request body stalled: no DATA for ${timeout} ms (URL key "body-timeout"); the stream was reset.`));
    this.buffer.releaseAll();
  }

  private dispatch(bytes: Uint8Array): void {
    if (this.answered) return;
    const exporter = this.exporter;
    let args: unknown[];
    try {
      args = this.codec.decodeArguments(bytes, this.method.descriptor);
    } catch (error) {
      this.buffer.releaseAll();
      this.fail(error);
      return;
    }
    this.buffer.releaseAll();
    const invocation = Invocation.of(this.method.name, args, exporter.service);
    this.server.fillInvocation(invocation, this.headers, this.stream.session);
    invocation.deadline = this.deadline;
    this.invocation = invocation;
    let answer: Result | Promise<Result>;
    try {
      answer = exporter.invoker.invoke(invocation);
    } catch (error) {
      // A synchronous throw is a framework failure, as a rejection would be.
      this.failed(error);
      return;
    }
    // Completed synchronously (a synchronous implementation): respond now, no promise hop.
    if (answer instanceof Result) this.succeed(answer);
    else {
      answer.then(
        (result) => this.succeed(result),
        (error: unknown) => this.failed(error),
      );
    }
  }

  private succeed(result: Result): void {
    this.finish();
    if (this.answered) return;
    if (this.deadline !== undefined && Date.now() > this.deadline) {
      this.respondStatus(GrpcStatus.DEADLINE_EXCEEDED, `Deadline exceeded: ${this.exporter.key}.${this.method.name}() completed after the consumer's deadline.`);
      return;
    }
    const descriptor = this.method.descriptor;
    if (result.hasException() && descriptor?.idl !== undefined) {
      // §A.8.2: an IDL method's business error is a non-OK grpc-status (with google.rpc.Status details), not a body.
      this.failIdl(result.exception);
      return;
    }
    let payload: Uint8Array;
    let headers = this.exporter.responseHeaders(this.codec, this.typedContentType);
    try {
      if (result.hasException()) {
        const exception = result.exception;
        const status = exception instanceof RpcError ? grpcStatusOf(exception.code) : GrpcStatus.UNKNOWN;
        headers = { ...headers, [TripleHeaders.EXCEPTION_CODE]: String(status === GrpcStatus.UNKNOWN ? BIZ_EXCEPTION_CODE : status) };
        payload = this.codec.encodeException(exception, descriptor);
      } else {
        payload = this.codec.encodeResult(result.value, descriptor);
      }
      checkResponseSize(payload, this.server.options.payload, `${this.exporter.key}.${this.method.name}()`);
      if (result.hasAttachments()) {
        const trailers: Record<string, string> = { [TripleHeaders.GRPC_STATUS]: '0' };
        writeAttachmentHeaders(trailers, result.getAttachments());
        this.trailers = trailers;
      }
    } catch (error) {
      this.fail(error);
      return;
    }
    const stream = this.stream;
    if (stream.destroyed) return;
    this.answered = true;
    const encoding = this.server.options.compression === undefined ? undefined : this.server.responseEncoding(this.headers);
    try {
      if (encoding !== undefined) headers = { ...headers, [TripleHeaders.GRPC_ENCODING]: encoding };
      stream.respond(headers, WAIT_FOR_TRAILERS);
      stream.on('wantTrailers', onWantTrailers);
      writeFrameAndEnd(stream, encoding === undefined ? frameOf(payload) : encodeCompressedFrame(payload, encoding));
    } catch {
      // Reset by the consumer between the check and the write.
    }
  }

  private failed(error: unknown): void {
    this.finish();
    this.fail(error);
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.exporter.inflight.exit();
    this.server.inflight.exit();
  }

  /** Answers a framework failure with its grpc-status (and Weft's exact code). */
  private fail(error: unknown): void {
    if (this.method.descriptor?.idl !== undefined) {
      this.failIdl(error);
      return;
    }
    const rpc = RpcError.from(error);
    this.respondStatus(rpc.grpcStatus ?? grpcStatusOf(rpc.code), rpc.message, rpc.code);
  }

  /**
   * Answers an IDL method's failure: the exact status of an `RpcError` carrying one (`grpcError()`), else its
   * code's status, else UNKNOWN for a business error (code `biz`); the message; and a `google.rpc.Status` with the
   * error's details in `grpc-status-details-bin`.
   */
  private failIdl(error: unknown): void {
    const rpc = error instanceof RpcError ? error : undefined;
    const status = rpc === undefined ? GrpcStatus.UNKNOWN : (rpc.grpcStatus ?? grpcStatusOf(rpc.code));
    const message = rpc?.message ?? (error instanceof Error ? error.message : String(error));
    let extra: Record<string, string> = {};
    const codec = this.codec;
    if (codec.encodeStatus !== undefined) {
      try {
        const details = Buffer.from(codec.encodeStatus({ code: status, message, details: rpc?.details ?? [] }));
        extra = { [TripleHeaders.GRPC_STATUS_DETAILS]: details.toString('base64').replace(/=+$/, '') };
      } catch {
        // Details that cannot be encoded: the status and message still go out.
      }
    }
    this.respondStatus(status, message, rpc?.code ?? RpcErrorCode.BIZ, extra);
  }

  /** Refuses a malformed or oversized request: answers and resets the stream so the rest is not uploaded. */
  private refuse(error: unknown): void {
    this.server.uploads.delete(this);
    if (error instanceof FrameError) this.respondStatus(error.status, error.message, error.status === GrpcStatus.DEADLINE_EXCEEDED ? RpcErrorCode.TIMEOUT : undefined);
    else this.fail(error);
    this.buffer.releaseAll();
    const stream = this.stream;
    if (!stream.destroyed && !stream.readableEnded) stream.close(NGHTTP2_NO_ERROR);
  }

  private respondStatus(status: number, message: string, weftCode?: string, extra?: Readonly<Record<string, string>>): void {
    if (this.invocation === undefined) this.finish();
    if (this.answered) return;
    this.answered = true;
    respondGrpcStatus(this.stream, this.typedContentType ? this.codec.contentType : 'application/grpc', status, message, weftCode, extra);
  }
}

/**
 * A trailers-only gRPC response (`:status 200`, as gRPC does; the status and a percent-encoded message). `idl` are
 * the extra headers of an IDL method's failure (`grpc-status-details-bin`); given, `grpc-message` is encoded by
 * gRPC's rule exactly (a literal `+`, see `encodeGrpcMessage`).
 */
export function respondGrpcStatus(
  stream: ServerHttp2Stream,
  contentType: string,
  status: number,
  message: string,
  weftCode?: string,
  idl?: Readonly<Record<string, string>>,
): void {
  if (stream.destroyed || stream.headersSent) return;
  const headers: Record<string, string | number> = {
    ':status': 200,
    'content-type': contentType,
    [TripleHeaders.GRPC_STATUS]: String(status),
    [TripleHeaders.GRPC_MESSAGE]: encodeGrpcMessage(message, idl !== undefined),
    ...idl,
  };
  if (weftCode !== undefined) headers[TripleHeaders.ERROR_CODE] = weftCode;
  if (status === GrpcStatus.UNIMPLEMENTED) headers[TripleHeaders.GRPC_ACCEPT_ENCODING] = ACCEPT_ENCODING;
  try {
    stream.respond(headers, GRPC_END_STREAM);
  } catch {
    // Reset meanwhile.
  }
}

/**
 * A response message over `payload` is not sent: the call fails with `limit-exceeded` (RESOURCE_EXHAUSTED), as a
 * request over it is refused — the limit holds both ways, so a peer whose limit is the same never sees it broken.
 */
export function checkResponseSize(message: Uint8Array, limit: number, where: string): void {
  if (message.length <= limit) return;
  throw new RpcError(
    RpcErrorCode.LIMIT_EXCEEDED,
    `${where} answered a response message of ${message.length} bytes, over the limit of ${limit} bytes (URL key "payload"); it was not sent.`,
    { grpcStatus: GrpcStatus.RESOURCE_EXHAUSTED },
  );
}
