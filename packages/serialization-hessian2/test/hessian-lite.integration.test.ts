import { beforeAll, describe, expect, it } from 'vitest';
import { JavaThrowable } from '@weft/serialization-hessian2';
import { JAVA_CASES, WEFT_CASES, weftBytes } from './support/corpus.ts';
import { hessian2, hex } from './support/hex.ts';
import { buildHessianLite, runOracle, type OracleRun } from './support/java-oracle.ts';

const bodies = new Map([...WEFT_CASES].map(([name, c]) => [name, weftBytes(c)]));
let result: OracleRun;

// One JVM for the whole corpus: hessian-lite 4.0.3 (Dubbo 3.3's Hessian) built from ../shared/oracles.
beforeAll(() => {
  result = runOracle(buildHessianLite(), bodies);
}, 120_000);

describe('hessian-lite 4.0.3 reads what Weft writes', () => {
  it(`decodes all ${WEFT_CASES.size} cases as the Java values they declare`, () => {
    const wrong: string[] = [];
    for (const [name, c] of WEFT_CASES) {
      const got = result.decoded.get(name)?.dump;
      if (got !== c.dump) wrong.push(`${name}: expected ${c.dump.slice(0, 300)}\n   got ${got?.slice(0, 300)}`);
    }
    expect(wrong).toEqual([]);
  });

  it('writes what it read with exactly Weft’s bytes wherever it has one encoding', () => {
    const same = [...WEFT_CASES].filter(([, c]) => c.same);
    expect(same.length).toBeGreaterThanOrEqual(130);
    const wrong = same.filter(([name]) => result.decoded.get(name)?.again !== hex(bodies.get(name) as Uint8Array).replace(/ /g, ''));
    expect(wrong.map(([name]) => `${name}: java ${result.decoded.get(name)?.again.slice(0, 200)} weft ${hex(bodies.get(name) as Uint8Array).slice(0, 300)}`)).toEqual([]);
  });

  it('sends back what Weft reads as the same value (round trip Weft → Java → Weft)', () => {
    for (const [name, c] of WEFT_CASES) {
      if (c.throwable) continue;
      const again = Buffer.from(result.decoded.get(name)?.again ?? '', 'hex');
      const read = hessian2.createInput(again).readObject(c.type);
      if (name === 'double -0') expect(Object.is(read, 0)).toBe(true); // Java writes -0.0 as 5b: +0.0
      else if (name === 'Throwable in a field') expect((read as { error: Error }).error.message).toBe('in a map');
      else expect(read, name).toEqual(c.read ?? c.value);
    }
  });

  it('instantiates the exceptions Weft writes, with message, cause and declared fields (getCause() == null without one)', () => {
    const error = hessian2.createInput(Buffer.from(result.decoded.get('nested cause')?.again ?? '', 'hex')).readThrowable() as JavaThrowable;
    expect(error.name).toBe('java.lang.IllegalStateException');
    expect(error.message).toBe('outer');
    expect((error.cause as JavaThrowable).javaClass).toBe('java.lang.RuntimeException');
    const sent = hessian2.createInput(Buffer.from(result.decoded.get('Error')?.again ?? '', 'hex')).readThrowable() as JavaThrowable;
    expect(sent.javaStackTrace[0]).toMatchObject({ declaringClass: 'js', fileName: 'corpus.ts' });
    const biz = hessian2.createInput(Buffer.from(result.decoded.get('declared business exception')?.again ?? '', 'hex')).readThrowable();
    expect(biz).toMatchObject({ name: 'com.foo.BizException', message: 'no stock', code: 42 });
  });
});

describe('Weft reads what hessian-lite 4.0.3 writes', () => {
  it(`decodes all ${JAVA_CASES.size} Java-built values to the declared types`, () => {
    for (const [name, c] of JAVA_CASES) {
      const bytes = Buffer.from(result.encoded.get(name) ?? '', 'hex');
      expect(bytes.length, name).toBeGreaterThan(0);
      expect(hessian2.createInput(bytes).readObject(c.type), name).toEqual(c.value);
    }
  });

  it('writes the same values with exactly Java’s bytes wherever Java has one encoding', () => {
    const same = [...JAVA_CASES].filter(([, c]) => c.same);
    const wrong = same.filter(([name, c]) => {
      const out = hessian2.createOutput();
      out.writeObject(c.write ?? c.value, c.type);
      return hex(out.finish()).replace(/ /g, '') !== result.encoded.get(name);
    });
    expect(wrong.map(([name]) => name)).toEqual([]);
    expect(same.length).toBeGreaterThan(40);
  });

  it('keeps shared references and cycles', () => {
    const shared = hessian2.createInput(Buffer.from(result.encoded.get('users-shared') ?? '', 'hex')).readObject(JAVA_CASES.get('users-shared')?.type) as object[];
    expect(shared[0]).toBe(shared[1]);
    const node = hessian2.createInput(Buffer.from(result.encoded.get('node-cycle') ?? '', 'hex')).readObject() as { next: unknown };
    expect(node.next).toBe(node);
  });

  it('reads JDK 17 Throwables: class, message, trace, real causes only, subclass fields', () => {
    const read = (name: string) => hessian2.createInput(Buffer.from(result.encoded.get(name) ?? '', 'hex')).readThrowable() as JavaThrowable;
    const boom = read('exception');
    expect([boom.name, boom.message, boom.cause]).toEqual(['java.lang.RuntimeException', 'boom', undefined]);
    expect(boom.javaStackTrace[0]?.declaringClass).toBe('weft.oracle.Corpus');
    const nested = read('exception-nested');
    expect([nested.name, nested.message, (nested.cause as Error).name, (nested.cause as Error).message]).toEqual([
      'java.lang.IllegalStateException', 'outer', 'java.lang.RuntimeException', 'inner',
    ]);
    expect((nested.cause as Error).cause).toBeUndefined();
    expect(read('exception-biz')).toMatchObject({ name: 'com.foo.BizException', message: 'no stock', code: 42 });
  });
});
