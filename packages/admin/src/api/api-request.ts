import type { IncomingMessage } from 'node:http';

import type { AdminSession } from '../auth/session-store.js';
import { readJsonBody } from '../http/http-io.js';

/**
 * One authenticated API request, as the endpoint handlers see it.
 *
 * @remarks `segments` are the decoded path segments after `/api/`; `query` the URL's search parameters.
 * @example
 * ```ts
 * const body = await request.body();
 * ```
 */
export class ApiRequest {
  private parsed: Promise<Record<string, unknown>> | undefined;

  constructor(
    readonly raw: IncomingMessage,
    readonly method: string,
    readonly segments: readonly string[],
    readonly query: URLSearchParams,
    readonly session: AdminSession,
  ) {}

  /** The JSON body (read once; `{}` when a DELETE has none). */
  body(): Promise<Record<string, unknown>> {
    this.parsed ??= readJsonBody(this.raw, this.method === 'DELETE');
    return this.parsed;
  }

  /** Who made the request, for the audit trail: remote address and the session id's first characters. */
  get who(): string {
    return `${this.session.address} #${this.session.id.slice(0, 8)}`;
  }
}
