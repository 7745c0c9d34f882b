import type { AuditEntry, MockPreview, PlanAnswer, ServiceDetails, ServiceMetrics, ServiceSummary } from './types.js';

/** An answer of the API other than 2xx, with the server's `error` message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/**
 * The console's client of the same-origin `/api`: the session cookie travels by itself, the CSRF token of the
 * session goes in `x-csrf-token` on every POST and DELETE.
 *
 * @remarks `onUnauthorized` is called on every 401 (the session expired or was never there), before the error is
 * thrown, so the console can show the login page.
 * @example
 * ```ts
 * const api = new ApiClient(() => app.showLogin());
 * await api.login(token);
 * const services = await api.services('Greeter');
 * ```
 */
export class ApiClient {
  private csrf: string | null = null;

  constructor(private readonly onUnauthorized: () => void) {}

  /** Whether a session is open; remembers its CSRF token. */
  async session(): Promise<boolean> {
    const answer = await this.request<{ authenticated: boolean; csrf: string | null }>('GET', '/api/session', undefined, false);
    this.csrf = answer.csrf;
    return answer.authenticated;
  }

  /** Opens a session with the console's token. */
  async login(token: string): Promise<void> {
    const answer = await this.request<{ csrf: string }>('POST', '/api/login', { token }, false);
    this.csrf = answer.csrf;
  }

  /** Closes the session. */
  async logout(): Promise<void> {
    await this.request('POST', '/api/logout', undefined, false);
    this.csrf = null;
  }

  /** The services of the registry whose name contains `query`. */
  services(query: string): Promise<ServiceSummary[]> {
    return this.request('GET', `/api/services${query === '' ? '' : `?q=${encodeURIComponent(query)}`}`);
  }

  /** Providers, consumers, overrides and routes of one service. */
  service(name: string): Promise<ServiceDetails> {
    return this.request('GET', servicePath(name));
  }

  /** The metrics history of one service. */
  metrics(name: string): Promise<ServiceMetrics> {
    return this.request('GET', `${servicePath(name)}/metrics`);
  }

  /** The audit log, newest first. */
  audit(): Promise<AuditEntry[]> {
    return this.request('GET', '/api/audit');
  }

  /** What the consumer would receive from `mock` (never writes anything). */
  previewMock(name: string, body: { method?: string; mock: string }): Promise<MockPreview> {
    return this.request('POST', `${servicePath(name)}/mock/preview`, body);
  }

  /** An action of a service (`mock`, `override`, `providers/disable`, `routes`, `breaker`…): a plan, or applied with `confirm`. */
  action(name: string, method: 'POST' | 'DELETE', path: string, body: Record<string, unknown>): Promise<PlanAnswer> {
    return this.request(method, `${servicePath(name)}/${path}`, body);
  }

  private async request<T>(method: string, path: string, body?: unknown, redirect = true): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (method !== 'GET' && this.csrf !== null) headers['x-csrf-token'] = this.csrf;
    let response: Response;
    try {
      response = await fetch(path, { method, headers, credentials: 'same-origin', body: body === undefined ? null : JSON.stringify(body) });
    } catch (error) {
      throw new ApiError(0, `The console's server does not answer (${error instanceof Error ? error.message : String(error)}).`);
    }
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    if (!response.ok) {
      const message = typeof parsed === 'object' && parsed !== null && typeof (parsed as { error?: unknown }).error === 'string' ? (parsed as { error: string }).error : `HTTP ${response.status} for ${method} ${path}`;
      if (response.status === 401 && redirect) this.onUnauthorized();
      throw new ApiError(response.status, message);
    }
    return parsed as T;
  }
}

function servicePath(name: string): string {
  return `/api/services/${encodeURIComponent(name)}`;
}
