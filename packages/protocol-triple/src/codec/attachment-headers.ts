import { RpcError, RpcErrorCode, type AttachmentValue } from '@weft/core';

import { decodeGrpcMessage, encodeGrpcMessage } from './grpc-status.js';
import { TripleHeaders } from '../triple-keys.js';

/**
 * Keys that never travel as attachment headers and never become attachments (§A.9): Triple's own headers, and the
 * keys Dubbo keeps out of the attachment map (`group`, `interface`, `path`, `application`, …). Pseudo-headers
 * (`:path`, …) are skipped too.
 *
 * @example
 * ```ts
 * EXCLUDED_ATTACHMENT_KEYS.has('tri-service-version'); // true: routing, not an attachment
 * ```
 */
export const EXCLUDED_ATTACHMENT_KEYS: ReadonlySet<string> = new Set([
  'http-status',
  TripleHeaders.GRPC_STATUS,
  TripleHeaders.GRPC_MESSAGE,
  'grpc-status-details-bin',
  TripleHeaders.GRPC_TIMEOUT,
  TripleHeaders.GRPC_ENCODING,
  TripleHeaders.GRPC_ACCEPT_ENCODING,
  TripleHeaders.CONSUMER_APPNAME,
  TripleHeaders.SERVICE_VERSION,
  TripleHeaders.SERVICE_GROUP,
  TripleHeaders.SERVICE_TIMEOUT,
  TripleHeaders.HEADER_CONVERT,
  TripleHeaders.EXCEPTION_CODE,
  TripleHeaders.ERROR_CODE,
  'group',
  'interface',
  'path',
  'remote.application',
  'application',
  'serialization',
  TripleHeaders.REST_SERVICE_VERSION,
  TripleHeaders.REST_SERVICE_GROUP,
]);

/** Headers the protocol sets itself or HTTP/2 forbids: an attachment under one of these names is not sent. */
const NOT_SENDABLE: ReadonlySet<string> = new Set([
  'content-type',
  'content-length',
  'te',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

/** A header value must be visible ASCII, space or tab (no CR/LF, no characters outside Latin-1 ASCII). */
const INVALID_VALUE = /[^\t\x20-\x7e]/;

/** A `-bin` attachment's value: base64 (standard or URL-safe, padding optional), several joined with commas. */
const BASE64_VALUES = /^[A-Za-z0-9+/_-]*={0,2}(?:\s*,\s*[A-Za-z0-9+/_-]*={0,2})*$/;

/** Whether a header name is a binary (`-bin`) one. */
function isBinaryKey(key: string): boolean {
  return key.length > 4 && key.endsWith('-bin');
}

/** Rewrites base64 value(s) into another base64 form: `unpadded` for the wire (as gRPC and Dubbo send), else padded. */
function rebase64(text: string, unpadded: boolean): string {
  const parts = text.includes(',') ? text.split(',') : [text];
  let out = '';
  for (let i = 0; i < parts.length; i++) {
    const encoded = Buffer.from((parts[i] as string).trim(), 'base64').toString('base64');
    out += (i === 0 ? '' : unpadded ? ',' : ', ') + (unpadded ? encoded.replace(/=+$/, '') : encoded);
  }
  return out;
}

/**
 * Writes attachments into an outgoing header object (request headers or response trailers), as Dubbo does.
 *
 * @remarks Keys are lower-cased; excluded and protocol-owned keys are skipped; numbers and booleans are sent as text.
 * When a key had upper-case letters, `tri-header-convert` carries the percent-encoded JSON map lower → original so
 * the peer restores it (e.g. `_TO`). A `-bin` attachment holds base64 text (`buffer.toString('base64')`): it is
 * checked and sent unpadded, as gRPC peers send binary metadata.
 * @example
 * ```ts
 * const headers: Record<string, string> = { ':path': '/org.acme.Greeter/sayHello' };
 * writeAttachmentHeaders(headers, new Map([['traceId', 't-1']]));
 * // headers: { ':path': …, traceid: 't-1', 'tri-header-convert': '%7B%22traceid%22%3A%22traceId%22%7D' }
 * ```
 * @throws `RpcError` `serialization` when a value cannot be an HTTP/2 header value (CR, LF, non-ASCII), or a `-bin`
 * attachment's value is not base64.
 */
export function writeAttachmentHeaders(target: Record<string, string>, attachments: ReadonlyMap<string, AttachmentValue>): void {
  let convert: Record<string, string> | undefined;
  for (const [key, value] of attachments) {
    if (value === undefined || value === null) continue;
    const lower = key.toLowerCase();
    if (lower.charCodeAt(0) === 58 /* : */ || EXCLUDED_ATTACHMENT_KEYS.has(lower) || NOT_SENDABLE.has(lower)) continue;
    let text = typeof value === 'string' ? value : String(value);
    if (isBinaryKey(lower)) {
      if (!BASE64_VALUES.test(text)) {
        throw new RpcError(
          RpcErrorCode.SERIALIZATION,
          `Attachment "${key}" is sent as binary gRPC metadata (its name ends in "-bin"), so its value must be base64 text ` +
            `(e.g. buffer.toString('base64')), but its ${text.length} characters are not base64.`,
        );
      }
      text = rebase64(text, true);
    } else if (INVALID_VALUE.test(text)) {
      throw new RpcError(
        RpcErrorCode.SERIALIZATION,
        `Attachment "${key}" cannot travel as an HTTP/2 header: its value has characters other than visible ASCII, space and tab.`,
      );
    }
    target[lower] = text;
    if (lower !== key) (convert ??= {})[lower] = key;
  }
  if (convert !== undefined) target[TripleHeaders.HEADER_CONVERT] = encodeGrpcMessage(JSON.stringify(convert));
}

/**
 * Something attachments can be set on: an `Invocation` or a `Result`.
 *
 * @example
 * ```ts
 * const sink: AttachmentSink = Result.of('hello');
 * ```
 */
export interface AttachmentSink {
  setAttachment(key: string, value: AttachmentValue): unknown;
}

/** Header objects as Node delivers them (`IncomingHttpHeaders`, with pseudo-headers). */
export type InboundHeaders = Readonly<Record<string, string | string[] | number | undefined>>;

/**
 * Reads attachments from incoming headers (request headers on the server, trailers on the client).
 *
 * @remarks Every header that is not a pseudo-header or excluded becomes an attachment (as in Dubbo, `content-type`,
 * `te`, `user-agent` … included); repeated headers are joined with `, `. Keys listed in `tri-header-convert` get
 * their original case back. A `-bin` header keeps its key and becomes padded base64 text, whatever padding the peer
 * sent, so it equals the sender's `buffer.toString('base64')` (attachment values are text, numbers and booleans in
 * every protocol; `Buffer.from(value, 'base64')` gives the bytes back).
 *
 * @example
 * ```ts
 * stream.on('trailers', (trailers) => readAttachmentHeaders(trailers, result));
 * ```
 */
export function readAttachmentHeaders(headers: InboundHeaders, sink: AttachmentSink): void {
  const convertHeader = headers[TripleHeaders.HEADER_CONVERT];
  const convert = typeof convertHeader === 'string' ? parseConvert(convertHeader) : undefined;
  for (const key in headers) {
    if (key.charCodeAt(0) === 58 /* : */ || EXCLUDED_ATTACHMENT_KEYS.has(key)) continue;
    const value = headers[key];
    if (value === undefined) continue;
    let text = typeof value === 'string' ? value : Array.isArray(value) ? value.join(', ') : String(value);
    if (isBinaryKey(key)) text = rebase64(text, false);
    const original = convert?.[key];
    sink.setAttachment(typeof original === 'string' ? original : key, text);
  }
}

function parseConvert(value: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(decodeGrpcMessage(value));
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [lower, original] of Object.entries(parsed as Record<string, unknown>)) {
      // Only a pure case change is honoured: the converted key must lower-case back to the header's name.
      if (typeof original === 'string' && original.toLowerCase() === lower) out[lower] = original;
    }
    return out;
  } catch {
    return undefined;
  }
}
