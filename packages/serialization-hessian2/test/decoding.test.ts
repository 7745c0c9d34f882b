import { describe, expect, it } from 'vitest';
import { RpcError, java, mapOf } from '@weft/core';
import { JAVA_CLASS, JavaThrowable } from '@weft/serialization-hessian2';
import { bytesOf, decodeHex, hessian2 } from './support/hex.ts';

class User {
  static readonly javaClass = 'com.foo.User';
  static readonly fields = { age: java.int, name: String };
  name = '';
  age = 0;
}

// A RuntimeException("boom") with one frame, as hessian-lite 4.0.3 on JDK 17 writes it (spec §2.8).
const BOOM = `43 1a "java.lang.RuntimeException" 94 14 "suppressedExceptions" 0a "stackTrace" 05 "cause" 0d "detailMessage"
  60 70 1f "java.util.Collections$EmptyList" 71 1c "[java.lang.StackTraceElement"
  43 1b "java.lang.StackTraceElement" 98 06 "format" 0a "lineNumber" 08 "fileName" 0a "methodName"
  0e "declaringClass" 0d "moduleVersion" 0a "moduleName" 0f "classLoaderName"
  61 90 ba 08 "Svc.java" 04 "call" 0b "com.foo.Svc" 4e 4e 4e 51 90 04 "boom"`;

function rejects(text: string, message: RegExp): void {
  let caught: unknown;
  try {
    decodeHex(text);
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(RpcError);
  expect((caught as RpcError).code).toBe('serialization');
  expect((caught as RpcError).message).toMatch(message);
}

describe('hessian2 decoding', () => {
  it('reads every int, long and double form', () => {
    const cases: [string, unknown][] = [
      ['90', 0], ['80', -16], ['bf', 47], ['c0 00', -2048], ['cf ff', 2047], ['d0 00 00', -262144], ['d7 ff ff', 262143],
      ['49 80 00 00 00', -2147483648], ['e0', 0], ['d8', -8], ['ef', 15], ['f0 00', -2048], ['ff ff', 2047],
      ['38 00 00', -262144], ['3f ff ff', 262143], ['59 80 00 00 00', -2147483648], ['4c 00 00 00 00 80 00 00 00', 2147483648],
      ['4c 7f ff ff ff ff ff ff ff', 9223372036854775807n], ['4c 80 00 00 00 00 00 00 00', -9223372036854775808n],
      ['5b', 0], ['5c', 1], ['5d 80', -128], ['5e 80 00', -32768], ['5f 00 00 05 dc', 1.5], ['5f ff ff fe 0c', -0.5],
      ['44 40 09 21 f9 f0 1b 86 6e', 3.14159], ['4b 01 b1 5d e0', new Date(1704067200000)], ['4a 00 00 01 8c c2 51 f4 7b', new Date(1704067200123)],
    ];
    for (const [text, value] of cases) expect(decodeHex(text)).toEqual(value);
  });

  it('reads all eight list headers, including the variable forms 55 and 57', () => {
    expect(decodeHex('57 91 92 5a')).toEqual([1, 2]);
    expect(decodeHex('55 04 "[int" 91 5a')).toEqual([1]);
    expect(decodeHex('56 04 "[int" 92 91 92')).toEqual([1, 2]);
    expect(decodeHex('58 92 91 92')).toEqual([1, 2]);
    expect(decodeHex('72 04 "[int" 91 92')).toEqual([1, 2]);
    expect(decodeHex('7a 91 92')).toEqual([1, 2]);
    expect(decodeHex('71 11 "java.util.HashSet" 01 78')).toEqual(new Set(['x']));
  });

  it('reads type references: a second list of the same type by index', () => {
    expect(decodeHex('7a 71 04 "[int" 91 71 90 92')).toEqual([[1], [2]]);
  });

  it('reads chunked strings and binaries, CESU-8 and 4-byte UTF-8', () => {
    expect(decodeHex('52 00 02 "ab" 01 "c"')).toBe('abc');
    expect(decodeHex('41 00 01 07 22 08 09')).toEqual(Uint8Array.of(7, 8, 9));
    expect(decodeHex('02 ed a0 bd ed b8 80')).toBe('😀');
    expect(decodeHex('02 f0 9f 98 80')).toBe('😀');
  });

  it('reads maps: H as a plain object (a Map when keys are not strings), M as a Map keeping its class', () => {
    expect(decodeHex('48 01 61 91 5a')).toEqual({ a: 1 });
    expect(decodeHex('48 91 01 78 5a')).toEqual(new Map([[1, 'x']]));
    const typed = decodeHex('4d 17 "java.util.LinkedHashMap" 01 61 91 5a') as Map<string, number>;
    expect(typed).toEqual(new Map([['a', 1]]));
    expect((typed as unknown as Record<symbol, unknown>)[JAVA_CLASS]).toBe('java.util.LinkedHashMap');
    const hostile = decodeHex('48 09 "__proto__" 48 01 "x" 91 5a 5a') as Map<string, unknown>;
    expect(hostile).toBeInstanceOf(Map);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('reads objects by class definition, and realises them to the declared class by field name', () => {
    const plain = decodeHex('43 0c "com.foo.User" 92 03 "age" 04 "name" 60 93 03 "bob"') as Record<string | symbol, unknown>;
    expect(plain).toEqual({ age: 3, name: 'bob' });
    expect(plain[JAVA_CLASS]).toBe('com.foo.User');
    const user = decodeHex('43 0d "com.nope.Pojo" 92 04 "name" 05 "extra" 60 03 "bob" 91', User) as User;
    expect(user).toBeInstanceOf(User);
    expect(user.name).toBe('bob');
    expect(user).toEqual(Object.assign(Object.create(User.prototype) as User, { name: 'bob', extra: 1 }));
  });

  it('keeps shared references and cycles when realising to declared types', () => {
    const shared = decodeHex('7a 43 0c "com.foo.User" 92 03 "age" 04 "name" 60 99 01 73 51 91', [User]) as User[];
    expect(shared[0]).toBe(shared[1]);
    const self = decodeHex('79 51 90', [Object]) as unknown[];
    expect(self[0]).toBe(self);
  });

  it('reads BigDecimal, enums and java.sql dates', () => {
    expect(decodeHex('43 14 "java.math.BigDecimal" 91 05 "value" 60 05 "12.50"')).toBe('12.50');
    expect(decodeHex('43 0d "com.foo.Color" 91 04 "name" 60 03 "RED"', java.enum('com.foo.Color'))).toBe('RED');
    expect(decodeHex('43 12 "java.sql.Timestamp" 91 05 "value" 60 4a 00 00 01 8c c2 51 f4 7b')).toEqual(new Date(1704067200123));
    expect(decodeHex('7a 43 0d "com.foo.Color" 91 04 "name" 60 03 "RED" 51 91', [java.enum('com.foo.Color')])).toEqual(['RED', 'RED']);
  });

  it('reads longs as bigints beyond 2^53 and as numbers below, whatever the declared long', () => {
    expect(decodeHex('4c 00 20 00 00 00 00 00 01', java.long)).toBe(9007199254740993n);
    expect(decodeHex('91', java.long)).toBe(1);
    expect(decodeHex('4e', java.int)).toBe(0);
    expect(decodeHex('4e', java.Integer)).toBeNull();
    expect(decodeHex('48 01 "n" e5 5a', mapOf(String, java.long))).toEqual(new Map([['n', 5]]));
  });

  it('reads a JDK 17 Throwable: class, message, stack, cause referring to itself is no cause', () => {
    const error = hessian2.createInput(bytesOf(BOOM)).readThrowable() as JavaThrowable;
    expect(error).toBeInstanceOf(JavaThrowable);
    expect(error.name).toBe('java.lang.RuntimeException');
    expect(error.message).toBe('boom');
    expect(error.cause).toBeUndefined();
    expect(error.javaStackTrace).toEqual([{ declaringClass: 'com.foo.Svc', methodName: 'call', fileName: 'Svc.java', lineNumber: 42 }]);
    expect(error.stack).toBe('java.lang.RuntimeException: boom\n    at com.foo.Svc.call(Svc.java:42)');
  });

  it('reads a JDK 8 Throwable shape with a real cause', () => {
    // outer is ref #0, its empty trace #1 (type #0); inner #2, its trace #3 (type ref #0), its cause a ref to itself.
    const inner = `43 1a "java.lang.RuntimeException" 93 0a "stackTrace" 05 "cause" 0d "detailMessage" 61 70 90 51 92 05 "inner"`;
    const outer = `43 1f "java.lang.IllegalStateException" 93 0a "stackTrace" 05 "cause" 0d "detailMessage" 60 70 1c "[java.lang.StackTraceElement" ${inner} 05 "outer"`;
    const error = hessian2.createInput(bytesOf(outer)).readThrowable();
    expect(error.name).toBe('java.lang.IllegalStateException');
    expect((error.cause as Error).message).toBe('inner');
    expect((error.cause as Error).cause).toBeUndefined();
  });

  it('a Throwable read as a declared Error class becomes an instance of it, keeping class, message and fields', () => {
    class BizError extends Error {
      static readonly javaClass = 'com.foo.BizException';
      code = 0;
    }
    const bytes = '43 14 "com.foo.BizException" 92 0d "detailMessage" 04 "code" 60 08 "no stock" ba';
    const error = decodeHex(bytes, BizError) as BizError;
    expect(error).toBeInstanceOf(BizError);
    expect([error.name, error.message, error.code]).toEqual(['com.foo.BizException', 'no stock', 42]);
    expect(decodeHex(bytes, Error)).toBeInstanceOf(JavaThrowable);
  });

  it('readThrowable refuses a map (an exception class the peer could not load)', () => {
    expect(() => hessian2.createInput(bytesOf('48 5a')).readThrowable()).toThrow(/expected a Throwable at offset 0, got a map/);
  });

  it('reads several values of one body in order, sharing its tables', () => {
    const input = hessian2.createInput(bytesOf('05 "2.0.2" 43 0c "com.foo.User" 92 03 "age" 04 "name" 60 93 03 "bob" 60 94 03 "ann" 48 5a'));
    expect(input.readString()).toBe('2.0.2');
    expect(input.readObject(User)).toBeInstanceOf(User);
    expect((input.readObject(User) as User).name).toBe('ann');
    expect(input.hasMore()).toBe(true);
    expect(input.readObject()).toEqual({});
    expect(input.hasMore()).toBe(false);
  });

  it('refuses hostile input with code serialization and the offset', () => {
    rejects('40', /unknown tag 0x40 at offset 0/);
    rejects('7a 91 45', /unknown tag 0x45 at offset 2/);
    rejects('62', /object of class definition #2 beyond the 0 defined at offset 0/);
    rejects('51 90', /reference #0 to a value not read yet/);
    rejects('71 92 91', /type reference #2 beyond the 0 types defined/);
    rejects('58 49 00 98 96 80 91', /list of 10000000 elements but only 1 bytes left at offset 0/);
    rejects('05 "ab"', /truncated string/);
    rejects('49 00 00', /truncated int/);
    rejects('48 01 "a"', /truncated/);
    rejects('57 91', /truncated list or map/);
    rejects('79'.repeat(100000), /nested deeper than 512 levels/);
    rejects('02 ff ff', /bad UTF-8 byte 0xff/);
  });
});

describe('recent short strings (the serialization keeps the last ones it decoded)', () => {
  it('decodes thousands of distinct, repeated and colliding strings exactly, at and around the kept length', () => {
    const words: string[] = [];
    for (let i = 0; i < 5000; i++) words.push(`k${i}`, 'path', `${'x'.repeat(i % 40)}${i}`, 'é' + String(i), 'interface');
    words.push('', 'a', 'a'.repeat(32), 'a'.repeat(33), 'b'.repeat(31) + 'é');
    for (let round = 0; round < 2; round++) {
      const out = hessian2.createOutput();
      for (const word of words) out.writeString(word);
      const input = hessian2.createInput(out.finish());
      const read = words.map(() => input.readString());
      expect(read).toEqual(words);
    }
  });
});
