// PinoLogger as an application's logger: real pino writing JSON lines to a stream, levels, structured fields taken
// from Weft's own messages and errors (a real tps refusal and a real business call), bindings of child().
import { Writable } from 'node:stream';

import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, RpcError, RpcErrorCode, WeftApplication } from '@weft/core';
import { PinoLogger } from '@weft/logger-pino';
import { createTestApp, type TestApp } from '@weft/test-utils';

/** A pino logger writing to memory; `records()` parses what it wrote. */
function memoryPino(level = 'debug') {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  const logger = pino({ level, base: undefined, timestamp: false }, stream);
  return { logger, records: () => chunks.join('').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>) };
}

describe('PinoLogger', () => {
  it('maps levels and writes service, method, address and the RpcError code as fields', () => {
    const { logger, records } = memoryPino('info');
    const weft = new PinoLogger(logger);
    weft.debug('not written at level info');
    weft.info('exported org.acme.Greeter at tri://127.0.0.1:50051/org.acme.Greeter');
    const error = new RpcError(RpcErrorCode.TIMEOUT, 'Call org.acme.Greeter.sayHello() to 127.0.0.1:50051 timed out after 30 ms.');
    weft.warn('fail-mock org.acme.Greeter.sayHello() after: timed out; provider 127.0.0.1:50051', error);
    const [info, warn] = records();
    expect(records()).toHaveLength(2);
    expect(info).toEqual({ level: 30, address: '127.0.0.1:50051', msg: 'exported org.acme.Greeter at tri://127.0.0.1:50051/org.acme.Greeter' });
    expect(warn).toMatchObject({ level: 40, service: 'org.acme.Greeter', method: 'sayHello', address: '127.0.0.1:50051', code: 'timeout', dubboCode: 2 });
    expect((warn?.['err'] as Record<string, unknown>)['message']).toBe('Call org.acme.Greeter.sayHello() to 127.0.0.1:50051 timed out after 30 ms.');
  });

  it('child() bindings win over what the message says', () => {
    const { logger, records } = memoryPino();
    new PinoLogger(logger).child({ service: 'org.acme.Other', address: '10.0.0.1:20880' }).error('org.acme.Greeter.sayHello() failed');
    expect(records()[0]).toEqual({ level: 50, service: 'org.acme.Other', method: 'sayHello', address: '10.0.0.1:20880', msg: 'org.acme.Greeter.sayHello() failed' });
  });

  it('never throws when pino does', () => {
    const broken = new Writable({
      write: () => {
        throw new Error('disk full');
      },
    });
    const weft = new PinoLogger(pino(broken));
    expect(() => weft.error('org.acme.Greeter.sayHello() failed', new Error('x'))).not.toThrow();
  });
});

describe('as the logger of a WeftApplication', () => {
  let testApp: TestApp;
  beforeAll(() => {
    testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-tpslimit'], { prefix: 'weft-pino' });
  });
  afterAll(() => testApp.cleanup());

  it('receives the framework’s own lines as structured records', async () => {
    const { logger, records } = memoryPino('info');
    const app = await WeftApplication.start({ root: testApp.root, name: 'pino-test', logger: new PinoLogger(logger) });
    try {
      const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
      await app.export(Greeter, { sayHello: (name: string) => `hello ${name}` });
      const exported = records().find((r) => String(r['msg']).startsWith('exported org.acme.Greeter'));
      expect(exported?.['level']).toBe(30);
      expect(String(exported?.['msg'])).toMatch(/^exported org\.acme\.Greeter at injvm:\/\//);
    } finally {
      await app.shutdown({ timeout: 2000 });
    }
  });
});
