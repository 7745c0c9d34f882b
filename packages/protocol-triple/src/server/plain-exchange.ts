import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';

import { peerCertificateOfSocket, RpcError, RpcErrorCode, type PeerCertificate } from '@weft/core/spi';

import type { InboundHeaders } from '../codec/attachment-headers.js';
import { grpcStatusOf, grpcToHttpStatus } from '../codec/grpc-status.js';
import { TripleHeaders } from '../triple-keys.js';
import { finishEarly, formatAddress, headerString } from './http-util.js';
import type { CallBuffer } from './buffer-budget.js';
import type { TripleServer } from './triple-server.js';
import type { Upload, UploadWatch } from './upload-watch.js';

const END_STREAM = Object.freeze({ endStream: true });
export const JSON_CONTENT_TYPE = 'application/json';


/** An error answered over plain HTTP with its status. */
export class PlainHttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly weftCode?: string,
    /** Headers the answer carries (`allow` of a 405). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }
}


/** A plain-HTTP exchange (HTTP/1.1 request or HTTP/2 stream without a gRPC content type). */
export interface PlainExchange {
  readonly method: string;
  readonly rawPath: string | undefined;
  readonly headers: InboundHeaders;
  readonly session: Http2Session | undefined;
  readonly remoteAddress: string;
  /** The verified client certificate of an HTTP/1.1 connection under mTLS (HTTP/2: kept per session by the server). */
  readonly peerCertificate: PeerCertificate | undefined;
  /** Whether result attachments go into the response headers (HTTP/2; not HTTP/1, as in Dubbo). */
  readonly sendsAttachments: boolean;
  /** Headers every answer to this request carries (CORS headers for an allowed origin). */
  corsHeaders: Readonly<Record<string, string>> | undefined;
  readBody(limit: number): Promise<Buffer>;
  onClose(listener: () => void): void;
  /** Answers; the rest of a body not read to the end is discarded (bounded), then the connection or stream ends. */
  respond(status: number, headers: Record<string, string>, body: string | undefined): void;
}

/**
 * Reads a plain-HTTP request body to its end, bounded.
 *
 * @remarks
 * Rejects with a {@link PlainHttpError}: 413 past `limit` bytes; 503 when the `guard`'s buffered-bytes cap refuses a
 * chunk (the connection's or server's, naming the key); 408 when no data came for the `guard`'s body timeout. The
 * bytes are held against the cap until the body is complete (or refused).
 *
 * @example
 * ```ts
 * const body = await readLimited(req, 8 << 20, { buffer: server.plainBufferFor(undefined), uploads: server.uploads });
 * ```
 */
export function readLimited(source: NodeJS.ReadableStream & { destroyed?: boolean }, limit: number, guard?: BodyGuard): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error: Error | undefined, body?: Buffer): void => {
      if (done) return;
      done = true;
      source.removeListener('data', onData);
      source.removeListener('end', onEnd);
      source.removeListener('error', onError);
      if (guard !== undefined) {
        guard.uploads.delete(upload);
        guard.buffer.releaseAll();
      }
      if (error === undefined) resolve(body as Buffer);
      else reject(error);
    };
    const upload: Upload = {
      lastProgress: Date.now(),
      stalled: () =>
        finish(new PlainHttpError(408, `Request body stalled: no data for ${guard?.uploads.timeout ?? 0} ms (URL key "body-timeout").`)),
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        finish(new PlainHttpError(413, `Request body exceeds the limit of ${limit} bytes (URL key "payload").`));
        return;
      }
      if (guard !== undefined) {
        if (!guard.buffer.reserve(chunk.length)) {
          finish(new PlainHttpError(503, guard.buffer.refusal(), RpcErrorCode.LIMIT_EXCEEDED));
          return;
        }
        upload.lastProgress = Date.now();
      }
      parts.push(chunk);
    };
    const onEnd = () => finish(undefined, parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size));
    const onError = (error: Error) => finish(error);
    source.on('data', onData);
    source.once('end', onEnd);
    source.once('error', onError);
    guard?.uploads.add(upload);
  });
}

/**
 * What bounds a plain-HTTP request body besides `payload`: the connection's and server's buffered-bytes caps
 * (`max-connection-buffer`, `max-server-buffer`) and the stalled-body timeout (`body-timeout`).
 *
 * @example
 * ```ts
 * const body = await readLimited(req, payload, { buffer: server.plainBufferFor(undefined), uploads: server.uploads });
 * ```
 */
export interface BodyGuard {
  /** The bytes this body holds until it is read to its end. */
  readonly buffer: CallBuffer;
  /** The server's stalled-body watch. */
  readonly uploads: UploadWatch;
}

export class Http1Exchange implements PlainExchange {
  readonly method: string;
  readonly rawPath: string | undefined;
  readonly headers: InboundHeaders;
  readonly session = undefined;
  readonly remoteAddress: string;
  readonly peerCertificate: PeerCertificate | undefined;
  readonly sendsAttachments = false;
  corsHeaders: Readonly<Record<string, string>> | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly res: ServerResponse,
    private readonly server: TripleServer,
  ) {
    this.method = req.method ?? 'GET';
    this.rawPath = req.url;
    this.headers = req.headers;
    this.remoteAddress = formatAddress(req.socket.remoteAddress, req.socket.remotePort);
    this.peerCertificate = server.tls?.mutual === true ? peerCertificateOfSocket(req.socket) : undefined;
  }

  readBody(limit: number): Promise<Buffer> {
    return readLimited(this.req, limit, { buffer: this.server.plainBufferFor(undefined), uploads: this.server.uploads });
  }

  onClose(listener: () => void): void {
    this.res.once('close', listener);
  }

  respond(status: number, headers: Record<string, string>, body: string | undefined): void {
    const res = this.res;
    if (res.headersSent || res.destroyed) return;
    res.statusCode = status;
    for (const name in headers) res.setHeader(name, headers[name] as string);
    const cors = this.corsHeaders;
    if (cors !== undefined) for (const name in cors) res.setHeader(name, cors[name] as string);
    // Closing, or the body was not read to the end: the connection cannot carry another request.
    if (this.server.isClosing || !this.req.complete) res.shouldKeepAlive = false;
    if (body === undefined) res.end();
    else {
      res.setHeader('content-length', Buffer.byteLength(body));
      res.end(body);
    }
  }

}

export class Http2PlainExchange implements PlainExchange {
  readonly method: string;
  readonly rawPath: string | undefined;
  readonly session: Http2Session;
  readonly remoteAddress: string;
  readonly peerCertificate = undefined;
  readonly sendsAttachments = true;
  corsHeaders: Readonly<Record<string, string>> | undefined;

  constructor(
    private readonly stream: ServerHttp2Stream,
    readonly headers: IncomingHttpHeaders,
    remoteAddress: string,
    private readonly server: TripleServer,
  ) {
    this.method = headerString(headers, ':method') ?? 'GET';
    this.rawPath = headerString(headers, ':path');
    this.session = stream.session as Http2Session;
    this.remoteAddress = remoteAddress;
  }

  readBody(limit: number): Promise<Buffer> {
    return readLimited(this.stream, limit, { buffer: this.server.plainBufferFor(this.stream), uploads: this.server.uploads });
  }

  onClose(listener: () => void): void {
    this.stream.once('close', listener);
  }

  respond(status: number, headers: Record<string, string>, body: string | undefined): void {
    const stream = this.stream;
    if (stream.destroyed || stream.headersSent) return;
    try {
      stream.respond({ ':status': status, ...headers, ...this.corsHeaders }, body === undefined ? END_STREAM : undefined);
      if (body !== undefined) stream.end(body);
      // The client may still be uploading a body we will not read: discard it (bounded) so the answer arrives whole.
      finishEarly(stream);
    } catch {
      // Reset meanwhile.
    }
  }
}


export function toPlainError(error: unknown): PlainHttpError {
  const rpc = RpcError.from(error);
  return new PlainHttpError(grpcToHttpStatus(rpc.grpcStatus ?? grpcStatusOf(rpc.code)), rpc.message, rpc.code);
}

export function respondPlainError(exchange: PlainExchange, error: PlainHttpError): void {
  const headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE, ...error.headers };
  if (error.weftCode !== undefined) headers[TripleHeaders.ERROR_CODE] = error.weftCode;
  exchange.respond(error.status, headers, JSON.stringify({ status: String(error.status), message: error.message }));
}
