// Plain HTTP is not a CSRF hole: only POST with a JSON content type invokes; GET only a method declared safe;
// what browsers send cross-origin without a preflight (text/plain, forms) is refused; CORS is off unless configured;
// plain HTTP can be turned off per port (plain-http=false).
import http from 'node:http';
import http2 from 'node:http2';

import { afterEach, describe, expect, it } from 'vitest';

import { defineService, ExtensionError } from '@weft/core';
import { freePort } from '@weft/test-utils';

import { Harness } from './support/harness.js';

const harness = new Harness();
afterEach(() => harness.close());

const Admin = defineService('org.acme.Admin', {
  purge: { returns: String },
  status: { returns: String, safe: true },
  rename: { args: [String], returns: String },
});

interface Reply {
  readonly status: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

function request(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function provider(parameters: Record<string, string> = {}): Promise<{ port: number; purged: () => number }> {
  const port = await freePort();
  let purges = 0;
  const app = await harness.start('admin-provider');
  await app.export(
    Admin,
    {
      purge: () => {
        purges++;
        return 'purged';
      },
      status: () => 'up',
      rename: (name) => `renamed to ${name}`,
    },
    { protocol: 'tri', port, parameters },
  );
  return { port, purged: () => purges };
}

const JSON_TYPE = { 'content-type': 'application/json' };

describe('plain HTTP: who may invoke', () => {
  it('refuses GET of a method with side effects with 405, allow: POST and how to declare it safe; runs a safe one', async () => {
    const { port, purged } = await provider();
    const get = await request(port, 'GET', '/org.acme.Admin/purge', { origin: 'https://evil.example' });
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    expect(JSON.parse(get.body)).toEqual({
      status: '405',
      message:
        'GET cannot invoke org.acme.Admin.purge(): over plain HTTP a method is invoked by POST with content-type application/json. ' +
        'If purge() has no side effects, declare it safe to allow GET: { purge: { safe: true, … } } in defineService ' +
        '(IDL: option idempotency_level = NO_SIDE_EFFECTS).',
    });
    const put = await request(port, 'PUT', '/org.acme.Admin/rename', JSON_TYPE, '["x"]');
    expect(put.status).toBe(405);
    expect(put.headers.allow).toBe('POST');
    const del = await request(port, 'DELETE', '/org.acme.Admin/status');
    expect(del.status).toBe(405);
    expect(del.headers.allow).toBe('GET, POST');
    expect(JSON.parse(del.body).message).toBe(
      'DELETE cannot invoke org.acme.Admin.status(): over plain HTTP a method is invoked by POST with content-type application/json, ' +
        'or by GET (it is declared safe).',
    );
    const status = await request(port, 'GET', '/org.acme.Admin/status');
    expect([status.status, status.body]).toEqual([200, '"up"']);
    expect(purged()).toBe(0);
    const post = await request(port, 'POST', '/org.acme.Admin/purge', JSON_TYPE);
    expect([post.status, post.body]).toEqual([200, '"purged"']);
    expect(purged()).toBe(1);
  });

  it('refuses the bodies a browser sends cross-origin without a preflight (text/plain, forms, none) with 415', async () => {
    const { port, purged } = await provider();
    for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const reply = await request(port, 'POST', '/org.acme.Admin/purge', { 'content-type': type, origin: 'https://evil.example' }, '[]');
      expect(reply.status, type).toBe(415);
      expect(JSON.parse(reply.body)).toEqual({ status: '415', message: `Unsupported Media Type '${type}'` });
    }
    const none = await request(port, 'POST', '/org.acme.Admin/purge', {});
    expect(none.status).toBe(415);
    expect(JSON.parse(none.body).message).toBe(
      'Unsupported Media Type: no content-type; a plain-HTTP call is a POST with content-type application/json.',
    );
    expect(purged()).toBe(0);
    // Every JSON type invokes: application/json, +json types, text/json.
    for (const type of ['application/json; charset=utf-8', 'application/vnd.acme+json', 'text/json']) {
      const reply = await request(port, 'POST', '/org.acme.Admin/rename', { 'content-type': type }, '"x"');
      expect([reply.status, reply.body], type).toEqual([200, '"renamed to x"']);
    }
  });
});

describe('plain HTTP: CORS', () => {
  it('is off by default: a preflight is refused with 403 and no response carries access-control-* headers', async () => {
    const { port } = await provider();
    const preflight = await request(port, 'OPTIONS', '/org.acme.Admin/purge', {
      origin: 'https://app.example.com',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    });
    expect(preflight.status).toBe(403);
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
    expect(JSON.parse(preflight.body).message).toBe(
      `CORS preflight refused: origin https://app.example.com may not call 127.0.0.1:${port} ` +
        '(CORS is off; list the origins that may call in the URL key cors-allowed-origins).',
    );
    const post = await request(port, 'POST', '/org.acme.Admin/status', { ...JSON_TYPE, origin: 'https://app.example.com' });
    expect(post.status).toBe(200);
    expect(Object.keys(post.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    // OPTIONS without Origin lists the methods that invoke.
    const options = await request(port, 'OPTIONS', '/org.acme.Admin/status');
    expect([options.status, options.headers.allow]).toEqual([204, 'GET, POST, OPTIONS']);
    expect((await request(port, 'OPTIONS', '/org.acme.Admin/purge')).headers.allow).toBe('POST, OPTIONS');
  });

  it('answers the listed origins only, with credentials when configured', async () => {
    const { port } = await provider({ 'cors-allowed-origins': 'https://app.example.com, http://localhost:3000', 'cors-allow-credentials': 'true' });
    const preflight = await request(port, 'OPTIONS', '/org.acme.Admin/rename', {
      origin: 'https://app.example.com',
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, tri-service-timeout',
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers).toMatchObject({
      'access-control-allow-origin': 'https://app.example.com',
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': 'POST',
      'access-control-allow-headers': 'content-type, tri-service-timeout',
      'access-control-max-age': '600',
    });
    expect(preflight.headers.vary).toContain('Origin');
    const post = await request(port, 'POST', '/org.acme.Admin/rename', { ...JSON_TYPE, origin: 'http://localhost:3000' }, '"y"');
    expect([post.status, post.body, post.headers['access-control-allow-origin'], post.headers['access-control-allow-credentials']]).toEqual([
      200,
      '"renamed to y"',
      'http://localhost:3000',
      'true',
    ]);
    // An error answer to an allowed origin is readable by the page too.
    const refused = await request(port, 'POST', '/org.acme.Admin/rename', { 'content-type': 'text/plain', origin: 'https://app.example.com' }, '"y"');
    expect([refused.status, refused.headers['access-control-allow-origin']]).toEqual([415, 'https://app.example.com']);
    // Another origin: refused preflight, no CORS headers on a response.
    const evil = await request(port, 'OPTIONS', '/org.acme.Admin/rename', { origin: 'https://evil.example', 'access-control-request-method': 'POST' });
    expect(evil.status).toBe(403);
    expect(evil.headers['access-control-allow-origin']).toBeUndefined();
    const evilPost = await request(port, 'POST', '/org.acme.Admin/rename', { ...JSON_TYPE, origin: 'https://evil.example' }, '"z"');
    expect(evilPost.headers['access-control-allow-origin']).toBeUndefined();
    // A preflight for a method that cannot invoke is refused.
    const put = await request(port, 'OPTIONS', '/org.acme.Admin/rename', { origin: 'https://app.example.com', 'access-control-request-method': 'PUT' });
    expect(put.status).toBe(403);
    expect(JSON.parse(put.body).message).toBe('CORS preflight refused: PUT cannot invoke this method (allowed: POST).');
  });

  it('answers * without credentials, and refuses * with credentials at export', async () => {
    const { port } = await provider({ 'cors-allowed-origins': '*' });
    const post = await request(port, 'POST', '/org.acme.Admin/status', { ...JSON_TYPE, origin: 'https://any.example' });
    expect(post.headers['access-control-allow-origin']).toBe('*');
    expect(post.headers['access-control-allow-credentials']).toBeUndefined();
    const app = await harness.start('bad-cors');
    const exported = app.export(Admin, { purge: () => '', status: () => '', rename: () => '' }, {
      protocol: 'tri',
      port: await freePort(),
      parameters: { 'cors-allowed-origins': '*', 'cors-allow-credentials': 'true' },
    });
    await expect(exported).rejects.toThrow(ExtensionError);
    await expect(exported).rejects.toThrow(
      "export(org.acme.Admin): cors-allow-credentials=true cannot be combined with cors-allowed-origins=* (browsers refuse it, and it would let every site call with the user's cookies); list the origins that may call.",
    );
    const typo = app.export(Admin, { purge: () => '', status: () => '', rename: () => '' }, {
      protocol: 'tri',
      port: await freePort(),
      parameters: { 'cors-allowed-origins': 'app.example.com' },
    });
    await expect(typo).rejects.toThrow(
      'export(org.acme.Admin): cors-allowed-origins: "app.example.com" is not an origin (expected scheme://host[:port], e.g. https://app.example.com, or *).',
    );
  });
});

describe('plain HTTP turned off (plain-http=false)', () => {
  it('answers plain requests 415 over HTTP/1.1 and HTTP/2, and keeps serving gRPC', async () => {
    const { port, greeter } = await harness.pair({ export: { parameters: { 'plain-http': 'false' } } });
    const message =
      `Plain HTTP is turned off on 127.0.0.1:${port} (plain-http=false): only gRPC calls are served, over HTTP/2 with ` +
      'content-type application/grpc (or application/grpc+proto, application/grpc+json).';
    const h1 = await request(port, 'POST', '/org.acme.Greeter/sayHello', JSON_TYPE, '["x"]');
    expect([h1.status, JSON.parse(h1.body)]).toEqual([415, { status: '415', message }]);
    const session = http2.connect(`http://127.0.0.1:${port}`);
    try {
      const h2 = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = session.request({ ':method': 'POST', ':path': '/org.acme.Greeter/sayHello', 'content-type': 'application/json' });
        let status = 0;
        let body = '';
        stream.setEncoding('utf8');
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.on('data', (chunk: string) => (body += chunk));
        stream.on('end', () => resolve({ status, body }));
        stream.on('error', reject);
        stream.end('["x"]');
      });
      expect([h2.status, JSON.parse(h2.body).message]).toEqual([415, message]);
    } finally {
      session.close();
    }
    // The Weft consumer speaks gRPC on the same port.
    expect(await greeter.sayHello('grpc')).toBe('hello grpc');
  });
});
