import { describe, expect, it } from 'vitest';
import { Hessian2Serialization } from '@weft/serialization-hessian2';
import { java, mapOf, setOf, type TypeDescriptor } from '@weft/core';
import { bytesOf, decodeHex, encodeHex, hessian2, hex } from './support/hex.ts';

class User {
  static readonly javaClass = 'com.foo.User';
  static readonly fields = { age: java.int, name: String };
  constructor(
    public name = '',
    public age = 0,
  ) {}
}

// hessian-lite 4.0.3's bytes for Hessian2Output.writeObject(value) (spec §2.5, observed from Java).
const FIXTURES: [string, unknown, TypeDescriptor | undefined, string][] = [
  ['null', null, undefined, '4e'],
  ['true', true, undefined, '54'],
  ['false', false, undefined, '46'],
  ['int 0', 0, java.int, '90'],
  ['int 1', 1, java.int, '91'],
  ['int -1', -1, java.int, '8f'],
  ['int -16', -16, java.int, '80'],
  ['int 47', 47, java.int, 'bf'],
  ['int 48', 48, java.int, 'c8 30'],
  ['int -17', -17, java.int, 'c7 ef'],
  ['int -2048', -2048, java.int, 'c0 00'],
  ['int 2047', 2047, java.int, 'cf ff'],
  ['int 2048', 2048, java.int, 'd4 08 00'],
  ['int -2049', -2049, java.int, 'd3 f7 ff'],
  ['int -262144', -262144, java.int, 'd0 00 00'],
  ['int 262143', 262143, java.int, 'd7 ff ff'],
  ['int 262144', 262144, java.int, '49 00 04 00 00'],
  ['int MAX', 2147483647, java.int, '49 7f ff ff ff'],
  ['int MIN', -2147483648, java.int, '49 80 00 00 00'],
  ['Short 7', 7, java.Short, '97'],
  ['Byte -3', -3, java.Byte, '8d'],
  ['long 0', 0, java.long, 'e0'],
  ['long -8', -8, java.long, 'd8'],
  ['long 15', 15, java.long, 'ef'],
  ['long 16', 16, java.long, 'f8 10'],
  ['long -9', -9, java.long, 'f7 f7'],
  ['long -2048', -2048, java.long, 'f0 00'],
  ['long 2047', 2047, java.long, 'ff ff'],
  ['long -262144', -262144, java.long, '38 00 00'],
  ['long 262143', 262143, java.long, '3f ff ff'],
  ['long 262144', 262144, java.long, '59 00 04 00 00'],
  ['long 2147483647', 2147483647, java.long, '59 7f ff ff ff'],
  ['long -2147483648', -2147483648, java.long, '59 80 00 00 00'],
  ['long 2147483648', 2147483648, java.long, '4c 00 00 00 00 80 00 00 00'],
  ['long MAX', 9223372036854775807n, java.long, '4c 7f ff ff ff ff ff ff ff'],
  ['double 0.0', 0, java.double, '5b'],
  ['double -0.0', -0, java.double, '5b'],
  ['double 1.0', 1, java.double, '5c'],
  ['double -1.0', -1, java.double, '5d ff'],
  ['double 127.0', 127, java.double, '5d 7f'],
  ['double -128.0', -128, java.double, '5d 80'],
  ['double 128.0', 128, java.double, '5e 00 80'],
  ['double -32768.0', -32768, java.double, '5e 80 00'],
  ['double 32768.0', 32768, java.double, '5f 01 f4 00 00'],
  ['double 1.5', 1.5, java.double, '5f 00 00 05 dc'],
  ['double 0.001', 0.001, java.double, '5f 00 00 00 01'],
  ['double -0.5', -0.5, java.double, '5f ff ff fe 0c'],
  ['double 12.25', 12.25, java.double, '5f 00 00 2f da'],
  ['double 2147483.647', 2147483.647, java.double, '5f 7f ff ff ff'],
  ['double 2147483.648', 2147483.648, java.double, '44 41 40 62 4d d2 f1 a9 fc'],
  ['double 3.14159', 3.14159, java.double, '44 40 09 21 f9 f0 1b 86 6e'],
  ['double NaN', Number.NaN, java.double, '44 7f f8 00 00 00 00 00 00'],
  ['Float 1.1f', 1.1, java.Float, '5f 00 00 04 4c'],
  ['Float 0.1f', 0.1, java.Float, '5f 00 00 00 64'],
  ["char 'x'", 'x', java.char, '01 78'],
  ['""', '', String, '00'],
  ['"hello"', 'hello', String, '05 68 65 6c 6c 6f'],
  ['"é"', 'é', String, '01 c3 a9'],
  ['"中"', '中', String, '01 e4 b8 ad'],
  ['"😀"', '😀', String, '02 ed a0 bd ed b8 80'],
  ['byte[]{1,2,3}', Uint8Array.of(1, 2, 3), java.bytes, '23 01 02 03'],
  ['minute-aligned date', new Date(1704067200000), Date, '4b 01 b1 5d e0'],
  ['date', new Date(1704067200123), Date, '4a 00 00 01 8c c2 51 f4 7b'],
  ['ArrayList[1,"a"]', [1, 'a'], undefined, '7a 91 01 61'],
  ['empty ArrayList', [], undefined, '78'],
  ['ArrayList[0..8]', [0, 1, 2, 3, 4, 5, 6, 7, 8], [Number], '58 99 90 91 92 93 94 95 96 97 98'],
  ['LinkedList[1]', [1], java.list(java.Integer, 'java.util.LinkedList'), '71 14 "java.util.LinkedList" 91'],
  ['HashSet["x"]', new Set(['x']), setOf(String), '71 11 "java.util.HashSet" 01 78'],
  ['int[]{1,2}', [1, 2], java.array(java.int), '72 04 "[int" 91 92'],
  ['int[9]', [0, 1, 2, 3, 4, 5, 6, 7, 8], java.array(java.int), '56 04 "[int" 99 90 91 92 93 94 95 96 97 98'],
  ['long[]{1}', [1], java.array(java.long), '71 05 "[long" e1'],
  ['boolean[]{true}', [true], java.array(java.boolean), '71 08 "[boolean" 54'],
  ['double[]{1.5}', [1.5], java.array(java.double), '71 07 "[double" 5f 00 00 05 dc'],
  ["char[]{'h','i'}", ['h', 'i'], java.array(java.char), '02 68 69'],
  ['String[]{"a",null}', ['a', null], java.array(String), '72 07 "[string" 01 61 4e'],
  ['Object[]{1,"a"}', [1, 'a'], java.array(Object), '72 07 "[object" 91 01 61'],
  ['Integer[]{1}', [1], java.array(java.Integer), '71 12 "[java.lang.Integer" 91'],
  ['Boolean[]{true}', [true], java.array(java.Boolean), '71 12 "[java.lang.Boolean" 54'],
  ['String[][]{{"a"}}', [['a']], java.array(java.array(String)), '71 08 "[[string" 71 07 "[string" 01 61'],
  ['User[]', [new User('bob', 3)], java.array(User), '71 0d "[com.foo.User" 43 0c "com.foo.User" 92 03 "age" 04 "name" 60 93 03 "bob"'],
  ['HashMap{"a":1}', { a: 1 }, undefined, '48 01 61 91 5a'],
  ['HashMap{1:"x"}', new Map([[1, 'x']]), undefined, '48 91 01 78 5a'],
  ['LinkedHashMap{"a":1}', new Map([['a', 1]]), java.map(String, java.Integer, 'java.util.LinkedHashMap'), '4d 17 "java.util.LinkedHashMap" 01 61 91 5a'],
  ['TreeMap{"a":1}', new Map([['a', 1]]), java.map(String, java.Integer, 'java.util.TreeMap'), '4d 11 "java.util.TreeMap" 01 61 91 5a'],
  ['User("bob",3)', new User('bob', 3), User, '43 0c "com.foo.User" 92 03 "age" 04 "name" 60 93 03 "bob"'],
  ['two Users', [new User('a', 1), new User('b', 2)], [User], '7a 43 0c "com.foo.User" 92 03 "age" 04 "name" 60 91 01 61 60 92 01 62'],
  ['BigDecimal 12.50', '12.50', java.BigDecimal, '43 14 "java.math.BigDecimal" 91 05 "value" 60 05 "12.50"'],
  ['BigDecimal 1E+10', '1E+10', java.BigDecimal, '43 14 "java.math.BigDecimal" 91 05 "value" 60 05 "1E+10"'],
  ['enum Color.RED', 'RED', java.enum('com.foo.Color', ['RED', 'GREEN']), '43 0d "com.foo.Color" 91 04 "name" 60 03 "RED"'],
];

describe('hessian2 encoding matches hessian-lite byte for byte', () => {
  it.each(FIXTURES)('%s', (_name, value, type, expected) => {
    expect(encodeHex(value, type)).toBe(hex(bytesOf(expected)));
  });

  it('the same User twice is a back-reference (the list is ref #0)', () => {
    const bob = new User('s', 9);
    expect(encodeHex([bob, bob], [User])).toBe(hex(bytesOf('7a 43 0c "com.foo.User" 92 03 "age" 04 "name" 60 99 01 73 51 91')));
  });

  it('a list containing itself is 79 51 90', () => {
    const list: unknown[] = [];
    list.push(list);
    expect(encodeHex(list)).toBe('79 51 90');
  });

  it('a repeated enum constant is a reference, like Java’s singleton', () => {
    expect(encodeHex(['RED', 'RED'], [java.enum('com.foo.Color')])).toBe(hex(bytesOf('7a 43 0d "com.foo.Color" 91 04 "name" 60 03 "RED" 51 91')));
  });

  it('strings: 32 units, 1024 units and 40 000 units in two chunks', () => {
    expect(encodeHex('a'.repeat(32))).toBe(hex(bytesOf(`30 20 ${'61 '.repeat(32)}`)));
    expect(encodeHex('b'.repeat(1024)).slice(0, 8)).toBe('53 04 00');
    const long = encodeHex('c'.repeat(40000)).replace(/ /g, '');
    expect(long.slice(0, 6)).toBe('528000');
    expect(long.slice(6 + 32768 * 2, 6 + 32768 * 2 + 6)).toBe('531c40');
  });

  it('a chunk never ends on a high surrogate: it is shortened to 32 767 units', () => {
    const text = `${'a'.repeat(32767)}😀${'b'.repeat(10)}`;
    const bytes = hessian2.serialize(text);
    expect(hex(bytes.subarray(0, 3))).toBe('52 7f ff');
    expect(hessian2.deserialize(bytes)).toBe(text);
  });

  it('binaries: 16 and 1024 bytes', () => {
    expect(encodeHex(new Uint8Array(16)).slice(0, 5)).toBe('34 10');
    expect(encodeHex(new Uint8Array(1024)).slice(0, 8)).toBe('42 04 00');
  });

  it('never emits the variable-length list tags 55 or 57', () => {
    for (const value of [[1, 2], new Set([1]), [[1]], Array.from({ length: 100 }, (_, i) => i)]) {
      const first = hessian2.serialize(value)[0];
      expect([0x55, 0x57]).not.toContain(first);
    }
  });

  it('class definitions beyond 16 use the O form', () => {
    const types = Array.from({ length: 17 }, (_, i) => {
      const cls = class {
        static readonly javaClass = `com.foo.C${i}`;
        static readonly fields = { v: java.int };
        v = i;
      };
      return cls;
    });
    const out = hessian2.createOutput();
    for (const cls of types) out.writeObject(new cls(), cls);
    const bytes = hex(out.finish());
    expect(bytes.endsWith(`4f a0 a0`)).toBe(true);
    const input = hessian2.createInput(bytesOf(bytes));
    for (let i = 0; i < 17; i++) expect(input.readObject()).toEqual({ v: i });
  });

  it('a declared long stays a long inside Object positions, and java.value forces a kind', () => {
    expect(encodeHex({ n: java.value(java.long, 5) })).toBe(hex(bytesOf('48 01 "n" e5 5a')));
    expect(encodeHex(new Map([['n', 5]]), mapOf(String, java.Long))).toBe(hex(bytesOf('48 01 "n" e5 5a')));
    expect(encodeHex(5)).toBe('95');
    expect(encodeHex(2 ** 40)).toBe('4c 00 00 01 00 00 00 00 00');
    expect(encodeHex(0.5)).toBe('5f 00 00 01 f4');
  });

  it('float fields keep their float bits (hessian-lite FloatFieldSerializer)', () => {
    class Reading {
      static readonly javaClass = 'com.foo.R';
      static readonly fields = { f: java.float };
      f = 1.1;
    }
    expect(encodeHex(new Reading(), Reading)).toBe(hex(bytesOf('43 09 "com.foo.R" 91 01 "f" 60 44 3f f1 99 99 a0 00 00 00')));
  });

  it('an Error is a RuntimeException with its message and V8 frames as StackTraceElements, and a nested cause', () => {
    const out = hessian2.createOutput();
    const boom = new Error('boom');
    boom.stack = 'Error: boom\n    at Svc.call (file:///app/svc.js:42:7)\n    at main (/app/main.js:3:1)';
    out.writeThrowable(boom);
    expect(hex(out.finish())).toBe(
      hex(
        bytesOf(
          '43 1a "java.lang.RuntimeException" 92 0d "detailMessage" 0a "stackTrace" 60 04 "boom" 72 1c "[java.lang.StackTraceElement" ' +
            '43 1b "java.lang.StackTraceElement" 94 0e "declaringClass" 0a "methodName" 08 "fileName" 0a "lineNumber" ' +
            '61 03 "Svc" 04 "call" 06 "svc.js" ba 61 02 "js" 04 "main" 07 "main.js" 93',
        ),
      ),
    );
    const nested = hessian2.createOutput();
    nested.writeThrowable(new Error('outer', { cause: new Error('inner') }));
    const error = hessian2.createInput(nested.finish()).readThrowable();
    expect(error.message).toBe('outer');
    expect((error.cause as Error).message).toBe('inner');
  });

  it('refuses values that do not fit the declared Java kind, naming the kind', () => {
    expect(() => encodeHex(1.5, java.int)).toThrow(/expected a Java int, got 1.5/);
    expect(() => encodeHex(2 ** 64, java.long)).toThrow(/outside the range of a Java long/);
    expect(() => encodeHex('x', java.enum('com.foo.Color', ['RED']))).toThrow(/constant of com.foo.Color/);
  });
});

describe('hessian2 output buffer reuse', () => {
  it('gives each body its own bytes while one buffer is reused, nested outputs included, and large bodies are not kept', () => {
    const serialization = new Hessian2Serialization();
    const first = serialization.serialize('first body');
    const outer = serialization.createOutput();
    outer.writeString('outer');
    const inner = serialization.createOutput(); // while the spare buffer is lent to `outer`
    inner.writeString('inner');
    const innerBytes = inner.finish();
    outer.writeString('after');
    const outerBytes = outer.finish();
    const big = serialization.serialize('x'.repeat(100_000));
    const last = serialization.serialize('last');
    expect(serialization.createInput(first).readObject()).toBe('first body');
    expect(serialization.createInput(innerBytes).readObject()).toBe('inner');
    const input = serialization.createInput(outerBytes);
    expect([input.readObject(), input.readObject()]).toEqual(['outer', 'after']);
    expect(serialization.createInput(big).readObject()).toBe('x'.repeat(100_000));
    expect(serialization.createInput(last).readObject()).toBe('last');
    expect(Buffer.from(last)).toEqual(Buffer.from(new Hessian2Serialization().serialize('last')));
  });
});
