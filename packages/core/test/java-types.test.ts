import { describe, expect, it } from 'vitest';
import { ExtensionError, Realizer, RpcError, defineService, java, javaClassNameOf, javaDescriptorOf, realize } from '@weft/core';

class User {
  static readonly javaClass = 'com.acme.User';
  static readonly fields = { id: java.long, tags: java.set(String), color: java.enum('com.acme.Color', ['RED', 'GREEN']) };
  id: number | bigint = 0;
  tags = new Set<string>();
  color = 'RED';
}

describe('Java type declarations', () => {
  it('realise to JavaScript numbers, bigints, strings, arrays, Sets and Maps', () => {
    expect(realize('12', java.int)).toBe(12);
    expect(realize('9007199254740993', java.long)).toBe(9007199254740993n);
    expect(realize(9007199254740993n - 2n, java.long)).toBe(9007199254740991);
    expect(realize(65, java.char)).toBe('A');
    expect(realize(1.5, java.BigDecimal)).toBe('1.5');
    expect(realize({ value: '12.50' }, java.BigDecimal)).toBe('12.50');
    expect(realize({ name: 'GREEN' }, java.enum('com.acme.Color'))).toBe('GREEN');
    expect(realize(['a', 'a'], java.set(String))).toEqual(new Set(['a']));
    expect(realize(new Set([1]), java.list(java.int))).toEqual([1]);
    expect(realize({ a: '1' }, java.map(String, java.double))).toEqual(new Map([['a', 1]]));
    expect(realize([1, 2], java.bytes)).toEqual(Uint8Array.of(1, 2));
  });

  it('realise a POJO field by field', () => {
    const user = realize({ id: '7', tags: ['x'], color: 'GREEN', extra: true }, User) as User & { extra: boolean };
    expect(user).toBeInstanceOf(User);
    expect(user.id).toBe(7);
    expect(user.tags).toEqual(new Set(['x']));
    expect(user.extra).toBe(true);
  });

  it('refuse values that do not fit, naming the Java type and the path', () => {
    expect(() => realize(1.5, java.long, 'find() argument 0')).toThrow(RpcError);
    expect(() => realize(1.5, java.long, 'find() argument 0')).toThrow('find() argument 0: expected long, got 1.5.');
    expect(() => realize({ color: 'BLUE' }, User, 'r')).toThrow('r .color: "BLUE" is not a constant of com.acme.Color (expected one of RED, GREEN).');
    expect(() => realize('1e30', java.long)).toThrow(/expected long/);
    expect(() => realize('99999999999999999999', java.long)).toThrow(/outside the range of a Java long/);
  });

  it('are accepted by defineService and compiled once by a Realizer', () => {
    const Users = defineService('com.acme.UserService', { find: { args: [java.long, java.array(java.int)], returns: User } });
    const realizer = new Realizer();
    const method = realizer.method(Users.getMethod('find')!);
    expect(method.args(['5', [1, '2']])).toEqual([5, [1, 2]]);
    expect(realizer.type(java.long)).toBe(realizer.type(java.long));
  });

  it('name Java classes and descriptors', () => {
    expect([java.int, java.Integer, java.long, java.array(java.int), java.array(String), java.array(java.array(String))].map((t) => t.className)).toEqual([
      'int', 'java.lang.Integer', 'long', '[I', '[Ljava.lang.String;', '[[Ljava.lang.String;',
    ]);
    expect(javaClassNameOf(User)).toBe('com.acme.User');
    expect(javaDescriptorOf('[Ljava.lang.String;')).toBe('[Ljava/lang/String;');
    expect(javaDescriptorOf('com.acme.Outer$Inner')).toBe('Lcom/acme/Outer$Inner;');
    expect(java.int.primitive && !java.Integer.primitive).toBe(true);
  });

  it('check class names and refuse java.array(java.byte)', () => {
    expect(() => java.enum('not a class')).toThrow(ExtensionError);
    expect(() => java.array(java.byte)).toThrow('java.array(java.byte): declare byte[] as java.bytes (a Hessian binary, a Uint8Array).');
  });
});
