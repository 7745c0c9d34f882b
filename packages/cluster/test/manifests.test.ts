import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { Cluster, LoadBalance, StaticDirectory } from '@weft/core';
import {
  AvailableCluster,
  AvailableClusterInvoker,
  BroadcastCluster,
  BroadcastClusterInvoker,
  ConsistentHashLoadBalance,
  FailbackCluster,
  FailbackClusterInvoker,
  FailfastCluster,
  FailfastClusterInvoker,
  FailoverCluster,
  FailoverClusterInvoker,
  FailsafeCluster,
  FailsafeClusterInvoker,
  ForkingCluster,
  ForkingClusterInvoker,
  LeastActiveLoadBalance,
  RandomLoadBalance,
  RoundRobinLoadBalance,
  ShortestResponseLoadBalance,
} from '@weft/cluster';

import { consumerUrl, createHarness, Greeter, invocation, providers, type Harness } from './support/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
});
afterAll(() => h.destroy());

const CLUSTERS = {
  available: [AvailableCluster, AvailableClusterInvoker],
  broadcast: [BroadcastCluster, BroadcastClusterInvoker],
  failback: [FailbackCluster, FailbackClusterInvoker],
  failfast: [FailfastCluster, FailfastClusterInvoker],
  failover: [FailoverCluster, FailoverClusterInvoker],
  failsafe: [FailsafeCluster, FailsafeClusterInvoker],
  forking: [ForkingCluster, ForkingClusterInvoker],
} as const;

const LOAD_BALANCES = {
  consistenthash: ConsistentHashLoadBalance,
  leastactive: LeastActiveLoadBalance,
  random: RandomLoadBalance,
  roundrobin: RoundRobinLoadBalance,
  shortestresponse: ShortestResponseLoadBalance,
} as const;

describe('the manifests', () => {
  it('contribute exactly the seven cluster strategies, from this package', () => {
    const loader = h.app.getExtensionLoader(Cluster);
    expect(loader.getSupportedExtensions()).toEqual(Object.keys(CLUSTERS).sort());
    for (const name of Object.keys(CLUSTERS)) {
      expect(loader.getExtensionSource(name)).toMatchObject({ kind: 'manifest' });
      expect(JSON.stringify(loader.getExtensionSource(name))).toContain('@weft/cluster');
    }
  });

  it('contribute exactly the five load balances, from this package', () => {
    const loader = h.app.getExtensionLoader(LoadBalance);
    expect(loader.getSupportedExtensions()).toEqual(Object.keys(LOAD_BALANCES).sort());
    for (const name of Object.keys(LOAD_BALANCES)) {
      expect(JSON.stringify(loader.getExtensionSource(name))).toContain('@weft/cluster');
    }
  });

  it('activate nothing: no entry has activation metadata, so no group or key pulls one in', () => {
    const clusters = h.app.getExtensionLoader(Cluster);
    const balances = h.app.getExtensionLoader(LoadBalance);
    for (const name of clusters.getSupportedExtensions()) expect(clusters.getActivateMetadata(name)).toBeUndefined();
    for (const name of balances.getSupportedExtensions()) expect(balances.getActivateMetadata(name)).toBeUndefined();
    const url = consumerUrl({ cluster: 'failfast', loadbalance: 'roundrobin' });
    expect(clusters.getActivateExtensions(url, undefined, 'consumer')).toEqual([]);
    expect(balances.getActivateExtensions(url, undefined, 'consumer')).toEqual([]);
  });

  it('report no discovery problem for this package', () => {
    const problems = h.framework.index.problems.filter((p) => p.file.includes('META-INF'));
    expect(problems).toEqual([]);
  });

  it('map each name to the exported class (the same module instance as the package entry point)', () => {
    for (const [name, [cls]] of Object.entries(CLUSTERS)) expect(h.cluster(name)).toBeInstanceOf(cls);
    for (const [name, cls] of Object.entries(LOAD_BALANCES)) expect(h.loadBalance(name)).toBeInstanceOf(cls);
  });

  it('make failover the default cluster and random the default load balance', () => {
    expect(h.app.getExtensionLoader(Cluster).getDefaultExtension()).toBeInstanceOf(FailoverCluster);
    expect(h.app.getExtensionLoader(LoadBalance).getDefaultExtension()).toBeInstanceOf(RandomLoadBalance);
  });
});

describe('the adaptive Cluster', () => {
  it.each(Object.entries(CLUSTERS))(
    'joins with the strategy named by the "cluster" URL key: %s',
    async (name, [, invokerClass]) => {
      const directory = new StaticDirectory(Greeter, consumerUrl({ cluster: name }), providers(2));
      const invoker = h.app.getExtensionLoader(Cluster).getAdaptiveExtension().join(directory);
      expect(invoker).toBeInstanceOf(invokerClass);
      expect(invoker.getUrl()).toBe(directory.getUrl());
      const result = await invoker.invoke(invocation());
      expect(result.hasException()).toBe(false);
    }
  );

  it('joins with failover when the URL names no cluster', () => {
    const directory = new StaticDirectory(Greeter, consumerUrl(), providers(1));
    expect(h.app.getExtensionLoader(Cluster).getAdaptiveExtension().join(directory)).toBeInstanceOf(FailoverClusterInvoker);
  });
});
