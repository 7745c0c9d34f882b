// The codec boundary: argument binding (§A.11 rules, used in gRPC mode too), realisation against declared types,
// business errors as errorToData, and attachments ↔ headers (§A.9).
import { describe, expect, it } from 'vitest';

import { JsonSerialization, RpcError, RpcErrorCode, type MethodDescriptor } from '@weft/core';
import { readAttachmentHeaders, SerializationCodec, writeAttachmentHeaders, type AttachmentSink } from '@weft/protocol-triple';

import { Declined, Greeter, Item } from './support/harness.js';

const codec = new SerializationCodec(new JsonSerialization());

function method(name: string): MethodDescriptor {
  const descriptor = Greeter.getMethod(name);
  if (descriptor === undefined) throw new Error(`no method ${name}`);
  return descriptor;
}

const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe('SerializationCodec: names and content types', () => {
  it('is application/grpc+json, and accepts bare application/grpc and +json only', () => {
    expect(codec.name).toBe('json');
    expect(codec.contentType).toBe('application/grpc+json');
    expect(codec.accepts('')).toBe(true);
    expect(codec.accepts('json')).toBe(true);
    expect(codec.accepts('proto')).toBe(false);
  });
});

describe('SerializationCodec: arguments', () => {
  it('round-trips arguments and realises them against the parameter types', () => {
    const when = new Date(5);
    const args = codec.decodeArguments(codec.encodeArguments([when], method('later')), method('later'));
    expect(args[0]).toBeInstanceOf(Date);
    expect((args[0] as Date).getTime()).toBe(5);
    const hostile = new TextEncoder().encode('[{"name":"tea","price":2,"__proto__":{"evil":true}}]');
    const [item] = codec.decodeArguments(hostile, method('item'));
    expect(item).toBeInstanceOf(Item);
    expect((item as Item).label()).toBe('tea @ 2');
    expect((item as Record<string, unknown>)['evil']).toBeUndefined();
  });

  it('binds the bare value of a one-parameter method, and tells an array argument from the argument list', () => {
    expect(codec.bindArguments('world', method('sayHello'))).toEqual(['world']);
    expect(codec.bindArguments(['world'], method('sayHello'))).toEqual(['world']);
    expect(codec.bindArguments(['a', 'b'], method('join'))).toEqual([['a', 'b']]);
    expect(codec.bindArguments([['a', 'b']], method('join'))).toEqual([['a', 'b']]);
    expect(codec.bindArguments(['a'], method('join'))).toEqual([['a']]);
    expect(codec.bindArguments({ name: 'x', price: 1 }, method('item'))[0]).toBeInstanceOf(Item);
    expect(codec.bindArguments(undefined, method('sayHello'))).toEqual([]);
  });

  it('binds arrays by position for other arities, and refuses anything else', () => {
    expect(codec.bindArguments([1, 2], method('add'))).toEqual([1, 2]);
    expect(codec.bindArguments(['1', '2'], method('add'))).toEqual([1, 2]);
    expect(codec.bindArguments(undefined, method('nothing'))).toEqual([]);
    expect(codec.bindArguments([], method('nothing'))).toEqual([]);
    const notArray = (() => {
      try {
        codec.bindArguments({ a: 1, b: 2 }, method('add'));
      } catch (error) {
        return error;
      }
    })();
    expect(notArray).toBeInstanceOf(RpcError);
    expect((notArray as RpcError).code).toBe(RpcErrorCode.SERIALIZATION);
    expect(() => codec.bindArguments([1, 2, 3], method('add'))).toThrow(/takes 2 argument\(s\) but 3 were sent/);
    expect(() => codec.bindArguments(['x', 2], method('add'))).toThrow('add() argument 0: expected Number, got "x".');
  });

  it('passes values through untyped when the method is unknown', () => {
    expect(codec.bindArguments(['2024-01-01'], undefined)).toEqual(['2024-01-01']);
    expect(codec.bindArguments('solo', undefined)).toEqual(['solo']);
  });
});

describe('SerializationCodec: results and business errors', () => {
  it('realises results against the declared return type (void → undefined)', () => {
    const later = codec.decodeResult(codec.encodeResult(new Date(1000), method('later')), method('later'));
    expect(later).toBeInstanceOf(Date);
    expect(codec.decodeResult(codec.encodeResult(undefined, method('nothing')), method('nothing'))).toBeUndefined();
    expect(codec.decodeResult(bytes('raw'), undefined)).toBe('raw');
    expect(() => codec.decodeResult(bytes({ not: 'a date' }), method('later'))).toThrow(RpcError);
  });

  it('rebuilds a declared error class, a standard error, an RpcError, or an Error carrying the name', () => {
    const declined = Object.assign(new Declined('no'), { reason: 'policy' });
    const rebuilt = codec.decodeException(codec.encodeException(declined, method('decline')), method('decline'));
    expect(rebuilt).toBeInstanceOf(Declined);
    expect(rebuilt.message).toBe('no');
    expect((rebuilt as Declined).reason).toBe('policy');
    expect(codec.decodeException(codec.encodeException(new RangeError('r'), undefined), undefined)).toBeInstanceOf(RangeError);
    const rpc = codec.decodeException(codec.encodeException(new RpcError(RpcErrorCode.LIMIT_EXCEEDED, 'busy'), undefined), undefined);
    expect(rpc).toBeInstanceOf(RpcError);
    expect((rpc as RpcError).code).toBe(RpcErrorCode.LIMIT_EXCEEDED);
    class Unknown extends Error {
      override name = 'Unknown';
    }
    const plain = codec.decodeException(codec.encodeException(new Unknown('?'), undefined), method('decline'));
    expect(plain.constructor).toBe(Error);
    expect(plain.name).toBe('Unknown');
    expect(codec.decodeException(bytes('just text'), undefined).message).toContain('without details');
  });
});

describe('attachments ↔ headers', () => {
  class Sink implements AttachmentSink {
    readonly values = new Map<string, unknown>();
    setAttachment(key: string, value: unknown): void {
      this.values.set(key, value);
    }
  }

  it('lower-cases keys, skips reserved ones, and restores the case through tri-header-convert', () => {
    const headers: Record<string, string> = { ':path': '/x' };
    writeAttachmentHeaders(
      headers,
      new Map<string, string | number | boolean>([
        ['traceId', 't1'],
        ['_TO', 250],
        ['plain', true],
        ['group', 'g'],
        ['tri-service-version', '9'],
        ['content-type', 'text/evil'],
        ['connection', 'close'],
        [':path', '/evil'],
      ]),
    );
    expect(headers).toMatchObject({ ':path': '/x', traceid: 't1', _to: '250', plain: 'true' });
    expect(headers['group']).toBeUndefined();
    expect(headers['tri-service-version']).toBeUndefined();
    expect(headers['content-type']).toBeUndefined();
    expect(headers['connection']).toBeUndefined();
    expect(JSON.parse(decodeURIComponent(headers['tri-header-convert'] as string))).toEqual({ traceid: 'traceId', _to: '_TO' });

    const sink = new Sink();
    readAttachmentHeaders({ ...headers, 'content-type': 'application/grpc', 'grpc-timeout': '5m', 'x-bin': 'AQID', multi: ['a', 'b'] }, sink);
    expect(Object.fromEntries(sink.values)).toEqual({
      traceId: 't1',
      _TO: '250',
      plain: 'true',
      'content-type': 'application/grpc',
      'x-bin': 'AQID',
      multi: 'a, b',
    });
  });

  it('ignores a tri-header-convert that is malformed or renames more than the case', () => {
    const sink = new Sink();
    readAttachmentHeaders({ a: '1', 'tri-header-convert': encodeURIComponent('{"a":"b"}') }, sink);
    readAttachmentHeaders({ c: '2', 'tri-header-convert': '%7Bnot json' }, sink);
    expect(Object.fromEntries(sink.values)).toEqual({ a: '1', c: '2' });
  });

  it('-bin: sends base64 text unpadded, reads it back padded (the bytes\' toString(\'base64\')), refuses text that is not base64', () => {
    const headers: Record<string, string> = {};
    writeAttachmentHeaders(headers, new Map([['Blob-bin', Buffer.from([9, 8, 7, 6]).toString('base64')], ['pair-bin', 'AQ==,AQI=']]));
    expect(headers['blob-bin']).toBe('CQgHBg');
    expect(headers['pair-bin']).toBe('AQ,AQI');
    const sink = new Sink();
    // Unpadded, padded, URL-safe, and a repeated header (Node joins them with ", ").
    readAttachmentHeaders({ ...headers, 'one-bin': 'AQ', 'two-bin': 'AQI=', 'url-bin': '-_8', 'many-bin': 'AQ, AQI' }, sink);
    expect(Object.fromEntries(sink.values)).toEqual({
      'Blob-bin': 'CQgHBg==',
      'pair-bin': 'AQ==, AQI=',
      'one-bin': 'AQ==',
      'two-bin': 'AQI=',
      'url-bin': Buffer.from([0xfb, 0xff]).toString('base64'),
      'many-bin': 'AQ==, AQI=',
    });
    expect(() => writeAttachmentHeaders({}, new Map([['key-bin', 'not base64!']]))).toThrow(
      'Attachment "key-bin" is sent as binary gRPC metadata (its name ends in "-bin"), so its value must be base64 text (e.g. buffer.toString(\'base64\')), but its 11 characters are not base64.',
    );
    // "-bin" alone is an ordinary name.
    writeAttachmentHeaders(headers, new Map([['-bin', 'x y']]));
    expect(headers['-bin']).toBe('x y');
  });

  it('refuses a value that is not a valid header value', () => {
    expect(() => writeAttachmentHeaders({}, new Map([['note', 'a\r\nb']]))).toThrow(/cannot travel as an HTTP\/2 header/);
    expect(() => writeAttachmentHeaders({}, new Map([['note', 'ünïcode']]))).toThrow(RpcError);
  });
});
