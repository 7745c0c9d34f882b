import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { Logger } from '@weft/core';

import { ApiRequest } from '../api/api-request.js';
import { LoginLimiter } from '../auth/login-limiter.js';
import { SessionStore } from '../auth/session-store.js';
import { HttpError } from '../http/http-error.js';
import { readJsonBody, SECURITY_HEADERS, sendJson } from '../http/http-io.js';
import type { StaticFiles } from './static-files.js';

/** The cookie holding the session id. */
export const SESSION_COOKIE = 'weft_admin';

/** Answers one authenticated API request: a JSON value (200), `undefined` for 204. */
export type ApiHandler = (request: ApiRequest) => Promise<unknown>;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Options of {@link AdminHttp}. */
export interface AdminHttpOptions {
  readonly token: string;
  readonly logger: Logger;
  readonly files: StaticFiles;
  readonly api: ApiHandler;
  /** The origins (`http://127.0.0.1:8088`) a browser may send requests from. */
  readonly origins: () => ReadonlySet<string>;
  /** The `Host` headers accepted; `undefined`: any (a console bound to the network). */
  readonly hosts: () => ReadonlySet<string> | undefined;
}

/**
 * The console's HTTP front: security headers on every answer, login/logout/session, the session and CSRF gate
 * in front of the API, the static UI for everything else.
 *
 * @remarks See the package README "Security". The token is compared in constant time (SHA-256 of both sides);
 * failed logins are limited per remote address; mutating requests need the session's CSRF token in
 * `x-csrf-token` and, when the browser sends `Origin`, the console's own origin. Unknown `Host` headers are refused
 * on a loopback console (DNS rebinding).
 * @example
 * ```ts
 * const front = new AdminHttp({ token, logger, files, api, origins: () => new Set([url]), hosts: () => undefined });
 * http.createServer((req, res) => void front.handle(req, res));
 * ```
 */
export class AdminHttp {
  readonly sessions = new SessionStore();
  readonly limiter = new LoginLimiter();
  private readonly tokenHash: Buffer;

  constructor(private readonly options: AdminHttpOptions) {
    this.tokenHash = sha256(options.token);
  }

  /** Answers one request; never throws. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) res.setHeader(k, v);
    try {
      const hosts = this.options.hosts();
      if (hosts !== undefined && !hosts.has((req.headers.host ?? '').toLowerCase())) {
        throw new HttpError(421, `unexpected Host header "${(req.headers.host ?? '').slice(0, 100)}": this console answers ${[...hosts].join(', ')}`);
      }
      const url = new globalThis.URL(req.url ?? '/', 'http://console.invalid');
      const method = (req.method ?? 'GET').toUpperCase();
      if (url.pathname === '/api' || url.pathname.startsWith('/api/')) {
        await this.api(req, res, method, url);
        return;
      }
      if (method !== 'GET' && method !== 'HEAD') throw new HttpError(405, `${method} ${url.pathname.slice(0, 200)}: the UI answers GET only`);
      let path: string;
      try {
        path = decodeURIComponent(url.pathname);
      } catch {
        throw new HttpError(400, 'malformed percent-escape in the path');
      }
      this.options.files.serve(path, res, method === 'HEAD');
    } catch (error) {
      this.fail(res, error);
    }
  }

  private fail(res: ServerResponse, error: unknown): void {
    if (error instanceof HttpError) {
      sendJson(res, error.status, { error: error.message }, error.headers);
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    // the registry could not be reached or answered an error (RpcError network/registry from the session)
    const code = (error as { code?: unknown } | undefined)?.code;
    if (code === 'network' || code === 'registry' || code === 'timeout') {
      sendJson(res, 503, { error: message });
      return;
    }
    try {
      this.options.logger.warn(`weft admin: request failed: ${message}`);
    } catch {
      // a logger that throws never fails the answer
    }
    if (!res.headersSent) sendJson(res, 500, { error: message });
    else res.destroy();
  }

  private checkOrigin(req: IncomingMessage): void {
    const origin = req.headers.origin;
    if (origin !== undefined && !this.options.origins().has(origin)) {
      throw new HttpError(403, `CSRF check failed: Origin ${origin.slice(0, 200)} is not this console's (${[...this.options.origins()].join(', ')})`);
    }
  }

  private async api(req: IncomingMessage, res: ServerResponse, method: string, url: globalThis.URL): Promise<void> {
    const rest = url.pathname.slice('/api/'.length);
    let segments: string[];
    try {
      segments = rest === '' ? [] : rest.split('/').map((s) => decodeURIComponent(s));
    } catch {
      throw new HttpError(400, 'malformed percent-escape in the path');
    }
    const route = segments.join('/');
    if (route === 'login') {
      if (method !== 'POST') throw new HttpError(405, 'use POST /api/login with {"token":"…"}');
      this.checkOrigin(req);
      await this.login(req, res);
      return;
    }
    if (route === 'session') {
      if (method !== 'GET') throw new HttpError(405, 'use GET /api/session');
      const session = this.sessions.get(cookieOf(req, SESSION_COOKIE));
      sendJson(res, 200, { authenticated: session !== undefined, csrf: session?.csrf ?? null });
      return;
    }
    const session = this.sessions.get(cookieOf(req, SESSION_COOKIE));
    if (session === undefined) throw new HttpError(401, 'not logged in: POST /api/login with {"token":"…"} first (the session cookie is missing or expired)');
    if (method !== 'GET' && method !== 'HEAD') {
      this.checkOrigin(req);
      const csrf = req.headers['x-csrf-token'];
      if (typeof csrf !== 'string' || csrf === '') throw new HttpError(403, 'CSRF token missing: send the x-csrf-token header with the csrf value POST /api/login answered');
      const given = sha256(csrf);
      if (!timingSafeEqual(given, sha256(session.csrf))) throw new HttpError(403, 'CSRF token wrong: send the x-csrf-token header with the csrf value of this session (GET /api/session)');
    }
    if (route === 'logout') {
      if (method !== 'POST') throw new HttpError(405, 'use POST /api/logout');
      this.sessions.delete(session.id);
      sendJson(res, 204, undefined, { 'set-cookie': `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0` });
      return;
    }
    const answer = await this.options.api(new ApiRequest(req, method, segments, url.searchParams, session));
    sendJson(res, answer === undefined ? 204 : 200, answer);
  }

  private async login(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const address = req.socket.remoteAddress ?? 'unknown';
    const wait = this.limiter.retryAfter(address);
    if (wait > 0) throw new HttpError(429, `too many failed logins from ${address}: try again in ${wait} s`, { 'retry-after': String(wait) });
    const body = await readJsonBody(req);
    const token = body['token'];
    if (typeof token !== 'string' || !timingSafeEqual(sha256(token), this.tokenHash)) {
      this.limiter.fail(address);
      throw new HttpError(401, typeof token === 'string' ? 'wrong token' : 'missing "token": send {"token":"…"} (the token weft admin printed, or $WEFT_ADMIN_TOKEN)');
    }
    const session = this.sessions.create(address);
    sendJson(res, 200, { csrf: session.csrf }, { 'set-cookie': `${SESSION_COOKIE}=${session.id}; HttpOnly; SameSite=Strict; Path=/` });
  }
}
