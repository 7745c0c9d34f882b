// Realisation of declared types to any depth: `static fields`, `[T]`, `mapOf`, `setOf`, cycles in declarations,
// the depth bound, prototype safety, the messages naming the field path, and the compiled `Realizer`.
import { describe, expect, expectTypeOf, it } from 'vitest';

import {
  defineService,
  ExtensionError,
  ExtensionErrorCode,
  mapOf,
  MAX_REALIZE_DEPTH,
  Realizer,
  realize,
  RpcError,
  RpcErrorCode,
  setOf,
  describeType,
  type FieldTypes,
  type ServiceProxy,
  type TypeOf,
} from '@weft/core';

class Reply {
  text = '';
  at = new Date(0);
  static readonly fields = { at: Date } satisfies FieldTypes<Reply>;
}

class Greeting {
  text = '';
  at = new Date(0);
  tags: string[] = [];
  replies: Reply[] = [];
  byAuthor = new Map<string, Reply>();
  seen = new Set<Date>();
  static readonly fields = {
    at: Date,
    tags: [String],
    replies: [Reply],
    byAuthor: mapOf(String, Reply),
    seen: setOf(Date),
  } satisfies FieldTypes<Greeting>;
  shout(): string {
    return this.text.toUpperCase();
  }
}

/** A recursive declaration: a tree of nodes. */
class TreeNode {
  label = '';
  children: TreeNode[] = [];
  static readonly fields = { children: [TreeNode] };
}

/** Mutual recursion through a getter: `Author` names `Book`, declared after it. */
class Author {
  name = '';
  books: Book[] = [];
  static get fields() {
    return { books: [Book] };
  }
}
class Book {
  title = '';
  author: Author | undefined;
  static readonly fields = { author: Author };
}

class Order {
  items: { price: number }[] = [];
  static readonly fields = { items: [class Item { price = 0; static readonly fields = { price: Number }; }] };
}

/** The RpcError `realize` throws for `value`, failing when it does not throw one. */
function failure(value: unknown, type: Parameters<typeof realize>[1], where = ''): RpcError {
  try {
    realize(value, type, where);
  } catch (error) {
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.SERIALIZATION);
    return error as RpcError;
  }
  throw new Error(`expected realize(${JSON.stringify(value)}) to fail`);
}

describe('realize: nested declared types', () => {
  const wire = {
    text: 'hi',
    at: '2024-01-01T00:00:00.000Z',
    tags: ['a', 1],
    replies: [{ text: 'yo', at: 1000 }],
    byAuthor: [['ann', { text: 'hey', at: '2024-01-02T00:00:00.000Z' }]],
    seen: ['2024-01-03T00:00:00.000Z'],
    extra: { kept: true },
  };

  it('realises a Date field, arrays, maps and sets of declared classes, and keeps undeclared fields', () => {
    const greeting = realize(wire, Greeting, 'greet() result') as Greeting;
    expect(greeting).toBeInstanceOf(Greeting);
    expect(greeting.shout()).toBe('HI');
    expect(greeting.at).toEqual(new Date('2024-01-01T00:00:00.000Z'));
    expect(greeting.tags).toEqual(['a', '1']);
    expect(greeting.replies[0]).toBeInstanceOf(Reply);
    expect(greeting.replies[0]?.at).toEqual(new Date(1000));
    expect(greeting.byAuthor).toBeInstanceOf(Map);
    expect(greeting.byAuthor.get('ann')).toBeInstanceOf(Reply);
    expect(greeting.byAuthor.get('ann')?.at).toEqual(new Date('2024-01-02T00:00:00.000Z'));
    expect(greeting.seen).toBeInstanceOf(Set);
    expect([...greeting.seen]).toEqual([new Date('2024-01-03T00:00:00.000Z')]);
    expect((greeting as unknown as { extra: unknown }).extra).toEqual({ kept: true });
  });

  it('realises a map from an object (string keys) as well as from pairs, and nested arrays of arrays', () => {
    const greeting = realize({ byAuthor: { bob: { at: 0 } } }, Greeting) as Greeting;
    expect(greeting.byAuthor.get('bob')).toBeInstanceOf(Reply);
    expect(greeting.byAuthor.get('bob')?.at).toEqual(new Date(0));
    const grid = realize([[{ at: 0 }], [{ at: 1 }]], [[Reply]]) as Reply[][];
    expect(grid[1]?.[0]).toBeInstanceOf(Reply);
    expect(grid[1]?.[0]?.at).toEqual(new Date(1));
    const keyed = realize([['1', 'x']], mapOf(Number, String)) as Map<number, string>;
    expect([...keyed.keys()]).toEqual([1]);
  });

  it('leaves null and undefined fields as they are, and passes instances through', () => {
    const greeting = realize({ at: null, replies: [null] }, Greeting) as Greeting;
    expect(greeting.at).toBeNull();
    expect(greeting.replies).toEqual([null]);
    const reply = new Reply();
    expect(realize(reply, Reply)).toBe(reply);
  });

  it('realises a class that names itself (a tree) and classes that name each other through a getter', () => {
    const tree = realize({ label: 'root', children: [{ label: 'a', children: [{ label: 'a1', children: [] }] }] }, TreeNode) as TreeNode;
    expect(tree.children[0]).toBeInstanceOf(TreeNode);
    expect(tree.children[0]?.children[0]).toBeInstanceOf(TreeNode);
    expect(tree.children[0]?.children[0]?.label).toBe('a1');
    const author = realize({ name: 'ann', books: [{ title: 't', author: { name: 'ann', books: [] } }] }, Author) as Author;
    expect(author.books[0]).toBeInstanceOf(Book);
    expect(author.books[0]?.author).toBeInstanceOf(Author);
  });

  it('an undeclared class still gets its own properties copied, without running the constructor', () => {
    class Plain {
      constructor() {
        throw new Error('never run');
      }
    }
    const plain = realize({ a: 1, at: '2024-01-01T00:00:00.000Z' }, Plain) as Record<string, unknown>;
    expect(plain).toBeInstanceOf(Plain);
    expect(plain['at']).toBe('2024-01-01T00:00:00.000Z');
  });

  it('never lets data reach a prototype, at any depth', () => {
    const hostile = JSON.parse('{"replies":[{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}},"prototype":1,"at":0}],"byAuthor":{"__proto__":{"at":0},"ok":{"at":0}}}') as unknown;
    const greeting = realize(hostile, Greeting) as Greeting;
    const reply = greeting.replies[0] as Reply & Record<string, unknown>;
    expect(Object.getPrototypeOf(reply)).toBe(Reply.prototype);
    expect(reply['polluted']).toBeUndefined();
    expect(Object.keys(reply)).toEqual(['at']);
    expect(reply.constructor).toBe(Reply);
    expect([...greeting.byAuthor.keys()]).toEqual(['ok']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});

describe('realize: errors name the field path', () => {
  it('names the field, the index and the map entry, with the expected type and the value got', () => {
    expect(failure({ at: 'yesterday' }, Greeting, 'greet() result').message).toBe('greet() result .at: expected Date, got "yesterday".');
    expect(failure({ replies: [{ at: 0 }, { at: 'soon' }] }, Greeting, 'greet() result').message).toBe(
      'greet() result .replies[1].at: expected Date, got "soon".',
    );
    expect(failure({ items: [{}, {}, {}, { price: 'cheap' }] }, Order, 'buy() argument 0').message).toBe(
      'buy() argument 0 .items[3].price: expected Number, got "cheap".',
    );
    expect(failure({ byAuthor: [['ann', { at: 'x' }]] }, Greeting, 'r').message).toBe('r .byAuthor[0][1].at: expected Date, got "x".');
    expect(failure({ byAuthor: [['ann']] }, Greeting, 'r').message).toBe('r .byAuthor[0]: expected a [key, value] pair, got ["ann"].');
    expect(failure({ byAuthor: { 'a b': { at: 'x' } } }, Greeting, 'r').message).toBe('r .byAuthor["a b"].at: expected Date, got "x".');
    expect(failure({ seen: ['never'] }, Greeting, 'r').message).toBe('r .seen[0]: expected Date, got "never".');
    expect(failure({ seen: 'never' }, Greeting, 'r').message).toBe('r .seen: expected Set<Date>, got "never".');
    expect(failure({ replies: {} }, Greeting, 'r').message).toBe('r .replies: expected Reply[], got {}.');
    expect(failure({ byAuthor: 3 }, Greeting, 'r').message).toBe('r .byAuthor: expected Map<String, Reply>, got 3.');
    expect(failure([['x', 'y']], mapOf(Number, String), 'r').message).toBe('r [0][0]: expected Number, got "x".');
  });

  it('names the top level alone, and the path alone without a place', () => {
    expect(failure('abc', Number, 'count() result').message).toBe('count() result: expected Number, got "abc".');
    expect(failure({ at: 'x' }, Reply).message).toBe('.at: expected Date, got "x".');
    expect(failure('abc', Number).message).toBe('value: expected Number, got "abc".');
  });

  it('shortens a long value in the message', () => {
    const message = failure('x'.repeat(200), Number, 'r').message;
    expect(message).toBe(`r: expected Number, got "${'x'.repeat(76)}....`);
  });
});

describe('realize: hostile depth', () => {
  /** JSON nesting `depth` tree levels (built as text: the value itself would be too deep to stringify). */
  const deepTree = (depth: number): unknown => JSON.parse(`${'{"children":['.repeat(depth)}{"children":[]}${']}'.repeat(depth)}`);

  it(`refuses data nested deeper than ${MAX_REALIZE_DEPTH} levels with a clear error, not a stack overflow`, () => {
    const message = failure(deepTree(100_000), TreeNode, 'grow() result').message;
    expect(message).toMatch(
      /^grow\(\) result (\.children\[0\]){3}…\(\d+ more\)…(\.children\[0\]){3}: nested deeper than 256 levels \(the limit for realised values\)\.$/,
    );
  });

  it('accepts a tree within the limit (one level for the node, one for its children array)', () => {
    let tree = realize(deepTree(MAX_REALIZE_DEPTH / 2 - 1), TreeNode) as TreeNode;
    let levels = 0;
    while (tree.children.length > 0) {
      tree = tree.children[0] as TreeNode;
      expect(tree).toBeInstanceOf(TreeNode);
      levels++;
    }
    expect(levels).toBe(MAX_REALIZE_DEPTH / 2 - 1);
    expect(() => realize(deepTree(MAX_REALIZE_DEPTH / 2), TreeNode)).toThrow(/nested deeper than 256 levels/);
  });

  it('copies undeclared deep data as it is (nothing recurses into it)', () => {
    const value = realize({ extra: deepTree(10_000) }, Reply) as Record<string, unknown>;
    expect(value['extra']).toBeTypeOf('object');
  });
});

describe('declarations', () => {
  it('a field that is not a descriptor fails with ERR_SPI_INVALID_PARAMETER naming the class and field', () => {
    class Bad {
      static readonly fields = { at: 'Date' };
    }
    let error: unknown;
    try {
      new Realizer().type(Bad as never);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    expect((error as Error).message).toBe(
      'Bad.fields.at: "Date" is not a type descriptor (use String, Number, Boolean, Date, Map, Set, Object, Array, a class, [T], mapOf(K, V), setOf(T) or null).',
    );
    class Nested {
      static readonly fields = { list: [[]] };
    }
    expect(() => new Realizer().type(Nested as never)).toThrow('Nested.fields.list[]: [] is not a type descriptor');
    class NotAnObject {
      static readonly fields = 'at';
    }
    expect(() => new Realizer().type(NotAnObject)).toThrow('NotAnObject.fields: must be an object of field types (e.g. { at: Date, tags: [String] }), not "at".');
  });

  it('a method argument or result that is not a descriptor fails defineService', () => {
    expect(() => defineService('org.acme.Bad', { greet: { args: ['String' as never] } })).toThrow(
      'defineService("org.acme.Bad"): greet() argument 0: "String" is not a type descriptor',
    );
    expect(() => defineService('org.acme.Bad', { greet: { returns: [String, Number] as never } })).toThrow(
      'defineService("org.acme.Bad"): greet() result: [null,null] is not a type descriptor',
    );
  });

  it('names the new descriptors in messages', () => {
    expect(describeType(mapOf(String, [Reply]))).toBe('Map<String, Reply[]>');
    expect(describeType(setOf(Date))).toBe('Set<Date>');
  });

  it('infers the TypeScript types of the new descriptors', () => {
    expectTypeOf<TypeOf<ReturnType<typeof mapOf<StringConstructor, typeof Reply>>>>().toEqualTypeOf<Map<string, Reply>>();
    expectTypeOf<TypeOf<ReturnType<typeof setOf<DateConstructor>>>>().toEqualTypeOf<Set<Date>>();
    const Feed = defineService('org.acme.Feed', {
      byAuthor: { args: [setOf(String)], returns: mapOf(String, [Greeting]) },
    });
    expectTypeOf<Parameters<ServiceProxy<typeof Feed.methods>['byAuthor']>>().toEqualTypeOf<[Set<string>]>();
    expectTypeOf<ReturnType<ServiceProxy<typeof Feed.methods>['byAuthor']>>().toEqualTypeOf<Promise<Map<string, Greeting[]>>>();
  });
});

describe('Realizer', () => {
  it('compiles a descriptor once: the same converter for the same descriptor', () => {
    const realizer = new Realizer();
    expect(realizer.type(Greeting)).toBe(realizer.type(Greeting));
    const toGreeting = realizer.type(Greeting);
    expect(toGreeting({ at: 0 }, 'r').at).toEqual(new Date(0));
    expect(() => toGreeting({ at: 'x' }, 'greet() result')).toThrow('greet() result .at: expected Date, got "x"');
  });

  it('realises a method’s arguments in place and its result, naming `name() argument i` and `name() result`', () => {
    const Feed = defineService('org.acme.Feed', { post: { args: [String, Greeting], returns: [Reply] } });
    const method = Feed.getMethod('post');
    if (method === undefined) throw new Error('no post()');
    const realizer = new Realizer();
    expect(realizer.method(method)).toBe(realizer.method(method));
    const args: unknown[] = [1, { at: 0 }];
    expect(realizer.method(method).args(args)).toBe(args);
    expect(args[0]).toBe('1');
    expect(args[1]).toBeInstanceOf(Greeting);
    expect((realizer.method(method).result([{ at: 5 }]) as Reply[])[0]?.at).toEqual(new Date(5));
    expect(() => realizer.method(method).args(['a', { replies: [{ at: 'no' }] }])).toThrow(
      'post() argument 1 .replies[0].at: expected Date, got "no"',
    );
    expect(() => realizer.method(method).result([{}, 7])).toThrow('post() result [1]: expected Reply, got 7');
  });

  it('keeps nothing of a declaration that failed to compile', () => {
    let broken = true;
    class Later {
      static get fields() {
        return { at: broken ? ('Date' as never) : Date };
      }
    }
    class Holder {
      static readonly fields = { later: Later };
    }
    const realizer = new Realizer();
    expect(() => realizer.type(Holder)).toThrow('Later.fields.at');
    broken = false;
    expect((realizer.type(Holder)({ later: { at: 0 } }) as { later: { at: unknown } }).later.at).toEqual(new Date(0));
  });
});
