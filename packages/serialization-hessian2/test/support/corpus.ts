import { java, mapOf, setOf, type TypeDescriptor } from '@weft/core';
import { hessian2 } from './hex.ts';
import { javaHash } from './java-oracle.ts';

// The JS mirrors of test/java/com/foo: fields in the order hessian-lite writes them (spec §2.7).
export class User {
  static readonly javaClass = 'com.foo.User';
  static readonly fields = { age: java.int, name: String };
  name = '';
  age = 0;
}

export class Node {
  static readonly javaClass = 'com.foo.Node';
  static get fields() {
    return { next: Node, name: String };
  }
  name = '';
  next: Node | null = null;
}

export class Order {
  static readonly javaClass = 'com.foo.Order';
  static readonly fields = {
    codes: java.array(java.int),
    counts: java.map(String, java.Long),
    tags: java.set(String),
    items: java.list(User),
    at: Date,
    color: java.enum('com.foo.Color', ['RED', 'GREEN', 'BLUE']),
    price: java.BigDecimal,
    ref: java.Long,
    note: String,
    paid: java.boolean,
    weight: java.double,
    quantity: java.short,
    id: java.long,
  };
}

export class BizError extends Error {
  static readonly javaClass = 'com.foo.BizException';
  static readonly fields = { code: java.int };
  constructor(
    message: string,
    readonly code: number,
  ) {
    super(message);
  }
}

/** An instance of `cls` with `props` (constructor not run), as the codec realises one. */
export function make<T>(cls: abstract new (...args: never[]) => T, props: Record<string, unknown>): T {
  return Object.assign(Object.create(cls.prototype as object) as T & object, props);
}

export function user(name: string, age: number): User {
  return make(User, { age, name });
}

/** `Arrays.hashCode(byte[])`. */
export function bytesHash(bytes: Uint8Array): number {
  let h = 1;
  for (const b of bytes) h = (Math.imul(h, 31) + ((b << 24) >> 24)) | 0;
  return h;
}

/** The dump of a string as test/java/weft/oracle/Dump.java prints it. */
export function strDump(text: string): string {
  if (text.length > 40) return `str#${text.length}:${javaHash(text)}`;
  let out = 'str:';
  for (const ch of text) {
    for (let i = 0; i < ch.length; i++) {
      const c = ch.charCodeAt(i);
      out += c >= 0x20 && c < 0x7f && !'\\,=[]{}'.includes(ch[i] as string) ? ch[i] : `\\u${c.toString(16).padStart(4, '0')}`;
    }
  }
  return out;
}

/** One value Weft writes for Java to read. */
export interface WeftCase {
  readonly value: unknown;
  readonly type?: TypeDescriptor;
  /** Write it with `writeThrowable`. */
  readonly throwable?: boolean;
  /** What hessian-lite reads (Dump.java's text). */
  readonly dump: string;
  /** hessian-lite writes what it read with exactly Weft's bytes. */
  readonly same: boolean;
  /** What Weft reads back from Java's re-encoding, when it is not `value` itself. */
  readonly read?: unknown;
}

const w = (value: unknown, type: TypeDescriptor | undefined, dump: string, same = true, read?: unknown): WeftCase =>
  read === undefined ? { value, type, dump, same } : { value, type, dump, same, read };

function strings(): [string, WeftCase][] {
  const out: [string, WeftCase][] = [];
  for (const n of [0, 1, 31, 32, 1023, 1024, 32767, 32768, 32769, 65536]) out.push([`string-${n}`, w('a'.repeat(n), String, strDump('a'.repeat(n)))]);
  const straddle = `${'b'.repeat(32767)}😀${'c'.repeat(40000)}`;
  const mixed = 'x😀é中'.repeat(17500);
  for (const [name, text] of [
    ['string-surrogate-at-32768', straddle],
    ['string-70000-mixed', mixed],
    ['string-emoji', '😀'],
    ['string-nul', 'a\u0000b'],
    ['string-lone-surrogate', '\ud800x'],
    ['string-utf8', 'é中'],
  ] as const) {
    out.push([name, w(text, String, strDump(text))]);
  }
  return out;
}

function binaries(): [string, WeftCase][] {
  return [0, 15, 16, 1023, 1024, 8192, 20000, 70000].map((n) => {
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 7) & 0xff);
    // Java splits a binary longer than its buffer's room by its own 8 KiB buffer; smaller ones have one encoding.
    return [`binary-${n}`, w(bytes, java.bytes, `bin#${n}:${bytesHash(bytes)}`, n <= 1024)];
  });
}

function numbers(): [string, WeftCase][] {
  const ints = [0, 1, -1, -16, 47, 48, -17, 2047, -2048, 2048, -2049, 262143, -262144, 262144, -262145, 2147483647, -2147483648];
  const longs: (number | bigint)[] = [0, -8, 15, 16, -9, 2047, -2048, 2048, -2049, 262143, -262144, 262144, -262145, 2147483647, -2147483648, 2147483648, -2147483649];
  longs.push(Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER, 9007199254740993n, -9007199254740993n, 9223372036854775807n, -9223372036854775808n);
  const doubles: [number, string][] = [
    [0, '0.0'], [-0, '0.0'], [1, '1.0'], [-1, '-1.0'], [127, '127.0'], [-128, '-128.0'], [128, '128.0'], [32767, '32767.0'],
    [-32768, '-32768.0'], [32768, '32768.0'], [1.5, '1.5'], [0.001, '0.001'], [-0.5, '-0.5'], [12.25, '12.25'],
    [2147483.647, '2147483.647'], [2147483.648, '2147483.648'], [3.14159, '3.14159'], [Number.NaN, 'NaN'],
    [Number.POSITIVE_INFINITY, 'Infinity'], [Number.NEGATIVE_INFINITY, '-Infinity'], [1e300, '1.0E300'],
    [Number.MIN_VALUE, '4.9E-324'], [2 ** 31, '2.147483648E9'], [-2147483648.5, '-2.1474836485E9'],
  ];
  return [
    ...ints.map((n): [string, WeftCase] => [`int ${n}`, w(n, java.int, `int:${n}`)]),
    ...longs.map((n): [string, WeftCase] => [`long ${n}`, w(n, java.long, `long:${n}`)]),
    ...doubles.map(([n, text]): [string, WeftCase] => [`double ${Object.is(n, -0) ? '-0' : n}`, w(n, java.double, `double:${text}`)]),
    ['Float 1.1', w(1.1, java.Float, 'double:1.1')],
    ['Float 0.1', w(0.1, java.Float, 'double:0.1')],
    ['Short 7', w(7, java.Short, 'int:7')],
    ['Byte -3', w(-3, java.Byte, 'int:-3')],
    ['char x', w('x', java.char, 'str:x')],
    ['untyped 5', w(5, undefined, 'int:5')],
    ['untyped 2^40', w(2 ** 40, undefined, 'long:1099511627776')],
    ['untyped 0.25', w(0.25, undefined, 'double:0.25')],
    ['null', w(null, undefined, 'null')],
    ['true', w(true, undefined, 'bool:true')],
    ['false', w(false, java.boolean, 'bool:false')],
  ];
}

function containers(): [string, WeftCase][] {
  const shared = user('s', 9);
  const inner = [1];
  const self: unknown[] = [];
  self.push(self);
  const cycle = make(Node, { name: 'a', next: null });
  cycle.next = cycle;
  const userDump = (name: string, age: number) => `com.foo.User{age=int:${age},name=str:${name}}`;
  const order = make(Order, {
    codes: [4, 5], counts: new Map([['k', 7]]), tags: new Set(['t']), items: [user('bob', 3)], at: new Date(1704067200000), color: 'GREEN',
    price: '9.99', ref: 8, note: 'rush', paid: true, weight: 1.5, quantity: 3, id: 2 ** 40,
  });
  return [
    ['date minute', w(new Date(1704067200000), Date, 'date:1704067200000')],
    ['date ms', w(new Date(1704067200123), Date, 'date:1704067200123')],
    ['date 1900', w(new Date(-2208988800000), Date, 'date:-2208988800000')],
    ['date before 1970 ms', w(new Date(-1), Date, 'date:-1')],
    ['date 9999', w(new Date(253402300799999), Date, 'date:253402300799999')],
    ['list untyped', w([1, 'a'], undefined, 'java.util.ArrayList[int:1,str:a]')],
    ['list empty', w([], undefined, 'java.util.ArrayList[]')],
    ['list 9', w([0, 1, 2, 3, 4, 5, 6, 7, 8], [java.int], `java.util.ArrayList[${[0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => `int:${n}`).join(',')}]`)],
    ['list nested', w([[1], []], undefined, 'java.util.ArrayList[java.util.ArrayList[int:1],java.util.ArrayList[]]')],
    ['list of longs', w([1, 2], java.list(java.long), 'java.util.ArrayList[long:1,long:2]')],
    ['LinkedList', w([1], java.list(java.Integer, 'java.util.LinkedList'), 'java.util.LinkedList[int:1]')],
    ['HashSet', w(new Set(['x']), setOf(String), 'java.util.HashSet[str:x]')],
    ['TreeSet', w(new Set(['b', 'a']), java.set(String, 'java.util.TreeSet'), 'java.util.TreeSet[str:a,str:b]', false)],
    ['int[]', w([1, 2], java.array(java.int), '[I[int:1,int:2]')],
    ['int[9]', w([0, 1, 2, 3, 4, 5, 6, 7, 8], java.array(java.int), `[I[${[0, 1, 2, 3, 4, 5, 6, 7, 8].map((n) => `int:${n}`).join(',')}]`)],
    ['long[]', w([1, 2 ** 40], java.array(java.long), '[J[long:1,long:1099511627776]')],
    ['short[]', w([1], java.array(java.short), '[S[short:1]')],
    ['double[]', w([1.5], java.array(java.double), '[D[double:1.5]')],
    ['float[]', w([1.5], java.array(java.float), '[F[float:1.5]')],
    ['boolean[]', w([true], java.array(java.boolean), '[Z[bool:true]')],
    ['char[]', w(['h', 'i'], java.array(java.char), 'str:hi', true, 'hi')],
    ['String[]', w(['a', null], java.array(String), '[Ljava.lang.String;[str:a,null]')],
    ['Object[]', w([1, 'a'], java.array(Object), '[Ljava.lang.Object;[int:1,str:a]')],
    ['Integer[]', w([1], java.array(java.Integer), '[Ljava.lang.Integer;[int:1]')],
    ['String[][]', w([['a']], java.array(java.array(String)), '[[Ljava.lang.String;[[Ljava.lang.String;[str:a]]')],
    ['User[]', w([user('bob', 3)], java.array(User), `[Lcom.foo.User;[${userDump('bob', 3)}]`)],
    ['HashMap', w({ a: 1 }, undefined, 'java.util.HashMap{str:a=int:1}')],
    ['HashMap int keys', w(new Map([[1, 'x']]), undefined, 'java.util.HashMap{int:1=str:x}')],
    ['HashMap null value', w({ a: null }, undefined, 'java.util.HashMap{str:a=null}')],
    ['Map<String,Long>', w(new Map([['n', 5]]), mapOf(String, java.Long), 'java.util.HashMap{str:n=long:5}')],
    ['java.value long', w({ n: java.value(java.long, 5) }, undefined, 'java.util.HashMap{str:n=long:5}', true, { n: 5 })],
    ['LinkedHashMap', w(new Map([['a', 1]]), java.map(String, java.Integer, 'java.util.LinkedHashMap'), 'java.util.LinkedHashMap{str:a=int:1}')],
    ['TreeMap', w(new Map([['a', 1]]), java.map(String, java.Integer, 'java.util.TreeMap'), 'java.util.TreeMap{str:a=int:1}')],
    ['User', w(user('bob', 3), User, userDump('bob', 3))],
    ['two Users (class definition reuse)', w([user('a', 1), user('b', 2)], [User], `java.util.ArrayList[${userDump('a', 1)},${userDump('b', 2)}]`)],
    ['shared User', w([shared, shared], [User], `java.util.ArrayList[${userDump('s', 9)},@1]`)],
    ['list containing itself', w(self, undefined, 'java.util.ArrayList[@0]')],
    ['Node cycle', w(cycle, Node, 'com.foo.Node{name=str:a,next=@0}')],
    ['enum', w('RED', java.enum('com.foo.Color'), 'enum:com.foo.Color.RED')],
    ['enum twice', w(['RED', 'RED', 'BLUE'], [java.enum('com.foo.Color')], 'java.util.ArrayList[enum:com.foo.Color.RED,enum:com.foo.Color.RED,enum:com.foo.Color.BLUE]')],
    [
      'references counted after BigDecimal, enum and array values',
      w(
        [java.value(java.BigDecimal, '1'), java.value(java.enum('com.foo.Color'), 'RED'), java.value(java.array(java.int), [7]), inner, inner],
        undefined,
        'java.util.ArrayList[decimal:1,enum:com.foo.Color.RED,[I[int:7],java.util.ArrayList[int:1],@2]',
        true,
        ['1', { name: 'RED' }, [7], [1], [1]],
      ),
    ],
    ['BigDecimal', w('12.50', java.BigDecimal, 'decimal:12.50')],
    ['BigDecimal exponent', w('1E+10', java.BigDecimal, 'decimal:1E+10')],
    [
      'Order (every field kind)',
      w(
        order,
        Order,
        'com.foo.Order{at=date:1704067200000,codes=[I[int:4,int:5],color=enum:com.foo.Color.GREEN,counts=java.util.HashMap{str:k=long:7},' +
          `id=long:1099511627776,items=java.util.ArrayList[${userDump('bob', 3)}],note=str:rush,paid=bool:true,price=decimal:9.99,` +
          'quantity=short:3,ref=long:8,tags=java.util.HashSet[str:t],weight=double:1.5}',
      ),
    ],
  ];
}

function throwables(): [string, WeftCase][] {
  const named = (name: string, message: string, cause?: Error) => {
    const error = new Error(message, cause === undefined ? undefined : { cause });
    error.name = name;
    return error;
  };
  const t = (value: Error, dump: string): WeftCase => ({ value, throwable: true, dump, same: false });
  return [
    ['Error', t(new Error('boom'), 'throwable:java.lang.RuntimeException(boom)')],
    ['TypeError (not a Java name)', t(new TypeError('bad'), 'throwable:java.lang.RuntimeException(bad)')],
    ...['java.lang.IllegalArgumentException', 'java.lang.IllegalStateException', 'java.lang.NullPointerException'].map(
      (name): [string, WeftCase] => [name, t(named(name, 'x'), `throwable:${name}(x)`)],
    ),
    [
      'nested cause',
      t(named('java.lang.IllegalStateException', 'outer', new Error('inner')), 'throwable:java.lang.IllegalStateException(outer) cause=throwable:java.lang.RuntimeException(inner)'),
    ],
    ['declared business exception', t(new BizError('no stock', 42), 'throwable:com.foo.BizException(no stock) code=int:42')],
    ['Throwable in a field', w({ error: new Error('in a map') }, undefined, 'java.util.HashMap{str:error=throwable:java.lang.RuntimeException(in a map)}', false)],
  ];
}

/** Everything Weft writes for the Java readers, by name. */
export const WEFT_CASES: ReadonlyMap<string, WeftCase> = new Map([...numbers(), ...strings(), ...binaries(), ...containers(), ...throwables()]);

/** One value Java builds (test/java/weft/oracle/Corpus.java) and Weft reads. */
export interface JavaCase {
  /** What Weft reads, realised to `type` when given. */
  readonly value: unknown;
  readonly type?: TypeDescriptor;
  /** Weft writes `write ?? value` as `type` with exactly Java's bytes. */
  readonly same: boolean;
  readonly write?: unknown;
}

const j = (value: unknown, type: TypeDescriptor | undefined, same = true, write?: unknown): JavaCase => ({ value, type, same, write });

const mixed = (() => {
  let text = '';
  while (text.length < 70000) text += 'x😀é中';
  return text;
})();
const sharedUser = user('s', 9);
const javaCycle = make(Node, { name: 'a', next: null });
javaCycle.next = javaCycle;

/** The Java-built corpus, by Corpus.java's names (exceptions are checked by the tests themselves). */
export const JAVA_CASES: ReadonlyMap<string, JavaCase> = new Map([
  ['int-min', j(-2147483648, java.int)],
  ['int-max', j(2147483647, java.int)],
  ['int-2048', j(2048, java.int)],
  ['long-min', j(-9223372036854775808n, java.long)],
  ['long-max', j(9223372036854775807n, java.long)],
  ['long-2^53+1', j(9007199254740993n, java.long)],
  ['long-16', j(16, java.long)],
  ['long-int32', j(2147483647, java.long)],
  ['double-0.001', j(0.001, java.double)],
  ['double-2147483.648', j(2147483.648, java.double)],
  ['double-neg-zero', j(0, java.double)],
  ['double-nan', j(Number.NaN, java.double)],
  ['double-inf', j(Number.NEGATIVE_INFINITY, java.double)],
  ['double-1e300', j(1e300, java.double)],
  ['double-min', j(Number.MIN_VALUE, java.double)],
  ['double-32767', j(32767, java.double)],
  ['float-1.1', j(1.1, java.Float)],
  ['string-empty', j('', String)],
  ['string-emoji', j('a😀b', String)],
  ['string-70000', j(mixed, String)],
  ['binary-20000', j(new Uint8Array(20000), java.bytes, false)],
  ['date-minute', j(new Date(1704067200000), Date)],
  ['date-ms', j(new Date(1704067200123), Date)],
  ['date-1900', j(new Date(-2208988800000), Date)],
  ['date-9999', j(new Date(253402300799999), Date)],
  ['timestamp', j(new Date(1704067200123), Date, false)],
  ['list-mixed', j([1, 'a', null, 2], undefined, true, [1, 'a', null, java.value(java.long, 2)])],
  ['list-linked', j([1, 2], java.list(java.Integer, 'java.util.LinkedList'))],
  ['list-empty-jdk', j([], undefined, false)],
  ['set-hash', j(new Set(['x']), setOf(String))],
  ['array-int', j([1, 2, 300000], java.array(java.int))],
  ['array-long', j([1, 2 ** 40], java.array(java.long))],
  ['array-string-2d', j([['a'], ['b', null]], java.array(java.array(String)))],
  ['array-user', j([user('bob', 3)], java.array(User))],
  ['map-hash', j({ a: 1 }, undefined)],
  ['map-int-keys', j(new Map([[1, 'x']]), undefined)],
  ['map-linked', j(new Map([['z', 1], ['a', null]]), java.map(String, java.Long, 'java.util.LinkedHashMap'))],
  ['map-tree', j(new Map([['a', 1]]), java.map(String, java.Integer, 'java.util.TreeMap'))],
  ['user', j(user('bob', 3), User)],
  ['users-two', j([user('a', 1), user('b', 2)], [User])],
  ['users-shared', j([sharedUser, sharedUser], [User])],
  ['node-cycle', j(javaCycle, Node)],
  ['enum-twice', j(['RED', 'RED', 'BLUE'], [java.enum('com.foo.Color')])],
  ['decimal', j('12.50', java.BigDecimal)],
  ['decimal-exp', j('1E+10', java.BigDecimal)],
  [
    'order',
    j(
      make(Order, {
        codes: [4, 5], counts: new Map([['k', 7]]), tags: new Set(['t']), items: [user('bob', 3)], at: new Date(1704067200000), color: 'GREEN',
        price: '9.99', ref: 8, note: 'rush', paid: true, weight: 1.5, quantity: 3, id: 2 ** 40,
      }),
      Order,
    ),
  ],
]);

/** Weft's bytes for one case. */
export function weftBytes(c: WeftCase): Uint8Array {
  const out = hessian2.createOutput();
  if (c.throwable) out.writeThrowable(c.value as Error);
  else out.writeObject(c.value, c.type);
  return out.finish();
}
