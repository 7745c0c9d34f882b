import { describe, expect, it } from 'vitest';
import { ObjectSerialization, Serialization, WeftApplication, java, mapOf, setOf } from '@weft/core';
import { Hessian2Serialization } from '@weft/serialization-hessian2';
import { createTestApp } from '@weft/test-utils';

class User {
  static readonly javaClass = 'com.foo.User';
  static readonly fields = { age: java.int, name: String };
}

describe('the hessian2 extension', () => {
  it('is discovered from the manifest as weft.rpc.Serialization "hessian2", an ObjectSerialization with id 2', async () => {
    const testApp = createTestApp(['@weft/core', '@weft/serialization-hessian2'], { prefix: 'weft-hessian2-test' });
    const app = await WeftApplication.start({ root: testApp.root, name: 'hessian2-app' });
    try {
      const loader = app.model.getExtensionLoader(Serialization);
      expect(loader.getSupportedExtensions()).toContain('hessian2');
      const extension = loader.getExtension('hessian2');
      expect(extension).toBeInstanceOf(ObjectSerialization);
      expect((extension as ObjectSerialization).dubboSerializationId).toBe(2);
      expect(extension.contentSubtype).toBe('hessian2');
      expect(extension.copy({ a: [1, 'x'] })).toEqual({ a: [1, 'x'] });
    } finally {
      await app.shutdown({ timeout: 1000 });
      testApp.cleanup();
    }
  });

  it('names parameter descriptors (spec §3.1) and Java class names (§3.2)', () => {
    const codec = new Hessian2Serialization();
    expect(codec.parameterDescriptor([])).toBe('');
    expect(codec.parameterDescriptor([String])).toBe('Ljava/lang/String;');
    expect(codec.parameterDescriptor([java.int, java.long])).toBe('IJ');
    expect(codec.parameterDescriptor([String, Number])).toBe('Ljava/lang/String;I');
    expect(codec.parameterDescriptor([java.array(java.int)])).toBe('[I');
    expect(codec.parameterDescriptor([java.array(java.array(String))])).toBe('[[Ljava/lang/String;');
    expect(codec.parameterDescriptor([java.Integer, java.Long])).toBe('Ljava/lang/Integer;Ljava/lang/Long;');
    expect(codec.parameterDescriptor([[User], mapOf(String, Object)])).toBe('Ljava/util/List;Ljava/util/Map;');
    expect(codec.parameterDescriptor([User, Object, setOf(String), Date, Boolean])).toBe('Lcom/foo/User;Ljava/lang/Object;Ljava/util/Set;Ljava/util/Date;Z');
    expect(codec.parameterDescriptor([String, java.array(String), java.array(Object)])).toBe('Ljava/lang/String;[Ljava/lang/String;[Ljava/lang/Object;');
    expect(codec.javaTypeNames([java.int, java.array(java.int), String, java.array(String), User, java.list(User), java.BigDecimal])).toEqual([
      'int', '[I', 'java.lang.String', '[Ljava.lang.String;', 'com.foo.User', 'java.util.List', 'java.math.BigDecimal',
    ]);
  });
});
