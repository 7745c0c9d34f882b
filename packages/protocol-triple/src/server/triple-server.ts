import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import http2, { type Http2Session, type IncomingHttpHeaders, type ServerHttp2Session, type ServerHttp2Stream } from 'node:http2';
import net, { type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

import {
  Invocation,
  peerCertificateOfSocket,
  Result,
  RpcError,
  RpcErrorCode,
  safeLog,
  setPeerCertificate,
  URL,
  type ApplicationEvents,
  type Logger,
  type PeerCertificate,
  type TlsMaterial,
} from '@weft/core/spi';

import { readAttachmentHeaders, writeAttachmentHeaders, type InboundHeaders } from '../codec/attachment-headers.js';
import { accepts, ACCEPT_ENCODING, isSupportedEncoding } from '../codec/compression.js';
import { GrpcStatus, grpcStatusOf, grpcToHttpStatus, parseGrpcTimeout } from '../codec/grpc-status.js';
import type { TripleCodec } from '../codec/triple-codec.js';
import { TripleHeaders, TripleKeys } from '../triple-keys.js';
import { BuiltinServices } from '../builtin/builtin-services.js';
import { GrpcServerCall, respondGrpcStatus } from './grpc-server-call.js';
import { GrpcStreamCall } from './grpc-stream-call.js';
import type { CorsPolicy } from './cors-policy.js';
import { classify, finishEarly, formatAddress, grpcSubtype, headerString, ignore, splitPath, splitPlainPath } from './http-util.js';
import { answerOptions, checkInvocable } from './plain-access.js';
import {
  Http1Exchange,
  Http2PlainExchange,
  JSON_CONTENT_TYPE,
  PlainHttpError,
  respondPlainError,
  toPlainError,
  type PlainExchange,
} from './plain-exchange.js';
import { sessionMemory } from '../session-memory.js';
import { BufferBudget, CallBuffer, TaskGate } from './buffer-budget.js';
import { SessionGuard } from './session-guard.js';
import { InflightCounter, type ServerMethod, type TripleExporter } from './triple-exporter.js';
import { UploadWatch } from './upload-watch.js';

/**
 * Settings of one Triple server (one host and port), read from the first export URL on it.
 *
 * @example
 * ```ts
 * const options: TripleServerOptions = { payload: 8 << 20, maxConcurrentStreams: 1000, maxHeaderListSize: 32_768,
 *   resolveFallbackToDefault: true, shutdownTimeout: 10_000, sniffTimeout: 10_000, plainHttp: true, cors: undefined,
 *   maxConnectionBuffer: 32 << 20, maxServerBuffer: 64 << 20, idleTimeout: 180_000, headerTimeout: 10_000, bodyTimeout: 30_000 };
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
  /** Whether the built-in `grpc.health.v1.Health` answers (URL key `health`). @defaultValue true */
  readonly health?: boolean;
  /** Whether the built-in server reflection (v1 and v1alpha) answers (URL key `reflection`). @defaultValue true */
  readonly reflection?: boolean;
  /** Whether plain-HTTP JSON calls are served (`plain-http`); `false`: gRPC only. */
  readonly plainHttp: boolean;
  /** The browser origins that may call cross-origin (`cors-allowed-origins`); `undefined`: CORS off. */
  readonly cors: CorsPolicy | undefined;
  /** `grpc-encoding` of responses to clients that accept it (`undefined`: identity). */
  readonly compression?: string | undefined;
  /** Cap on buffered, not yet consumed bytes per connection. */
  readonly maxConnectionBuffer: number;
  /** Cap on buffered, not yet consumed bytes on the server. */
  readonly maxServerBuffer: number;
  /** How long an HTTP/2 connection may have no open stream, in ms. */
  readonly idleTimeout: number;
  /** How long the preface or a header block may stay unfinished, in ms. */
  readonly headerTimeout: number;
  /** How long a request body may make no progress, in ms. */
  readonly bodyTimeout: number;
}

const GUARD = Symbol('weft.tri.guard');
type GuardedStream = ServerHttp2Stream & { [GUARD]?: SessionGuard };
type GuardedSession = ServerHttp2Session & { [GUARD]?: SessionGuard };

function onGuardedStreamClose(this: GuardedStream): void {
  this[GUARD]?.closed();
}

const GOAWAY_DEBUG_DATA = Buffer.from('weft: server shutting down', 'latin1');
const { NGHTTP2_NO_ERROR } = http2.constants;
/** HTTP/2's initial stream window (the server does not raise it): what a client may send a stream before it is read. */
const DEFAULT_STREAM_WINDOW = 65_535;

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
  /** Buffered, not yet consumed bytes of every connection (`max-server-buffer`). */
  readonly budget: BufferBudget;
  /** The stalled-body timeout (`body-timeout`). */
  readonly uploads: UploadWatch;
  /** One message is inflated at a time (each may produce up to `payload` bytes; a burst of small bombs waits compressed). */
  private readonly inflations = new TaskGate(1);
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
  /** The verified client certificate of each HTTP/2 connection (mTLS). */
  private readonly peerCertificates = new WeakMap<Http2Session, PeerCertificate>();
  /** Active plain HTTP/1.1 requests per socket (idle sockets are closed first on shutdown). */
  private readonly h1Active = new Map<Socket, number>();
  private closing: Promise<void> | undefined;
  /** The built-in health and reflection services (absent when both are turned off). */
  private readonly builtins: BuiltinServices | undefined;

  constructor(
    readonly host: string,
    readonly port: number,
    readonly options: TripleServerOptions,
    private readonly logger: Logger,
    private readonly plainCodec: TripleCodec,
    /** When given, each HTTP/2 connection is reported as `connection.opened` / `connection.closed`. */
    private readonly events?: ApplicationEvents,
    /** When given, the port speaks TLS only (ALPN `h2` for gRPC, `http/1.1` for plain HTTP), mTLS when it has a trust collection. */
    readonly tls?: TlsMaterial,
  ) {
    this.address = formatAddress(host, port);
    const health = options.health ?? true;
    const reflection = options.reflection ?? true;
    this.builtins = health || reflection ? new BuiltinServices(host, port, this.address, { health, reflection }, () => this.byKey.values()) : undefined;
    this.budget = new BufferBudget(options.maxServerBuffer, 'server', TripleKeys.MAX_SERVER_BUFFER);
    this.uploads = new UploadWatch(options.bodyTimeout);
    this.h2 = http2.createServer({
      settings: { maxConcurrentStreams: options.maxConcurrentStreams, maxHeaderListSize: options.maxHeaderListSize },
      maxHeaderListPairs: 256,
      // Responses queued behind the client's flow control, and request bytes up to the buffer cap, count here.
      maxSessionMemory: sessionMemory({
        payload: options.payload,
        streams: options.maxConcurrentStreams,
        window: DEFAULT_STREAM_WINDOW,
        buffered: options.maxConnectionBuffer,
      }),
    });
    this.h2.on('session', (session: ServerHttp2Session) => this.onSession(session));
    this.h2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => this.onStream(stream, headers));
    this.h2.on('sessionError', ignore);
    this.h1 = http.createServer(
      {
        maxHeaderSize: options.maxHeaderListSize,
        // Node requires headersTimeout ≤ requestTimeout (300 s by default).
        headersTimeout: Math.min(options.headerTimeout, 300_000),
        connectionsCheckingInterval: Math.max(10, Math.min(30_000, options.headerTimeout / 2)),
      },
      (req, res) => this.onHttp1Request(req, res),
    );
    this.h1.on('clientError', (_error: Error, socket: Socket) => {
      if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n');
      socket.destroy();
    });
    this.netServer =
      tls === undefined
        ? net.createServer({ noDelay: true }, (socket) => this.onConnection(socket))
        : tls.createServer(['h2', 'http/1.1'], options.sniffTimeout, (socket) => this.onSecureConnection(socket));
  }

  /** What identifies this port's TLS settings (`plaintext` without TLS): every export on the port must agree. */
  get transport(): string {
    return this.tls?.identity ?? 'plaintext';
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
    this.builtins?.added(exporter);
  }

  /** Unregisters a service (its bare-path entry passes to another export of the same path, if any). */
  remove(exporter: TripleExporter): void {
    if (this.byKey.get(exporter.key) !== exporter) return;
    this.byKey.delete(exporter.key);
    if (this.byPath.get(exporter.path) === exporter) {
      this.byPath.delete(exporter.path);
      for (const other of this.byKey.values()) {
        if (other.path === exporter.path) {
          this.byPath.set(other.path, other);
          break;
        }
      }
    }
    this.builtins?.removed(exporter, this.byPath.has(exporter.path), this.byKey.size === 0);
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
  fillInvocation(
    invocation: Invocation,
    headers: InboundHeaders,
    session: Http2Session | undefined,
    remoteAddress?: string,
    peerCertificate?: PeerCertificate,
  ): void {
    invocation.enableAbort();
    // Only an mTLS port has client certificates: a plaintext or one-way TLS port skips the lookup.
    if (this.tls?.mutual === true) setPeerCertificate(invocation, peerCertificate ?? (session === undefined ? undefined : this.peerCertificates.get(session)));
    readAttachmentHeaders(headers, invocation);
    const application = headers[TripleHeaders.CONSUMER_APPNAME];
    if (typeof application === 'string' && application !== '') invocation.setAttachment('remote.application', application);
    const address = remoteAddress ?? (session === undefined ? undefined : this.remoteAddresses.get(session));
    if (address !== undefined) invocation.setAttachment('remote.address', address);
  }

  /** The `grpc-encoding` to answer a request with: the configured `compression` if the client accepts it. */
  responseEncoding(headers: IncomingHttpHeaders): string | undefined {
    const compression = this.options.compression;
    if (compression === undefined) return undefined;
    return accepts(headerString(headers, TripleHeaders.GRPC_ACCEPT_ENCODING), compression) ? compression : undefined;
  }

  /** The buffered-bytes account of a new call on `stream`'s connection. */
  bufferFor(stream: ServerHttp2Stream): CallBuffer {
    return new CallBuffer((stream as GuardedStream)[GUARD]?.budget ?? this.budget, this.inflations.run);
  }

  /** The buffered-bytes account of a plain-HTTP body: its HTTP/2 connection's, or (HTTP/1.1) the server's. */
  plainBufferFor(stream: ServerHttp2Stream | undefined): CallBuffer {
    return new CallBuffer((stream as GuardedStream | undefined)?.[GUARD]?.budget ?? this.budget);
  }

  /**
   * Shuts down gracefully (idempotent), in at most `shutdownTimeout` (plus a few ms) in total: GOAWAY at once,
   * in-flight calls get what is left of the timeout, then every connection is closed.
   */
  close(): Promise<void> {
    return (this.closing ??= this.doClose(Date.now() + this.options.shutdownTimeout));
  }

  private async doClose(deadline: number): Promise<void> {
    // Health first: every status NOT_SERVING (Watch streams see it, then end), before GOAWAY and the drain.
    this.builtins?.shutdown();
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
    const drained = await this.inflight.whenIdle(Math.max(0, deadline - Date.now()));
    if (!drained) {
      safeLog(this.logger, 'warn', `tri server ${this.address}: ${this.inflight.count} call(s) still in flight after ${timeout} ms; closing anyway.`);
    }
    // Let the last responses flush, then close whatever is left.
    await new Promise<void>((resolve) => setImmediate(resolve));
    const sessionsClosed = Promise.all(
      [...this.sessions].map((session) => new Promise<void>((resolve) => (session.destroyed ? resolve() : session.once('close', () => resolve())))),
    );
    const grace = new Promise<void>((resolve) => setTimeout(resolve, drained ? Math.max(0, Math.min(1000, deadline - Date.now())) : 0).unref());
    await Promise.race([sessionsClosed, grace]);
    this.uploads.stop();
    for (const session of this.sessions) session.destroy();
    for (const socket of this.sockets) socket.destroy();
    await netClosed;
    this.tls?.close();
  }

  // -------------------------------------------------------------------------------------------------------------
  // Connections

  /** A TLS connection after its handshake: ALPN `h2` goes to HTTP/2 at once; anything else is sniffed for HTTP/1. */
  private onSecureConnection(socket: TLSSocket): void {
    socket.setNoDelay(true);
    if (socket.alpnProtocol === 'h2' && this.closing === undefined) {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      // Node's HTTP/2 session does not close when its TLS socket fails: destroying the socket closes it.
      socket.on('error', () => socket.destroy());
      this.h2.emit('connection', socket);
      return;
    }
    this.onConnection(socket);
  }

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
      // HTTP/2 over TLS is negotiated by ALPN (RFC 9113 §3.2); without it Node's HTTP/2 server would take it for HTTP/1.
      if (kind === 'h2' && this.tls !== undefined) {
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
    session.once('close', () => {
      this.sessions.delete(session);
      this.events?.emit({ type: 'connection.closed', protocol: 'tri', side: 'provider', address: this.address });
    });
    this.events?.emit({ type: 'connection.opened', protocol: 'tri', side: 'provider', address: this.address });
    const socket = session.socket;
    this.remoteAddresses.set(session, formatAddress(socket?.remoteAddress, socket?.remotePort));
    if (this.tls?.mutual === true) {
      const certificate = peerCertificateOfSocket(socket);
      if (certificate !== undefined) this.peerCertificates.set(session, certificate);
    }
    (session as GuardedSession)[GUARD] = new SessionGuard(session, this.options, this.budget, this.options.maxConnectionBuffer);
  }

  // -------------------------------------------------------------------------------------------------------------
  // gRPC

  private onStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    stream.on('error', ignore);
    const guard = (stream.session as GuardedSession | undefined)?.[GUARD];
    if (guard !== undefined) {
      guard.opened(stream);
      (stream as GuardedStream)[GUARD] = guard;
      stream.on('close', onGuardedStreamClose);
    }
    const contentType = headers['content-type'];
    const subtype = contentType === undefined ? undefined : grpcSubtype(contentType);
    if (subtype !== undefined) {
      this.startGrpc(stream, headers, subtype);
      return;
    }
    const session = stream.session;
    void this.handlePlain(new Http2PlainExchange(stream, headers, (session && this.remoteAddresses.get(session)) ?? 'unknown', this));
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
      finishEarly(stream);
      return;
    }
    const group = headerString(headers, TripleHeaders.SERVICE_GROUP);
    const version = headerString(headers, TripleHeaders.SERVICE_VERSION);
    const exporter = this.resolve(target.path, group, version) ?? this.builtins?.find(target.path);
    if (exporter === undefined) {
      respondGrpcStatus(
        stream,
        contentType,
        GrpcStatus.UNIMPLEMENTED,
        `Invoker for gRPC not found: no service ${URL.buildKey(target.path, group, version)} is exported on ${this.address}.`,
      );
      finishEarly(stream);
      return;
    }
    const method = exporter.findMethod(target.method) ?? builtinMethod(target.method);
    if (method === undefined) {
      respondGrpcStatus(stream, contentType, GrpcStatus.UNIMPLEMENTED, `Method not found: ${exporter.key} has no method "${target.method}".`);
      finishEarly(stream);
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
      finishEarly(stream);
      return;
    }
    const encoding = headerString(headers, TripleHeaders.GRPC_ENCODING);
    if (!isSupportedEncoding(encoding)) {
      respondGrpcStatus(stream, contentType, GrpcStatus.UNIMPLEMENTED, `Unsupported grpc-encoding "${encoding}" (supported: ${ACCEPT_ENCODING}).`);
      finishEarly(stream);
      return;
    }
    const timeout = parseGrpcTimeout(headerString(headers, TripleHeaders.GRPC_TIMEOUT));
    const deadline = timeout === undefined ? undefined : Date.now() + timeout;
    const kind = method.descriptor?.stream;
    if (kind !== undefined) new GrpcStreamCall(this, stream, headers, exporter, method, kind, codec, typed, encoding, deadline);
    else new GrpcServerCall(this, stream, headers, exporter, method, codec, typed, encoding, deadline);
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
    const options = this.options;
    if (!options.plainHttp) {
      throw new PlainHttpError(
        415,
        `Plain HTTP is turned off on ${this.address} (plain-http=false): only gRPC calls are served, over HTTP/2 with ` +
          'content-type application/grpc (or application/grpc+proto, application/grpc+json).',
      );
    }
    const headers = exchange.headers;
    const origin = headerString(headers, 'origin');
    if (origin !== undefined && options.cors?.allows(origin) === true) exchange.corsHeaders = options.cors.responseHeaders(origin);
    if (this.closing !== undefined) throw new PlainHttpError(503, `The tri server on ${this.address} is shutting down.`);
    const target = splitPlainPath(exchange.rawPath);
    const group = headerString(headers, TripleHeaders.SERVICE_GROUP) ?? headerString(headers, TripleHeaders.REST_SERVICE_GROUP);
    const version = headerString(headers, TripleHeaders.SERVICE_VERSION) ?? headerString(headers, TripleHeaders.REST_SERVICE_VERSION);
    const exporter = target === undefined ? undefined : this.resolve(target.path, group, version);
    if (exchange.method === 'OPTIONS') {
      answerOptions(exchange, options.cors, target === undefined ? undefined : exporter?.findMethod(target.method), this.address);
      return;
    }
    if (target === undefined || exporter === undefined) throw new PlainHttpError(404, 'Invoker not found');
    const method = exporter.findMethod(target.method) ?? builtinMethod(target.method);
    if (method === undefined) throw new PlainHttpError(404, `Method not found: ${exporter.key} has no method "${target.method}".`);
    checkInvocable(exchange, exporter.key, method);
    const stream = method.descriptor?.stream;
    if (stream !== undefined) {
      throw new PlainHttpError(415, `${exporter.key}.${method.name}() is a ${stream}-streaming method: call it over gRPC (content-type application/grpc), not plain HTTP.`);
    }

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
    if (exchange.method === 'POST') {
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
    this.fillInvocation(invocation, headers, exchange.session, exchange.remoteAddress, exchange.peerCertificate);
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
