import type { IncomingMessage, ServerResponse } from 'node:http';

import { HttpError } from './http-error.js';

/** The most bytes a request body may have (64 KiB). */
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * Headers sent with every answer of the console.
 *
 * @remarks A strict content security policy (same-origin scripts and styles, no inline code), no sniffing, no
 * framing, no referrer; never any CORS header.
 * @example
 * ```ts
 * for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
 * ```
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy': "default-src 'self'; img-src 'self' data:; style-src 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
});

/**
 * Writes a JSON answer.
 *
 * @remarks `undefined` as body answers with no body (for 204).
 * @example
 * ```ts
 * sendJson(res, 200, { ok: true });
 * ```
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent) return;
  for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
  if (body === undefined) {
    res.writeHead(status);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** A JSON.parse reviver that drops `__proto__`, `constructor` and `prototype` keys (no prototype pollution). */
function safeReviver(key: string, value: unknown): unknown {
  if (key === '__proto__' || key === 'constructor' || key === 'prototype') return undefined;
  return value;
}

/**
 * Reads a JSON request body: `application/json` only (else 415), at most {@link MAX_BODY_BYTES} (else 413), an
 * object (else 400), with no `__proto__` keys let through.
 *
 * @remarks An absent body (no `content-length` and no `transfer-encoding`) reads as `{}` when `optional` — so a
 * `DELETE` may come without one. Reading stops at the limit: a hostile client cannot make the server buffer more.
 * @example
 * ```ts
 * const body = await readJsonBody(req);
 * ```
 * @throws {@link HttpError} 400, 413 or 415.
 */
export async function readJsonBody(req: IncomingMessage, optional = false): Promise<Record<string, unknown>> {
  const length = req.headers['content-length'];
  const hasBody = (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
  if (!hasBody) {
    if (optional) return {};
    throw new HttpError(400, 'missing request body: send a JSON object with content-type application/json');
  }
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') {
    req.resume();
    throw new HttpError(415, `unsupported content type "${type || 'none'}": the console's API takes application/json only`);
  }
  if (length !== undefined && Number(length) > MAX_BODY_BYTES) {
    req.resume();
    throw new HttpError(413, `request body of ${length} bytes is larger than the limit of ${MAX_BODY_BYTES} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  await new Promise<void>((resolve, reject) => {
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        req.removeAllListeners('data');
        req.resume();
        reject(new HttpError(413, `request body larger than the limit of ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve());
    req.on('error', (error) => reject(new HttpError(400, `cannot read the request body: ${error.message}`)));
  });
  const text = Buffer.concat(chunks).toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text, safeReviver);
  } catch (error) {
    throw new HttpError(400, `the request body is not valid JSON: ${(error as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new HttpError(400, 'the request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
