// The ZooKeeper registry against a real ZooKeeper (Debian's package, started on loopback by PID): Dubbo's layout
// and node names, round trips, operator overrides typed into zkCli, the port-less form, config-centre YAML rules
// (wire-and-registry §B.1–B.7, Part C).
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

import { RegistryFactory, RpcError, RpcErrorCode, URL } from '@weft/core';
import { ZookeeperClient, ZookeeperRegistry, ZookeeperRegistryFactory, isZkCode } from '@weft/registry-zookeeper';
import { RecordingLogger, freePort } from '@weft/test-utils';

import { Applications, DEMO, DemoService, TRIPLE_BUILT, demoProvider, exportDemo, javaUrlEncode, waitFor } from './support/harness.js';
import { ZkCliSession } from './support/zk-cli.js';
import { ZookeeperServer } from './support/zookeeper-server.js';

let zk: ZookeeperServer;
let client: ZookeeperClient;
let registryUrl: string;
const apps = new Applications();

beforeAll(async () => {
  zk = await ZookeeperServer.start();
  client = new ZookeeperClient({ connectString: zk.connectString, connectionTimeout: 10_000 });
  await client.waitConnected();
  registryUrl = `${zk.url}?timeout=5000&session=10000`;
});

afterAll(async () => {
  await client?.close();
  await zk?.dispose();
});

afterEach(async () => {
  await apps.stopAll();
  for (const root of await client.getChildren('/')) if (root !== 'zookeeper') await client.deleteRecursive(`/${root}`);
});

const PROVIDERS = `/dubbo/${DEMO}/providers`;
const CONSUMERS = `/dubbo/${DEMO}/consumers`;
const CONFIGURATORS = `/dubbo/${DEMO}/configurators`;

/** A provider app exporting the demo service, and a consumer app referring it. */
async function providerAndConsumer(options: { readonly consumerName?: string } = {}) {
  const provider = demoProvider('p1');
  const providerApp = (await apps.start('demo-provider', registryUrl)).app;
  const port = await freePort();
  const exported = await exportDemo(providerApp, provider, { port });
  const consumer = await apps.start(options.consumerName ?? 'demo-consumer', registryUrl);
  const demo = await consumer.app.refer(DemoService);
  return { provider, providerApp, port, exported, consumer, demo };
}

describe('layout (§B.1, §B.2)', () => {
  it('registers the provider under providers with the Java node name (sorted keys, upper-case hex), ephemeral and empty', async () => {
    const provider = demoProvider('p1');
    const { app } = await apps.start('demo-provider', registryUrl);
    const port = await freePort();
    await exportDemo(app, provider, { port });
    const registry = app.registry;
    expect(registry).toBeInstanceOf(ZookeeperRegistry);
    const [registered] = (registry as ZookeeperRegistry).getRegistered();
    const decoded = registered?.toDecodedString(true) ?? '';
    expect(decoded).toMatch(new RegExp(`^loop://127\\.0\\.0\\.1:${port}/com\\.alibaba\\.dubbo\\.demo\\.DemoService\\?anyhost=(true|false)&application=demo-provider&`));
    const keys = (decoded.split('?')[1] ?? '').split('&').map((kv) => kv.split('=')[0] ?? '');
    expect(keys).toEqual([...keys].sort());
    // The keys Dubbo 2.7/3.x providers write (spec §4.1): anyhost sorts first, as in a Java 2.7 node.
    expect(keys).toEqual(expect.arrayContaining(['anyhost', 'deprecated', 'dubbo', 'dynamic', 'generic', 'interface', 'methods', 'pid', 'release', 'side', 'timestamp']));

    const name = javaUrlEncode(decoded);
    expect(await client.getChildren(PROVIDERS)).toEqual([name]);
    expect(name.startsWith(`loop%3A%2F%2F127.0.0.1%3A${port}%2Fcom.alibaba.dubbo.demo.DemoService%3Fanyhost%3D`)).toBe(true);
    expect(name.match(/%[0-9A-Fa-f]{2}/g)?.every((escape) => /^%[0-9A-F]{2}$/.test(escape))).toBe(true);
    expect(URL.decode(name)).toBe(decoded);

    const leaf = await client.exists(`${PROVIDERS}/${name}`);
    expect(leaf?.ephemeralOwner).toBe((registry as ZookeeperRegistry).getSession().id.toString('hex'));
    expect((await client.getData(`${PROVIDERS}/${name}`))?.length).toBe(0);
    for (const path of ['/dubbo', `/dubbo/${DEMO}`, PROVIDERS]) {
      expect((await client.exists(path))?.ephemeralOwner, path).toBeUndefined();
    }
    // tools list the services under the root (weft override set suggests from them)
    expect(await (registry as ZookeeperRegistry).listServices()).toEqual([DEMO]);
  });

  it('a consumer creates providers, configurators and routers when subscribing, registers under consumers, and calls the provider', async () => {
    const { demo, exported, provider } = await providerAndConsumer();
    expect(await demo.sayHello('ann')).toBe('hello ann from p1');
    expect(provider.calls.sayHello).toBe(1);
    for (const category of ['providers', 'configurators', 'routers']) {
      expect((await client.exists(`/dubbo/${DEMO}/${category}`))?.ephemeralOwner, category).toBeUndefined();
    }
    const consumers = await client.getChildren(CONSUMERS);
    expect(consumers).toHaveLength(1);
    const consumerUrl = URL.parse(URL.decode(consumers[0] ?? ''), { decoded: true });
    expect(consumerUrl.protocol).toBe('consumer');
    expect(consumerUrl.getParameter('category')).toBe('consumers');
    expect(consumerUrl.getParameter('check')).toBe('false');
    expect(consumerUrl.getApplication()).toBe('demo-consumer');
    expect((await client.exists(`${CONSUMERS}/${consumers[0] ?? ''}`))?.ephemeralOwner).toBeDefined();

    // Unexporting deletes the node; the consumer is notified (empty://) and has no provider left.
    await exported.unexport();
    expect(await client.getChildren(PROVIDERS)).toEqual([]);
    // (Calls in between may still try the closed provider and fail with `network`.)
    const failure = await waitFor('the consumer to see no provider', async () => {
      try {
        await demo.sayHello('ann');
        return undefined;
      } catch (error) {
        return error instanceof RpcError && error.code === RpcErrorCode.NO_INVOKER ? error : undefined;
      }
    });
    expect(failure.message).toMatch(/No provider available/i);
  });

  it('an ephemeral node left by another session (not reaped yet) is deleted and created again by the registering session', async () => {
    const provider = demoProvider('p1');
    const { app } = await apps.start('demo-provider', registryUrl);
    const port = await freePort();
    const exported = await exportDemo(app, provider, { port });
    const registry = app.registry as ZookeeperRegistry;
    const [registered] = registry.getRegistered();
    if (registered === undefined) throw new Error('nothing registered');
    const path = registry.toUrlPath(registered);
    await exported.unexport();

    const stale = new ZookeeperClient({ connectString: zk.connectString });
    try {
      await stale.create(path, { ephemeral: true });
      const staleOwner = (await client.exists(path))?.ephemeralOwner;
      expect(staleOwner).toBe(stale.getSessionId());
      await registry.register(registered);
      const owner = (await client.exists(path))?.ephemeralOwner;
      expect(owner).toBe(registry.getSession().id.toString('hex'));
      expect(owner).not.toBe(staleOwner);
    } finally {
      await stale.close();
    }
  });

  it('a mock:// provider registered with dynamic=false is persistent, survives its registrant, and supplies force-mock values (Part C)', async () => {
    const { app } = await apps.start('ops-tool', registryUrl);
    const mockUrl = URL.parse(`mock://0.0.0.0/${DEMO}?application=ops-tool&dynamic=false&sayHello.mock=return+hello-from-mock-provider`);
    await app.registry?.register(mockUrl);
    const path = (app.registry as ZookeeperRegistry).toUrlPath(mockUrl);
    expect(path).toBe(`${PROVIDERS}/${javaUrlEncode(mockUrl.toDecodedString(true))}`);
    expect((await client.exists(path))?.ephemeralOwner).toBeUndefined();
    await apps.stop(app);
    expect(await client.exists(path)).toBeDefined();

    const consumer = await apps.start('demo-consumer', registryUrl);
    const demo = await consumer.app.refer(DemoService, { mock: 'force', check: false });
    expect(await demo.sayHello('ann')).toBe('hello-from-mock-provider');
  });

  it('an unparsable child is logged once and skipped; the other entries still arrive', async () => {
    await client.mkdirp(PROVIDERS);
    await client.create(`${PROVIDERS}/not%zz-a-url`);
    const { demo, consumer } = await providerAndConsumer();
    expect(await demo.sayHello('ann')).toBe('hello ann from p1');
    const warnings = consumer.logger.of('warn').filter((m) => m.includes('not%zz-a-url'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/ignoring the node .*providers\/not%zz-a-url: not a URL once decoded/);
  });

  it('group sets the root: /foo, and "/" puts services at the top', async () => {
    const logger = new RecordingLogger();
    const url = URL.parse(`${zk.url}?file-cache=false`);
    const provider = URL.parse(`loop://127.0.0.1:1/${DEMO}?side=provider&interface=${DEMO}`);
    const foo = new ZookeeperRegistry(url.addParameter('group', 'foo'), logger);
    const top = new ZookeeperRegistry(url.addParameter('group', '/'), logger);
    try {
      expect(foo.toUrlPath(provider)).toBe(`/foo/${DEMO}/providers/${javaUrlEncode(provider.toDecodedString(true))}`);
      expect(top.toUrlPath(provider)).toBe(`/${DEMO}/providers/${javaUrlEncode(provider.toDecodedString(true))}`);
      await foo.register(provider);
      expect(await client.getChildren(`/foo/${DEMO}/providers`)).toHaveLength(1);
    } finally {
      await foo.destroy();
      await top.destroy();
    }
  });

  it('the factory keeps one registry per address and root, and a user:password registry creates creator-only nodes', async () => {
    const factory = new ZookeeperRegistryFactory(new RecordingLogger());
    expect(factory).toBeInstanceOf(RegistryFactory);
    try {
      const a = factory.getRegistry(URL.parse(`${zk.url}?file-cache=false`));
      expect(factory.getRegistry(URL.parse(`${zk.url}?file-cache=false&timeout=3000`))).toBe(a);
      const other = factory.getRegistry(URL.parse(`${zk.url}?file-cache=false&group=other`));
      expect(other).not.toBe(a);
      const secured = factory.getRegistry(URL.parse(`zookeeper://admin:secret@127.0.0.1:${zk.port}?file-cache=false&group=secured`));
      expect(secured).not.toBe(a);
      await secured.register(URL.parse(`loop://127.0.0.1:1/${DEMO}?side=provider&interface=${DEMO}`));
      let denied: unknown;
      try {
        await client.getChildren(`/secured/${DEMO}/providers`);
      } catch (error) {
        denied = error;
      }
      expect(isZkCode(denied, 'NO_AUTH')).toBe(true);
    } finally {
      await factory.destroy();
    }
    const cleaner = new ZookeeperClient({ connectString: zk.connectString, auth: 'admin:secret' });
    await cleaner.deleteRecursive('/secured');
    await cleaner.close();
  });
});

describe('override rules typed by operators (§B.5)', () => {
  it('the spec example typed into zkCli (lower-case escapes, provider address, backticks) degrades sayHello only; delete and the end of the zkCli session restore it', async () => {
    const cli = zk.cli;
    if (cli === undefined) throw new Error('zkCli.sh is not installed (Debian package "zookeeper")');
    const { demo, provider, port, consumer } = await providerAndConsumer();
    expect(await demo.sayHello('ann')).toBe('hello ann from p1');
    const node = `${CONFIGURATORS}/override%3a%2f%2f127.0.0.1%3a${port}%2f${DEMO}%3fsayHello.mock%3dforce%3areturn+%60scj+mock+hhh%60%26category%3dconfigurators`;
    const mocked = async (): Promise<boolean> => (await demo.sayHello('ann')) === 'scj mock hhh';
    const real = async (): Promise<boolean> => (await demo.sayHello('ann')) === 'hello ann from p1';

    const session = ZkCliSession.open(cli, zk.connectString);
    try {
      await session.run(`create -e ${node}`, /Created \/dubbo/);
      await waitFor('sayHello to return the override mock', mocked);
      const reached = provider.calls.sayHello;
      for (let i = 0; i < 3; i++) expect(await demo.sayHello(`n${i}`)).toBe('scj mock hhh');
      expect(provider.calls.sayHello).toBe(reached);
      expect(await demo.echo('still real')).toBe('p1:still real');
      expect(consumer.app.getReferenceUrl(demo)?.getParameter('sayHello.mock')).toBe('force:return `scj mock hhh`');

      session.send(`delete ${node}`);
      await session.run(`ls ${CONFIGURATORS}`, /\[\]/);
      await waitFor('sayHello to reach the provider again after delete', real);

      await session.run(`create -e ${node}`, /Created \/dubbo/);
      await waitFor('sayHello to be mocked again', mocked);
    } finally {
      await session.close();
    }
    await waitFor('sayHello to reach the provider again after the zkCli session ended', real);
    expect(await client.getChildren(CONFIGURATORS)).toEqual([]);
  });

  it('the port-less 0.0.0.0 form (dynamic=false, application=<consumer>) force-mocks every method of that application only', async () => {
    const { demo, provider, consumer } = await providerAndConsumer();
    const rule = `override://0.0.0.0/${DEMO}?category=configurators&dynamic=false&application=demo-consumer&mock=force:return+null`;
    const node = `${CONFIGURATORS}/${javaUrlEncode(rule)}`;
    await client.create(node);
    await waitFor('sayHello to return null', async () => (await demo.sayHello('ann')) === null);
    const reached = { ...provider.calls };
    expect(await demo.echo('x')).toBeNull();
    expect(provider.calls).toEqual(reached);

    await client.delete(node);
    await waitFor('sayHello to reach the provider again', async () => (await demo.sayHello('ann')) === 'hello ann from p1');

    const otherApp = `override://0.0.0.0/${DEMO}?category=configurators&dynamic=false&application=another-app&mock=force:return+null`;
    await client.create(`${CONFIGURATORS}/${javaUrlEncode(otherApp)}`);
    const timeoutRule = `override://0.0.0.0/${DEMO}?category=configurators&dynamic=false&application=demo-consumer&echo.timeout=4321`;
    await client.create(`${CONFIGURATORS}/${javaUrlEncode(timeoutRule)}`);
    await waitFor('the later rule to apply', () => consumer.app.getReferenceUrl(demo)?.getParameter('echo.timeout') === '4321');
    expect(await demo.sayHello('ann')).toBe('hello ann from p1');
  });

  it('an override with an invalid mock expression is rejected with a logged error and changes nothing', async () => {
    const { demo, consumer } = await providerAndConsumer();
    const bad = `override://0.0.0.0/${DEMO}?category=configurators&dynamic=false&application=demo-consumer&sayHello.mock=force:throw NoSuchError`;
    await client.create(`${CONFIGURATORS}/${javaUrlEncode(bad)}`);
    const [message] = await waitFor('the rejection to be logged', () => {
      const errors = consumer.logger.of('error').filter((m) => m.includes('Rejected override rule'));
      return errors.length > 0 ? errors : undefined;
    });
    expect(message).toMatch(/NoSuchError/);
    expect(message).toMatch(/previous configuration stays/);
    expect(await demo.sayHello('ann')).toBe('hello ann from p1');
    expect(consumer.app.getReferenceUrl(demo)?.getParameter('sayHello.mock')).toBeUndefined();
  });
});

describe('config-centre YAML rules (§B.7)', () => {
  const SERVICE_RULE_PATH = `/dubbo/config/dubbo/${DEMO}::.configurators`;
  const APP_RULE_PATH = '/dubbo/config/dubbo/demo-consumer.configurators';
  const serviceRule = (parameters: string): string =>
    `configVersion: v3.0\nscope: service\nkey: ${DEMO}\nenabled: true\nconfigs:\n  - side: consumer\n    addresses: ["0.0.0.0"]\n    parameters:\n${parameters}`;
  const appRule = (parameters: string): string =>
    `configVersion: v3.0\nscope: application\nkey: demo-consumer\nenabled: true\nconfigs:\n  - side: consumer\n    parameters:\n${parameters}`;

  it('a service rule as dubbo-admin writes it (mock: "force:return null") applies like an override URL; a malformed update is rejected and the rule stays; deleting it clears it', async () => {
    const { demo, consumer, provider } = await providerAndConsumer();
    await client.writeData(SERVICE_RULE_PATH, serviceRule('      mock: "force:return null"\n'));
    await waitFor('sayHello to return null', async () => (await demo.sayHello('ann')) === null);
    const reached = { ...provider.calls };
    expect(await demo.echo('x')).toBeNull();
    expect(provider.calls).toEqual(reached);

    await client.setData(SERVICE_RULE_PATH, 'configVersion: v3.0\nconfigs: [\n');
    await waitFor('the YAML error to be logged', () => consumer.logger.of('error').some((m) => m.includes(`Rejected the configurator rule at ${SERVICE_RULE_PATH}`)));
    expect(consumer.logger.of('error').find((m) => m.includes(SERVICE_RULE_PATH))).toMatch(/neither valid YAML nor JSON.*previous rules of this source stay/);
    expect(await demo.sayHello('ann')).toBeNull();

    await client.setData(SERVICE_RULE_PATH, serviceRule('      {}\n'));
    await waitFor('the validation error to be logged', () => consumer.logger.of('error').some((m) => m.includes('parameters is required and must be a non-empty map')));
    expect(await demo.sayHello('ann')).toBeNull();

    await client.delete(SERVICE_RULE_PATH);
    await waitFor('sayHello to reach the provider again', async () => (await demo.sayHello('ann')) === 'hello ann from p1');
  });

  it('an application rule applies to the subscribing application; service rules come after it (later wins); deleting each clears it', async () => {
    const { demo } = await providerAndConsumer();
    await client.writeData(APP_RULE_PATH, appRule('      sayHello.mock: "force:return `from app`"\n'));
    await waitFor('the application rule', async () => (await demo.sayHello('ann')) === 'from app');
    expect(await demo.echo('x')).toBe('p1:x');

    await client.writeData(SERVICE_RULE_PATH, serviceRule('      sayHello.mock: "force:return `from service`"\n'));
    await waitFor('the service rule to win', async () => (await demo.sayHello('ann')) === 'from service');

    await client.delete(SERVICE_RULE_PATH);
    await waitFor('the application rule again', async () => (await demo.sayHello('ann')) === 'from app');
    await client.delete(APP_RULE_PATH);
    await waitFor('no rule', async () => (await demo.sayHello('ann')) === 'hello ann from p1');
  });

  it('a rule written before the consumer starts applies from its first call; a JSON list of override URLs works too', async () => {
    await client.writeData(APP_RULE_PATH, `["override://0.0.0.0/${DEMO}?category=configurators&application=demo-consumer&sayHello.mock=force:return+%60json+list%60"]`);
    const { demo } = await providerAndConsumer();
    expect(await demo.sayHello('ann')).toBe('json list');
  });

  it('an application rule for another application does not apply', async () => {
    await client.writeData('/dubbo/config/dubbo/another-app.configurators', appRule('      mock: "force:return null"\n').replace('key: demo-consumer', 'key: another-app'));
    await client.writeData(SERVICE_RULE_PATH, serviceRule('      echo.timeout: 2345\n'));
    const { demo, consumer } = await providerAndConsumer();
    await waitFor('the service rule', () => consumer.app.getReferenceUrl(demo)?.getParameter('echo.timeout') === '2345');
    expect(await demo.sayHello('ann')).toBe('hello ann from p1');
  });
});

if (TRIPLE_BUILT) {
  describe('tri end to end', () => {
    it('a tri provider registered in ZooKeeper is called by a consumer that discovered it', async () => {
      const provider = demoProvider('tri-provider');
      const providerApp = (await apps.start('demo-provider', registryUrl, ['@weft/protocol-triple'])).app;
      const port = await freePort();
      await providerApp.export(DemoService, provider.impl, { protocol: 'tri', host: '127.0.0.1', port });
      const children = await client.getChildren(PROVIDERS);
      expect(children.map((c) => URL.decode(c))).toEqual([expect.stringMatching(new RegExp(`^tri://127\\.0\\.0\\.1:${port}/`))]);
      const consumer = await apps.start('demo-consumer', registryUrl, ['@weft/protocol-triple']);
      const demo = await consumer.app.refer(DemoService);
      expect(await demo.sayHello('ann')).toBe('hello ann from tri-provider');
    });
  });
}
