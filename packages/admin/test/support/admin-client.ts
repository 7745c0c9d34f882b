// A client of the console's API as the UI uses it: logs in, keeps the session cookie and CSRF token, and sends
// JSON. Raw requests (no cookie, wrong headers) go through `raw`.
export interface Answer<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export class AdminClient {
  cookie: string | undefined;
  csrf: string | undefined;

  constructor(readonly url: string) {}

  /** Logs in with `token`; keeps the cookie and CSRF token on success. */
  async login(token: string): Promise<Answer<{ csrf?: string; error?: string }>> {
    const answer = await this.raw<{ csrf?: string; error?: string }>('POST', '/api/login', { body: JSON.stringify({ token }), headers: { 'content-type': 'application/json' } });
    if (answer.status === 200) {
      this.cookie = (answer.headers.get('set-cookie') ?? '').split(';')[0];
      this.csrf = answer.body.csrf;
    }
    return answer;
  }

  /** A request with the session cookie and CSRF token, and a JSON body when given. */
  async call<T = any>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
    const headers: Record<string, string> = {};
    if (this.cookie !== undefined) headers['cookie'] = this.cookie;
    if (this.csrf !== undefined && method !== 'GET') headers['x-csrf-token'] = this.csrf;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.raw<T>(method, path, { headers, body: body === undefined ? undefined : JSON.stringify(body) });
  }

  /** GET with the session; fails the test unless 200. */
  async get<T = any>(path: string): Promise<T> {
    const answer = await this.call<T>('GET', path);
    if (answer.status !== 200) throw new Error(`GET ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  /** A POST/DELETE with the session; fails the test unless 200. */
  async act<T = any>(method: 'POST' | 'DELETE', path: string, body: unknown): Promise<T> {
    const answer = await this.call<T>(method, path, body);
    if (answer.status !== 200) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  /** Any request, headers as given. */
  async raw<T = any>(method: string, path: string, init: { headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<Answer<T>> {
    const response = await fetch(`${this.url}${path}`, { method, headers: init.headers, body: init.body });
    const text = await response.text();
    let body: unknown = text;
    if ((response.headers.get('content-type') ?? '').includes('application/json')) body = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: body as T };
  }
}

/** Polls `probe` until `ok`, or fails with the last value. */
export async function eventually<T>(probe: () => Promise<T> | T, ok: (value: T) => boolean, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  for (;;) {
    try {
      last = await probe();
      if (ok(last)) return last;
    } catch (error) {
      last = (error instanceof Error ? `${error.name}: ${error.message}` : String(error)) as T;
    }
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms (last value: ${JSON.stringify(last)})`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
