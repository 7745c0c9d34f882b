// YAML (and JSON) configurator rules → override URLs: the translation table of wire-and-registry §B.7
// (Dubbo's ConfigParser), validation, and the effect of the translated URLs through core's Configurator.
import { describe, expect, it } from 'vitest';

import { Configurator, ExtensionError, ExtensionErrorCode, URL } from '@weft/core';
import { parseConfiguratorRules } from '@weft/core/spi';

/** The URLs a rule translates to, in their decoded string form (parameters in insertion order). */
function translate(text: string): string[] {
  return parseConfiguratorRules(text).map((u) => u.toDecodedString());
}

describe('parseConfiguratorRules: the translation table', () => {
  const cases: { name: string; rule: string; urls: string[] }[] = [
    {
      name: 'service scope, the spec mock example (§B.7)',
      rule: `
configVersion: v3.0
scope: service
key: com.foo.DemoService
enabled: true
configs:
  - side: consumer
    addresses: ["0.0.0.0"]
    parameters:
      mock: "force:return null"
`,
      urls: ['override://0.0.0.0/com.foo.DemoService?category=dynamicconfigurators&side=consumer&mock=force:return null&enabled=true&configVersion=v3.0'],
    },
    {
      name: 'scope defaults to service; addresses default to 0.0.0.0; numbers and booleans become strings',
      rule: 'configVersion: v2.7\nkey: com.foo.DemoService\nconfigs:\n  - side: consumer\n    parameters: {timeout: 6000, sticky: true}\n',
      urls: ['override://0.0.0.0/com.foo.DemoService?category=dynamicconfigurators&side=consumer&timeout=6000&sticky=true&enabled=true&configVersion=v2.7'],
    },
    {
      name: 'group and version come from the key [group/]interface[:version], first',
      rule: 'configVersion: v3.0\nkey: g1/com.foo.DemoService:1.0.0\nconfigs:\n  - side: consumer\n    parameters: {timeout: 100}\n',
      urls: ['override://0.0.0.0/com.foo.DemoService?group=g1&version=1.0.0&category=dynamicconfigurators&side=consumer&timeout=100&enabled=true&configVersion=v3.0'],
    },
    {
      name: 'one URL per address (ports kept) and per application',
      rule: `
configVersion: v3.0
key: com.foo.DemoService
configs:
  - side: consumer
    addresses: ["10.0.0.1", "10.0.0.2:20880"]
    applications: [shop, cart]
    parameters: {retries: 0}
`,
      urls: [
        'override://10.0.0.1/com.foo.DemoService?category=dynamicconfigurators&side=consumer&retries=0&enabled=true&configVersion=v3.0&application=shop',
        'override://10.0.0.1/com.foo.DemoService?category=dynamicconfigurators&side=consumer&retries=0&enabled=true&configVersion=v3.0&application=cart',
        'override://10.0.0.2:20880/com.foo.DemoService?category=dynamicconfigurators&side=consumer&retries=0&enabled=true&configVersion=v3.0&application=shop',
        'override://10.0.0.2:20880/com.foo.DemoService?category=dynamicconfigurators&side=consumer&retries=0&enabled=true&configVersion=v3.0&application=cart',
      ],
    },
    {
      name: 'a provider-side item without providerAddresses gets its addresses there',
      rule: 'configVersion: v3.0\nkey: com.foo.DemoService\nconfigs:\n  - side: provider\n    addresses: ["10.0.0.5:20880"]\n    parameters: {weight: 200}\n',
      urls: [
        'override://10.0.0.5:20880/com.foo.DemoService?category=dynamicconfigurators&side=provider&weight=200&providerAddresses=10.0.0.5:20880&enabled=true&configVersion=v3.0',
      ],
    },
    {
      name: 'explicit providerAddresses are joined with commas',
      rule: 'configVersion: v3.0\nkey: com.foo.DemoService\nconfigs:\n  - side: consumer\n    providerAddresses: ["10.0.0.5:20880", "10.0.0.6:20880"]\n    parameters: {timeout: 50}\n',
      urls: [
        'override://0.0.0.0/com.foo.DemoService?category=dynamicconfigurators&side=consumer&timeout=50&providerAddresses=10.0.0.5:20880,10.0.0.6:20880&enabled=true&configVersion=v3.0',
      ],
    },
    {
      name: 'type general takes the rule-level enabled; other types the item-level one',
      rule: `
configVersion: v3.0
key: com.foo.DemoService
enabled: false
configs:
  - side: consumer
    parameters: {timeout: 1}
  - side: provider
    type: disabled
    enabled: true
    addresses: ["10.0.0.7:20880"]
    parameters: {disabled: true}
`,
      urls: [
        'override://0.0.0.0/com.foo.DemoService?category=dynamicconfigurators&side=consumer&timeout=1&enabled=false&configVersion=v3.0',
        'override://10.0.0.7:20880/com.foo.DemoService?category=dynamicconfigurators&side=provider&disabled=true&providerAddresses=10.0.0.7:20880&enabled=true&configVersion=v3.0',
      ],
    },
    {
      name: 'application scope: every service (*) by default, application = key, category appdynamicconfigurators',
      rule: 'configVersion: v3.0\nscope: application\nkey: shop\nconfigs:\n  - side: consumer\n    parameters: {loadbalance: roundrobin}\n',
      urls: ['override://0.0.0.0/*?category=appdynamicconfigurators&side=consumer&loadbalance=roundrobin&application=shop&enabled=true&configVersion=v3.0'],
    },
    {
      name: 'application scope with services: one URL per service, group and version from each',
      rule: `
configVersion: v3.0
scope: application
key: shop
configs:
  - side: consumer
    services: ["com.foo.A", "g2/com.foo.B:2.0.0"]
    parameters: {timeout: 300}
`,
      urls: [
        'override://0.0.0.0/com.foo.A?category=appdynamicconfigurators&side=consumer&timeout=300&application=shop&enabled=true&configVersion=v3.0',
        'override://0.0.0.0/com.foo.B?group=g2&version=2.0.0&category=appdynamicconfigurators&side=consumer&timeout=300&application=shop&enabled=true&configVersion=v3.0',
      ],
    },
    {
      name: 'JSON is accepted (it is YAML)',
      rule: '{"configVersion":"v3.0","key":"com.foo.DemoService","configs":[{"side":"consumer","parameters":{"sayHello.mock":"force:return `x`"}}]}',
      urls: ['override://0.0.0.0/com.foo.DemoService?category=dynamicconfigurators&side=consumer&sayHello.mock=force:return `x`&enabled=true&configVersion=v3.0'],
    },
    {
      name: 'a JSON list of override URLs (decoded form) is taken as is',
      rule: '["override://0.0.0.0/com.foo.DemoService?category=configurators&mock=force:return+null", "override://10.0.0.1:20880/com.foo.DemoService?timeout=5"]',
      urls: [
        'override://0.0.0.0/com.foo.DemoService?category=configurators&mock=force:return+null',
        'override://10.0.0.1:20880/com.foo.DemoService?timeout=5',
      ],
    },
    {
      name: 'v3.0 match, exact forms: app → one URL per app, param → ~key condition, providerAddress → providerAddresses',
      rule: `
configVersion: v3.0
key: com.foo.DemoService
configs:
  - side: consumer
    match:
      app: {oneof: [{exact: shop}, {exact: cart}]}
      param: [{key: region, value: {exact: eu}}]
      providerAddress: {exact: "10.0.0.5:20880"}
    parameters: {timeout: 70}
`,
      urls: [
        'override://0.0.0.0/com.foo.DemoService?category=dynamicconfigurators&side=consumer&timeout=70&providerAddresses=10.0.0.5:20880&~region=eu&enabled=true&configVersion=v3.0&application=shop',
        'override://0.0.0.0/com.foo.DemoService?category=dynamicconfigurators&side=consumer&timeout=70&providerAddresses=10.0.0.5:20880&~region=eu&enabled=true&configVersion=v3.0&application=cart',
      ],
    },
    { name: 'an empty document means no rules', rule: '  \n', urls: [] },
    { name: 'an empty list of configs means no rules', rule: 'configVersion: v3.0\nkey: com.foo.DemoService\nconfigs: []\n', urls: [] },
  ];

  for (const c of cases) {
    it(c.name, () => {
      expect(translate(c.rule)).toEqual(c.urls);
    });
  }

  it('values keep their raw text: a value with & or = survives (the URL is built, not concatenated)', () => {
    const [url] = parseConfiguratorRules('configVersion: v3.0\nkey: com.foo.S\nconfigs:\n  - side: consumer\n    parameters: {"a.mock": "return a=b&c"}\n');
    expect(url?.getParameter('a.mock')).toBe('return a=b&c');
  });
});

describe('parseConfiguratorRules: validation', () => {
  const rule = (configs: string, head = 'configVersion: v3.0\nkey: com.foo.S\n'): string => `${head}configs:\n${configs}`;
  const invalid: { name: string; text: string; message: RegExp }[] = [
    { name: 'malformed YAML', text: 'configVersion: v3.0\nconfigs: [\n', message: /neither valid YAML nor JSON/ },
    { name: 'duplicate keys', text: 'configVersion: v3.0\nconfigVersion: v2.7\nkey: a\nconfigs: []\n', message: /neither valid YAML nor JSON/ },
    { name: 'a scalar document', text: 'hello', message: /expected a rule .* or a list of override URLs/ },
    { name: 'missing configVersion', text: 'key: com.foo.S\nconfigs: []\n', message: /configVersion must be one of v2\.7, v3\.0; got nothing/ },
    { name: 'unknown configVersion', text: 'configVersion: v9\nkey: com.foo.S\nconfigs: []\n', message: /configVersion must be one of/ },
    { name: 'bad scope', text: 'configVersion: v3.0\nscope: global\nkey: a\nconfigs: []\n', message: /scope must be "service" or "application"/ },
    { name: 'missing key', text: 'configVersion: v3.0\nconfigs: []\n', message: /key is required/ },
    { name: 'a service key without interface', text: 'configVersion: v3.0\nkey: "g/"\nconfigs: []\n', message: /key "g\/" is not \[group\/\]interface\[:version\]/ },
    { name: 'enabled not a boolean', text: 'configVersion: v3.0\nkey: a\nenabled: maybe\nconfigs: []\n', message: /enabled must be true or false/ },
    { name: 'configs missing', text: 'configVersion: v3.0\nkey: a\n', message: /configs must be a list/ },
    { name: 'an item that is not a map', text: rule('  - consumer\n'), message: /configs\[0\] must be a map/ },
    { name: 'an item without side', text: rule('  - parameters: {timeout: 1}\n'), message: /configs\[0\]\.side is required .* never applies/ },
    { name: 'an item with a bad side', text: rule('  - side: both\n    parameters: {timeout: 1}\n'), message: /configs\[0\]\.side is required/ },
    { name: 'an item without parameters', text: rule('  - side: consumer\n'), message: /configs\[0\]\.parameters is required and must be a non-empty map/ },
    { name: 'empty parameters', text: rule('  - side: consumer\n    parameters: {}\n'), message: /parameters is required and must be a non-empty map/ },
    { name: 'a parameter that is a map', text: rule('  - side: consumer\n    parameters: {timeout: {a: 1}}\n'), message: /parameters\.timeout must be a string, number or boolean; got a map/ },
    { name: 'addresses not a list', text: rule('  - side: consumer\n    addresses: 0.0.0.0\n    parameters: {a: 1}\n'), message: /addresses must be a list/ },
    { name: 'an address with a bad port', text: rule('  - side: consumer\n    addresses: ["h:99999"]\n    parameters: {a: 1}\n'), message: /addresses\[0\] "h:99999" is not host or host:port/ },
    { name: 'a bad type', text: rule('  - side: consumer\n    type: magic\n    parameters: {a: 1}\n'), message: /type must be one of general, weight, balancing, disabled/ },
    { name: 'match in a v2.7 rule', text: rule('  - side: consumer\n    match: {app: {oneof: [{exact: a}]}}\n    parameters: {a: 1}\n', 'configVersion: v2.7\nkey: com.foo.S\n'), message: /match needs configVersion v3\.0/ },
    { name: 'an unsupported matcher', text: rule('  - side: consumer\n    match: {address: {cird: "10.0.0.0/8"}}\n    parameters: {a: 1}\n'), message: /match\.address is not supported by Weft/ },
    { name: 'a non-exact string match', text: rule('  - side: consumer\n    match: {app: {oneof: [{prefix: sh}]}}\n    parameters: {a: 1}\n'), message: /only \{exact: …\} matching is supported/ },
    { name: 'applications and match.app together', text: rule('  - side: consumer\n    applications: [a]\n    match: {app: {oneof: [{exact: b}]}}\n    parameters: {a: 1}\n'), message: /either applications or match\.app/ },
    { name: 'a URL list with a non-string', text: '["override://0.0.0.0/a?x=1", 3]', message: /must hold only URL strings; entry 1 is number 3/ },
    { name: 'a URL list with a bad URL', text: '["://nothing"]', message: /entry 0 ":\/\/nothing" is not a URL: .*missing protocol/ },
  ];

  for (const c of invalid) {
    it(`refuses ${c.name}, naming what is wrong`, () => {
      let thrown: unknown;
      try {
        parseConfiguratorRules(c.text);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(ExtensionError);
      expect((thrown as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
      expect((thrown as Error).message).toMatch(/^Invalid configurator rule: /);
      expect((thrown as Error).message).toMatch(c.message);
    });
  }
});

describe('translated rules act like override URLs (core Configurator)', () => {
  const consumer = URL.parse('consumer://10.1.2.3/com.foo.DemoService?application=shop&side=consumer&interface=com.foo.DemoService&timeout=1000');

  function apply(text: string, url: URL = consumer): URL {
    const configurators = Configurator.toConfigurators(parseConfiguratorRules(text)) ?? [];
    return configurators.reduce((u, c) => c.configure(u, url.host), url);
  }

  it('a consumer-side service rule sets the mock on the consumer URL', () => {
    const out = apply('configVersion: v3.0\nkey: com.foo.DemoService\nconfigs:\n  - side: consumer\n    parameters: {mock: "force:return null"}\n');
    expect(out.getParameter('mock')).toBe('force:return null');
  });

  it('a provider-side rule does not touch the consumer URL', () => {
    const out = apply('configVersion: v3.0\nkey: com.foo.DemoService\nconfigs:\n  - side: provider\n    parameters: {timeout: 5}\n');
    expect(out.getParameter('timeout')).toBe('1000');
  });

  it('an application rule applies to its application only', () => {
    const text = 'configVersion: v3.0\nscope: application\nkey: shop\nconfigs:\n  - side: consumer\n    parameters: {timeout: 7}\n';
    expect(apply(text).getParameter('timeout')).toBe('7');
    expect(apply(text, consumer.addParameter('application', 'cart')).getParameter('timeout')).toBe('1000');
  });

  it('a rule for another version does not apply', () => {
    const out = apply('configVersion: v3.0\nkey: com.foo.DemoService:2.0.0\nconfigs:\n  - side: consumer\n    parameters: {timeout: 9}\n');
    expect(out.getParameter('timeout')).toBe('1000');
  });

  it('a disabled rule does not apply', () => {
    const out = apply('configVersion: v3.0\nkey: com.foo.DemoService\nenabled: false\nconfigs:\n  - side: consumer\n    parameters: {timeout: 9}\n');
    expect(out.getParameter('timeout')).toBe('1000');
  });

  it('match.param conditions must hold', () => {
    const text = 'configVersion: v3.0\nkey: com.foo.DemoService\nconfigs:\n  - side: consumer\n    match: {param: [{key: region, value: {exact: eu}}]}\n    parameters: {timeout: 11}\n';
    expect(apply(text).getParameter('timeout')).toBe('1000');
    expect(apply(text, consumer.addParameter('region', 'eu')).getParameter('timeout')).toBe('11');
  });
});
