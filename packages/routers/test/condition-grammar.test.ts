// Condition routes as a table (governance spec §1.2–1.7): rule, providers, invocation → selected providers,
// run through core's RouterChain with the condition router, from legacy routers URLs and config-centre YAML.
import { describe, expect, it } from 'vitest';

import { ConditionRule, parseCondition } from '@weft/routers';

import { URL } from '@weft/core';

import { call, conditionUrl, configRule, harness, provider } from './support/routing.js';

const CONSUMER = 'consumer://10.20.153.5/com.foo.BarService?application=web&region=hz';
const P1 = 'tri://10.20.153.10:20880/com.foo.BarService?application=bar&region=hz';
const P2 = 'tri://10.20.153.11:20880/com.foo.BarService?application=bar&region=hz';
const P3 = 'tri://10.20.154.12:20880/com.foo.BarService?application=bar&region=sh';
const P4 = 'tri://10.20.155.13:20880/com.foo.BarService?application=bar';
const ALL = [P1, P2, P3, P4];
const a1 = '10.20.153.10:20880';
const a2 = '10.20.153.11:20880';
const a3 = '10.20.154.12:20880';
const a4 = '10.20.155.13:20880';
const all = [a1, a2, a3, a4];

interface Row {
  readonly rule: string;
  readonly force?: boolean;
  readonly call: [string, unknown[]?, Record<string, string>?];
  readonly selected: string[];
  readonly consumer?: string;
}

const TABLE: Record<string, Row> = {
  'when true, != removes P2': { rule: 'host = 10.20.* & method = find* => host != 10.20.153.11', call: ['findUser'], selected: [a1, a3, a4] },
  'when false: all': { rule: 'host = 10.20.* & method = find* => host != 10.20.153.11', call: ['getUser'], selected: all },
  'empty when matches every call': { rule: '=> host = 10.20.153.10', call: ['getUser'], selected: [a1] },
  'empty then is a blocklist': { rule: 'host = 10.20.153.5 =>', call: ['getUser'], selected: [] },
  'then false is a blocklist': { rule: 'host = 10.20.153.5 => false', call: ['getUser'], selected: [] },
  'blocklist not concerning this consumer': { rule: 'host = 10.20.153.6 =>', call: ['getUser'], selected: all },
  '$region resolves from the consumer in a then-part': { rule: '=> region = $region', call: ['getUser'], selected: [a1, a2] },
  '$host compares provider host with the consumer host': {
    rule: '=> host = $host',
    call: ['getUser'],
    consumer: 'consumer://10.20.154.12/com.foo.BarService?application=web',
    selected: [a3],
  },
  '$ is literal in a when-part': { rule: 'region = $region => region = sh', call: ['getUser'], selected: all },
  'empty result falls back without force': { rule: '=> host = 1.2.3.4', call: ['getUser'], selected: all },
  'force with an empty result selects nothing': { rule: '=> host = 1.2.3.4', force: true, call: ['getUser'], selected: [] },
  'comma list in when': { rule: 'method = find*,get* => region = sh', call: ['getUser'], selected: [a3] },
  'comma list in then': { rule: '=> host = 10.20.153.10,10.20.155.13', call: ['getUser'], selected: [a1, a4] },
  '!= on an absent key is false': { rule: '=> region != sh', call: ['getUser'], selected: [a1, a2] },
  'arguments range': { rule: 'arguments[0] = 1~100 => region = sh', call: ['getUser', [42]], selected: [a3] },
  'arguments range, text parses as 0': { rule: 'arguments[0] = 1~100 => region = sh', call: ['getUser', ['abc']], selected: all },
  'A~ is an invalid range (when false)': { rule: 'arguments[0] = 100~ => region = sh', call: ['getUser', [500]], selected: all },
  'arguments glob': { rule: 'arguments[0] = vip* => region = sh', call: ['findUser', ['vip-42']], selected: [a3] },
  'arguments out of range: != holds': { rule: 'arguments[3] != x => region = sh', call: ['findUser', ['a']], selected: [a3] },
  'attachments': { rule: 'attachments[user] = alice => host = 10.20.153.11', call: ['findUser', [], { user: 'alice' }], selected: [a2] },
  'attachments, other value': { rule: 'attachments[user] = alice => host = 10.20.153.11', call: ['findUser', [], { user: 'bob' }], selected: all },
  'attachments absent: = and != both false': { rule: 'attachments[user] != alice => host = 10.20.153.11', call: ['findUser'], selected: all },
  'attachments[dubbo.tag] breaks at the dot': { rule: 'attachments[dubbo.tag] != gray => region = sh', call: ['findUser', [], { 'dubbo.tag': 'gray' }], selected: [a3] },
  'consumer. is stripped': { rule: 'application = consumer.web => region = sh', call: ['getUser'], selected: [a3] },
  'provider. is stripped': { rule: '=> provider.region = sh', call: ['getUser'], selected: [a3] },
  'mismatch checked first': { rule: 'host = 10.20.153.5 & host != 10.20.153.5 => region = sh', call: ['getUser'], selected: all },
  'providers have no method key': { rule: 'method = getUser => method = getUser', call: ['getUser'], selected: all },
  'providers have no method key, forced': { rule: 'method = getUser => method = getUser', force: true, call: ['getUser'], selected: [] },
  'wildcard suffix': { rule: '=> host = *.12', call: ['getUser'], selected: [a3] },
  'wildcard middle': { rule: '=> host = 10.*.13', call: ['getUser'], selected: [a4] },
  'only the last * is a wildcard': { rule: '=> host = *10.20*', call: ['getUser'], selected: all },
  'address key': { rule: '=> address = 10.20.153.10:20880', call: ['getUser'], selected: [a1] },
  'port key': { rule: '=> port != 20880', force: true, call: ['getUser'], selected: [] },
  'no => means then only': { rule: 'host = 10.20.153.10', call: ['getUser'], selected: [a1] },
  'when true literal': { rule: 'true => host = 10.20.153.11', call: ['getUser'], selected: [a2] },
  'generic $invoke routes by the real method': { rule: 'method = findUser => region = sh', call: ['$invoke', ['findUser', [], []]], selected: [a3] },
};

describe('condition grammar, rule by rule (legacy routers URL)', () => {
  for (const [name, row] of Object.entries(TABLE)) {
    it(`${name}: ${row.rule}${row.force ? ' (force)' : ''}`, () => {
      const h = harness(['condition'], row.consumer ?? CONSUMER, ALL, [conditionUrl(row.rule, row.force ? { force: 'true' } : {})]);
      const [method, args, attachments] = row.call;
      expect(h.route(call(method, args, attachments))).toEqual(row.selected);
      // The second call is answered from the chain's cache (or evaluated again) with the same result.
      expect(h.route(call(method, args, attachments))).toEqual(row.selected);
      expect(h.logger.of('error')).toEqual([]);
    });
  }
});

describe('caching', () => {
  it('a rule on arguments is cached by its when-part outcome, never across different outcomes', () => {
    const h = harness(['condition'], CONSUMER, ALL, [conditionUrl('arguments[0] = 1~100 => region = sh'), conditionUrl('attachments[user] = alice => host != 10.20.154.12')]);
    expect(h.route(call('getUser', [42]))).toEqual([a3]);
    expect(h.route(call('getUser', ['abc']))).toEqual(all);
    expect(h.route(call('getUser', [42], { user: 'alice' }))).toEqual([a3]); // second rule: P3 removed → empty → unchanged
    expect(h.route(call('getUser', ['abc'], { user: 'alice' }))).toEqual([a1, a2, a4]);
    expect(h.route(call('getUser', [42]))).toEqual([a3]);
  });

  it('new providers rebuild the results', () => {
    const h = harness(['condition'], CONSUMER, [P1, P2], [conditionUrl('=> region = sh')]);
    expect(h.route(call('getUser'))).toEqual([a1, a2]);
    h.chain.setInvokers([...h.invokers, provider(P3)], URL.parse(CONSUMER));
    expect(h.route(call('getUser'))).toEqual([a3]);
  });
});

describe('condition grammar, config-centre YAML (list form)', () => {
  it('applies the conditions of one rule in sequence, force and enabled for all of them', () => {
    const yaml = ['conditions:', '- method = find* => region = hz', '- => host != 10.20.153.10', 'enabled: true', 'force: false', 'key: com.foo.BarService', 'priority: 0', 'runtime: false', 'scope: service', ''].join('\n');
    const h = harness(['condition'], CONSUMER, ALL, [configRule('condition', yaml, '/dubbo/config/dubbo/com.foo.BarService::.condition-router')]);
    expect(h.route(call('findUser'))).toEqual([a2]);
    expect(h.route(call('getUser'))).toEqual([a2, a3, a4]);
  });

  it('enabled: false leaves traffic alone', () => {
    const yaml = 'enabled: false\nconditions:\n- => host = 10.20.153.10\n';
    const h = harness(['condition'], CONSUMER, ALL, [configRule('condition', yaml, '/dubbo/config/dubbo/web.condition-router', 'application')]);
    expect(h.route(call('getUser'))).toEqual(all);
  });

  it('service scope runs before application scope, then legacy URLs by descending priority', () => {
    const service = configRule('condition', 'conditions:\n- => region = hz\n', '/dubbo/config/dubbo/com.foo.BarService::.condition-router');
    const app = configRule('condition', 'conditions:\n- => host = 10.20.154.12\n', '/dubbo/config/dubbo/web.condition-router', 'application');
    // region=hz leaves P1, P2; the app rule's then-part matches none of them: not forced, input unchanged.
    const h = harness(['condition'], CONSUMER, ALL, [app, service, conditionUrl('=> host = 10.20.153.11', { priority: '1' }), conditionUrl('=> host = 10.20.153.10', { priority: '5' })]);
    // legacy priority 5 (host .10) first → P1; then priority 1 (host .11) finds nothing in [P1] → unchanged.
    expect(h.route(call('getUser'))).toEqual([a1]);
    expect(h.chain.explain(call('getUser'))[0]?.rules).toEqual([
      '=> region = hz  [/dubbo/config/dubbo/com.foo.BarService::.condition-router]',
      '=> host = 10.20.154.12  [/dubbo/config/dubbo/web.condition-router]',
      expect.stringContaining('=> host = 10.20.153.10  [the routers category of com.foo.BarService'),
      expect.stringContaining('=> host = 10.20.153.11  [the routers category of com.foo.BarService'),
    ]);
  });

  it('ignores dubbo-admin\'s compatible_config copies of YAML rules', () => {
    const h = harness(['condition'], CONSUMER, ALL, [conditionUrl('=> host = 10.20.153.10', { compatible_config: 'true' })]);
    expect(h.route(call('getUser'))).toEqual(all);
    expect(h.chain.hasActiveRouters()).toBe(false);
  });
});

describe('bad condition rules are refused, the previous rules stay', () => {
  it('an unparsable legacy URL is refused with Dubbo\'s message; the others apply', () => {
    const h = harness(['condition'], CONSUMER, ALL, [conditionUrl('host == 1.1.1.1 => region = sh'), conditionUrl('=> region = sh')]);
    expect(h.route(call('getUser'))).toEqual([a3]);
    const [line] = h.logger.of('error');
    expect(line).toContain('Rejected the routing rule condition://0.0.0.0/com.foo.BarService?category=routers&rule=');
    expect(line).toContain('(routers category of com.foo.BarService)');
    expect(line).toContain('Illegal route rule "host == 1.1.1.1", The error char \'==\' at index 5 before "1.1.1.1".');
  });

  it('a bad new version of a YAML rule keeps the previous version of that source in force', () => {
    const source = '/dubbo/config/dubbo/com.foo.BarService::.condition-router';
    const h = harness(['condition'], CONSUMER, ALL, [configRule('condition', 'conditions:\n- => region = sh\n', source)]);
    expect(h.route(call('getUser'))).toEqual([a3]);
    h.chain.setRules([configRule('condition', 'conditions:\n- => region == sh\n', source)]);
    expect(h.route(call('getUser'))).toEqual([a3]);
    h.chain.setRules([configRule('condition', 'condition:\n- => region = hz\n', source)]);
    expect(h.route(call('getUser'))).toEqual([a3]);
    expect(h.logger.of('error')).toEqual([
      `Rejected the condition rule at ${source}: conditions[0] "=> region == sh": Illegal route rule "region == sh", The error char '==' at index 7 before "sh". Its previous 1 condition(s) stay in force.`,
      `Rejected the condition rule at ${source}: unknown field "condition" in a condition rule (known: configVersion, scope, key, force, runtime, enabled, priority, dynamic, valid, conditions). Did you mean "conditions"? Its previous 1 condition(s) stay in force.`,
    ]);
    // Deleting the node (the registry stops delivering it) clears the rule.
    h.chain.setRules([]);
    expect(h.route(call('getUser'))).toEqual(all);
  });

  it('refuses configVersions newer than v3.1 and non-integer priorities', () => {
    const source = '/dubbo/config/dubbo/web.condition-router';
    const h = harness(['condition'], CONSUMER, ALL, [
      configRule('condition', 'configVersion: v3.2\nconditions:\n- from: {match: region=hz}\n  to: [{match: region=sh}]\n', source),
      configRule('condition', 'priority: high\nconditions:\n- => region = sh\n', `${source}2`),
    ]);
    expect(h.route(call('getUser'))).toEqual(all);
    const errors = h.logger.of('error');
    expect(errors[0]).toContain('configVersion v3.2 is newer than this router knows');
    expect(errors[1]).toContain('priority must be an integer; got "high"');
  });
});

describe('v3.1 multi-destination rules (spec §1.6, §1.7 rows 19–20)', () => {
  const source = '/dubbo/config/dubbo/com.foo.BarService::.condition-router';
  const v31 = (conditions: string, force = false): string => `configVersion: v3.1\nforce: ${force}\nconditions:\n${conditions}`;

  it('draws a destination by weight: {P1,P2} ≈ 91 %, {P3} ≈ 9 %', () => {
    const h = harness(['condition'], CONSUMER, ALL, [
      configRule('condition', v31('- from: {match: region=hz}\n  to:\n  - {match: region=$region, weight: 90}\n  - {match: region=sh, weight: 10}\n'), source),
    ]);
    const counts = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const key = h.route(call('getUser')).join();
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual([[a1, a2].join(), a3]);
    const share = (counts.get([a1, a2].join()) ?? 0) / 4000;
    expect(share).toBeGreaterThan(0.87);
    expect(share).toBeLessThan(0.95);
    expect(h.logger.of('error')).toEqual([]);
  });

  it('a to entry without match selects every provider; from not matching leaves the input', () => {
    const all3 = harness(['condition'], CONSUMER, ALL, [configRule('condition', v31('- to: [{weight: 100}]\n'), source)]);
    expect(all3.route(call('getUser'))).toEqual(all);
    const other = harness(['condition'], CONSUMER, ALL, [configRule('condition', v31('- from: {match: region=sh}\n  to: [{match: host=10.20.153.10}]\n'), source)]);
    expect(other.route(call('getUser'))).toEqual(all);
  });

  it('no non-empty destination: the input unchanged, nobody with force; an empty to list selects nobody', () => {
    const rule = '- from: {match: region=hz}\n  to: [{match: host=1.2.3.4}]\n';
    expect(harness(['condition'], CONSUMER, ALL, [configRule('condition', v31(rule), source)]).route(call('getUser'))).toEqual(all);
    expect(harness(['condition'], CONSUMER, ALL, [configRule('condition', v31(rule, true), source)]).route(call('getUser'))).toEqual([]);
    expect(harness(['condition'], CONSUMER, ALL, [configRule('condition', v31('- from: {match: region=hz}\n  to: []\n'), source)]).route(call('getUser'))).toEqual([]);
  });

  it('refuses a non-numeric weight and a bad match, keeping nothing from that source', () => {
    const h = harness(['condition'], CONSUMER, ALL, [configRule('condition', v31('- to: [{match: region=sh, weight: lots}]\n'), source)]);
    expect(h.route(call('getUser'))).toEqual(all);
    expect(h.logger.of('error')[0]).toContain('conditions[0].to[0].weight must be an integer; got "lots"');
  });
});

describe('the parser', () => {
  it('reuses a key after & and replaces it after a bare token (Dubbo\'s tokenizer)', () => {
    const c = parseCondition('host = a & host != b & method = x,y');
    expect([...c.keys()]).toEqual(['host', 'method']);
    expect(c.get('host')?.toString()).toBe('host = a & host != b');
    expect(parseCondition('a=b c').get('c')?.matches.size).toBe(0);
  });

  it('refuses ==, &&, a leading value and a comma without values', () => {
    expect(() => parseCondition('= a')).toThrow('Illegal route rule "= a", The error char \'=\' at index 0 before "a".');
    expect(() => parseCondition('a && b')).toThrow("The error char '&&'");
    expect(() => parseCondition('a ,b')).toThrow("The error char ','");
    expect(() => ConditionRule.parse('  ', false)).toThrow('Illegal route rule!');
  });
});
