import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { AbstractRegistry, Invocation, RegistryDirectory, URL, type ExtensionLoader, type Invoker, type Protocol } from '@weft/core';

import { consumerUrl, createHarness, FakeInvoker, Greeter, invocation, providerUrl, tally, type Harness } from './support/harness.js';

const LOAD_BALANCES = ['random', 'roundrobin', 'leastactive', 'shortestresponse', 'consistenthash'] as const;

let h: Harness;
beforeEach(async () => {
  h = await createHarness();
});
afterEach(() => h.destroy());

/** Calls with varied first arguments (so consistenthash spreads them over the ring). */
function pickMany(name: string, invokers: readonly Invoker[], n: number): number[] {
  const lb = h.loadBalance(name);
  const url = consumerUrl();
  let i = 0;
  return tally(invokers, n, () => lb.select(invokers, url, invocation({ args: [`user-${i++}`] })));
}

describe('weight in every load balancer', () => {
  it.each(LOAD_BALANCES)('%s: a provider of weight 0 is drained (no call reaches it)', (name) => {
    const a = new FakeInvoker(providerUrl('10.0.0.1:20880', { weight: 0 }));
    const b = new FakeInvoker(providerUrl('10.0.0.2:20880'));
    const c = new FakeInvoker(providerUrl('10.0.0.3:20880'));
    const counts = pickMany(name, [a, b, c], 3000);
    expect(counts[0]).toBe(0);
    expect((counts[1] as number) + (counts[2] as number)).toBe(3000);
    expect(counts[1]).toBeGreaterThan(600);
    expect(counts[2]).toBeGreaterThan(600);
  });

  it.each(['random', 'roundrobin', 'leastactive', 'shortestresponse', 'consistenthash'])('%s: weights 100 and 300 share calls about 1:3', (name) => {
    const a = new FakeInvoker(providerUrl('10.0.0.1:20880', { weight: 100 }));
    const b = new FakeInvoker(providerUrl('10.0.0.2:20880', { weight: 300 }));
    const counts = pickMany(name, [a, b], 8000);
    const share = (counts[1] as number) / 8000;
    expect(share).toBeGreaterThan(name === 'consistenthash' ? 0.65 : 0.72);
    expect(share).toBeLessThan(name === 'consistenthash' ? 0.85 : 0.78);
  });

  it.each(['random', 'roundrobin', 'leastactive', 'shortestresponse'])('%s: warm-up weighs a young provider weight × uptime / warmup (at least 1)', (name) => {
    const now = Date.now();
    // 60 s of a 600 s warm-up: weight 100 counts as 10; the old provider counts 100.
    const young = new FakeInvoker(providerUrl('10.0.0.1:20880', { timestamp: now - 60_000 }));
    const old = new FakeInvoker(providerUrl('10.0.0.2:20880', { timestamp: now - 3_600_000 }));
    const counts = pickMany(name, [young, old], 11_000);
    const share = (counts[0] as number) / 11_000;
    expect(share).toBeGreaterThan(0.07);
    expect(share).toBeLessThan(0.115);
    // warmup=120000 (2 min): the same 60 s make it weight 50.
    const young2 = new FakeInvoker(providerUrl('10.0.0.3:20880', { timestamp: now - 60_000, warmup: 120_000 }));
    const counts2 = pickMany(name, [young2, old], 6000);
    const share2 = (counts2[0] as number) / 6000;
    expect(share2).toBeGreaterThan(0.29);
    expect(share2).toBeLessThan(0.38);
  });
});

/** A registry the test drives: providers and override rules are pushed as notifications. */
class PushRegistry extends AbstractRegistry {
  private subscription: URL | undefined;
  constructor(private readonly providerList: readonly URL[]) {
    super(URL.parse('push://127.0.0.1:1?file-cache=false'), h.logger);
  }
  isAvailable(): boolean {
    return true;
  }
  protected async doRegister(): Promise<void> {}
  protected async doUnregister(): Promise<void> {}
  protected async doSubscribe(url: URL): Promise<void> {
    this.subscription = url;
    this.notify(url, 'providers', this.providerList);
  }
  protected async doUnsubscribe(): Promise<void> {}
  push(rules: readonly URL[]): void {
    if (this.subscription !== undefined) this.notify(this.subscription, 'configurators', rules);
  }
}

function fakeProtocols(made: FakeInvoker[]): ExtensionLoader<Protocol> {
  const protocol = {
    refer: async (_service: unknown, url: URL) => {
      const invoker = new FakeInvoker(url);
      made.push(invoker);
      return invoker;
    },
  };
  return { hasExtension: () => true, describeMissing: () => '', getExtension: () => protocol } as unknown as ExtensionLoader<Protocol>;
}

describe('weight and disabled overrides on provider addresses, through the registry directory', () => {
  it.each(LOAD_BALANCES)('%s: weight=0 drains the provider on the next call; disabled=true removes it; removing the rules restores it', async (name) => {
    const addresses = ['10.0.0.1:20880', '10.0.0.2:20880', '10.0.0.3:20880'];
    const registry = new PushRegistry(addresses.map((a) => URL.parse(`dubbo://${a}/org.acme.Greeter?interface=org.acme.Greeter&side=provider&application=server`)));
    const made: FakeInvoker[] = [];
    const directory = new RegistryDirectory({
      service: Greeter,
      consumerUrl: consumerUrl({ application: 'shop' }),
      registry,
      protocols: fakeProtocols(made),
      logger: h.logger,
      validate: () => undefined,
    });
    await directory.subscribe();
    const inv = new Invocation({ methodName: 'sayHello', args: ['x'] });
    const calls = (n: number): Map<string, number> => {
      const lb = h.loadBalance(name);
      const out = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        const chosen = lb.select(directory.list(inv), directory.getUrl(), new Invocation({ methodName: 'sayHello', args: [`k${i}`] }));
        const address = chosen.getUrl().getAddress();
        out.set(address, (out.get(address) ?? 0) + 1);
      }
      return out;
    };
    expect(calls(600).get('10.0.0.1:20880')).toBeGreaterThan(0);

    registry.push([URL.parse('override://10.0.0.1:20880/org.acme.Greeter?category=configurators&dynamic=false&weight=0')]);
    await new Promise((r) => setImmediate(r));
    await directory.settled();
    const drained = calls(1500);
    expect(drained.get('10.0.0.1:20880')).toBeUndefined();
    expect(drained.get('10.0.0.2:20880')).toBeGreaterThan(0);

    registry.push([
      URL.parse('override://10.0.0.1:20880/org.acme.Greeter?category=configurators&dynamic=false&weight=0'),
      URL.parse('override://10.0.0.2:20880/org.acme.Greeter?category=configurators&dynamic=false&disabled=true'),
    ]);
    await new Promise((r) => setImmediate(r));
    await directory.settled();
    expect(directory.list(inv).map((i) => i.getUrl().getAddress()).sort()).toEqual(['10.0.0.1:20880', '10.0.0.3:20880']);
    expect([...calls(300).keys()]).toEqual(['10.0.0.3:20880']);

    registry.push([]); // the registry turns an empty category into empty://…?category=configurators
    await new Promise((r) => setImmediate(r));
    await directory.settled();
    expect([...calls(900).keys()].sort()).toEqual(addresses);
    await directory.destroy();
  });
});
