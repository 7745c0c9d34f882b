// Tag routes (governance spec §2): static tags, dynamic rules (<application>.tag-router), force, fallback to
// untagged providers, tag levels, match-based groups, bad rules, and tag propagation to nested calls.
import { describe, expect, it } from 'vitest';

import { Invocation, RpcContext, URL } from '@weft/core';
import { matchAddress, parseTagRule } from '@weft/routers';

import { call, configRule, harness } from './support/routing.js';

const CONSUMER = 'consumer://10.0.0.9/com.foo.BarService?application=web';
const T1 = 'tri://10.0.0.1:20880/com.foo.BarService?application=bar&dubbo.tag=gray';
const T2 = 'tri://10.0.0.2:20880/com.foo.BarService?application=bar';
const T3 = 'tri://10.0.0.3:20880/com.foo.BarService?application=bar&env=canary';
const t1 = '10.0.0.1:20880';
const t2 = '10.0.0.2:20880';
const t3 = '10.0.0.3:20880';
const SOURCE = '/dubbo/config/dubbo/bar.tag-router';
/** Rule R of the spec, as dubbo-admin writes it (alphabetical, no configVersion). */
const R = ['enabled: true', 'force: false', 'key: bar', 'priority: 0', 'runtime: true', 'tags:', '- addresses:', '  - 10.0.0.3:20880', '  name: blue', ''].join('\n');
const R_FORCED = R.replace('force: false', 'force: true');

interface Row {
  readonly rule?: string;
  readonly providers?: readonly string[];
  readonly tag?: string;
  readonly force?: boolean;
  readonly selected: readonly string[];
}

const TABLE: Record<string, Row> = {
  'no rule, untagged request → untagged providers': { selected: [t2, t3] },
  'no rule, static tag gray': { tag: 'gray', selected: [t1] },
  'no rule, unknown tag falls back to untagged': { tag: 'red', selected: [t2, t3] },
  'no rule, unknown tag with force-tag → none': { tag: 'red', force: true, selected: [] },
  'R, untagged request avoids grouped and tagged providers': { rule: R, selected: [t2] },
  'R, blue → its group': { rule: R, tag: 'blue', selected: [t3] },
  'R, gray (no group) → static tag': { rule: R, tag: 'gray', selected: [t1] },
  'R, red → fallback excludes grouped and tagged': { rule: R, tag: 'red', selected: [t2] },
  'R, red with force-tag → none': { rule: R, tag: 'red', force: true, selected: [] },
  'R, T3 gone, blue → fallback (rule not forced)': { rule: R, providers: [T1, T2], tag: 'blue', selected: [t2] },
  'R forced, T3 gone, blue → none': { rule: R_FORCED, providers: [T1, T2], tag: 'blue', selected: [] },
  'R, blue|team1 → level fallback to blue': { rule: R, tag: 'blue|team1', selected: [t3] },
  'R, blue|team1 with force-tag → none': { rule: R, tag: 'blue|team1', force: true, selected: [] },
  '0.0.0.0:20880 groups every provider: untagged → none': { rule: 'tags:\n- name: blue\n  addresses: ["0.0.0.0:20880"]\n', selected: [] },
  'CIDR group': { rule: 'tags:\n- name: blue\n  addresses: ["10.0.0.0/30"]\n', tag: 'blue', selected: [t1, t2, t3] },
  'wildcard group': { rule: 'tags:\n- name: blue\n  addresses: ["10.0.0.2-3"]\n', tag: 'blue', selected: [t2, t3] },
  'match group (registered parameters)': {
    rule: 'configVersion: v3.0\ntags:\n- name: canary\n  match:\n  - key: env\n    value: {exact: canary}\n',
    tag: 'canary',
    selected: [t3],
  },
  'match group with no member does not exist → static/fallback': {
    rule: 'tags:\n- name: canary\n  match:\n  - key: env\n    value: {prefix: prod}\n',
    tag: 'canary',
    selected: [t2, t3],
  },
  'disabled rule → static tags only': { rule: R.replace('enabled: true', 'enabled: false'), tag: 'blue', selected: [t2, t3] },
};

describe('tag routing, case by case', () => {
  for (const [name, row] of Object.entries(TABLE)) {
    it(name, () => {
      const rules = row.rule === undefined ? [] : [configRule('tag', row.rule, SOURCE, 'provider-application')];
      const h = harness(['tag'], CONSUMER, row.providers ?? [T1, T2, T3], rules);
      const attachments: Record<string, string> = {};
      if (row.tag !== undefined) attachments['dubbo.tag'] = row.tag;
      if (row.force === true) attachments['dubbo.force.tag'] = 'true';
      expect(h.route(call('findUser', [], attachments))).toEqual(row.selected);
      expect(h.route(call('findUser', [], attachments))).toEqual(row.selected);
      expect(h.logger.of('error')).toEqual([]);
    });
  }

  it('reads the request tag and force-tag from the reference URL when the call sets none', () => {
    const h = harness(['tag'], `${CONSUMER}&dubbo.tag=red&dubbo.force.tag=true`, [T1, T2, T3], []);
    expect(h.route(call('findUser'))).toEqual([]);
    expect(h.route(call('findUser', [], { 'dubbo.tag': 'gray' }))).toEqual([t1]);
  });

  it('a static tag set by an override (the effective provider URL) counts', () => {
    const h = harness(['tag'], CONSUMER, [T1, T2, `${T3}&dubbo.tag=blue`], []);
    expect(h.route(call('findUser', [], { 'dubbo.tag': 'blue' }))).toEqual([t3]);
  });

  it('tag then condition: each router gets the previous one\'s output', () => {
    const h = harness(['tag', 'condition'], CONSUMER, [T1, T2, T3], [
      URL.parse(`condition://0.0.0.0/com.foo.BarService?category=routers&rule=${URL.encode('=> host != 10.0.0.2')}`),
    ]);
    expect(h.route(call('findUser'))).toEqual([t3]);
    const steps = h.chain.explain(call('findUser', [], { 'dubbo.tag': 'gray' }));
    expect(steps.map((s) => [s.name, s.input.length, s.output.length])).toEqual([
      ['tag', 3, 1],
      ['condition', 1, 1],
    ]);
  });
});

describe('tag propagation', () => {
  it('a call made while handling a tagged call is routed with that tag', () => {
    const h = harness(['tag'], CONSUMER, [T1, T2, T3], []);
    const incoming = new Invocation({ methodName: 'handle', attachments: { 'dubbo.tag': 'gray' } });
    const provider = new RpcContext('provider', incoming, URL.parse(T2));
    const selected = RpcContext.run(provider, () => h.route(call('findUser')));
    expect(selected).toEqual([t1]);
    // outside the handled call: untagged
    expect(h.route(call('findUser'))).toEqual([t2, t3]);
  });
});

describe('bad tag rules', () => {
  it('are refused with the rule source; the previous rule stays', () => {
    const h = harness(['tag'], CONSUMER, [T1, T2, T3], [configRule('tag', R, SOURCE)]);
    h.chain.setRules([configRule('tag', 'tags:\n- name: blue\n', SOURCE)]);
    expect(h.route(call('findUser', [], { 'dubbo.tag': 'blue' }))).toEqual([t3]);
    h.chain.setRules([configRule('tag', 'tags:\n- name: blue\n  adresses: [10.0.0.1]\n', SOURCE)]);
    expect(h.logger.of('error')).toEqual([
      `Rejected the tag rule at ${SOURCE}: tags[0] (tag "blue") has neither addresses nor match: it would select no provider. Its previous rule (1 tag(s)) stays in force.`,
      `Rejected the tag rule at ${SOURCE}: unknown field "adresses" in tags[0] (known: name, addresses, match). Did you mean "addresses"? Its previous rule (1 tag(s)) stays in force.`,
    ]);
    h.chain.setRules([]);
    expect(h.route(call('findUser', [], { 'dubbo.tag': 'blue' }))).toEqual([t2, t3]);
  });

  it('parseTagRule refuses an empty tag list and a bad address', () => {
    expect(() => parseTagRule('force: true\n', 's')).toThrow('tags must be a non-empty list');
    expect(() => parseTagRule('tags:\n- name: a\n  addresses: ["10.0.0.0/40"]\n', 's')).toThrow('tags[0].addresses[0] is not an address pattern');
  });
});

describe('address patterns', () => {
  it.each([
    ['10.0.0.3:20880', '10.0.0.3', 20880, true],
    ['10.0.0.3:20880', '10.0.0.3', 20881, false],
    ['10.0.0.3', '10.0.0.3', 1, true],
    ['10.0.1.0/24', '10.0.1.200', 1, true],
    ['10.0.1.0/24', '10.0.2.1', 1, false],
    ['10.0.2.*', '10.0.2.9', 1, true],
    ['10.0.2.1-5', '10.0.2.6', 1, false],
    ['*', 'anything', 1, true],
    ['0.0.0.0:20880', '10.1.1.1', 20880, true],
    ['0.0.0.0', '10.1.1.1', 20880, false],
  ] as const)('%s vs %s:%d → %s', (pattern, host, port, expected) => {
    expect(matchAddress(pattern, host, port)).toBe(expected);
  });
});
