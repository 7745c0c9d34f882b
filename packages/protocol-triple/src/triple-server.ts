import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import http2, { type Http2Session, type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import net, { type Socket } from 'node:net';

import { Invocation, Result, RpcError, RpcErrorCode, safeLog, URL, type Logger } from '@weft/core/spi';

import { readAttachmentHeaders, writeAttachmentHeaders, type InboundHeaders } from './attachment-headers.js';
import { ACCEPT_ENCODING, decompress, encodeFrame, FrameError, GrpcMessageReader, isSupportedEncoding } from './grpc-frame.js';
import {
  BIZ_EXCEPTION_CODE,
  encodeGrpcMessage,
  GrpcStatus,
  grpcStatusOf,
  grpcToHttpStatus,
  parseGrpcTimeout,
} from './grpc-status.js';
import type { TripleCodec } from './triple-codec.js';
import { InflightCounter, type ServerMethod, type TripleExporter } from './triple-exporter.js';
import { TripleHeaders } from './triple-keys.js';

/**
 * Settings of one Triple server (one host and port), read from the first export URL on it.
 *
 * @example
 * ```ts
 * const options: TripleServerOptions = { payload: 8 << 20, maxConcurrentStreams: 1000, maxHeaderListSize: 32_768,
 *   resolveFallbackToDefault: true, shutdownTimeout: 10_000, sniffTimeout: 10_000 };
 * ```
 */
export interface TripleServerOptions {
  /** Maximum message (gRPC) or body (plain HTTP) size in bytes. */
  readonly payload: number;
  /** HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS`. */
  readonly maxConcurrentStreams: number;
  /** HTTP/2 `SETTINGS_MAX_HEADER_LIST_SIZE`, and the HTTP/1.1 header size limit. */
  readonly maxHeaderListSize: number;
  /** Dubbo's `resolve-fallback-to-default`. */
  readonly resolveFallbackToDefault: boolean;
  /** How long a graceful shutdown waits for in-flight calls, in ms. */
  readonly shutdownTimeout: number;
  /** How long a new connection may stay silent before its protocol is known, in ms. */
  readonly sniffTimeout: number;
}

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const HTTP1_METHODS: readonly Buffer[] = ['GET ', 'POST ', 'PUT ', 'PATCH ', 'DELETE ', 'HEAD ', 'OPTIONS ', 'TRACE ', 'CONNECT '].map((m) =>
  Buffer.from(m, 'latin1'),
);
const GOAWAY_DEBUG_DATA = Buffer.from('weft: server shutting down', 'latin1');
const { NGHTTP2_NO_ERROR } = http2.constants;

const OK_TRAILERS: Readonly<Record<string, string>> = Object.freeze({ [TripleHeaders.GRPC_STATUS]: '0' });
/**
 * Response options of gRPC answers: no `date` header (gRPC does not use it; Node adds one unless told not to —
 * `sendDate` is read by Node's `respond()` but missing from its type).
 */
const WAIT_FOR_TRAILERS: http2.ServerStreamResponseOptions & { readonly sendDate: boolean } = Object.freeze({ waitForTrailers: true, sendDate: false });
const GRPC_END_STREAM: http2.ServerStreamResponseOptions & { readonly sendDate: boolean } = Object.freeze({ endStream: true, sendDate: false });
const END_STREAM = Object.freeze({ endStream: true });
const JSON_CONTENT_TYPE = 'application/json';
const PLAIN_ALLOW = 'GET, POST, PUT, PATCH, OPTIONS';

const CALL = Symbol('weft.tri.call');
/** A server stream carrying the gRPC call it belongs to (so stream listeners are shared functions, not closures). */
type CallStream = ServerHttp2Stream & { [CALL]?: GrpcServerCall };

function ignore(): void {}

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

/** `[ip]:port` for IPv6, `ip:port` otherwise. */
function formatAddress(address: string | undefined, port: number | undefined): string {
  if (address === undefined) return 'unknown';
  return address.includes(':') ? `[${address}]:${port ?? 0}` : `${address}:${port ?? 0}`;
}

/** Splits `/{path}/{method}` (ignoring a query): everything before the last `/` is the path. */
function splitPath(raw: string | undefined): { path: string; method: string } | undefined {
  if (raw === undefined || raw.charCodeAt(0) !== 47 /* / */) return undefined;
  let end = raw.indexOf('?');
  if (end < 0) end = raw.length;
  const slash = raw.lastIndexOf('/', end - 1);
  if (slash <= 0) return undefined;
  return { path: raw.slice(1, slash), method: raw.slice(slash + 1, end) };
}

/** Whether a request or response content type is gRPC (`application/grpc`, `application/grpc+x`, `…;params`). */
function grpcSubtype(contentType: string): string | undefined {
  if (!contentType.startsWith('application/grpc')) return undefined;
  let rest = contentType.slice(16);
  const semicolon = rest.indexOf(';');
  if (semicolon >= 0) rest = rest.slice(0, semicolon);
  rest = rest.trim();
  if (rest === '') return '';
  return rest.charCodeAt(0) === 43 /* + */ ? rest.slice(1).toLowerCase() : undefined;
}

function isJsonContentType(contentType: string): boolean {
  const semicolon = contentType.indexOf(';');
  const type = (semicolon >= 0 ? contentType.slice(0, semicolon) : contentType).trim().toLowerCase();
  return type === 'application/json' || type === 'text/json' || type.endsWith('+json');
}

function headerString(headers: InboundHeaders, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' ? value : Array.isArray(value) ? value[0] : String(value);
}

/** An error answered over plain HTTP with its status. */
class PlainHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly weftCode?: string,
  ) {
    super(message);
  }
}

/**
 * One gRPC unary call on the server: reads the request message, dispatches the invocation through the exported
 * invoker and writes the response (HEADERS, one DATA message, trailers) or a trailers-only status.
 */
class GrpcServerCall {
  /** Trailers sent when the response message has been written. */
  trailers: Readonly<Record<string, string>> = OK_TRAILERS;
  private readonly reader: GrpcMessageReader;
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
    stream[CALL] = this;
    stream.on('data', onCallData);
    stream.on('end', onCallEnd);
    stream.on('close', onCallClose);
  }

  data(chunk: Buffer): void {
    if (this.answered) return;
    try {
      this.reader.push(chunk);
    } catch (error) {
      this.refuse(error);
    }
  }

  end(): void {
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
      decompress(message, this.encoding, this.server.options.payload).then(
        (inflated) => this.dispatch(inflated),
        (error: unknown) => this.refuse(error),
      );
    } else {
      this.dispatch(message);
    }
  }

  /** The stream closed: if the call is still running, the consumer cancelled it. */
  closed(): void {
    this.stream[CALL] = undefined;
    this.answered = true;
    if (this.invocation === undefined) this.finish();
    else if (!this.finished) {
      this.invocation.abort(new DOMException('The consumer cancelled the call (stream closed before the response).', 'AbortError'));
    }
  }

  private dispatch(bytes: Uint8Array): void {
    if (this.answered) return;
    const exporter = this.exporter;
    let args: unknown[];
    try {
      args = this.codec.decodeArguments(bytes, this.method.descriptor);
    } catch (error) {
      this.fail(error);
      return;
    }
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
    try {
      stream.respond(headers, WAIT_FOR_TRAILERS);
      stream.on('wantTrailers', onWantTrailers);
      stream.end(encodeFrame(payload));
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
    if (error instanceof FrameError) this.respondStatus(error.status, error.message);
    else this.fail(error);
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
function respondGrpcStatus(
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

/** A plain-HTTP exchange (HTTP/1.1 request or HTTP/2 stream without a gRPC content type). */
interface PlainExchange {
  readonly method: string;
  readonly rawPath: string | undefined;
  readonly headers: InboundHeaders;
  readonly session: Http2Session | undefined;
  readonly remoteAddress: string;
  /** Whether result attachments go into the response headers (HTTP/2; not HTTP/1, as in Dubbo). */
  readonly sendsAttachments: boolean;
  readBody(limit: number): Promise<Buffer>;
  onClose(listener: () => void): void;
  /** Answers; a request whose body was not read to the end is cut off (the connection or stream is closed after). */
  respond(status: number, headers: Record<string, string>, body: string | undefined): void;
}

function readLimited(source: NodeJS.ReadableStream & { destroyed?: boolean }, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        source.removeListener('data', onData);
        source.removeListener('end', onEnd);
        reject(new PlainHttpError(413, `Request body exceeds the limit of ${limit} bytes (URL key "payload").`));
        return;
      }
      parts.push(chunk);
    };
    const onEnd = () => resolve(parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size));
    source.on('data', onData);
    source.once('end', onEnd);
    source.once('error', reject);
  });
}

class Http1Exchange implements PlainExchange {
  readonly method: string;
  readonly rawPath: string | undefined;
  readonly headers: InboundHeaders;
  readonly session = undefined;
  readonly remoteAddress: string;
  readonly sendsAttachments = false;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly server: TripleServer,
  ) {
    this.method = req.method ?? 'GET';
    this.rawPath = req.url;
    this.headers = req.headers;
    this.remoteAddress = formatAddress(req.socket.remoteAddress, req.socket.remotePort);
  }

  readBody(limit: number): Promise<Buffer> {
    return readLimited(this.req, limit);
  }

  onClose(listener: () => void): void {
    this.res.once('close', listener);
  }

  respond(status: number, headers: Record<string, string>, body: string | undefined): void {
    const res = this.res;
    if (res.headersSent || res.destroyed) return;
    res.statusCode = status;
    for (const name in headers) res.setHeader(name, headers[name] as string);
    // Closing, or the body was not read to the end: the connection cannot carry another request.
    if (this.server.isClosing || !this.req.complete) res.shouldKeepAlive = false;
    if (body === undefined) res.end();
    else {
      res.setHeader('content-length', Buffer.byteLength(body));
      res.end(body);
    }
  }

}

class Http2PlainExchange implements PlainExchange {
  readonly method: string;
  readonly rawPath: string | undefined;
  readonly session: Http2Session;
  readonly remoteAddress: string;
  readonly sendsAttachments = true;

  constructor(
    private readonly stream: ServerHttp2Stream,
    readonly headers: IncomingHttpHeaders,
    remoteAddress: string,
  ) {
    this.method = headerString(headers, ':method') ?? 'GET';
    this.rawPath = headerString(headers, ':path');
    this.session = stream.session as Http2Session;
    this.remoteAddress = remoteAddress;
  }

  readBody(limit: number): Promise<Buffer> {
    return readLimited(this.stream, limit);
  }

  onClose(listener: () => void): void {
    this.stream.once('close', listener);
  }

  respond(status: number, headers: Record<string, string>, body: string | undefined): void {
    const stream = this.stream;
    if (stream.destroyed || stream.headersSent) return;
    try {
      stream.respond({ ':status': status, ...headers }, body === undefined ? END_STREAM : undefined);
      if (body !== undefined) stream.end(body);
      // The client may still be uploading a body we will not read: reset the stream once the answer is out.
      if (!stream.readableEnded) {
        if (stream.writableFinished) closeIfUploading(stream);
        else stream.once('finish', () => closeIfUploading(stream));
      }
    } catch {
      // Reset meanwhile.
    }
  }
}

/**
 * One Triple server: a TCP port shared by every service exported on it, speaking gRPC over HTTP/2 (h2c) and plain
 * JSON over HTTP/1.1 and HTTP/2.
 *
 * @remarks
 * A `net.Server` accepts connections and sniffs their first bytes: the HTTP/2 client preface hands the socket to an
 * `http2` server, an HTTP/1 method to an `http` server; anything else is closed. Calls are routed by path and the
 * `tri-service-group`/`tri-service-version` headers to the exported services (service key `[group/]path[:version]`,
 * with Dubbo's fallback to `group/path:1.0.0` then the bare path), and dispatched through the exported
 * (filter-chained) invoker. `close()` shuts down gracefully: no new connections, GOAWAY on every HTTP/2 connection,
 * in-flight calls finish (up to `shutdownTimeout`), then every connection is closed.
 *
 * @example
 * ```ts
 * const server = new TripleServer('127.0.0.1', 50051, options, logger, jsonCodec);
 * await server.listen();
 * server.add(exporter);
 * ```
 */
export class TripleServer {
  /** Calls in flight on this server. */
  readonly inflight = new InflightCounter();
  readonly address: string;
  /** Services by key `[group/]path[:version]`. */
  private readonly byKey = new Map<string, TripleExporter>();
  /** The service answering its bare path (the first export of each path). */
  private readonly byPath = new Map<string, TripleExporter>();
  private readonly netServer: net.Server;
  private readonly h2: http2.Http2Server;
  private readonly h1: http.Server;
  private readonly sockets = new Set<Socket>();
  private readonly sessions = new Set<ServerHttp2Session>();
  private readonly remoteAddresses = new WeakMap<Http2Session, string>();
  /** Active plain HTTP/1.1 requests per socket (idle sockets are closed first on shutdown). */
  private readonly h1Active = new Map<Socket, number>();
  private closing: Promise<void> | undefined;

  constructor(
    readonly host: string,
    readonly port: number,
    readonly options: TripleServerOptions,
    private readonly logger: Logger,
    private readonly plainCodec: TripleCodec,
  ) {
    this.address = formatAddress(host, port);
    this.h2 = http2.createServer({
      settings: { maxConcurrentStreams: options.maxConcurrentStreams, maxHeaderListSize: options.maxHeaderListSize },
      maxHeaderListPairs: 256,
    });
    this.h2.on('session', (session: ServerHttp2Session) => this.onSession(session));
    this.h2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => this.onStream(stream, headers));
    this.h2.on('sessionError', ignore);
    this.h1 = http.createServer({ maxHeaderSize: options.maxHeaderListSize }, (req, res) => this.onHttp1Request(req, res));
    this.h1.on('clientError', (_error: Error, socket: Socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      socket.destroy();
    });
    this.netServer = net.createServer({ noDelay: true }, (socket) => this.onConnection(socket));
  }

  /** Starts listening. @throws `RpcError` `network` when the port cannot be bound. */
  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        reject(
          new RpcError(
            RpcErrorCode.NETWORK,
            `Cannot start the tri server on ${this.address}: ${error.code === 'EADDRINUSE' ? 'the port is already in use' : error.message}.`,
            { cause: error },
          ),
        );
      };
      this.netServer.once('error', onError);
      this.netServer.listen({ host: this.host, port: this.port }, () => {
        this.netServer.removeListener('error', onError);
        this.netServer.on('error', (error) => safeLog(this.logger, 'error', `tri server ${this.address} failed`, error));
        resolve();
      });
    });
  }

  /** The port actually bound (differs from `port` when it was 0). */
  get boundPort(): number {
    const address = this.netServer.address();
    return typeof address === 'object' && address !== null ? address.port : this.port;
  }

  /** Whether a graceful shutdown has started. */
  get isClosing(): boolean {
    return this.closing !== undefined;
  }

  /** Whether no service is exported on this server. */
  get isEmpty(): boolean {
    return this.byKey.size === 0;
  }

  /**
   * Registers a service under its key, and under its bare path if no service holds it yet (Dubbo's rule: the
   * first export of an interface answers calls whose group/version headers match nothing).
   * @throws `RpcError` `unknown` when the key is already exported on this server.
   */
  add(exporter: TripleExporter): void {
    if (this.byKey.has(exporter.key)) {
      throw new RpcError(RpcErrorCode.UNKNOWN, `Service ${exporter.key} is already exported on ${this.address}; give it another group or version.`);
    }
    this.byKey.set(exporter.key, exporter);
    if (!this.byPath.has(exporter.path)) this.byPath.set(exporter.path, exporter);
  }

  /** Unregisters a service (its bare-path entry passes to another export of the same path, if any). */
  remove(exporter: TripleExporter): void {
    if (this.byKey.get(exporter.key) === exporter) this.byKey.delete(exporter.key);
    if (this.byPath.get(exporter.path) === exporter) {
      this.byPath.delete(exporter.path);
      for (const other of this.byKey.values()) {
        if (other.path === exporter.path) {
          this.byPath.set(other.path, other);
          break;
        }
      }
    }
  }

  /** Finds the service a call addresses (§A.2): exact key, then `group/path:1.0.0`, then the bare path. */
  resolve(path: string, group: string | undefined, version: string | undefined): TripleExporter | undefined {
    if (group === undefined && version === undefined) return this.byKey.get(path) ?? this.byPath.get(path);
    const exact = this.byKey.get(URL.buildKey(path, group, version));
    if (exact !== undefined || !this.options.resolveFallbackToDefault) return exact;
    return this.byKey.get(URL.buildKey(path, group, '1.0.0')) ?? this.byKey.get(path) ?? this.byPath.get(path);
  }

  /**
   * Prepares a provider invocation: its signal becomes abortable (created only if read), and it carries the request
   * headers as attachments, the caller's application (`tri-consumer-appname`) and address (`remote.address`).
   */
  fillInvocation(invocation: Invocation, headers: InboundHeaders, session: Http2Session | undefined, remoteAddress?: string): void {
    invocation.enableAbort();
    readAttachmentHeaders(headers, invocation);
    const application = headers[TripleHeaders.CONSUMER_APPNAME];
    if (typeof application === 'string' && application !== '') invocation.setAttachment('remote.application', application);
    const address = remoteAddress ?? (session === undefined ? undefined : this.remoteAddresses.get(session));
    if (address !== undefined) invocation.setAttachment('remote.address', address);
  }

  /** Shuts down gracefully (idempotent). */
  close(): Promise<void> {
    return (this.closing ??= this.doClose());
  }

  private async doClose(): Promise<void> {
    const netClosed = new Promise<void>((resolve) => this.netServer.close(() => resolve()));
    for (const session of this.sessions) {
      try {
        session.goaway(NGHTTP2_NO_ERROR, 0, GOAWAY_DEBUG_DATA);
        session.close();
      } catch {
        // Already destroyed.
      }
    }
    for (const [socket, active] of this.h1Active) if (active === 0) socket.destroy();
    const timeout = this.options.shutdownTimeout;
    const drained = await this.inflight.whenIdle(timeout);
    if (!drained) {
      safeLog(this.logger, 'warn', `tri server ${this.address}: ${this.inflight.count} call(s) still in flight after ${timeout} ms; closing anyway.`);
    }
    // Let the last responses flush, then close whatever is left.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const sessionsClosed = Promise.all(
      [...this.sessions].map((session) => new Promise<void>((resolve) => (session.destroyed ? resolve() : session.once('close', () => resolve())))),
    );
    const grace = new Promise<void>((resolve) => setTimeout(resolve, drained ? 1000 : 0).unref());
    await Promise.race([sessionsClosed, grace]);
    for (const session of this.sessions) session.destroy();
    for (const socket of this.sockets) socket.destroy();
    await netClosed;
  }

  // -------------------------------------------------------------------------------------------------------------
  // Connections

  private onConnection(socket: Socket): void {
    if (this.closing !== undefined) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.once('close', () => {
      this.sockets.delete(socket);
      this.h1Active.delete(socket);
    });
    socket.on('error', ignore);
    socket.setTimeout(this.options.sniffTimeout, () => socket.destroy());
    let buffered: Buffer | undefined;
    const sniff = (chunk: Buffer) => {
      const data = buffered === undefined ? chunk : Buffer.concat([buffered, chunk]);
      const kind = classify(data);
      if (kind === 'more') {
        buffered = data;
        return;
      }
      socket.removeListener('data', sniff);
      socket.setTimeout(0);
      if (kind === 'garbage') {
        socket.destroy();
        return;
      }
      socket.pause();
      socket.unshift(data);
      if (kind === 'h2') {
        this.h2.emit('connection', socket);
      } else {
        this.h1Active.set(socket, 0);
        this.h1.emit('connection', socket);
        socket.resume();
      }
    };
    socket.on('data', sniff);
  }

  private onSession(session: ServerHttp2Session): void {
    this.sessions.add(session);
    session.on('error', ignore);
    session.once('close', () => this.sessions.delete(session));
    const socket = session.socket;
    this.remoteAddresses.set(session, formatAddress(socket?.remoteAddress, socket?.remotePort));
  }

  // -------------------------------------------------------------------------------------------------------------
  // gRPC

  private onStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    stream.on('error', ignore);
    const contentType = headers['content-type'];
    const subtype = contentType === undefined ? undefined : grpcSubtype(contentType);
    if (subtype !== undefined) {
      this.startGrpc(stream, headers, subtype);
      return;
    }
    const session = stream.session;
    void this.handlePlain(new Http2PlainExchange(stream, headers, (session && this.remoteAddresses.get(session)) ?? 'unknown'));
  }

  private startGrpc(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, subtype: string): void {
    const typed = subtype !== '';
    const contentType = headers['content-type'] as string;
    if (this.closing !== undefined) {
      respondGrpcStatus(stream, contentType, GrpcStatus.UNAVAILABLE, `The tri server on ${this.address} is shutting down.`, RpcErrorCode.NETWORK);
      return;
    }
    const target = splitPath(headers[':path']);
    if (target === undefined) {
      respondGrpcStatus(stream, contentType, GrpcStatus.UNIMPLEMENTED, `Malformed path ${JSON.stringify(headers[':path'])}: expected /{service}/{method}.`);
      closeIfUploading(stream);
      return;
    }
    const group = headerString(headers, TripleHeaders.SERVICE_GROUP);
    const version = headerString(headers, TripleHeaders.SERVICE_VERSION);
    const exporter = this.resolve(target.path, group, version);
    if (exporter === undefined) {
      respondGrpcStatus(
        stream,
        contentType,
        GrpcStatus.UNIMPLEMENTED,
        `Invoker for gRPC not found: no service ${URL.buildKey(target.path, group, version)} is exported on ${this.address}.`,
      );
      closeIfUploading(stream);
      return;
    }
    const method = exporter.findMethod(target.method) ?? builtinMethod(target.method);
    if (method === undefined) {
      respondGrpcStatus(stream, contentType, GrpcStatus.UNIMPLEMENTED, `Method not found: ${exporter.key} has no method "${target.method}".`);
      closeIfUploading(stream);
      return;
    }
    const codec = exporter.codecFor(subtype);
    if (codec === undefined) {
      respondGrpcStatus(
        stream,
        contentType,
        GrpcStatus.UNKNOWN,
        `Unsupported Media Type '${contentType}': ${exporter.key} is exported with serialization "${exporter.codec.name}" ` +
          `(send application/grpc or ${exporter.codecs.map((c) => c.contentType).join(' or ')}).`,
      );
      closeIfUploading(stream);
      return;
    }
    const encoding = headerString(headers, TripleHeaders.GRPC_ENCODING);
    if (!isSupportedEncoding(encoding)) {
      respondGrpcStatus(stream, contentType, GrpcStatus.UNIMPLEMENTED, `Unsupported grpc-encoding "${encoding}" (supported: ${ACCEPT_ENCODING}).`);
      closeIfUploading(stream);
      return;
    }
    const timeout = parseGrpcTimeout(headerString(headers, TripleHeaders.GRPC_TIMEOUT));
    new GrpcServerCall(this, stream, headers, exporter, method, codec, typed, encoding, timeout === undefined ? undefined : Date.now() + timeout);
  }

  // -------------------------------------------------------------------------------------------------------------
  // Plain HTTP (§A.11)

  private onHttp1Request(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    const active = this.h1Active.get(socket);
    if (active !== undefined) this.h1Active.set(socket, active + 1);
    res.once('close', () => {
      const now = this.h1Active.get(socket);
      if (now !== undefined) this.h1Active.set(socket, now - 1);
    });
    void this.handlePlain(new Http1Exchange(req, res, this));
  }

  private async handlePlain(exchange: PlainExchange): Promise<void> {
    try {
      await this.servePlain(exchange);
    } catch (error) {
      respondPlainError(exchange, error instanceof PlainHttpError ? error : toPlainError(error));
    }
  }

  private async servePlain(exchange: PlainExchange): Promise<void> {
    if (this.closing !== undefined) throw new PlainHttpError(503, `The tri server on ${this.address} is shutting down.`);
    if (exchange.method === 'OPTIONS') {
      exchange.respond(204, { allow: PLAIN_ALLOW }, undefined);
      return;
    }
    const target = splitPlainPath(exchange.rawPath);
    if (target === undefined) throw new PlainHttpError(404, 'Invoker not found');
    const headers = exchange.headers;
    const group = headerString(headers, TripleHeaders.SERVICE_GROUP) ?? headerString(headers, TripleHeaders.REST_SERVICE_GROUP);
    const version = headerString(headers, TripleHeaders.SERVICE_VERSION) ?? headerString(headers, TripleHeaders.REST_SERVICE_VERSION);
    const exporter = this.resolve(target.path, group, version);
    if (exporter === undefined) throw new PlainHttpError(404, 'Invoker not found');
    const method = exporter.findMethod(target.method) ?? builtinMethod(target.method);
    if (method === undefined) throw new PlainHttpError(404, `Method not found: ${exporter.key} has no method "${target.method}".`);

    exporter.inflight.enter();
    this.inflight.enter();
    try {
      await this.dispatchPlain(exchange, exporter, method);
    } finally {
      exporter.inflight.exit();
      this.inflight.exit();
    }
  }

  private async dispatchPlain(exchange: PlainExchange, exporter: TripleExporter, method: ServerMethod): Promise<void> {
    const headers = exchange.headers;
    let body: unknown;
    if (exchange.method.charCodeAt(0) === 80 /* P */) {
      const contentType = headerString(headers, 'content-type');
      if (contentType !== undefined && !isJsonContentType(contentType)) {
        throw new PlainHttpError(415, `Unsupported Media Type '${contentType}'`);
      }
      const limit = this.options.payload;
      const declared = Number(headerString(headers, 'content-length'));
      if (declared > limit) throw new PlainHttpError(413, `Request body of ${declared} bytes exceeds the limit of ${limit} bytes (URL key "payload").`);
      const bytes = await exchange.readBody(limit);
      if (bytes.length > 0) {
        try {
          body = JSON.parse(bytes.toString('utf8'));
        } catch (error) {
          throw new PlainHttpError(400, `Malformed JSON body: ${(error as Error).message}`);
        }
      }
    }
    let args: unknown[];
    try {
      args = (exporter.plainCodec ?? this.plainCodec).bindArguments(body, method.descriptor);
    } catch (error) {
      throw new PlainHttpError(400, error instanceof Error ? error.message : String(error));
    }
    const invocation = Invocation.of(method.name, args, exporter.service);
    this.fillInvocation(invocation, headers, undefined, exchange.remoteAddress);
    const timeout = Number(headerString(headers, TripleHeaders.SERVICE_TIMEOUT));
    if (timeout > 0) invocation.deadline = Date.now() + timeout;
    let settled = false;
    exchange.onClose(() => {
      if (!settled) invocation.abort(new DOMException('The HTTP client went away before the response.', 'AbortError'));
    });
    let result: Result;
    try {
      const answer = exporter.invoker.invoke(invocation);
      // A call completed synchronously is answered without awaiting it (no extra promise hop).
      result = answer instanceof Result ? answer : await answer;
    } finally {
      settled = true;
    }
    if (result.hasException()) {
      const exception = result.exception;
      const status = exception instanceof RpcError ? grpcToHttpStatus(exception.grpcStatus ?? grpcStatusOf(exception.code)) : 500;
      throw new PlainHttpError(status, exception instanceof Error ? exception.message : String(exception));
    }
    let text: string;
    try {
      text = Buffer.from((exporter.plainCodec ?? this.plainCodec).encodeResult(result.value, method.descriptor)).toString('utf8');
    } catch (error) {
      throw toPlainError(error);
    }
    const responseHeaders: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
    if (exchange.sendsAttachments && result.hasAttachments()) {
      try {
        writeAttachmentHeaders(responseHeaders, result.getAttachments());
      } catch (error) {
        safeLog(this.logger, 'warn', `tri server ${this.address}: result attachments of ${exporter.key}.${method.name}() not sent`, error);
      }
    }
    exchange.respond(200, responseHeaders, text);
  }
}

/** Built-in methods answered by filters rather than the implementation (Dubbo's `$echo`). */
function builtinMethod(name: string): ServerMethod | undefined {
  return name === '$echo' ? ECHO_METHOD : undefined;
}

const ECHO_METHOD: ServerMethod = Object.freeze({ name: '$echo', descriptor: undefined });

/** Splits a plain-HTTP path: a trailing `/` and a `.json` suffix are tolerated. */
function splitPlainPath(raw: string | undefined): { path: string; method: string } | undefined {
  if (raw === undefined) return undefined;
  let end = raw.indexOf('?');
  if (end < 0) end = raw.length;
  let path = raw.slice(0, end);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (path.endsWith('.json')) path = path.slice(0, -5);
  return splitPath(path);
}

function closeIfUploading(stream: ServerHttp2Stream): void {
  if (!stream.destroyed && !stream.readableEnded) stream.close(NGHTTP2_NO_ERROR);
}

function toPlainError(error: unknown): PlainHttpError {
  const rpc = RpcError.from(error);
  return new PlainHttpError(grpcToHttpStatus(rpc.grpcStatus ?? grpcStatusOf(rpc.code)), rpc.message, rpc.code);
}

function respondPlainError(exchange: PlainExchange, error: PlainHttpError): void {
  const headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
  if (error.weftCode !== undefined) headers[TripleHeaders.ERROR_CODE] = error.weftCode;
  exchange.respond(error.status, headers, JSON.stringify({ status: String(error.status), message: error.message }));
}

/** What the first bytes of a connection say: HTTP/2 preface, an HTTP/1 request line, not enough yet, or neither. */
function classify(data: Buffer): 'h2' | 'h1' | 'more' | 'garbage' {
  const n = Math.min(data.length, HTTP2_PREFACE.length);
  if (data.compare(HTTP2_PREFACE, 0, n, 0, n) === 0) return n === HTTP2_PREFACE.length ? 'h2' : 'more';
  let prefixOfSome = false;
  for (const method of HTTP1_METHODS) {
    const m = Math.min(data.length, method.length);
    if (data.compare(method, 0, m, 0, m) !== 0) continue;
    if (m === method.length) return 'h1';
    prefixOfSome = true;
  }
  return prefixOfSome ? 'more' : 'garbage';
}
