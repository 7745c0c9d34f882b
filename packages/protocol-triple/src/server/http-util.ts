import http2, { type ServerHttp2Stream } from 'node:http2';

import type { InboundHeaders } from '../codec/attachment-headers.js';

const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const HTTP1_METHODS: readonly Buffer[] = ['GET ', 'POST ', 'PUT ', 'PATCH ', 'DELETE ', 'HEAD ', 'OPTIONS ', 'TRACE ', 'CONNECT '].map((m) =>
  Buffer.from(m, 'latin1'),
);
const { NGHTTP2_NO_ERROR } = http2.constants;

/** A listener that ignores its event (stream and socket `error`s handled elsewhere). */
export function ignore(): void {}

/** `[ip]:port` for IPv6, `ip:port` otherwise. */
export function formatAddress(address: string | undefined, port: number | undefined): string {
  if (address === undefined) return 'unknown';
  return address.includes(':') ? `[${address}]:${port ?? 0}` : `${address}:${port ?? 0}`;
}

/** Splits `/{path}/{method}` (ignoring a query): everything before the last `/` is the path. */
export function splitPath(raw: string | undefined): { path: string; method: string } | undefined {
  if (raw === undefined || raw.charCodeAt(0) !== 47 /* / */) return undefined;
  let end = raw.indexOf('?');
  if (end < 0) end = raw.length;
  const slash = raw.lastIndexOf('/', end - 1);
  if (slash <= 0) return undefined;
  return { path: raw.slice(1, slash), method: raw.slice(slash + 1, end) };
}

/** Whether a request or response content type is gRPC (`application/grpc`, `application/grpc+x`, `…;params`). */
export function grpcSubtype(contentType: string): string | undefined {
  if (!contentType.startsWith('application/grpc')) return undefined;
  let rest = contentType.slice(16);
  const semicolon = rest.indexOf(';');
  if (semicolon >= 0) rest = rest.slice(0, semicolon);
  rest = rest.trim();
  if (rest === '') return '';
  return rest.charCodeAt(0) === 43 /* + */ ? rest.slice(1).toLowerCase() : undefined;
}

export function isJsonContentType(contentType: string): boolean {
  const semicolon = contentType.indexOf(';');
  const type = (semicolon >= 0 ? contentType.slice(0, semicolon) : contentType).trim().toLowerCase();
  return type === 'application/json' || type === 'text/json' || type.endsWith('+json');
}

export function headerString(headers: InboundHeaders, name: string): string | undefined {
  const value = headers[name];
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' ? value : Array.isArray(value) ? value[0] : String(value);
}

/** Splits a plain-HTTP path: a trailing `/` and a `.json` suffix are tolerated. */
export function splitPlainPath(raw: string | undefined): { path: string; method: string } | undefined {
  if (raw === undefined) return undefined;
  let end = raw.indexOf('?');
  if (end < 0) end = raw.length;
  let path = raw.slice(0, end);
  if (path.length > 1 && path.endsWith('/')) path = path.slice(0, -1);
  if (path.endsWith('.json')) path = path.slice(0, -5);
  return splitPath(path);
}

export function closeIfUploading(stream: ServerHttp2Stream): void {
  if (!stream.destroyed && !stream.readableEnded) stream.close(NGHTTP2_NO_ERROR);
}

/** How much of an unread request body the server discards after an early answer before it resets the stream. */
export const EARLY_ANSWER_DRAIN_BYTES = 16 * 1024 * 1024;
/** How long the server discards an unread request body after an early answer before it resets the stream, in ms. */
export const EARLY_ANSWER_DRAIN_MS = 5000;

/**
 * Finishes a stream answered before its request body was read (404, 415, 413, UNIMPLEMENTED…): the rest of the body
 * is read and discarded so the client completes its upload and sees the whole answer, up to
 * {@link EARLY_ANSWER_DRAIN_BYTES} and {@link EARLY_ANSWER_DRAIN_MS}; past either bound the stream is reset with
 * `NO_ERROR` (RFC 9113 §8.1). Resetting at once instead makes clients that are still uploading (curl) fail the
 * exchange. Call it after the response was submitted.
 */
export function finishEarly(stream: ServerHttp2Stream): void {
  if (stream.destroyed || stream.readableEnded) return;
  let left = EARLY_ANSWER_DRAIN_BYTES;
  const stop = () => {
    clearTimeout(timer);
    stream.removeListener('data', onData);
    closeIfUploading(stream);
  };
  const onData = (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) stop();
  };
  const timer = setTimeout(stop, EARLY_ANSWER_DRAIN_MS);
  timer.unref();
  const done = () => {
    clearTimeout(timer);
    stream.removeListener('data', onData);
  };
  stream.once('end', done);
  stream.once('close', done);
  stream.on('data', onData);
  stream.resume();
}

/** What the first bytes of a connection say: HTTP/2 preface, an HTTP/1 request line, not enough yet, or neither. */
export function classify(data: Buffer): 'h2' | 'h1' | 'more' | 'garbage' {
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
