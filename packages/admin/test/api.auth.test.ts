// The console's front door: token login with a rate limit, sessions in HttpOnly SameSite=Strict cookies, CSRF
// tokens and Origin checks on every mutating request, JSON bodies only (bounded), security headers on every answer,
// and no network bind without allowRemote.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startAdmin, type AdminServer } from '@weft/admin';
import { freePort, RecordingLogger } from '@weft/test-utils';

import { AdminClient } from './support/admin-client.ts';

const TOKEN = 'correct-horse-battery';
let dir: string;
let admin: AdminServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'weft-admin-auth-'));
  admin = await startAdmin({ registry: `embedded://${dir}`, port: 0, token: TOKEN, logger: new RecordingLogger(), uiDir: join(dir, 'no-ui') });
});
afterAll(async () => {
  await admin.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('login and sessions', () => {
  it('a right token answers a CSRF token and an HttpOnly SameSite=Strict session cookie; /api/session reports it; logout drops it', async () => {
    const client = new AdminClient(admin.url);
    expect(await client.call('GET', '/api/session')).toMatchObject({ status: 200, body: { authenticated: false, csrf: null } });
    const login = await client.login(TOKEN);
    expect(login.status).toBe(200);
    expect(login.body.csrf).toMatch(/^[\w-]{40,}$/);
    const cookie = login.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^weft_admin=[\w-]{40,}; HttpOnly; SameSite=Strict; Path=\/$/);
    expect((await client.call('GET', '/api/session')).body).toEqual({ authenticated: true, csrf: login.body.csrf });
    expect((await client.call('GET', '/api/services')).status).toBe(200);

    const logout = await client.call('POST', '/api/logout');
    expect(logout.status).toBe(204);
    expect(logout.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await client.call('GET', '/api/services')).status).toBe(401);
    expect((await client.call('GET', '/api/session')).body).toEqual({ authenticated: false, csrf: null });
  });

  it('a wrong or missing token is 401 with a JSON error, and sets no cookie', async () => {
    const client = new AdminClient(admin.url);
    const wrong = await client.login('not-the-token');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'wrong token' });
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const missing = await client.raw('POST', '/api/login', { headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(missing.status).toBe(401);
    expect(missing.body.error).toContain('missing "token"');
  });

  it('every other API call without a session is 401, and so is a forged or stale cookie', async () => {
    for (const path of ['/api/services', '/api/services/org.acme.Greeter', '/api/audit']) {
      const answer = await new AdminClient(admin.url).call('GET', path);
      expect(answer.status, path).toBe(401);
      expect(answer.body.error).toContain('not logged in');
    }
    const forged = await new AdminClient(admin.url).raw('POST', '/api/services/org.acme.Greeter/mock', {
      headers: { cookie: 'weft_admin=forged', 'x-csrf-token': 'x', 'content-type': 'application/json' },
      body: JSON.stringify({ mock: 'force:return null', confirm: true }),
    });
    expect(forged.status).toBe(401);
  });
});

describe('CSRF', () => {
  it('a mutating request without x-csrf-token, with a wrong one, or from a foreign Origin is 403; the right one passes', async () => {
    const client = new AdminClient(admin.url);
    await client.login(TOKEN);
    const body = JSON.stringify({ mock: 'force:return null' });
    const base = { cookie: client.cookie as string, 'content-type': 'application/json' };
    const missing = await client.raw('POST', '/api/services/org.acme.Greeter/mock', { headers: base, body });
    expect(missing.status).toBe(403);
    expect(missing.body.error).toMatch(/^CSRF token missing/);
    const wrong = await client.raw('POST', '/api/services/org.acme.Greeter/mock', { headers: { ...base, 'x-csrf-token': 'guessed' }, body });
    expect(wrong.status).toBe(403);
    expect(wrong.body.error).toMatch(/^CSRF token wrong/);
    const foreign = await client.raw('POST', '/api/services/org.acme.Greeter/mock', { headers: { ...base, 'x-csrf-token': client.csrf as string, origin: 'http://evil.example' }, body });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error).toContain('CSRF check failed: Origin http://evil.example');
    // a login from a foreign page is refused too (login CSRF)
    const foreignLogin = await client.raw('POST', '/api/login', { headers: { 'content-type': 'application/json', origin: 'http://evil.example' }, body: JSON.stringify({ token: TOKEN }) });
    expect(foreignLogin.status).toBe(403);
    // the console's own origin passes the gate (and reaches the endpoint: nothing is registered, so 404)
    const own = await client.raw('POST', '/api/services/org.acme.Greeter/mock', { headers: { ...base, 'x-csrf-token': client.csrf as string, origin: admin.url }, body });
    expect(own.status).toBe(404);
    expect(own.body.error).toContain('unknown service org.acme.Greeter');
  });

  it('a GET needs no CSRF token; logout does', async () => {
    const client = new AdminClient(admin.url);
    await client.login(TOKEN);
    expect((await client.raw('GET', '/api/audit', { headers: { cookie: client.cookie as string } })).status).toBe(200);
    expect((await client.raw('POST', '/api/logout', { headers: { cookie: client.cookie as string } })).status).toBe(403);
  });
});

describe('request bodies', () => {
  it('anything but application/json is 415; more than 64 KiB is 413; malformed JSON or a non-object is 400', async () => {
    const client = new AdminClient(admin.url);
    await client.login(TOKEN);
    const headers = { cookie: client.cookie as string, 'x-csrf-token': client.csrf as string };
    const form = await client.raw('POST', '/api/services/org.acme.Greeter/mock', { headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' }, body: 'mock=force' });
    expect(form.status).toBe(415);
    expect(form.body.error).toContain('unsupported content type "application/x-www-form-urlencoded"');
    const text = await client.raw('POST', '/api/login', { headers: { 'content-type': 'text/plain' }, body: JSON.stringify({ token: TOKEN }) });
    expect(text.status).toBe(415);
    const big = await client.raw('POST', '/api/services/org.acme.Greeter/mock', { headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ mock: 'x'.repeat(70 * 1024) }) });
    expect(big.status).toBe(413);
    expect(big.body.error).toContain('larger than the limit of 65536 bytes');
    const chunked = await new Promise<number>((resolve, reject) => {
      const req = request(`${admin.url}/api/services/org.acme.Greeter/mock`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      for (let i = 0; i < 80; i++) req.write('x'.repeat(1024));
      req.end();
    });
    expect(chunked).toBe(413);
    const bad = await client.raw('POST', '/api/services/org.acme.Greeter/mock', { headers: { ...headers, 'content-type': 'application/json' }, body: '{"mock":' });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toContain('not valid JSON');
    const array = await client.raw('POST', '/api/services/org.acme.Greeter/mock', { headers: { ...headers, 'content-type': 'application/json' }, body: '[1]' });
    expect(array.status).toBe(400);
    expect(array.body.error).toBe('the request body must be a JSON object');
    // __proto__ never gets through the parser: the value is read as a plain body, nothing is polluted
    const proto = await client.raw('POST', '/api/services/org.acme.Greeter/mock/preview', {
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"__proto__": {"mock": "force:return 1", "polluted": true}, "constructor": {"prototype": {"polluted": true}}}',
    });
    expect(proto.status).toBe(404);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('rate limit', () => {
  it('the sixth failed login within a minute from one address is 429 with retry-after, even with the right token', async () => {
    const own = await startAdmin({ registry: `embedded://${dir}`, port: 0, token: TOKEN, logger: new RecordingLogger() });
    try {
      const client = new AdminClient(own.url);
      for (let i = 0; i < 5; i++) expect((await client.login(`wrong-${i}`)).status).toBe(401);
      const limited = await client.login(TOKEN);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(limited.body.error).toMatch(/too many failed logins from 127\.0\.0\.1: try again in \d+ s/);
    } finally {
      await own.close();
    }
  });
});

describe('headers and static files', () => {
  it('every answer has the security headers and never a CORS header; an unbuilt UI answers a page saying so', async () => {
    const client = new AdminClient(admin.url);
    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/services/org.acme.Greeter'],
      ['GET', '/api/services'],
      ['OPTIONS', '/api/services'],
      ['POST', '/api/login'],
    ] as const) {
      const answer = await client.raw(method, path, { headers: { origin: 'http://evil.example' } });
      expect(answer.headers.get('content-security-policy'), `${method} ${path}`).toBe("default-src 'self'; img-src 'self' data:; style-src 'self'");
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      expect([...answer.headers.keys()].filter((k) => k.startsWith('access-control-'))).toEqual([]);
    }
    const page = await client.raw('GET', '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('The web UI is not built');
  });

  it('serves the built UI: files by path, index.html for UI routes, 404 for missing assets and dot files', async () => {
    const ui = join(dir, 'ui');
    mkdirSync(join(ui, 'assets'), { recursive: true });
    writeFileSync(join(ui, 'index.html'), '<!doctype html><title>console</title>');
    writeFileSync(join(ui, 'assets', 'app.js'), 'export {};');
    writeFileSync(join(ui, '.secret'), 'no');
    const own = await startAdmin({ registry: `embedded://${dir}`, port: 0, token: TOKEN, logger: new RecordingLogger(), uiDir: ui });
    try {
      const client = new AdminClient(own.url);
      const index = await client.raw('GET', '/');
      expect(index.status).toBe(200);
      expect(index.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(index.body).toBe('<!doctype html><title>console</title>');
      const script = await client.raw('GET', '/assets/app.js');
      expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(script.body).toBe('export {};');
      expect((await client.raw('GET', '/services/org.acme.Greeter')).body).toBe('<!doctype html><title>console</title>');
      expect((await client.raw('GET', '/assets/missing.js')).status).toBe(404);
      expect((await client.raw('GET', '/.secret')).body).toBe('<!doctype html><title>console</title>');
      expect((await client.raw('GET', '/%2e%2e/%2e%2e/etc/passwd')).body).toBe('<!doctype html><title>console</title>');
      expect((await client.raw('POST', '/')).status).toBe(405);
    } finally {
      await own.close();
    }
  });

  it('a foreign Host header is refused (DNS rebinding), unknown API paths are 404 naming the endpoints', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${admin.url}/api/session`, { headers: { host: 'attacker.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(421);
    const client = new AdminClient(admin.url);
    await client.login(TOKEN);
    const unknown = await client.call('GET', '/api/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toContain('GET /api/services/<interface>');
  });
});

describe('binding', () => {
  it('a non-loopback host is refused without allowRemote', async () => {
    await expect(startAdmin({ registry: `embedded://${dir}`, host: '0.0.0.0', port: 0, token: TOKEN })).rejects.toThrow(
      'weft admin: refusing to listen on 0.0.0.0: it is not a loopback address',
    );
  });

  it('with allowRemote it binds; without a token one is generated and returned', async () => {
    const saved = process.env['WEFT_ADMIN_TOKEN'];
    delete process.env['WEFT_ADMIN_TOKEN'];
    const remote = await startAdmin({ registry: `embedded://${dir}`, host: '0.0.0.0', port: 0, allowRemote: true, logger: new RecordingLogger() });
    try {
      expect(remote.generatedToken).toBe(true);
      expect(remote.token.length).toBeGreaterThanOrEqual(24);
      const client = new AdminClient(remote.url.replace('0.0.0.0', '127.0.0.1'));
      expect((await client.login(remote.token)).status).toBe(200);
    } finally {
      await remote.close();
      if (saved !== undefined) process.env['WEFT_ADMIN_TOKEN'] = saved;
    }
  });

  it('WEFT_ADMIN_TOKEN is the token when none is given', async () => {
    const saved = process.env['WEFT_ADMIN_TOKEN'];
    process.env['WEFT_ADMIN_TOKEN'] = 'from-the-environment';
    const own = await startAdmin({ registry: `embedded://${dir}`, port: 0, logger: new RecordingLogger() });
    try {
      expect(own.token).toBe('from-the-environment');
      expect(own.generatedToken).toBe(false);
      expect((await new AdminClient(own.url).login('from-the-environment')).status).toBe(200);
    } finally {
      await own.close();
      if (saved === undefined) delete process.env['WEFT_ADMIN_TOKEN'];
      else process.env['WEFT_ADMIN_TOKEN'] = saved;
    }
  });
});

describe('an unreachable registry', () => {
  it('answers 503 naming the registry, within the registry timeout', async () => {
    const port = await freePort();
    const own = await startAdmin({ registry: `zookeeper://127.0.0.1:${port}`, port: 0, token: TOKEN, logger: new RecordingLogger(), registryTimeout: 1000 });
    try {
      const client = new AdminClient(own.url);
      await client.login(TOKEN);
      const started = Date.now();
      const answer = await client.call('GET', '/api/services');
      expect(answer.status).toBe(503);
      expect(answer.body.error).toContain(`cannot reach registry zookeeper://127.0.0.1:${port}`);
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await own.close();
    }
  });
});
