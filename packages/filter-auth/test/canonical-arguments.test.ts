import { createHash } from 'node:crypto';

import { describe, expect, it } from 'vitest';

import { java } from '@weft/core';
import {
  CanonicalLimitError,
  canonicalArguments,
  canonicalArgumentsDigest,
  canonicalRequest,
  newNonce,
  signatureOf,
  type SignedRequest,
} from '@weft/filter-auth';

describe('canonical argument form', () => {
  it('writes type-tagged, self-delimiting text', () => {
    expect(canonicalArguments(['ann', 5n, { b: undefined, a: true }])).toBe('[3:s3:annd5;{1:s1:at}]');
    expect(canonicalArguments([null, undefined, false, 0, -0, 0.5, 1e-7, Number.NaN, -Infinity])).toBe('[9:nnfd0;d0;d0.5;d1e-7;dNaN;d-Infinity;]');
    expect(canonicalArguments(['ключ'])).toBe('[1:s8:ключ]'); // UTF-8 byte length
    expect(canonicalArguments([new Uint8Array([1, 2, 255])])).toBe('[1:bAQL/;]');
    expect(canonicalArguments([new Date('2026-01-02T03:04:05.006Z'), new Date(Number.NaN)])).toBe('[2:D2026-01-02T03:04:05.006Z;DInvalid;]');
    expect(canonicalArguments([[1, [2]]])).toBe('[1:[2:d1;[1:d2;]]]');
  });

  it('makes numbers and bigints agree, integers in full digits', () => {
    expect(canonicalArgumentsDigest([5])).toBe(canonicalArgumentsDigest([5n]));
    expect(canonicalArguments([1e21])).toBe(`[1:d${10n ** 21n};]`);
    expect(canonicalArguments([2 ** 60])).toBe(canonicalArguments([2n ** 60n]));
    expect(canonicalArgumentsDigest([5])).not.toBe(canonicalArgumentsDigest(['5']));
  });

  it('sorts object keys and Map entries, drops undefined and null fields, and makes objects and string-keyed Maps agree', () => {
    expect(canonicalArguments([{ b: 1, a: 2 }])).toBe(canonicalArguments([{ a: 2, b: 1 }]));
    expect(canonicalArguments([{ a: 1, gone: undefined, none: null, fn: () => 1 }])).toBe(canonicalArguments([{ a: 1 }]));
    expect(canonicalArguments([new Map<unknown, unknown>([['b', 1], ['a', 2]])])).toBe(canonicalArguments([{ a: 2, b: 1 }]));
    expect(canonicalArguments([new Map([[2, 'x'], [1, 'y']])])).toBe('[1:{2:d1;s1:yd2;s1:x}]');
    expect(canonicalArguments([{ '1': 'y' }])).not.toBe(canonicalArguments([new Map([[1, 'y']])])); // a number key is not a string key
  });

  it('keeps arrays and Sets in order; a Set reads as the array it travels as', () => {
    expect(canonicalArguments([[1, 2]])).not.toBe(canonicalArguments([[2, 1]]));
    expect(canonicalArguments([new Set(['a', 'b'])])).toBe(canonicalArguments([['a', 'b']]));
    expect(canonicalArguments([[undefined]])).toBe(canonicalArguments([[null]]));
  });

  it('reads protobuf-es messages as their fields, and JavaValue wrappers as their value', () => {
    const message = { $typeName: 'acme.v1.Charge', $unknown: [{ no: 9, wireType: 0, data: new Uint8Array([1]) }], who: 'ann', cents: 5n };
    expect(canonicalArguments([message])).toBe(canonicalArguments([{ who: 'ann', cents: 5 }]));
    expect(canonicalArguments([java.value(java.long, 5n)])).toBe(canonicalArguments([5]));
  });

  it('is bounded: too deep, cyclic or too many values throw CanonicalLimitError', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 100; i++) deep = [deep];
    expect(() => canonicalArguments([deep])).toThrow(CanonicalLimitError);
    expect(() => canonicalArguments([deep])).toThrow('the arguments nest deeper than 64 levels (or refer to themselves)');
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(() => canonicalArguments([cyclic])).toThrow(CanonicalLimitError);
    // A DAG sharing one node: 2^40 paths, refused by the node count long before.
    let shared: unknown = 1;
    for (let i = 0; i < 40; i++) shared = [shared, shared];
    expect(() => canonicalArguments([shared])).toThrow('the arguments have more than 1000000 values');
    expect(() => canonicalArguments([new Array(20).fill(0)], { depth: 64, nodes: 10 })).toThrow('more than 10 values');
  });

  it('refuses values it cannot read (a throwing getter) and reads impostor prototypes as plain objects', () => {
    const hostile = Object.defineProperty({}, 'x', { enumerable: true, get: () => { throw new Error('boom'); } });
    expect(() => canonicalArguments([hostile])).toThrow('the arguments cannot be read into the canonical form (boom)');
    const fakeBytes = Object.assign(Object.create(Uint8Array.prototype) as object, { a: 1 });
    expect(canonicalArguments([fakeBytes])).toBe(canonicalArguments([{ a: 1 }]));
    const fakeDate = Object.assign(Object.create(Date.prototype) as object, { a: 1 });
    expect(canonicalArguments([fakeDate])).toBe(canonicalArguments([{ a: 1 }]));
  });

  it('digests the UTF-8 of the text with SHA-256, base64url', () => {
    const text = canonicalArguments(['ann', 5]);
    expect(canonicalArgumentsDigest(['ann', 5])).toBe(createHash('sha256').update(text, 'utf8').digest('base64url'));
    expect(canonicalArgumentsDigest(['ann', 5])).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('request signature', () => {
  const request: SignedRequest = {
    keyId: 'shop',
    service: 'org.acme.Billing',
    group: '',
    version: '1.0.0',
    method: 'charge',
    timestamp: 1767225600000,
    nonce: 'AAAAAAAAAAAAAAAAAAAAAA',
    argumentsDigest: 'digest',
  };

  it('covers a JSON array of every field', () => {
    expect(canonicalRequest(request)).toBe('["weft-auth-v1","shop","org.acme.Billing","","1.0.0","charge","1767225600000","AAAAAAAAAAAAAAAAAAAAAA","sha256:digest"]');
    expect(canonicalRequest({ ...request, argumentsDigest: undefined })).toContain('"unsigned"]');
  });

  it('is HMAC-SHA256 with the secret; any field changes it', () => {
    const mac = signatureOf(request, 's3cret');
    expect(mac).toHaveLength(32);
    expect(signatureOf(request, Buffer.from('s3cret'))).toEqual(mac);
    for (const change of [{ keyId: 'ops' }, { group: 'g' }, { version: '2' }, { method: 'refund' }, { timestamp: 1 }, { nonce: 'B'.repeat(22) }, { argumentsDigest: undefined }]) {
      expect(signatureOf({ ...request, ...change }, 's3cret')).not.toEqual(mac);
    }
    expect(signatureOf(request, 'other')).not.toEqual(mac);
  });

  it('nonces are 16 random bytes, base64url', () => {
    const a = newNonce();
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(Buffer.from(a, 'base64url')).toHaveLength(16);
    expect(newNonce()).not.toBe(a);
  });
});
