// Pure functions of mock expressions: mockMode, normalizeMock, parseMockAction, parseMockValue × return types,
// emptyValue and the lenient JSON of mock literals (dubbo-semantics.md §3.2–3.3, §9; wire-and-registry.md §B.5.4).
import { describe, expect, it } from 'vitest';

import { defineService, ExtensionError, ExtensionErrorCode, RpcError, RpcErrorCode, type MethodDescriptor } from '@weft/core';
import { emptyValue, MockLimits, mockMode, normalizeMock, parseLenientJson, parseMockAction, parseMockValue, type MockAction } from '@weft/mock';

class User {
  name: string | undefined;
  age: number | undefined;
}

class Fragile {
  constructor() {
    throw new Error('no argument-less construction');
  }
}

const Shapes = defineService('org.acme.Shapes', {
  text: { returns: String },
  count: { returns: Number },
  ok: { returns: Boolean },
  user: { returns: User },
  users: { returns: [User] },
  names: { returns: [String] },
  list: { returns: Array },
  tags: { returns: Set },
  meta: { returns: Map },
  info: { returns: Object },
  when: { returns: Date },
  nothing: {},
});

function method(name: string): MethodDescriptor {
  const descriptor = Shapes.getMethod(name);
  if (descriptor === undefined) throw new Error(`test setup: no method ${name}`);
  return descriptor;
}

describe('mockMode: how the mock cluster invoker treats a raw mock value', () => {
  it.each([
    [undefined, 'none'],
    ['', 'none'],
    ['   ', 'none'],
    ['false', 'none'],
    ['FALSE', 'none'],
    ['False', 'none'],
    [' false ', 'none'],
    ['0', 'none'],
    ['null', 'none'],
    ['NULL', 'none'],
    ['N/A', 'none'],
    ['n/a', 'none'],
  ] as const)('ConfigUtils-empty %j (case-insensitive, trimmed) → %s: no mock', (raw, mode) => {
    expect(mockMode(raw)).toBe(mode);
  });

  it.each([
    ['force', 'force'],
    ['force:return 1', 'force'],
    ['  force:return 1', 'force'],
    ['forcex', 'force'],
    ['force:', 'force'],
  ] as const)('%j starts with "force" → %s', (raw, mode) => {
    expect(mockMode(raw)).toBe(mode);
  });

  it.each([
    ['Force:return 1', 'fail'],
    ['FORCE', 'fail'],
    ['fail:return 1', 'fail'],
    ['fail:force:return 1', 'fail'],
    ['return 1', 'fail'],
    ['throw', 'fail'],
    ['true', 'fail'],
    ['default', 'fail'],
    ['myMock', 'fail'],
    ['00', 'fail'],
    ['none', 'fail'],
  ] as const)('anything else is fail mock, and the "force" prefix is case-sensitive: %j → %s', (raw, mode) => {
    expect(mockMode(raw)).toBe(mode);
  });
});

describe('normalizeMock (Dubbo rules 1–8)', () => {
  it.each([
    ['', ''],
    ['   ', ''],
  ])('rule 2: blank %j → ""', (input, out) => {
    expect(normalizeMock(input)).toBe(out);
  });

  it.each(['return', 'RETURN', 'Return', '  return  '])('rule 3: %j alone (any case) → "return null"', (input) => {
    expect(normalizeMock(input)).toBe('return null');
  });

  it.each(['true', 'TRUE', 'default', 'Default', 'fail', 'FAIL', 'force', 'Force', ' force '])(
    'rule 4: %j (isDefault, fail or force, any case) → "default"',
    (input) => {
      expect(normalizeMock(input)).toBe('default');
    },
  );

  it.each([
    ['fail:return 1', 'return 1'],
    ['force:return 1', 'return 1'],
    ['fail:   return 1', 'return 1'],
    ['force:  throw', 'throw'],
    ['  return 1  ', 'return 1'],
    ['fail:myMock', 'myMock'],
  ])('rules 5–6: strips a leading fail: / force: and trims: %j → %j', (input, out) => {
    expect(normalizeMock(input)).toBe(out);
  });

  it('rules 5–6 apply in that order: "fail:force:x" → "x", but "force:fail:x" keeps "fail:x"', () => {
    expect(normalizeMock('fail:force:x')).toBe('x');
    expect(normalizeMock('force:fail:x')).toBe('fail:x');
  });

  it.each(['Fail:return 1', 'FAIL:return 1', 'Force:return 1', 'FORCE:return 1'])(
    'case asymmetry: the prefixes are case-sensitive, so %j is left as is',
    (input) => {
      expect(normalizeMock(input)).toBe(input);
    },
  );

  it.each([
    ['return `a b`', 'return "a b"'],
    ['force:return `scj mock hhh`', 'return "scj mock hhh"'],
    ['return {name: `ann`, tags: [`a`]}', 'return {name: "ann", tags: ["a"]}'],
    ['throw `X`', 'throw "X"'],
    ['throw`X`', 'throw"X"'],
  ])('rule 7: backticks become double quotes for return/throw: %j → %j', (input, out) => {
    expect(normalizeMock(input)).toBe(out);
  });

  it.each(['my`mock', 'return`x`', 'RETURN `x`', 'Throw `x`'])('rule 7 only for "return " and "throw" (case-sensitive): %j keeps its backticks', (input) => {
    expect(normalizeMock(input)).toBe(input);
  });

  it.each([
    ['fail:true', 'true'],
    ['force:default', 'default'],
    ['force:fail', 'fail'],
    ['force:return', 'return'],
    ['fail:RETURN', 'RETURN'],
  ])('rule 8: the stripped result is not re-checked against rules 3–4: %j → %j', (input, out) => {
    expect(normalizeMock(input)).toBe(out);
  });
});

describe('parseMockAction: form-decode, normalise, classify', () => {
  const ret = (text: string): MockAction => ({ kind: 'return', text });
  const thr = (errorName: string | undefined): MockAction => ({ kind: 'throw', errorName });
  const impl = (name: string): MockAction => ({ kind: 'implementation', name });

  it.each([
    ['return 1', ret('1')],
    ['return    spaced out   ', ret('spaced out')],
    ['return', ret('null')],
    ['RETURN', ret('null')],
    ['fail:return "x"', ret('"x"')],
    ['fail:force:return 2', ret('2')],
    ['return empty', ret('empty')],
    ['return {a: `b`}', ret('{a: "b"}')],
  ])('return form %j → %j', (raw, action) => {
    expect(parseMockAction(raw)).toEqual(action);
  });

  it.each(['force:return', 'fail:return', 'fail:force:return'])(
    'differs from Dubbo: a bare "return" left after a prefix (%j) means return null, not an implementation named "return"',
    (raw) => {
      expect(parseMockAction(raw)).toEqual(ret('null'));
    },
  );

  it.each([
    ['throw', thr(undefined)],
    ['fail:throw', thr(undefined)],
    ['force:throw   ', thr(undefined)],
    ['throw Unavailable', thr('Unavailable')],
    ['throw    Unavailable  ', thr('Unavailable')],
    ['force:throw org.acme.Unavailable', thr('org.acme.Unavailable')],
    ['throwUnavailable', thr('Unavailable')],
    ['throw $Err_2', thr('$Err_2')],
  ])('throw form %j → %j ("throw" has no trailing space, as in Dubbo)', (raw, action) => {
    expect(parseMockAction(raw)).toEqual(action);
  });

  it.each([
    ['true', impl('default')],
    ['TRUE', impl('default')],
    ['default', impl('default')],
    ['fail', impl('default')],
    ['force', impl('default')],
    ['Force', impl('default')],
    ['myMock', impl('myMock')],
    ['force:cached-v2.1_x', impl('cached-v2.1_x')],
    ['fail:true', impl('default')],
    ['force:true', impl('default')],
    ['force:TRUE', impl('default')],
    ['force:default', impl('default')],
    ['fail:default', impl('default')],
    ['force:fail', impl('default')],
    ['fail:fail', impl('default')],
    ['force:force', impl('default')],
    ['fail:force:true', impl('default')],
    ['return1', impl('return1')],
  ])('implementation form %j → %j', (raw, action) => {
    expect(parseMockAction(raw)).toEqual(action);
  });

  it.each([
    ['return+null', ret('null')],
    ['force:return+%60scj+mock+hhh%60', ret('"scj mock hhh"')],
    ['return a%20b', ret('a b')],
    ['return %2B1', ret('+1')],
    ['return %2b1', ret('+1')],
    ['return %7Ba%3A1%7d', ret('{a:1}')],
    ['%72eturn 1', ret('1')],
    ['force%3Areturn 1', ret('1')],
    ['return %E2%82%AC', ret('€')],
    ['throw+Unavailable', thr('Unavailable')],
  ])('form-decodes first ("+" → space, %%XX in either case), like Dubbo: %j → %j', (raw, action) => {
    expect(parseMockAction(raw)).toEqual(action);
  });

  it.each(['return 100%', 'return %zz', 'return %E2%82', 'return %'])('a malformed percent-escape (%j) is a SyntaxError', (raw) => {
    expect(() => parseMockAction(raw)).toThrow(SyntaxError);
    expect(() => parseMockAction(raw)).toThrow(/^malformed percent-escape \(.*malformed percent-encoding/);
  });

  it.each(['', '   ', 'fail:', 'force:', 'fail:force:', '+'])('an empty expression (%j) is a SyntaxError', (raw) => {
    expect(() => parseMockAction(raw)).toThrow(new SyntaxError('empty mock expression'));
  });

  it.each(['throw `X`', 'throw "X"', 'throw a b', 'throw 1Err', 'throw X!'])('"throw" followed by something not class-like (%j) is a SyntaxError', (raw) => {
    expect(() => parseMockAction(raw)).toThrow(SyntaxError);
    expect(() => parseMockAction(raw)).toThrow(/": expected an error class name$/);
  });

  it.each([
    ['RETURN 1', 'RETURN 1'],
    ['Return "x"', 'Return "x"'],
    ['Fail:return 1', 'Fail:return 1'],
    ['FORCE:return 1', 'FORCE:return 1'],
    ['my mock', 'my mock'],
    ['mock!', 'mock!'],
    ['return`x`', 'return`x`'],
  ])('an expression that is none of the forms (%j) is a SyntaxError naming the normalised text', (raw, shown) => {
    expect(() => parseMockAction(raw)).toThrow(
      new SyntaxError(`"${shown}" is neither "return <value>", "throw [ErrorName]" nor the name of a registered mock implementation`),
    );
  });
});

type Expectation =
  | { readonly value: unknown }
  | { readonly check: (value: unknown) => void }
  | { readonly error: RegExp; readonly type?: typeof RpcError | typeof SyntaxError };

function isUser(fields: Partial<User>) {
  return (value: unknown) => {
    expect(value).toBeInstanceOf(User);
    expect(value).toMatchObject(fields);
  };
}

const conversion = (message: RegExp): Expectation => ({ error: message, type: RpcError });

const TABLE: readonly (readonly [string, string | undefined, Expectation])[] = [
  // ---- no declared type: Dubbo's behaviour without return types
  ['empty', undefined, { value: null }],
  ['null', undefined, { value: null }],
  ['true', undefined, { value: true }],
  ['false', undefined, { value: false }],
  ['"abc"', undefined, { value: 'abc' }],
  ["'abc'", undefined, { value: 'abc' }],
  ['""', undefined, { value: '' }],
  ['"a\\"b"', undefined, { value: 'a"b' }],
  ['"', undefined, { value: '"' }],
  ['"a\'', undefined, { value: '"a\'' }],
  ['123', undefined, { value: 123 }],
  ['0', undefined, { value: 0 }],
  ['9007199254740991', undefined, { value: 9007199254740991 }],
  ['9007199254740993', undefined, { value: 9007199254740993n }],
  ['-1', undefined, { value: '-1' }],
  ['1.5', undefined, { value: '1.5' }],
  ['1e3', undefined, { value: '1e3' }],
  ['{a: 1, "b": [true, null], c: \'x\'}', undefined, { value: { a: 1, b: [true, null], c: 'x' } }],
  ['[1, "two", {k: -3.5}]', undefined, { value: [1, 'two', { k: -3.5 }] }],
  ['hello world', undefined, { value: 'hello world' }],
  ['TRUE', undefined, { value: 'TRUE' }],
  ['Null', undefined, { value: 'Null' }],
  ['EMPTY', undefined, { value: 'EMPTY' }],
  // ---- String: the raw text after the keywords and quotes (why 1688 stays "1688")
  ['empty', 'text', { value: '' }],
  ['null', 'text', { value: null }],
  ['true', 'text', { value: 'true' }],
  ['"quoted"', 'text', { value: 'quoted' }],
  ["'single'", 'text', { value: 'single' }],
  ['1688', 'text', { value: '1688' }],
  ['12345678901234567890', 'text', { value: '12345678901234567890' }],
  ['-1', 'text', { value: '-1' }],
  ['{a:1}', 'text', { value: '{a:1}' }],
  ['{oops', 'text', { value: '{oops' }],
  ['[1]', 'text', { value: '[1]' }],
  ['hello world', 'text', { value: 'hello world' }],
  // ---- Number
  ['empty', 'count', { value: 0 }],
  ['null', 'count', { value: null }],
  ['42', 'count', { value: 42 }],
  ['-1', 'count', { value: -1 }],
  ['1.5', 'count', { value: 1.5 }],
  ['"7"', 'count', { value: 7 }],
  ['12345678901234567890', 'count', conversion(/^Mock value 12345678901234567890 does not fit a JavaScript number\.$/)],
  ['abc', 'count', conversion(/^mock value of count: expected Number, got "abc"\.$/)],
  ['true', 'count', conversion(/^mock value of count: expected Number, got true\.$/)],
  ['{a:1}', 'count', conversion(/^mock value of count: expected Number, got \{"a":1\}/)],
  ['[1]', 'count', conversion(/^mock value of count: expected Number, got \[1\]/)],
  // ---- Boolean
  ['empty', 'ok', { value: false }],
  ['true', 'ok', { value: true }],
  ['false', 'ok', { value: false }],
  ['"true"', 'ok', { value: true }],
  ['null', 'ok', { value: null }],
  ['1', 'ok', conversion(/^mock value of ok: expected Boolean, got 1\.$/)],
  ['yes', 'ok', conversion(/^mock value of ok: expected Boolean, got "yes"/)],
  // ---- a class
  ['empty', 'user', { check: isUser({}) }],
  ['null', 'user', { value: null }],
  ['{name: "ann", age: 3}', 'user', { check: isUser({ name: 'ann', age: 3 }) }],
  ["{'name': 'bo'}", 'user', { check: isUser({ name: 'bo' }) }],
  ['[]', 'user', conversion(/^mock value of user: expected User, got \[\]\.$/)],
  ['"ann"', 'user', conversion(/^mock value of user: expected User, got "ann"/)],
  ['42', 'user', conversion(/^mock value of user: expected User, got 42/)],
  // ---- [class]
  ['empty', 'users', { value: [] }],
  [
    '[{name: "a"}, {name: "b"}]',
    'users',
    {
      check: (value) => {
        expect(value).toHaveLength(2);
        isUser({ name: 'a' })((value as unknown[])[0]);
        isUser({ name: 'b' })((value as unknown[])[1]);
      },
    },
  ],
  ['{name: "a"}', 'users', conversion(/^mock value of users: expected User\[\], got \{"name":"a"\}/)],
  ['[1]', 'users', conversion(/^mock value of users \[0\]: expected User, got 1\.$/)],
  ['empty', 'names', { value: [] }],
  ['["a", 1]', 'names', { value: ['a', '1'] }],
  ['empty', 'list', { value: [] }],
  ['[1, "x"]', 'list', { value: [1, 'x'] }],
  // ---- Map
  ['empty', 'meta', { value: new Map() }],
  ['{a: 1, b: "x"}', 'meta', { value: new Map<string, unknown>([['a', 1], ['b', 'x']]) }],
  ['[["k", 1]]', 'meta', { value: new Map([['k', 1]]) }],
  ['"x"', 'meta', conversion(/^mock value of meta: expected Map, got "x"/)],
  ['5', 'meta', conversion(/^mock value of meta: expected Map, got 5/)],
  // ---- Set
  ['empty', 'tags', { value: new Set() }],
  ['["a", "b", "a"]', 'tags', { value: new Set(['a', 'b']) }],
  ['{a: 1}', 'tags', conversion(/^mock value of tags: expected Set, got \{"a":1\}/)],
  // ---- Object (differs from Dubbo: `empty` is {}, Dubbo gives [])
  ['empty', 'info', { value: {} }],
  ['{a: 1}', 'info', { value: { a: 1 } }],
  ['[1]', 'info', { value: [1] }],
  ['null', 'info', { value: null }],
  ['"x"', 'info', conversion(/^mock value of info: expected Object, got "x"/)],
  ['5', 'info', conversion(/^mock value of info: expected Object, got 5/)],
  // ---- Date
  ['"2024-01-02T03:04:05Z"', 'when', { value: new Date('2024-01-02T03:04:05Z') }],
  ['2024-01-02T03:04:05Z', 'when', { value: new Date('2024-01-02T03:04:05Z') }],
  ['1700000000000', 'when', { value: new Date(1700000000000) }],
  ['not a date', 'when', conversion(/^mock value of when: expected Date, got "not a date"/)],
  // ---- void: whatever the value, the caller gets undefined
  ['empty', 'nothing', { value: undefined }],
  ['null', 'nothing', { value: undefined }],
  ['1', 'nothing', { value: undefined }],
  ['"x"', 'nothing', { value: undefined }],
  ['{a: 1}', 'nothing', { value: undefined }],
  // ---- malformed JSON literals, whatever the type
  ['{oops', 'info', { error: /^Expected ":" at position 5 of "\{oops"$/, type: SyntaxError }],
  ['{oops', undefined, { error: /^Expected ":" at position 5/, type: SyntaxError }],
  ['[1,', 'list', { error: /^Unexpected end at position 3/, type: SyntaxError }],
  ['{a: 1', 'user', { error: /^Expected "," or "\}" at position 5/, type: SyntaxError }],
  ['{a: 1}', 'nothing', { value: undefined }],
  ['{oops', 'nothing', { error: /^Expected ":"/, type: SyntaxError }],
];

describe('parseMockValue × declared return type', () => {
  it.each(TABLE.map(([text, m, expectation]) => [text, m ?? '(no type)', expectation] as const))(
    'return %s for %s',
    (text, m, expectation) => {
      const descriptor = m === '(no type)' ? undefined : method(m);
      if ('error' in expectation) {
        let thrown: unknown;
        try {
          parseMockValue(text, descriptor);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(expectation.type ?? Error);
        expect((thrown as Error).message).toMatch(expectation.error);
        if (expectation.type === RpcError) expect((thrown as RpcError).code).toBe(RpcErrorCode.SERIALIZATION);
        return;
      }
      const value = parseMockValue(text, descriptor);
      if ('value' in expectation) expect(value).toStrictEqual(expectation.value);
      else expectation.check(value);
    },
  );

  it('return empty of Date is a Date of "now"', () => {
    const before = Date.now();
    const value = parseMockValue('empty', method('when'));
    expect(value).toBeInstanceOf(Date);
    expect((value as Date).getTime()).toBeGreaterThanOrEqual(before);
    expect((value as Date).getTime()).toBeLessThanOrEqual(Date.now());
  });

  it('builds fresh objects on every call', () => {
    for (const [text, m] of [
      ['{a: 1}', 'info'],
      ['[{name: "a"}]', 'users'],
      ['empty', 'meta'],
      ['empty', 'user'],
      ['["a"]', 'tags'],
    ] as const) {
      const first = parseMockValue(text, method(m));
      const second = parseMockValue(text, method(m));
      expect(second).not.toBe(first);
      expect(second).toStrictEqual(first);
    }
  });

  it('rejects __proto__ / constructor / prototype keys without polluting any prototype, even for a class type', () => {
    for (const text of ['{__proto__: {polluted: true}}', '{"constructor": {"prototype": {"polluted": true}}}', '{name: "x", prototype: 1}']) {
      expect(() => parseMockValue(text, method('user'))).toThrow(SyntaxError);
      expect(() => parseMockValue(text, method('info'))).toThrow(/is not allowed/);
      expect(() => parseMockValue(text, undefined)).toThrow(/is not allowed/);
    }
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(User.prototype).not.toHaveProperty('polluted');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('emptyValue (return empty)', () => {
  it.each([
    ['no declared type', undefined, null],
    ['void', null, undefined],
    ['String', String, ''],
    ['Number', Number, 0],
    ['Boolean', Boolean, false],
    ['Array', Array, []],
    ['[String]', [String] as const, []],
    ['[User]', [User] as const, []],
    ['Map', Map, new Map()],
    ['Set', Set, new Set()],
    ['Object (differs from Dubbo: {} instead of [])', Object, {}],
  ] as const)('%s → %j', (_label, type, expected) => {
    expect(emptyValue(type)).toStrictEqual(expected);
  });

  it('a class → a new instance from its argument-less constructor', () => {
    const value = emptyValue(User);
    expect(value).toBeInstanceOf(User);
    expect(value).not.toBe(emptyValue(User));
  });

  it('a class whose constructor throws → an instance created without it', () => {
    const value = emptyValue(Fragile);
    expect(value).toBeInstanceOf(Fragile);
    expect(Object.keys(value as object)).toEqual([]);
  });

  it('Date → now', () => {
    const before = Date.now();
    const value = emptyValue(Date);
    expect(value).toBeInstanceOf(Date);
    expect((value as Date).getTime()).toBeGreaterThanOrEqual(before);
  });
});

describe('parseLenientJson (mock JSON literals)', () => {
  it.each([
    ["{name: 'ann', tags: ['a']}", { name: 'ann', tags: ['a'] }],
    ['{"quoted": 1, \'single\': 2, bare: 3}', { quoted: 1, single: 2, bare: 3 }],
    ['{$a: 1, _b: 2, c3: 3}', { $a: 1, _b: 2, c3: 3 }],
    ['  { a : [ 1 , 2 ] }  ', { a: [1, 2] }],
    ['{}', {}],
    ['[]', []],
    ['[[], {}]', [[], {}]],
    ['-1.5e2', -150],
    ['0', 0],
    ['true', true],
    ['null', null],
    ['"a\\nb\\t\\u0041\\/\\\\\\"\\\'"', 'a\nb\tA/\\"\''],
    ["'it\\'s'", "it's"],
    ['{a: 1, a: 2}', { a: 2 }],
    ['{toString: 1, hasOwnProperty: 2}', { toString: 1, hasOwnProperty: 2 }],
  ] as const)('accepts %s', (text, expected) => {
    expect(parseLenientJson(text)).toStrictEqual(expected);
  });

  it.each([
    ['', /^Unexpected end at position 0 of ""$/],
    ['{a:1,}', /^Expected a key at position 5 of "\{a:1,\}"$/],
    ['[1,]', /^Unexpected "\]" at position 3 of/],
    ['{a 1}', /^Expected ":" at position 3 of/],
    ['{"a":1', /^Expected "," or "\}" at position 6 of/],
    ['[1 2]', /^Expected "," or "\]" at position 3 of/],
    ['{a: "x}', /^Unterminated string at position 7 of/],
    ['{a: "\\q"}', /^Bad escape at position 5 of/],
    ['"\\u12"', /^Bad escape at position 1 of/],
    ['{a: 01}', /^Expected "," or "\}" at position 5 of/],
    ['{a: 1} x', /^Unexpected trailing text at position 7 of/],
    ['{a: -}', /^Bad number at position 4 of/],
    ['{a: .5}', /^Unexpected "\." at position 4 of/],
    ['{a: nul}', /^Unexpected "n" at position 4 of/],
    ['{1a: 2}', /^Expected a key at position 1 of/],
    ['{a: undefined}', /^Unexpected "u" at position 4 of/],
    ['{a: NaN}', /^Unexpected "N"/],
    [`[${'1,'.repeat(40)}x]`, /^Unexpected "x" at position 81 of "\[(1,){28}\.\.\."$/],
  ])('rejects %j with a SyntaxError giving the position', (text, message) => {
    expect(() => parseLenientJson(text)).toThrow(SyntaxError);
    expect(() => parseLenientJson(text)).toThrow(message);
  });

  it.each([
    '{__proto__: {polluted: true}}',
    '{"__proto__": {"polluted": true}}',
    "{'constructor': {prototype: {polluted: true}}}",
    '{prototype: 1}',
    '{a: {b: {__proto__: {polluted: true}}}}',
    '[{"__proto__": {"polluted": true}}]',
  ])('rejects the key of %s without polluting Object.prototype', (text) => {
    expect(() => parseLenientJson(text)).toThrow(/^Key "(__proto__|constructor|prototype)" is not allowed at position \d+ of/);
    expect(Object.prototype).not.toHaveProperty('polluted');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('names the position of the forbidden key', () => {
    expect(() => parseLenientJson('{a: 1, __proto__: 2}')).toThrow('Key "__proto__" is not allowed at position 7 of');
  });
});

describe('no value means no mock (Dubbo: normalizeMock(null) is null)', () => {
  it('normalizeMock, parseMockAction and mockMode accept null and undefined', () => {
    expect(normalizeMock(null)).toBeNull();
    expect(normalizeMock(undefined)).toBeUndefined();
    expect(parseMockAction(null)).toBeUndefined();
    expect(parseMockAction(undefined)).toBeUndefined();
    expect(mockMode(null)).toBe('none');
    expect(mockMode(undefined)).toBe('none');
  });

  it('parseMockValue of null or undefined is null (as "return" alone), realised against the type', () => {
    expect(parseMockValue(null)).toBeNull();
    expect(parseMockValue(undefined)).toBeNull();
    expect(parseMockValue(undefined, method('user'))).toBeNull();
    expect(parseMockValue(null, method('nothing'))).toBeUndefined();
  });
});

describe(`hostile values: ExtensionError past ${MockLimits.maxLength} characters or ${MockLimits.maxDepth} levels, in bounded time`, () => {
  function extensionError(run: () => unknown): ExtensionError {
    let thrown: unknown;
    const started = performance.now();
    try {
      run();
    } catch (error) {
      thrown = error;
    }
    expect(performance.now() - started).toBeLessThan(1000);
    expect(thrown).toBeInstanceOf(ExtensionError);
    expect((thrown as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    return thrown as ExtensionError;
  }

  it('the documented limits', () => {
    expect(MockLimits).toEqual({ maxLength: 65536, maxDepth: 64 });
  });

  it.each([
    ['[', '['.repeat(100_000)],
    ['{a:', '{a:'.repeat(100_000)],
    ['[{a:', '[{a:'.repeat(100_000)],
  ])('parseLenientJson: 100k levels of %j → "nested deeper than 64 levels", not a stack overflow', (_, text) => {
    expect(extensionError(() => parseLenientJson(text)).message).toMatch(/^mock JSON value nested deeper than 64 levels \(at position \d+\)$/);
  });

  it('64 levels are fine, 65 are not', () => {
    expect(parseLenientJson(`${'['.repeat(64)}${']'.repeat(64)}`)).toBeInstanceOf(Array);
    expect(extensionError(() => parseLenientJson(`${'['.repeat(65)}${']'.repeat(65)}`)).message).toBe(
      'mock JSON value nested deeper than 64 levels (at position 64)',
    );
  });

  it('a 10 MB flat JSON array parses in linear time (no quadratic slicing)', () => {
    const text = `[${'1,'.repeat(5 * 1024 * 1024)}1]`;
    const started = performance.now();
    expect((parseLenientJson(text) as number[]).length).toBe(5 * 1024 * 1024 + 1);
    expect(performance.now() - started).toBeLessThan(5000);
  });

  it('parseMockValue: deep nesting within the size limit → the depth error; a String method keeps the raw text', () => {
    const deep = '['.repeat(1000);
    expect(extensionError(() => parseMockValue(deep)).message).toBe('mock JSON value nested deeper than 64 levels (at position 64)');
    expect(extensionError(() => parseMockValue(deep, method('names'))).message).toBe('mock JSON value nested deeper than 64 levels (at position 64)');
    expect(parseMockValue(deep, method('text'))).toBe(deep);
  });

  it.each([
    ['100k levels of [', '['.repeat(100_000)],
    ['a 10 MB string', `"${'x'.repeat(10 * 1024 * 1024)}"`],
  ])('parseMockValue and parseMockAction: %s → refused by size before parsing', (_, text) => {
    expect(extensionError(() => parseMockValue(text, method('text'))).message).toBe(
      `the mock return value is ${text.length} characters long; the limit is 65536`,
    );
    expect(extensionError(() => parseMockAction(`force:return ${text}`)).message).toBe(
      `the mock value is ${text.length + 13} characters long; the limit is 65536`,
    );
  });
});
