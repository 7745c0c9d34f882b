import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import {
  Cluster,
  defineService,
  ExtensionError,
  ExtensionErrorCode,
  Filter,
  FrameworkModel,
  Invocation,
  Invoker,
  LoadBalance,
  Logger,
  Protocol,
  RandomSource,
  Result,
  RpcError,
  RpcErrorCode,
  RpcStatusRegistry,
  Serialization,
  URL,
  WeftApplication,
  type Directory,
  type Exporter,
  type ServiceDefinition,
  type ServiceImplementation,
} from '@weft/core';

// ---------------------------------------------------------------------------------------------------------------
// Harness

class RecordingLogger extends Logger {
  readonly warnings: string[] = [];
  readonly others: string[] = [];
  debug(message: string): void {
    this.others.push(message);
  }
  info(message: string): void {
    this.others.push(message);
  }
  warn(message: string): void {
    this.warnings.push(message);
  }
  error(message: string): void {
    this.others.push(message);
  }
}

/** Directories the trivial cluster joined, most recent last. */
const joined: Directory[] = [];

class FirstCluster extends Cluster {
  join(dir: Directory): Invoker {
    joined.push(dir);
    return new (class extends Invoker {
      getUrl(): URL {
        return dir.getUrl();
      }
      invoke(inv: Invocation): Result | Promise<Result> {
        return (dir.list(inv)[0] as Invoker).invoke(inv);
      }
    })();
  }
}

class FirstLoadBalance extends LoadBalance {
  select(invokers: readonly Invoker[]): Invoker {
    return invokers[0] as Invoker;
  }
}

/** Provider URLs as seen by consumer filters (the protocol invoker's URL). */
const providerUrlsSeen: URL[] = [];

class UrlSpy extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    providerUrlsSeen.push(invoker.getUrl());
    return invoker.invoke(invocation);
  }
}

class Noop extends Filter {
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    return invoker.invoke(invocation);
  }
}

/** Counts the invokers a test protocol creates and destroys. */
const counting = { referred: 0, destroyed: 0 };

class CountingProtocol extends Protocol {
  getDefaultPort(): number {
    return 7;
  }
  async export(): Promise<Exporter> {
    throw new Error('not for export');
  }
  async refer(_service: ServiceDefinition, url: URL): Promise<Invoker> {
    counting.referred++;
    return new (class extends Invoker {
      getUrl(): URL {
        return url;
      }
      async invoke(): Promise<Result> {
        return Result.of('counted');
      }
      override destroy(): void {
        counting.destroyed++;
      }
    })();
  }
  async destroy(): Promise<void> {}
}

const apps: WeftApplication[] = [];
const roots: string[] = [];

function newRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'weft-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 't', version: '1.0.0' }));
  return root;
}

/** Registers the test extensions every application of these tests needs. */
function prepare(app: WeftApplication): WeftApplication {
  apps.push(app);
  app.model.getExtensionLoader(Cluster).addExtension('failover', FirstCluster);
  app.model.getExtensionLoader(LoadBalance).addExtension('first', FirstLoadBalance);
  const filters = app.model.getExtensionLoader(Filter);
  filters.addExtension('urlspy', UrlSpy, { activate: { group: ['consumer'] } });
  filters.addExtension('noop', Noop);
  app.model.getExtensionLoader(Protocol).addExtension('counting', CountingProtocol);
  return app;
}

async function startApp(options: { root?: string; name?: string; logger?: Logger; framework?: FrameworkModel } = {}): Promise<WeftApplication> {
  const app = await WeftApplication.start({
    root: options.root ?? newRoot(),
    name: options.name ?? 't',
    logger: options.logger ?? new RecordingLogger(),
    framework: options.framework,
  });
  return prepare(app);
}

beforeEach(() => {
  joined.length = 0;
  providerUrlsSeen.length = 0;
  counting.referred = 0;
  counting.destroyed = 0;
});

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.shutdown({ timeout: 100 })));
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a rejection, got ${String(value)}`);
    },
    (error: unknown) => error,
  );
}

/** Expects an ExtensionError `ERR_SPI_INVALID_PARAMETER` whose message contains every fragment. */
async function invalid(promise: Promise<unknown>, ...fragments: string[]): Promise<ExtensionError> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(ExtensionError);
  expect((error as ExtensionError).code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
  for (const fragment of fragments) expect((error as Error).message).toContain(fragment);
  return error as ExtensionError;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A promise with its resolver exposed. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

// ---------------------------------------------------------------------------------------------------------------
// The service

const Echo = defineService('org.acme.Echo', {
  echo: { args: [String], returns: String },
  slow: { args: [Number], returns: String },
});

function echo(label = 'echo'): ServiceImplementation<typeof Echo.methods> {
  return {
    echo: (s) => `${label}:${s}`,
    slow: (ms) => sleep(ms).then(() => `${label} slept ${ms}`),
  };
}

// ---------------------------------------------------------------------------------------------------------------

describe('WeftApplication: URLs', () => {
  it('export builds the provider URL from the options', async () => {
    const app = await startApp({ name: 'shop' });
    const before = Date.now();
    const { url } = await app.export(Echo, echo(), {
      version: '1.2.0',
      group: 'gold',
      timeout: 300,
      filter: ['noop', '-urlspy'],
      parameters: { weight: 50, warmup: '0' },
      methods: { slow: { timeout: 900, retries: 0 } },
    });
    expect(url.protocol).toBe('injvm');
    expect(url.host).toBe('127.0.0.1');
    expect(url.port).toBe(0);
    expect(url.path).toBe('org.acme.Echo');
    expect(url.getParameter('interface')).toBe('org.acme.Echo');
    expect(url.getParameter('application')).toBe('shop');
    expect(url.getParameter('side')).toBe('provider');
    expect(url.getParameter('methods')).toBe('echo,slow');
    expect(url.getParameter('version')).toBe('1.2.0');
    expect(url.getParameter('group')).toBe('gold');
    expect(url.getParameter('timeout')).toBe('300');
    expect(url.getParameter('service.filter')).toBe('noop,-urlspy');
    expect(url.getParameter('reference.filter')).toBeUndefined();
    expect(url.getParameter('weight')).toBe('50');
    expect(url.getParameter('anyhost')).toBe('true');
    expect(url.getParameter('slow.timeout')).toBe('900');
    expect(url.getParameter('slow.retries')).toBe('0');
    expect(url.getMethodParameter('slow', 'timeout', 0)).toBe(900);
    expect(url.getMethodParameter('echo', 'timeout', 0)).toBe(300);
    const timestamp = url.getParameter('timestamp', 0);
    expect(timestamp).toBeGreaterThanOrEqual(before);
    expect(timestamp).toBeLessThanOrEqual(Date.now());
    expect(url.getServiceKey()).toBe('gold/org.acme.Echo:1.2.0');
  });

  it('export without options: only what Weft always sets', async () => {
    const app = await startApp();
    const { url } = await app.export(Echo, echo());
    expect([...url.parameters.keys()].sort()).toEqual(['anyhost', 'application', 'interface', 'methods', 'side', 'timestamp']);
  });

  it('export uses the protocol default port unless a port is given', async () => {
    const app = await startApp();
    const service = defineService('org.acme.Ported', { ping: {} });
    const error = await rejection(app.export(service, { ping: () => undefined }, { protocol: 'counting', host: '10.0.0.5' }));
    // The counting protocol refuses exports; its default port was used for the URL it got.
    expect((error as Error).message).toBe('not for export');
    const { url } = await app.export(service, { ping: () => undefined }, { port: 1234 });
    expect(url.port).toBe(1234);
  });

  it('refer builds the consumer URL from the options', async () => {
    const app = await startApp({ name: 'web' });
    await app.export(Echo, echo(), { version: '2', group: 'g' });
    const proxy = await app.refer(Echo, {
      version: '2',
      group: 'g',
      timeout: 250,
      retries: 0,
      cluster: 'failover',
      loadbalance: 'first',
      filter: 'urlspy,noop',
      parameters: { actives: 3 },
      methods: { echo: { timeout: 50, loadbalance: 'first' } },
    });
    await expect(proxy.echo('x')).resolves.toBe('echo:x');
    const url = joined.at(-1)?.getUrl() as URL;
    expect(url.protocol).toBe('consumer');
    expect(url.path).toBe('org.acme.Echo');
    expect(url.host).not.toBe('');
    expect(Object.fromEntries(url.parameters)).toEqual({
      interface: 'org.acme.Echo',
      application: 'web',
      side: 'consumer',
      methods: 'echo,slow',
      version: '2',
      group: 'g',
      timeout: '250',
      'reference.filter': 'urlspy,noop',
      retries: '0',
      cluster: 'failover',
      loadbalance: 'first',
      actives: '3',
      'echo.timeout': '50',
      'echo.loadbalance': 'first',
    });
  });

  it('the default provider URL of a reference is injvm with the consumer parameters', async () => {
    const app = await startApp();
    await app.export(Echo, echo(), { version: '1' });
    const proxy = await app.refer(Echo, { version: '1', timeout: 321 });
    await proxy.echo('a');
    const url = providerUrlsSeen[0] as URL;
    expect(url.protocol).toBe('injvm');
    expect(url.getAddress()).toBe('127.0.0.1');
    expect(url.path).toBe('org.acme.Echo');
    expect(url.getParameter('timeout')).toBe('321');
    expect(url.getServiceKey()).toBe('org.acme.Echo:1');
  });

  it('a direct url creates provider URLs that inherit the consumer parameters', async () => {
    const app = await startApp({ name: 'direct' });
    await app.export(Echo, echo('direct'), { version: '3' });
    const proxy = await app.refer(Echo, { url: 'injvm://127.0.0.1/org.acme.Echo', version: '3', timeout: 400, methods: { slow: { timeout: 20 } } });
    await expect(proxy.echo('hi')).resolves.toBe('direct:hi');
    const url = providerUrlsSeen[0] as URL;
    expect(url.toIdentityString()).toBe('injvm://127.0.0.1/org.acme.Echo');
    expect(url.getParameter('interface')).toBe('org.acme.Echo');
    expect(url.getParameter('application')).toBe('direct');
    expect(url.getParameter('version')).toBe('3');
    expect(url.getParameter('timeout')).toBe('400');
    expect(url.getParameter('methods')).toBe('echo,slow');
    expect(url.getParameter('slow.timeout')).toBe('20');
    expect(url.getParameter('side')).toBe('consumer');
    // Inherited parameters take effect: the method-level timeout applies to calls through the direct URL.
    const error = await rejection(proxy.slow(300));
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
  });

  it('a direct url without path gets the service name; several urls make several invokers', async () => {
    const app = await startApp();
    await app.export(Echo, echo());
    const proxy = await app.refer(Echo, { url: 'injvm://127.0.0.1 ; injvm://127.0.0.2/org.acme.Echo;' });
    await expect(proxy.echo('x')).resolves.toBe('echo:x');
    const invokers = joined.at(-1)?.getAllInvokers() ?? [];
    expect(invokers.map((i) => i.getUrl().toIdentityString())).toEqual(['injvm://127.0.0.1/org.acme.Echo', 'injvm://127.0.0.2/org.acme.Echo']);
  });
});

describe('WeftApplication: validation at export/refer time', () => {
  it('a non-numeric timeout is refused, naming the key', async () => {
    const app = await startApp();
    await invalid(app.export(Echo, echo(), { parameters: { timeout: 'soon' } }), 'export(org.acme.Echo)', '"timeout"', 'soon');
    await invalid(app.refer(Echo, { parameters: { timeout: 'soon' } }), 'refer(org.acme.Echo)', '"timeout"');
    await invalid(app.refer(Echo, { timeout: Number.NaN }), '"timeout"', 'NaN');
  });

  it('a non-numeric retries is refused, naming the key', async () => {
    const app = await startApp();
    await invalid(app.refer(Echo, { parameters: { retries: 'twice' } }), 'refer(org.acme.Echo)', '"retries"', 'twice');
  });

  it('a non-numeric method-level value is refused, naming key and method', async () => {
    const app = await startApp();
    await invalid(app.refer(Echo, { methods: { slow: { timeout: 'x' } } }), '"timeout"', '"slow"');
    await invalid(app.export(Echo, echo(), { methods: { echo: { executes: 'many' } } }), '"executes"', '"echo"');
  });

  it('an unknown cluster is refused', async () => {
    const app = await startApp();
    await invalid(app.refer(Echo, { cluster: 'forking' }), 'refer(org.acme.Echo)', 'cluster=forking', 'weft.rpc.Cluster', 'failover');
  });

  it('an unknown load balance is refused, global and method-level', async () => {
    const app = await startApp();
    await invalid(app.refer(Echo, { loadbalance: 'roundrobin' }), 'loadbalance=roundrobin', 'weft.rpc.LoadBalance');
    await invalid(app.refer(Echo, { methods: { slow: { loadbalance: 'leastactive' } } }), 'slow.loadbalance=leastactive');
    await invalid(app.refer(Echo, { parameters: { 'echo.loadbalance': 'nope' } }), 'echo.loadbalance=nope');
  });

  it('an unknown filter is refused; -name and default are not filter names', async () => {
    const app = await startApp();
    await invalid(app.refer(Echo, { filter: 'noop,tracing' }), 'filter=tracing', 'weft.rpc.Filter');
    await invalid(app.export(Echo, echo(), { filter: ['auth'] }), 'export(org.acme.Echo)', 'filter=auth');
    await invalid(app.export(Echo, echo(), { parameters: { 'service.filter': 'nope' } }), 'filter=nope');
    await expect(app.refer(Echo, { filter: ['-tracing', 'default', 'noop'] })).resolves.toBeDefined();
  });

  it('an unknown protocol is refused', async () => {
    const app = await startApp();
    await invalid(app.export(Echo, echo(), { protocol: 'dubbo' }), 'protocol=dubbo', 'weft.rpc.Protocol', 'injvm');
    await invalid(app.refer(Echo, { url: 'dubbo://127.0.0.1:20880' }), 'url=dubbo');
  });

  it.each(['interface', 'side', 'application', 'methods'])('the reserved parameter %j cannot be set', async (key) => {
    const app = await startApp();
    await invalid(app.export(Echo, echo(), { parameters: { [key]: 'x' } }), `"${key}"`, 'set by Weft');
    await invalid(app.refer(Echo, { parameters: { [key]: 'x' } }), `"${key}"`, 'set by Weft');
  });

  it('`methods` naming an unknown method is refused', async () => {
    const app = await startApp();
    await invalid(app.refer(Echo, { methods: { sayHello: { timeout: 1 } } }), 'methods.sayHello', 'echo, slow');
    await invalid(app.export(Echo, echo(), { methods: { toString: { timeout: 1 } } }), 'methods.toString');
  });

  it('an implementation missing a method is refused', async () => {
    const app = await startApp();
    const partial = { echo: (s: string) => s } as unknown as ServiceImplementation<typeof Echo.methods>;
    await invalid(app.export(Echo, partial), 'org.acme.Echo', 'slow');
    const notAFunction = { echo: (s: string) => s, slow: 'fast' } as unknown as ServiceImplementation<typeof Echo.methods>;
    await invalid(app.export(Echo, notAFunction), 'slow');
  });

  it('a method only inherited from Object.prototype does not implement a declared method', async () => {
    const app = await startApp();
    const Describable = defineService('org.acme.Describable', { toString: { returns: String }, valueOf: { returns: Number } });
    const empty = {} as unknown as ServiceImplementation<typeof Describable.methods>;
    await invalid(app.export(Describable, empty), 'toString', 'valueOf');
    // A class implementing them on its own prototype is fine.
    class Impl {
      toString(): string {
        return 'described';
      }
      valueOf(): number {
        return 7;
      }
    }
    await app.export(Describable, new Impl());
    const proxy = await app.refer(Describable);
    await expect(proxy.toString()).resolves.toBe('described');
    await expect(proxy.valueOf()).resolves.toBe(7);
  });

  it('an unparsable url or one without protocol is refused', async () => {
    const app = await startApp();
    await invalid(app.refer(Echo, { url: 'injvm://127.0.0.1:99999/x' }), 'url=injvm://127.0.0.1:99999/x', 'not a valid URL');
    await invalid(app.refer(Echo, { url: '://127.0.0.1' }), 'not a valid URL');
    await invalid(app.refer(Echo, { url: '127.0.0.1:20880/org.acme.Echo' }), 'url=127.0.0.1:20880/org.acme.Echo', 'no protocol');
  });

  it('a failing refer leaves no provider invoker behind', async () => {
    const app = await startApp();
    await invalid(app.refer(Echo, { url: 'counting://10.0.0.1;dubbo://10.0.0.2' }), 'url=dubbo');
    expect(counting.referred).toBe(counting.destroyed);
    await invalid(app.refer(Echo, { url: 'counting://10.0.0.1;injvm://127.0.0.1?copy=maybe' }), 'copy');
    expect(counting.referred).toBe(counting.destroyed);
    // A valid direct url to the counting protocol works.
    const proxy = await app.refer(Echo, { url: 'counting://10.0.0.1' });
    await expect(proxy.echo('x')).resolves.toBe('counted');
  });

  it('nothing is exported when validation fails', async () => {
    const app = await startApp();
    await invalid(app.export(Echo, echo(), { parameters: { timeout: 'x' } }));
    const proxy = await app.refer(Echo);
    const error = await rejection(proxy.echo('x'));
    expect((error as RpcError).code).toBe(RpcErrorCode.NO_INVOKER);
    // The key is still free.
    await app.export(Echo, echo());
    await expect(proxy.echo('x')).resolves.toBe('echo:x');
  });
});

describe('WeftApplication: graceful shutdown', () => {
  it('a call in flight completes after shutdown() started, a new call is refused with no-invoker', async () => {
    const app = await startApp();
    const gate = deferred<string>();
    let started = 0;
    await app.export(Echo, {
      echo: async (s) => {
        started++;
        return `${await gate.promise}:${s}`;
      },
      slow: (ms) => `${ms}`,
    });
    const proxy = await app.refer(Echo);
    const inFlight = proxy.echo('a');
    await sleep(5);
    expect(started).toBe(1);
    let stopped = false;
    const stopping = app.shutdown().then(() => {
      stopped = true;
    });
    const refused = await rejection(proxy.echo('b'));
    expect(refused).toBeInstanceOf(RpcError);
    expect((refused as RpcError).code).toBe(RpcErrorCode.NO_INVOKER);
    expect((refused as Error).message).toContain('shutting down');
    expect(started).toBe(1);
    await sleep(20);
    expect(stopped).toBe(false);
    gate.resolve('done');
    await expect(inFlight).resolves.toBe('done:a');
    await stopping;
    expect(stopped).toBe(true);
    // After shutdown, calls are still refused the same way.
    const after = await rejection(proxy.$call('echo', ['c']));
    expect((after as RpcError).code).toBe(RpcErrorCode.NO_INVOKER);
  });

  it('shutdown gives up on calls that never end after its timeout, with a warning', async () => {
    const logger = new RecordingLogger();
    const app = await startApp({ logger, name: 'stuck' });
    await app.export(Echo, { echo: () => new Promise<string>(() => undefined), slow: (ms) => `${ms}` });
    const proxy = await app.refer(Echo, { timeout: 0 });
    void proxy.echo('never');
    void proxy.echo('never again');
    await sleep(5);
    const start = Date.now();
    await app.shutdown({ timeout: 50 });
    const elapsed = Date.now() - start;
    expect(elapsed).toBeGreaterThanOrEqual(45);
    expect(elapsed).toBeLessThan(1000);
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]).toContain('stuck');
    expect(logger.warnings[0]).toContain('2 call(s) still in flight after 50 ms');
  });

  it('a call with a timeout still settles by its timeout when shutdown gave up on it', async () => {
    const app = await startApp();
    await app.export(Echo, { echo: () => new Promise<string>(() => undefined), slow: (ms) => `${ms}` });
    const proxy = await app.refer(Echo, { timeout: 150 });
    const pending = proxy.echo('never').then(
      () => 'resolved',
      (error: unknown) => error,
    );
    await app.shutdown({ timeout: 20 });
    const outcome = await Promise.race([pending, sleep(2000).then(() => 'still pending')]);
    expect(outcome).toBeInstanceOf(RpcError);
    expect((outcome as RpcError).code).toBe(RpcErrorCode.TIMEOUT);
  });

  it('shutdown without calls in flight does not warn', async () => {
    const logger = new RecordingLogger();
    const app = await startApp({ logger });
    await app.export(Echo, echo());
    const proxy = await app.refer(Echo);
    await proxy.echo('x');
    await app.shutdown({ timeout: 10 });
    expect(logger.warnings).toEqual([]);
  });

  it('export and refer after shutdown fail with ERR_SPI_DESTROYED', async () => {
    const app = await startApp({ name: 'gone' });
    await app.shutdown();
    for (const attempt of [app.export(Echo, echo()), app.refer(Echo)]) {
      const error = await rejection(attempt);
      expect(error).toBeInstanceOf(ExtensionError);
      expect((error as ExtensionError).code).toBe(ExtensionErrorCode.DESTROYED);
      expect((error as Error).message).toContain('"gone"');
    }
  });

  it('export after shutdown started (calls still draining) fails too', async () => {
    const app = await startApp();
    const gate = deferred<string>();
    await app.export(Echo, { echo: () => gate.promise, slow: (ms) => `${ms}` });
    const proxy = await app.refer(Echo);
    const inFlight = proxy.echo('x');
    const stopping = app.shutdown();
    const error = await rejection(app.refer(Echo));
    expect((error as ExtensionError).code).toBe(ExtensionErrorCode.DESTROYED);
    gate.resolve('ok');
    await expect(inFlight).resolves.toBe('ok');
    await stopping;
  });

  it('shutdown is idempotent', async () => {
    const app = await startApp();
    await app.export(Echo, echo());
    const first = app.shutdown();
    const second = app.shutdown({ timeout: 1 });
    expect(second).toBe(first);
    await first;
    await expect(app.shutdown()).resolves.toBeUndefined();
    expect(app.model.isDestroyed).toBe(true);
    expect(app.model.framework.isDestroyed).toBe(true);
  });

  it('shutdown un-exports services and destroys references', async () => {
    const app = await startApp();
    await app.export(Echo, echo());
    const proxy = await app.refer(Echo);
    await proxy.echo('x');
    const invoker = joined.at(-1)?.getAllInvokers()[0] as Invoker;
    expect(invoker.isAvailable()).toBe(true);
    await app.shutdown();
    expect(invoker.isAvailable()).toBe(false);
    expect(joined.at(-1)?.isDestroyed()).toBe(true);
  });
});

describe('WeftApplication: several applications in one process', () => {
  it('two applications on the same root each export the same service (injvm registries are per application)', async () => {
    const root = newRoot();
    const a = await startApp({ root, name: 'a' });
    const b = await startApp({ root, name: 'b' });
    await a.export(Echo, echo('A'));
    await b.export(Echo, echo('B'));
    await expect((await a.refer(Echo)).echo('x')).resolves.toBe('A:x');
    await expect((await b.refer(Echo)).echo('x')).resolves.toBe('B:x');
  });

  it("a consumer in one application cannot reach another application's injvm provider", async () => {
    const root = newRoot();
    const a = await startApp({ root, name: 'a' });
    const b = await startApp({ root, name: 'b' });
    await b.export(Echo, echo('B'));
    const fromA = await a.refer(Echo);
    const error = await rejection(fromA.echo('x'));
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(RpcErrorCode.NO_INVOKER);
    // Also with a direct injvm url.
    const direct = await a.refer(Echo, { url: 'injvm://127.0.0.1/org.acme.Echo' });
    expect(((await rejection(direct.echo('x'))) as RpcError).code).toBe(RpcErrorCode.NO_INVOKER);
  });

  it('one framework, two applications: same isolation, distinct application-scoped instances', async () => {
    const root = newRoot();
    const framework = FrameworkModel.create({ root, logger: new RecordingLogger() });
    const a = await startApp({ root, name: 'a', framework });
    const b = await startApp({ root, name: 'b', framework });
    expect(a.model.framework).toBe(framework);
    expect(b.model.framework).toBe(framework);
    expect(framework.getApplications()).toEqual([a.model, b.model]);

    await a.export(Echo, echo('A'));
    await b.export(Echo, echo('B'));
    await expect((await a.refer(Echo)).echo('x')).resolves.toBe('A:x');
    await expect((await b.refer(Echo)).echo('x')).resolves.toBe('B:x');

    const protocolA = a.model.getExtensionLoader(Protocol).getExtension('injvm');
    const protocolB = b.model.getExtensionLoader(Protocol).getExtension('injvm');
    expect(protocolA).not.toBe(protocolB);
    expect(a.model.getExtensionLoader(Filter).getExtension('noop')).not.toBe(b.model.getExtensionLoader(Filter).getExtension('noop'));
    expect(a.model.getService(RpcStatusRegistry)).toBeInstanceOf(RpcStatusRegistry);
    expect(a.model.getService(RpcStatusRegistry)).not.toBe(b.model.getService(RpcStatusRegistry));
    expect(a.model.getService(RandomSource)).toBeInstanceOf(RandomSource);
    expect(a.model.getService(RandomSource)).not.toBe(b.model.getService(RandomSource));
    // Serialization is framework-scoped (stateless codecs): shared.
    expect(a.model.getExtensionLoader(Serialization)).toBe(b.model.getExtensionLoader(Serialization));

    // Shutting one application down leaves the framework and the other application running.
    await a.shutdown();
    expect(framework.isDestroyed).toBe(false);
    expect(framework.getApplications()).toEqual([b.model]);
    await expect((await b.refer(Echo)).echo('y')).resolves.toBe('B:y');
    await b.shutdown();
    expect(framework.isDestroyed).toBe(false);
    await framework.destroy();
  });

  it('separate frameworks do not share application-scoped services or extensions', async () => {
    const root = newRoot();
    const a = await startApp({ root, name: 'a' });
    const b = await startApp({ root, name: 'b' });
    expect(a.model.framework).not.toBe(b.model.framework);
    expect(a.model.getService(RpcStatusRegistry)).not.toBe(b.model.getService(RpcStatusRegistry));
    expect(a.model.getService(RandomSource)).not.toBe(b.model.getService(RandomSource));
    expect(a.model.getExtensionLoader(Protocol).getExtension('injvm')).not.toBe(b.model.getExtensionLoader(Protocol).getExtension('injvm'));
    // Shutting one down leaves the other working.
    await b.export(Echo, echo('B'));
    const proxy = await b.refer(Echo);
    await a.shutdown();
    await expect(proxy.echo('z')).resolves.toBe('B:z');
  });

  it('shutting one application down does not refuse calls of another', async () => {
    const framework = FrameworkModel.create({ root: newRoot(), logger: new RecordingLogger() });
    const a = await startApp({ name: 'a', framework });
    const b = await startApp({ name: 'b', framework });
    await b.export(Echo, echo('B'));
    const proxy = await b.refer(Echo);
    const stopping = a.shutdown();
    await expect(proxy.echo('still')).resolves.toBe('B:still');
    await stopping;
    await b.shutdown();
    await framework.destroy();
  });
});

describe('WeftApplication: RpcStatus counters stay bounded', () => {
  it('releases a provider’s counters when it is unexported, and a reference’s when the application shuts down', async () => {
    const app = await startApp();
    const statuses = app.model.getService(RpcStatusRegistry);
    const exported = await app.export(Echo, echo());
    await app.refer(Echo);
    const providerInvokerUrl = joined.at(-1)?.getAllInvokers()[0]?.getUrl();
    expect(providerInvokerUrl).toBeDefined();
    // counters as the executelimit (provider) and active-limit/leastactive (consumer) users create them
    statuses.beginCount(exported.url, 'echo');
    statuses.endCount(exported.url, 'echo', 1, true);
    statuses.beginCount(providerInvokerUrl as URL, 'echo');
    statuses.endCount(providerInvokerUrl as URL, 'echo', 1, true);
    expect(statuses.size).toBe(2);
    await exported.unexport();
    expect(statuses.size).toBe(1);
    await app.shutdown();
    expect(statuses.size).toBe(0);
  });
});
