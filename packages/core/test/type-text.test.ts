// The compact type text registrations carry as `weft.returns`: what typeText writes for every kind of descriptor,
// that typeFromText reads it back into a descriptor realising the same values, and the bounds (length, depth).
import { describe, expect, it } from 'vitest';
import {
  MAX_RETURN_TYPES_TEXT,
  RETURN_TYPES_KEY,
  RpcError,
  URL,
  defineService,
  java,
  mapOf,
  parseReturnTypes,
  realize,
  returnTypesText,
  setOf,
  typeFromText,
  typeText,
  type TypeDescriptor,
} from '@weft/core';

class User {
  static readonly javaClass = 'org.acme.User';
  name = '';
}
class Plain {
  name = '';
}
class Refused extends Error {}

describe('typeText', () => {
  it.each([
    [null, 'void'],
    [String, 'String'],
    [Number, 'Number'],
    [Boolean, 'Boolean'],
    [Date, 'Date'],
    [Object, 'Object'],
    [[String], 'Array(String)'],
    [[[Number]], 'Array(Array(Number))'],
    [mapOf(String, User), 'Map(String,org.acme.User)'],
    [setOf(Date), 'Set(Date)'],
    [Plain, 'Plain'],
    [java.int, 'java.int'],
    [java.Long, 'java.Long'],
    [java.double, 'java.double'],
    [java.Character, 'java.Character'],
    [java.BigDecimal, 'java.BigDecimal'],
    [java.bytes, 'java.bytes'],
    [java.array(java.long), 'Array(java.long)'],
    [java.list(String, 'java.util.LinkedList'), 'java.list(String)'],
    [java.set(java.Integer), 'java.set(java.Integer)'],
    [java.map(String, java.double), 'java.map(String,java.double)'],
    [java.enum('com.acme.Color', ['RED']), 'java.enum(com.acme.Color)'],
  ] as [TypeDescriptor, string][])('%o is written %s and read back', (type, text) => {
    expect(typeText(type)).toBe(text);
    const back = typeFromText(text);
    expect(back).not.toBeUndefined();
    expect(typeText(back as TypeDescriptor)).toBe(text);
  });

  it('leaves out what it cannot name: error classes, anonymous classes, classes named like a standard type', () => {
    expect(typeText(Refused)).toBeUndefined();
    expect(typeText((() => class {})())).toBeUndefined();
    class Date2 {}
    Object.defineProperty(Date2, 'name', { value: 'Date' });
    expect(typeText(Date2)).toBeUndefined();
    expect(typeText([Refused])).toBeUndefined();
  });

  it('stops at 16 levels of nesting, both ways', () => {
    let deep: TypeDescriptor = String;
    for (let i = 0; i < 20; i++) deep = setOf(deep);
    expect(typeText(deep)).toBeUndefined();
    expect(typeFromText(`${'Set('.repeat(20)}String${')'.repeat(20)}`)).toBeUndefined();
    expect(typeFromText(`${'Set('.repeat(5)}String${')'.repeat(5)}`)).not.toBeUndefined();
  });
});

describe('typeFromText', () => {
  it('rebuilds descriptors that realise values as the declared ones do', () => {
    expect(realize('42', typeFromText('Number') as TypeDescriptor)).toBe(42);
    expect(() => realize('abc', typeFromText('Number') as TypeDescriptor)).toThrow(RpcError);
    expect(realize(['1', 2], typeFromText('Array(java.long)') as TypeDescriptor)).toEqual([1, 2]);
    expect(realize({ a: '1' }, typeFromText('Map(String,Number)') as TypeDescriptor)).toEqual(new Map([['a', 1]]));
    expect(realize('2024-01-01T00:00:00Z', typeFromText('Date') as TypeDescriptor)).toEqual(new Date('2024-01-01T00:00:00Z'));
  });

  it('reads a class name as "an object of that class": an object literal or null, nothing else', () => {
    const type = typeFromText('org.acme.User') as TypeDescriptor;
    expect(realize({ name: 'ann' }, type)).toEqual({ name: 'ann' });
    expect(realize(null, type)).toBeNull();
    expect(() => realize('abc', type, 'find()')).toThrow('find(): expected org.acme.User, got "abc".');
    expect(() => realize([1], type)).toThrow(RpcError);
  });

  it('refuses text outside the grammar', () => {
    for (const text of ['', 'Map(String)', 'Set(', 'String)', 'java.nothing', 'a b', 'Number,x', 'Map(String,Number', 'String[]', 'x'.repeat(MAX_RETURN_TYPES_TEXT + 1)]) {
      expect(typeFromText(text)).toBeUndefined();
    }
  });
});

describe('returnTypesText and parseReturnTypes', () => {
  it('write <method>:<type> sorted by method, leaving out streaming and unnameable methods; read them back', () => {
    const Users = defineService('org.acme.Users', {
      sayHello: { args: [String], returns: String },
      count: { returns: Number },
      find: { args: [java.long], returns: User },
      touch: {},
      watch: { returns: String, stream: 'server' },
      fail: { returns: Refused },
    });
    const text = returnTypesText(Users);
    expect(text).toBe('count:Number,find:org.acme.User,sayHello:String,touch:void');
    // percent-safe: nothing to encode, and both string forms (the registries' node names) carry it unchanged
    const url = URL.parse('tri://127.0.0.1:1/org.acme.Users').addParameter(RETURN_TYPES_KEY, text as string);
    expect(url.toString()).toContain(`${RETURN_TYPES_KEY}=${text}`);
    expect(URL.parse(url.toString()).getParameter(RETURN_TYPES_KEY)).toBe(text);
    expect(URL.parse(URL.decode(URL.encode(url.toDecodedString()))).getParameter(RETURN_TYPES_KEY)).toBe(text);
    expect([...parseReturnTypes(text)]).toEqual([
      ['count', 'Number'],
      ['find', 'org.acme.User'],
      ['sayHello', 'String'],
      ['touch', 'void'],
    ]);
    expect([...parseReturnTypes('a:Number,,:String,b c:String,d,e:String,e:Number,m:Map(String,Number)')]).toEqual([
      ['a', 'Number'],
      ['e', 'String'],
      ['m', 'Map(String,Number)'],
    ]);
  });

  it(`is left out entirely past ${MAX_RETURN_TYPES_TEXT} characters (and not read past it)`, () => {
    const methods: Record<string, { returns: TypeDescriptor }> = {};
    for (let i = 0; i < 400; i++) methods[`method${i}`] = { returns: mapOf(String, [Number]) };
    const Big = defineService('org.acme.Big', methods);
    expect(returnTypesText(Big)).toBeUndefined();
    const small: Record<string, { returns: TypeDescriptor }> = {};
    for (let i = 0; i < 100; i++) small[`method${i}`] = { returns: mapOf(String, [Number]) };
    const text = returnTypesText(defineService('org.acme.Small', small)) as string;
    expect(text.length).toBeLessThanOrEqual(MAX_RETURN_TYPES_TEXT);
    expect(parseReturnTypes(text).size).toBe(100);
    expect(parseReturnTypes(`${text},${'x:String,'.repeat(500)}`).size).toBe(0);
  });
});
