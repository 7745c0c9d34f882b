// A config-centre (YAML) rule's keys go through the unknown-key check when the translated override URLs reach a
// consumer's directory, named as a config-centre rule (no ZooKeeper server needed: a registry stand-in delivers them).
import { afterEach, describe, expect, it } from 'vitest';

import { defineService, Protocol, RegistryCategory, URL, WeftApplication, type NotifyListener } from '@weft/core';
import { Registry, RegistryDirectory } from '@weft/core/spi';
import { parseConfiguratorRules } from '@weft/registry-zookeeper';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  count: { returns: Number },
});

/** Delivers no providers and the given rules, as the ZooKeeper registry does after reading the config centre. */
class RulesRegistry extends Registry {
  constructor(private readonly rules: readonly URL[]) {
    super();
  }
  getUrl(): URL {
    return URL.parse('zookeeper://127.0.0.1:2181');
  }
  isAvailable(): boolean {
    return true;
  }
  async register(): Promise<void> {}
  async unregister(): Promise<void> {}
  async subscribe(_url: URL, listener: NotifyListener): Promise<void> {
    listener(RegistryCategory.PROVIDERS, [URL.parse('empty://0.0.0.0/org.acme.Greeter?category=providers')]);
    listener(RegistryCategory.CONFIGURATORS, this.rules);
  }
  async unsubscribe(): Promise<void> {}
  lookup(): readonly URL[] {
    return [];
  }
  async destroy(): Promise<void> {}
}

let testApp: TestApp | undefined;
afterEach(() => testApp?.cleanup());

describe('config-centre rules with unknown keys', () => {
  it('are reported naming the key, the config-centre rule and the closest key', async () => {
    testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/filter-tpslimit']);
    const logger = new RecordingLogger();
    const app = await WeftApplication.start({ root: testApp.root, name: 'shop', logger });
    try {
      const rules = parseConfiguratorRules(
        'configVersion: v3.0\nkey: org.acme.Greeter\nconfigs:\n  - side: consumer\n    parameters: {tsp: 5, sayHelo.mock: "force:return null", timeout: 700}\n',
      );
      const warnings: string[] = [];
      const directory = new RegistryDirectory({
        service: Greeter,
        consumerUrl: URL.parse('consumer://10.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&methods=count,sayHello&side=consumer'),
        registry: new RulesRegistry(rules),
        protocols: app.model.getExtensionLoader(Protocol),
        logger,
        validate: () => undefined,
        checkKeys: (keys, where) => warnings.push(...app.parameterKeys.check(keys, Greeter.methodNames, where)),
      });
      await directory.subscribe();
      expect(directory.getUrl().getParameter('timeout')).toBe('700');
      const where = 'config-centre rule for org.acme.Greeter at 0.0.0.0 from zookeeper://127.0.0.1:2181';
      expect(warnings).toEqual([
        `\`tsp\`: unknown parameter in ${where}; did you mean \`tps\`?`,
        `\`sayHelo.mock\`: unknown parameter in ${where}; did you mean \`sayHello.mock\`?`,
      ]);
      await directory.destroy();
    } finally {
      await app.shutdown({ timeout: 100 });
    }
  });
});
