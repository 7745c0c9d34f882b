// Plain JSON POSTs (§A.11), curl-style, on the same port as gRPC: HTTP/1.1 through node:http, HTTP/2 through
// http2.connect. Argument binding, content types (415), unknown paths (404), errors as {"status","message"}.
import http from 'node:http';
import http2 from 'node:http2';

import { afterEach, describe, expect, it } from 'vitest';

import { Filter, RpcError, RpcErrorCode, type Invocation, type Invoker, type Result } from '@weft/core';
import { freePort } from '@weft/test-utils';

import { Greeter, greeterImpl, Harness, synchronousFilter } from './support/harness.js';

const harness = new Harness();
afterEach(() => harness.close());

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

function post1(port: number, path: string, body: string | undefined, headers: Record<string, string> = {}, agent?: http.Agent, method = 'POST'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, path, method, agent, headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function post2(session: http2.ClientHttp2Session, path: string, body: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/json', ...headers });
    let response: http2.IncomingHttpHeaders = {};
    let text = '';
    stream.setEncoding('utf8');
    stream.on('response', (h) => (response = h));
    stream.on('data', (chunk: string) => (text += chunk));
    stream.on('end', () => resolve({ status: Number(response[':status']), headers: response, body: text }));
    stream.on('error', reject);
    stream.end(body);
  });
}

describe('plain JSON over HTTP/1.1', () => {
  it('binds the argument array, or the bare value of a one-argument method, and answers JSON', async () => {
    const { port } = await harness.pair();
    const array = await post1(port, '/org.acme.Greeter/sayHello', '["world"]');
    expect(array.status).toBe(200);
    expect(array.headers['content-type']).toBe('application/json');
    expect(array.body).toBe('"hello world"');
    expect((await post1(port, '/org.acme.Greeter/sayHello', '"bare"')).body).toBe('"hello bare"');
    expect((await post1(port, '/org.acme.Greeter/add', '[40, 2]')).body).toBe('42');
    expect((await post1(port, '/org.acme.Greeter/later', '["1970-01-01T00:00:00.000Z"]')).body).toBe('"1970-01-01T00:00:01.000Z"');
    expect((await post1(port, '/org.acme.Greeter/item', '{"name":"tea","price":3}')).body).toBe('{"name":"tea @ 3","price":6}');
    // A one-parameter method taking an array: the array itself, or wrapped in the argument list.
    expect((await post1(port, '/org.acme.Greeter/join', '["a","b"]')).body).toBe('"a+b"');
    expect((await post1(port, '/org.acme.Greeter/join', '[["a","b"]]')).body).toBe('"a+b"');
    // Tolerated path forms, and text/json with parameters.
    expect((await post1(port, '/org.acme.Greeter/sayHello/', '["slash"]')).body).toBe('"hello slash"');
    expect((await post1(port, '/org.acme.Greeter/sayHello.json', '["dot"]', { 'content-type': 'text/json; charset=utf-8' })).body).toBe('"hello dot"');
    // An argument-less method: POST with an empty JSON body.
    expect((await post1(port, '/org.acme.Greeter/nothing', '')).body).toBe('null');
  });

  it('answers 415 for a body that is not JSON, 404 for unknown services and methods, 400 for bad JSON or arguments', async () => {
    const { port, seen } = await harness.pair();
    const form = await post1(port, '/org.acme.Greeter/sayHello', 'name=world', { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(JSON.parse(form.body)).toEqual({ status: '415', message: "Unsupported Media Type 'application/x-www-form-urlencoded'" });
    const service = await post1(port, '/org.acme.Nope/sayHello', '["x"]');
    expect(service.status).toBe(404);
    expect(JSON.parse(service.body)).toEqual({ status: '404', message: 'Invoker not found' });
    const method = await post1(port, '/org.acme.Greeter/nope', '[]');
    expect(method.status).toBe(404);
    expect(JSON.parse(method.body).message).toContain('nope');
    expect((await post1(port, '/', '[]')).status).toBe(404);
    const malformed = await post1(port, '/org.acme.Greeter/sayHello', '["x"');
    expect(malformed.status).toBe(400);
    expect(JSON.parse(malformed.body).message).toMatch(/^Malformed JSON body/);
    const tooMany = await post1(port, '/org.acme.Greeter/add', '[1,2,3]');
    expect(tooMany.status).toBe(400);
    const wrongType = await post1(port, '/org.acme.Greeter/add', '["a", 2]');
    expect(wrongType.status).toBe(400);
    expect(seen).toHaveLength(0);
  });

  it('answers 500 with the message for a business error, and the mapped status for a framework failure', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    class Refuse extends Filter {
      invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
        if (invocation.methodName === 'add') return Promise.reject(new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'too many'));
        return invoker.invoke(invocation);
      }
    }
    provider.model.getExtensionLoader(Filter).addExtension('refuse', Refuse, { activate: { group: 'provider' } });
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    const business = await post1(port, '/org.acme.Greeter/decline', '["nope"]');
    expect(business.status).toBe(500);
    expect(JSON.parse(business.body)).toEqual({ status: '500', message: 'declined: nope' });
    const limited = await post1(port, '/org.acme.Greeter/add', '[1,2]');
    expect(limited.status).toBe(503);
    expect(limited.headers['weft-error-code']).toBe('limit-exceeded');
    expect(JSON.parse(limited.body)).toEqual({ status: '503', message: 'too many' });
  });

  it('answers calls the provider chain completed synchronously, and maps a synchronous throw like a rejection', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    const answers: string[] = [];
    provider.model.getExtensionLoader(Filter).addExtension('sync-probe', synchronousFilter(answers), { activate: { group: 'provider', order: -1000 } });
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    const hello = await post1(port, '/org.acme.Greeter/sayHello', '["world"]');
    expect([hello.status, hello.body]).toEqual([200, '"hello world"']);
    const short = await post1(port, '/org.acme.Greeter/sayHello', '["short"]');
    expect([short.status, short.body]).toEqual([200, '"short-circuited"']);
    const business = await post1(port, '/org.acme.Greeter/decline', '["nope"]');
    expect(business.status).toBe(500);
    expect(JSON.parse(business.body)).toEqual({ status: '500', message: 'declined: nope' });
    const thrown = await post1(port, '/org.acme.Greeter/join', '[["a"]]');
    expect(thrown.status).toBe(403);
    expect(thrown.headers['weft-error-code']).toBe('forbidden');
    expect(JSON.parse(thrown.body)).toEqual({ status: '403', message: 'no joins (thrown synchronously)' });
    expect(answers).toEqual(['sayHello sync', 'decline sync']);
  });

  it('routes on tri-/rest-service-version, reads tri-service-timeout and headers as attachments, keeps the connection alive', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    const seen: Invocation[] = [];
    class Record extends Filter {
      invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
        seen.push(invocation);
        return invoker.invoke(invocation);
      }
    }
    provider.model.getExtensionLoader(Filter).addExtension('record', Record, { activate: { group: 'provider' } });
    await provider.export(Greeter, { ...greeterImpl(), sayHello: (n: string) => `v1 ${n}` }, { protocol: 'tri', port, version: '1.0.0' });
    await provider.export(Greeter, { ...greeterImpl(), sayHello: (n: string) => `v2 ${n}` }, { protocol: 'tri', port, version: '2.0.0' });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const a = await post1(port, '/org.acme.Greeter/sayHello', '["a"]', { 'tri-service-version': '2.0.0', 'tri-service-timeout': '700', traceid: 't9' }, agent);
      const b = await post1(port, '/org.acme.Greeter/sayHello', '["b"]', { 'rest-service-version': '1.0.0' }, agent);
      expect(a.body).toBe('"v2 a"');
      expect(b.body).toBe('"v1 b"');
      expect(a.headers['connection']).toBe('keep-alive');
      const invocation = seen[0] as Invocation;
      expect(invocation.getAttachment('traceid')).toBe('t9');
      expect(invocation.getAttachment('remote.address')).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(invocation.deadline).toBeGreaterThan(Date.now() - 5000);
      expect(seen[1]?.deadline).toBeUndefined();
    } finally {
      agent.destroy();
    }
  });

  it('answers OPTIONS with the allowed methods, and 413 for a body over the payload limit', async () => {
    const { port, seen } = await harness.pair({ export: { parameters: { payload: 1024 } } });
    const options = await post1(port, '/org.acme.Greeter/sayHello', undefined, {}, undefined, 'OPTIONS');
    expect(options.status).toBe(204);
    expect(options.headers['allow']).toContain('POST');
    const big = await post1(port, '/org.acme.Greeter/sayHello', JSON.stringify(['x'.repeat(4096)]));
    expect(big.status).toBe(413);
    expect(JSON.parse(big.body).message).toContain('1024');
    expect(seen).toHaveLength(0);
    expect((await post1(port, '/org.acme.Greeter/sayHello', '["small"]')).body).toBe('"hello small"');
  });
});

describe('plain JSON over HTTP/2', () => {
  it('answers a JSON POST with the value and the result attachments as headers; 415 and 404 as over HTTP/1.1', async () => {
    const port = await freePort();
    const provider = await harness.start('provider');
    class Tag extends Filter {
      async invoke(invoker: Invoker, invocation: Invocation): Promise<Result> {
        const result = await invoker.invoke(invocation);
        result.setAttachment('served-by', 'h2');
        return result;
      }
    }
    provider.model.getExtensionLoader(Filter).addExtension('tag', Tag, { activate: { group: 'provider' } });
    await provider.export(Greeter, greeterImpl(), { protocol: 'tri', port });
    const session = http2.connect(`http://127.0.0.1:${port}`);
    try {
      const ok = await post2(session, '/org.acme.Greeter/add', '[1, 2]');
      expect(ok.status).toBe(200);
      expect(ok.headers['content-type']).toBe('application/json');
      expect(ok.headers['served-by']).toBe('h2');
      expect(ok.body).toBe('3');
      const wrong = await post2(session, '/org.acme.Greeter/add', '1,2', { 'content-type': 'text/plain' });
      expect(wrong.status).toBe(415);
      expect(JSON.parse(wrong.body)).toEqual({ status: '415', message: "Unsupported Media Type 'text/plain'" });
      const missing = await post2(session, '/org.acme.Missing/add', '[]');
      expect(missing.status).toBe(404);
      expect(JSON.parse(missing.body).message).toBe('Invoker not found');
    } finally {
      session.close();
    }
  });
});
