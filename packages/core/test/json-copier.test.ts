// The `json` codec's fused copier (one walk that copies and realises) against the reference it replaces — the text
// trip `deserialize(serialize(value))` followed by the realiser — over many shapes and declared types: the same
// values (classes, Maps, Sets, Dates to any depth, `__proto__` keys dropped, BigInt as text, undefined → null), the
// same errors (message and code), and still a deep copy (nothing shared, mutation on either side never leaks).
import { isDeepStrictEqual } from 'node:util';

import { describe, expect, it } from 'vitest';

import { defineService, JsonSerialization, mapOf, Realizer, RpcError, RpcErrorCode, setOf, type FieldTypes, type MethodDescriptor, type TypeDescriptor } from '@weft/core';

class Plain {
  label = '';
  hello(): string {
    return `hi ${this.label}`;
  }
}

class Greeting {
  text = '';
  at = new Date(0);
  tags: string[] = [];
  static readonly fields = { at: Date, tags: [String] } satisfies FieldTypes<Greeting>;
}

class Tree {
  name = '';
  children: Tree[] = [];
  static get fields(): FieldTypes<Tree> {
    return { children: [Tree] };
  }
}

class Ledger {
  owner = new Plain();
  byDay = new Map<Date, Greeting[]>();
  seen = new Set<Date>();
  total = 0n as unknown;
  static readonly fields = { owner: Plain, byDay: mapOf(Date, [Greeting]), seen: setOf(Date), total: String } satisfies FieldTypes<Ledger>;
}

class WithToJson {
  constructor(readonly secret: string) {}
  toJSON(key: string): unknown {
    return { masked: this.secret.length, key };
  }
}

const TYPES: Record<string, TypeDescriptor | undefined> = {
  none: undefined,
  void: null,
  String,
  Number,
  Boolean,
  Date,
  Map,
  Set,
  Object,
  Array,
  strings: [String],
  dates: [Date],
  plain: Plain,
  greeting: Greeting,
  greetings: [Greeting],
  tree: Tree,
  ledger: Ledger,
  byName: mapOf(String, Greeting),
  byNumber: mapOf(Number, Date),
  dateSet: setOf(Date),
  voids: [null],
};

function nested(depth: number): unknown {
  let value: unknown = { leaf: true };
  for (let i = 0; i < depth; i++) value = { child: value };
  return value;
}

function deepTree(depth: number): unknown {
  let value: unknown = { name: 'leaf', children: [] };
  for (let i = 0; i < depth; i++) value = { name: `n${i}`, children: [value] };
  return value;
}

const circular: Record<string, unknown> = { a: 1 };
circular['self'] = circular;

const withGetter = Object.defineProperty({ x: 1 }, 'y', { enumerable: true, get: () => new Date(5) });
const throwing = Object.defineProperty({}, 'boom', {
  enumerable: true,
  get: () => {
    throw new Error('getter failed');
  },
});
const nullProto = Object.assign(Object.create(null) as object, { a: 1, b: [2] });

const VALUES: Record<string, unknown> = {
  undefined: undefined,
  null: null,
  string: 'hello',
  numericString: ' 42 ',
  emptyString: '',
  boolString: 'true',
  number: 42.5,
  negativeZero: -0,
  nan: Number.NaN,
  infinity: Number.POSITIVE_INFINITY,
  bigint: 12345678901234567890n,
  boolean: false,
  date: new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678)),
  invalidDate: new Date(Number.NaN),
  farDate: new Date(8.64e15),
  isoString: '2024-01-01T00:00:00Z',
  epoch: 86_400_000,
  func: () => 1,
  symbol: Symbol('s'),
  emptyArray: [],
  sparse: [1, , 3],
  mixedArray: [1, 'a', undefined, () => 0, Symbol('x'), null, -0, Number.NaN, 7n, new Date(0)],
  strings: ['a', 'b', 'c'],
  record: { a: 1, b: 'two', c: [1, 2, { d: true }], e: undefined, f: () => 0, 10: 'ten', 2: 'two' },
  protoKey: JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"prototype":3,"ok":1}') as unknown,
  nestedProto: JSON.parse('{"inner":{"__proto__":{"polluted":true},"v":1}}') as unknown,
  greeting: { text: 'hi', at: new Date(1000), tags: ['a', 'b'], extra: { deep: [1] } },
  greetingText: { text: 'hi', at: '2024-05-06T07:08:09.010Z', tags: [1, true] },
  greetingBadDate: { text: 'hi', at: 'yesterday' },
  greetingInstance: Object.assign(new Greeting(), { text: 'inst', tags: ['x'] }),
  greetings: [{ text: 'a', at: new Date(1) }, undefined, { text: 'b', at: 2 }],
  tree: deepTree(5),
  deepTree: deepTree(300),
  deepObject: nested(600),
  ledger: {
    owner: { label: 'ann', __proto__: null },
    byDay: new Map([[new Date(0), [{ text: 'x', at: new Date(3) }]]]),
    seen: new Set([new Date(4), new Date(5)]),
    total: 10n,
  },
  map: new Map<unknown, unknown>([
    ['a', { text: 'm', at: new Date(9) }],
    [1, new Set([1, 2])],
    [{ k: 1 }, undefined],
  ]),
  mapRecord: { ann: { text: 'r', at: 7 }, __proto__: { text: 'p' } },
  set: new Set([new Date(6), 'x', 3, undefined]),
  nestedCollections: new Map([['s', new Set([new Map([[1, [new Date(2)]]])])]]),
  withToJson: new WithToJson('abcd'),
  toJsonInArray: [new WithToJson('x')],
  toJsonField: { toJSON: 'not a function', a: 1 },
  buffer: Buffer.from([1, 2, 3]),
  typedArray: new Uint8Array([4, 5]),
  classInstance: Object.assign(new Plain(), { label: 'cls' }),
  withGetter,
  nullProto,
  boxedNumber: new Number(3),
  boxedString: new String('boxed'),
  circular,
  throwing,
  pairs: [
    ['k', { text: 'p', at: 0 }],
    ['j', { text: 'q', at: 1 }],
  ],
  badPairs: [['only one']],
};

const json = new JsonSerialization();

function methodOf(service: { getMethod(name: string): MethodDescriptor | undefined }, name: string): MethodDescriptor {
  const method = service.getMethod(name);
  if (method === undefined) throw new Error(`no method ${name}`);
  return method;
}
const realizer = new Realizer();

type Outcome = { ok: true; value: unknown } | { ok: false; name: string; code: unknown; message: string };

function outcome(run: () => unknown): Outcome {
  try {
    return { ok: true, value: run() };
  } catch (error) {
    const e = error as Error;
    return { ok: false, name: e.constructor.name, code: (e as RpcError).code, message: e.message };
  }
}

/** The copy as `JsonSerialization.copy` did it before the fused copier (kept here verbatim as the oracle). */
function oldCopy(value: unknown): unknown {
  if (value === undefined) return undefined;
  const replacer = (_key: string, v: unknown): unknown => {
    if (v instanceof Map) return [...v.entries()];
    if (v instanceof Set) return [...v];
    if (typeof v === 'bigint') return v.toString();
    return v;
  };
  let text: string;
  try {
    text = JSON.stringify(value, replacer);
  } catch (error) {
    throw new RpcError(RpcErrorCode.SERIALIZATION, `Cannot encode value as JSON: ${(error as Error).message}`, { cause: error });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new RpcError(RpcErrorCode.SERIALIZATION, `Malformed JSON payload: ${(error as Error).message}`, { cause: error });
  }
}

/** What the copy was before: the text trip, then the realiser. */
function reference(run: () => unknown): Outcome {
  return outcome(run);
}

/**
 * Node's deep strict equality: prototypes, own enumerable keys (an own `constructor` or `__proto__` key is data, not
 * the type, which vitest's `toStrictEqual` reads), Map/Set contents, Date times, `-0` ≠ `0`.
 */
function same(got: Outcome, want: Outcome, what: string): void {
  if (!isDeepStrictEqual(got, want)) expect(got, what).toStrictEqual(want);
  expect(isDeepStrictEqual(got, want), what).toBe(true);
}

/** Every object reachable from `value`, for the no-sharing check. */
function objectsOf(value: unknown, into = new Set<object>()): Set<object> {
  if (typeof value !== 'object' || value === null || into.has(value)) return into;
  into.add(value);
  if (value instanceof Map) for (const [k, v] of value) objectsOf(k, into), objectsOf(v, into);
  else if (value instanceof Set) for (const v of value) objectsOf(v, into);
  else for (const key of Object.keys(value)) objectsOf((value as Record<string, unknown>)[key], into);
  return into;
}

describe('json copier: the same results and errors as the text trip and the realiser', () => {
  const Service = defineService(
    'test.Copier',
    Object.fromEntries(Object.entries(TYPES).map(([name, type]) => [name, type === undefined ? { returns: Object } : { args: [type], returns: type }])),
  );

  for (const [typeName, type] of Object.entries(TYPES)) {
    it(`${typeName}: every shape`, () => {
      const method = methodOf(Service, typeName);
      const copier = json.copier(method);
      const realize = realizer.method(method);
      for (const [valueName, value] of Object.entries(VALUES)) {
        if (type === undefined) {
          // No declared type: the plain copy.
          const got = outcome(() => json.copy(value));
          const want = reference(() => oldCopy(value));
          same(got, want, `copy(${valueName})`);
          continue;
        }
        const gotResult = outcome(() => copier.result(value));
        const wantResult = reference(() => realize.result(oldCopy(value)));
        same(gotResult, wantResult, `${typeName} result ← ${valueName}`);
        const args = [value, valueName];
        const gotArgs = outcome(() => copier.args(args));
        const wantArgs = reference(() => realize.args(oldCopy(args) as unknown[]));
        same(gotArgs, wantArgs, `${typeName} args ← ${valueName}`);
      }
    });
  }

  it('keeps an own "__proto__" key as JSON.parse does (untyped), and drops it from realised classes', () => {
    const untyped = json.copy(VALUES['protoKey']) as Record<string, unknown>;
    expect(Object.getPrototypeOf(untyped)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(untyped, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    const plain = json.copier(methodOf(Service, 'plain')).result(VALUES['protoKey']) as Plain;
    expect(plain).toBeInstanceOf(Plain);
    expect(Object.keys(plain)).toEqual(['ok']);
    expect(plain.hello()).toBe('hi undefined');
  });

  it('sends BigInt as text, undefined as null in arrays, Map and Set as arrays for undeclared values', () => {
    expect(json.copy([7n, undefined, new Map([[1, 'a']]), new Set(['s']), -0])).toStrictEqual(['7', null, [[1, 'a']], ['s'], 0]);
    expect(json.copier(methodOf(Service, 'ledger')).result(VALUES['ledger'])).toMatchObject({ total: '10' });
  });

  it('reports what the trip reports: cycles, getters that throw, values that do not fit', () => {
    expect(() => json.copy(circular)).toThrow(/^Cannot encode value as JSON: Converting circular structure to JSON/);
    expect(() => json.copy(throwing)).toThrow('Cannot encode value as JSON: getter failed');
    expect(() => json.copier(methodOf(Service, 'greeting')).result(VALUES['greetingBadDate'])).toThrow(
      'greeting() result .at: expected Date, got "yesterday".',
    );
    expect(() => json.copier(methodOf(Service, 'greeting')).args([{ tags: 'x' }])).toThrow('greeting() argument 0 .tags: expected String[], got "x".');
    expect(() => json.copier(methodOf(Service, 'tree')).result(deepTree(300))).toThrow(/nested deeper than 256 levels/);
  });
});

describe('json copier: a deep copy', () => {
  const Service = defineService('test.Deep', { ledger: { args: [Ledger], returns: Ledger }, any: { args: [Object], returns: Object } });

  it('shares no object with the source, and mutation on either side never reaches the other', () => {
    const source = {
      owner: Object.assign(new Plain(), { label: 'ann' }),
      byDay: new Map([[new Date(0), [Object.assign(new Greeting(), { text: 'x', at: new Date(3), tags: ['t'] })]]]),
      seen: new Set([new Date(4)]),
      total: 1n,
    };
    const copier = json.copier(methodOf(Service, 'ledger'));
    const [copy] = copier.args([source]) as [Ledger];
    const shared = [...objectsOf(copy)].filter((o) => objectsOf(source).has(o));
    expect(shared).toEqual([]);
    expect(copy).toBeInstanceOf(Ledger);
    expect(copy.owner).toBeInstanceOf(Plain);
    const [[day, greetings]] = [...copy.byDay] as [[Date, Greeting[]]];
    expect(day).toBeInstanceOf(Date);
    expect(greetings[0]).toBeInstanceOf(Greeting);
    expect(greetings[0]?.at).toEqual(new Date(3));

    // Mutate the source: the copy keeps its values.
    source.owner.label = 'changed';
    (source.byDay.values().next().value as Greeting[])[0]!.at.setTime(99);
    (source.byDay.values().next().value as Greeting[])[0]!.tags.push('more');
    source.seen.add(new Date(8));
    expect(copy.owner.label).toBe('ann');
    expect(greetings[0]?.at.getTime()).toBe(3);
    expect(greetings[0]?.tags).toEqual(['t']);
    expect(copy.seen.size).toBe(1);

    // Mutate the copy: the source keeps its values.
    copy.owner.label = 'copy';
    greetings[0]!.tags.length = 0;
    copy.seen.clear();
    day.setTime(1234);
    expect(source.owner.label).toBe('changed');
    expect((source.byDay.values().next().value as Greeting[])[0]!.tags).toEqual(['t', 'more']);
    expect(source.seen.size).toBe(2);
    expect([...source.byDay.keys()][0]?.getTime()).toBe(0);
  });

  it('copies undeclared values deeply too (nested arrays, Maps as pairs, Dates as text)', () => {
    const source = { list: [[1, { a: [2] }]], when: new Date(0), map: new Map([['k', { v: 1 }]]) };
    const copy = json.copier(methodOf(Service, 'any')).result(source) as typeof source & { map: [string, { v: number }][] };
    expect(copy).toStrictEqual({ list: [[1, { a: [2] }]], when: '1970-01-01T00:00:00.000Z', map: [['k', { v: 1 }]] });
    ((source.list[0] as unknown[])[1] as { a: number[] }).a.push(3);
    expect(copy.list).toStrictEqual([[1, { a: [2] }]]);
    copy.map[0]![1].v = 5;
    expect(source.map.get('k')).toStrictEqual({ v: 1 });
  });
});

describe('json codec: serialize and deserialize give the bytes and values they gave with the replacer and TextDecoder', () => {
  const replacer = (_key: string, v: unknown): unknown => {
    if (v instanceof Map) return [...v.entries()];
    if (v instanceof Set) return [...v];
    if (typeof v === 'bigint') return v.toString();
    return v;
  };
  const oldSerialize = (value: unknown): Uint8Array => {
    try {
      return new TextEncoder().encode(JSON.stringify(value === undefined ? null : value, replacer));
    } catch (error) {
      throw new RpcError(RpcErrorCode.SERIALIZATION, `Cannot encode value as JSON: ${(error as Error).message}`, { cause: error });
    }
  };
  const oldDeserialize = (bytes: Uint8Array): unknown => {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch (error) {
      throw new RpcError(RpcErrorCode.SERIALIZATION, 'JSON payload is not valid UTF-8.', { cause: error });
    }
    try {
      return JSON.parse(text) as unknown;
    } catch (error) {
      throw new RpcError(RpcErrorCode.SERIALIZATION, `Malformed JSON payload: ${(error as Error).message}`, { cause: error });
    }
  };
  const extra: Record<string, unknown> = {
    unicode: { text: 'héllo wörld — ✓ 🎉', lone: 'a\ud800b', control: '\u0000\u001f"\\' },
    mapInside: { when: new Date(0), m: new Map([['k', 1n]]) },
    setDeep: [[[new Set([1])]]],
    dateToJsonOverridden: Object.assign(new Date(0), { toJSON: () => new Map([[1, 2]]) }),
  };

  it('serialize: byte-identical output (or the same error) for every shape', () => {
    for (const [name, value] of Object.entries({ ...VALUES, ...extra })) {
      const got = outcome(() => Buffer.from(json.serialize(value)).toString('hex'));
      const want = outcome(() => Buffer.from(oldSerialize(value)).toString('hex'));
      same(got, want, `serialize(${name})`);
    }
  });

  it('deserialize: the same values (or the same error) for ASCII, UTF-8, a BOM, invalid UTF-8 and bad JSON', () => {
    const inputs: Record<string, Uint8Array> = {
      ascii: Buffer.from('{"a":[1,2,"x"]}'),
      utf8: Buffer.from('{"t":"héllo ✓ 🎉"}'),
      bom: Buffer.from('\ufeff{"a":1}'),
      invalid: Uint8Array.from([0x7b, 0xff, 0x7d]),
      truncated: Uint8Array.from([0x22, 0xe2, 0x9c]),
      badJson: Buffer.from('{"a":'),
      empty: new Uint8Array(0),
      view: new Uint8Array(Buffer.from('xx[1,{"b":true}]yy').buffer, 2, 15),
    };
    for (const [name, bytes] of Object.entries(inputs)) same(outcome(() => json.deserialize(bytes)), outcome(() => oldDeserialize(bytes)), `deserialize(${name})`);
  });
});
