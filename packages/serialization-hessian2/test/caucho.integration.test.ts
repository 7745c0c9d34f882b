import { beforeAll, describe, expect, it } from 'vitest';
import { java } from '@weft/core';
import { JAVA_CASES, WEFT_CASES, weftBytes } from './support/corpus.ts';
import { hessian2, hex } from './support/hex.ts';
import { buildCaucho, runOracle, type OracleRun } from './support/java-oracle.ts';

// Debian's libhessian-java (Caucho Hessian 4.0.38): a second, independent reader of the same corpus. Where it differs
// from hessian-lite (spec §2.7), the difference is asserted here, not skipped.

/** The POJO classes whose definitions Caucho writes in declaration order (hessian-lite reverses it). */
const FIELD_ORDER_CASES = ['User', 'User[]', 'two Users (class definition reuse)', 'shared User', 'Node cycle', 'Order (every field kind)'];
/** Throwables: Caucho lists `detailMessage, cause, stackTrace, suppressedExceptions` (then subclass fields first). */
const THROWABLE_CASES = [...WEFT_CASES].filter(([, c]) => c.throwable).map(([name]) => name).concat('Throwable in a field');

const bodies = new Map([...WEFT_CASES].map(([name, c]) => [name, weftBytes(c)]));
const plain = (bytes: Uint8Array) => hex(bytes).replace(/ /g, '');
let caucho: OracleRun;

// One JVM for the whole corpus.
beforeAll(() => {
  caucho = runOracle(buildCaucho(), bodies);
}, 120_000);

describe('Caucho Hessian 4.0.38 reads what Weft writes', () => {
  it(`decodes all ${WEFT_CASES.size} cases to the same Java values as hessian-lite`, () => {
    const wrong = [...WEFT_CASES].filter(([name, c]) => caucho.decoded.get(name)?.dump !== c.dump);
    expect(wrong.map(([name]) => `${name}: ${caucho.decoded.get(name)?.dump.slice(0, 200)}`)).toEqual([]);
  });

  it('writes them back with Weft’s bytes, except the class-definition field order of §2.7', () => {
    const differing = [...WEFT_CASES].filter(([name, c]) => c.same && caucho.decoded.get(name)?.again !== plain(bodies.get(name) as Uint8Array));
    expect(differing.map(([name]) => name).sort()).toEqual([...FIELD_ORDER_CASES].sort());
  });

  it('field order: Caucho’s POJO bytes are Weft’s with the fields declared in Java declaration order', () => {
    class User {
      static readonly javaClass = 'com.foo.User';
      static readonly fields = { name: String, age: java.int };
    }
    class Node {
      static readonly javaClass = 'com.foo.Node';
      static get fields() {
        return { name: String, next: Node };
      }
    }
    const cycle: { name: string; next: unknown } = { name: 'a', next: null };
    cycle.next = cycle;
    const write = (value: unknown, type: typeof User | typeof Node | [typeof User]) => {
      const out = hessian2.createOutput();
      out.writeObject(value, type);
      return plain(out.finish());
    };
    expect(caucho.decoded.get('User')?.again).toBe(write({ name: 'bob', age: 3 }, User));
    expect(caucho.decoded.get('two Users (class definition reuse)')?.again).toBe(write([{ name: 'a', age: 1 }, { name: 'b', age: 2 }], [User]));
    expect(caucho.decoded.get('Node cycle')?.again).toBe(write(cycle, Node));
    expect(caucho.decoded.get('User')?.again).toBe(plain(Buffer.from('430c636f6d2e666f6f2e5573657292046e616d65036167656003626f6293', 'hex')));
  });

  it('Throwable field order: detailMessage first, and Weft reads either order the same', () => {
    for (const name of THROWABLE_CASES) {
      const again = caucho.decoded.get(name)?.again ?? '';
      expect(again, name).toMatch(/(0d64657461696c4d657373616765|04636f64650d64657461696c4d657373616765)0563617573650a737461636b5472616365147375707072657373656445786365/);
    }
    const error = hessian2.createInput(Buffer.from(caucho.decoded.get('nested cause')?.again ?? '', 'hex')).readThrowable();
    expect([error.name, error.message, (error.cause as Error).message]).toEqual(['java.lang.IllegalStateException', 'outer', 'inner']);
  });
});

describe('Weft reads what Caucho Hessian 4.0.38 writes', () => {
  it('differs from hessian-lite’s (and so Weft’s) bytes only in field order and the boxed Float handle', () => {
    const differing = [...JAVA_CASES]
      .filter(([name, c]) => {
        if (!c.same) return false;
        const out = hessian2.createOutput();
        out.writeObject(c.write ?? c.value, c.type);
        return caucho.encoded.get(name) !== plain(out.finish());
      })
      .map(([name]) => name);
    expect(differing.sort()).toEqual(['array-user', 'float-1.1', 'node-cycle', 'order', 'user', 'users-shared', 'users-two']);
  });

  it('decodes the same values as from hessian-lite, whatever the field order', () => {
    for (const [name, c] of JAVA_CASES) {
      if (name === 'float-1.1') continue;
      const bytes = Buffer.from(caucho.encoded.get(name) ?? '', 'hex');
      expect(hessian2.createInput(bytes).readObject(c.type), name).toEqual(c.value);
    }
  });

  it('a boxed Float is a com.caucho.hessian.io.FloatHandle with the float’s exact bits, not hessian-lite’s shortest decimal', () => {
    expect(caucho.encoded.get('float-1.1')).toBe(plain(Buffer.from('433021636f6d2e63617563686f2e6865737369616e2e696f2e466c6f617448616e646c6591065f76616c756560443ff19999a0000000', 'hex')));
    expect(hessian2.createInput(Buffer.from(caucho.encoded.get('float-1.1') ?? '', 'hex')).readObject()).toEqual({ _value: Math.fround(1.1) });
  });

  it('reads Caucho’s Throwables like hessian-lite’s', () => {
    const biz = hessian2.createInput(Buffer.from(caucho.encoded.get('exception-biz') ?? '', 'hex')).readThrowable();
    expect(biz).toMatchObject({ name: 'com.foo.BizException', message: 'no stock', code: 42 });
    const boom = hessian2.createInput(Buffer.from(caucho.encoded.get('exception') ?? '', 'hex')).readThrowable();
    expect([boom.name, boom.message, boom.cause]).toEqual(['java.lang.RuntimeException', 'boom', undefined]);
  });
});
