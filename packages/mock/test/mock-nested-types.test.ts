// A mock `return {…}` value is realised to the declared return type to any depth, as a remote result would be.
import { describe, expect, it } from 'vitest';

import { defineService, mapOf, RpcError, RpcErrorCode, setOf, type MethodDescriptor } from '@weft/core';
import { parseMockValue } from '@weft/mock';

class Reply {
  text = '';
  at = new Date(0);
  static readonly fields = { at: Date };
}

class Greeting {
  text = '';
  at = new Date(0);
  replies: Reply[] = [];
  byAuthor = new Map<string, Reply>();
  tags = new Set<string>();
  static readonly fields = { at: Date, replies: [Reply], byAuthor: mapOf(String, Reply), tags: setOf(String) };
}

const Feed = defineService('org.acme.Feed', { latest: { returns: Greeting } });
const latest = Feed.getMethod('latest') as MethodDescriptor;

describe('parseMockValue × nested declared types', () => {
  it('realises the nested Date, the array and the map of declared classes', () => {
    const value = parseMockValue(
      "{text: 'hi', at: '2024-01-01T00:00:00Z', replies: [{at: 0}], byAuthor: [['ann', {at: 1000}]], tags: ['a', 'a']}",
      latest,
    ) as Greeting;
    expect(value).toBeInstanceOf(Greeting);
    expect(value.at).toEqual(new Date('2024-01-01T00:00:00Z'));
    expect(value.replies[0]).toBeInstanceOf(Reply);
    expect(value.replies[0]?.at).toEqual(new Date(0));
    expect(value.byAuthor.get('ann')).toBeInstanceOf(Reply);
    expect(value.byAuthor.get('ann')?.at).toEqual(new Date(1000));
    expect([...value.tags]).toEqual(['a']);
  });

  it('names the field path of a value that does not fit', () => {
    let error: unknown;
    try {
      parseMockValue("{replies: [{at: 0}, {at: 'yesterday'}]}", latest);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.SERIALIZATION);
    expect((error as RpcError).message).toBe('mock value of latest .replies[1].at: expected Date, got "yesterday".');
  });
});
