import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it, vi } from 'vitest';

import { Cluster, FrameworkModel, Invocation, LoadBalance, Result, StaticDirectory, URL } from '@weft/core';
import { ClusterKeys } from '@weft/cluster';

import { Greeter, packageRoot, providers as fakeProviders, RecordingLogger } from './support/harness.js';
import { sourceRegion } from '@weft/test-utils';

const thisFile = readFileSync(fileURLToPath(import.meta.url), 'utf8');
const readme = readFileSync(join(packageRoot, 'README.md'), 'utf8');

const region = (name: string): string => sourceRegion(thisFile, name);

let framework: FrameworkModel | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await framework?.destroy();
});

describe('README', () => {
  it('usage snippet runs: failover with retries=1 reaches the second provider', async () => {
    framework = FrameworkModel.create({ root: packageRoot, logger: new RecordingLogger() });
    const app = framework.newApplication('orders');
    await app.loadExtensions(Cluster, LoadBalance);
    let attempts = 0;
    const providers = fakeProviders(2, async (_inv, _call, self) => {
      if (attempts++ === 0) throw new Error('first attempt fails');
      return Result.of(`hello from ${self.url.getAddress()}`);
    });
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);

    // #region usage
    const consumerUrl = URL.parse('consumer://10.0.0.99/org.acme.Greeter?cluster=failover&retries=1');
    const directory = new StaticDirectory(Greeter, consumerUrl, providers);
    const greeter = app.getExtensionLoader(Cluster).getAdaptiveExtension().join(directory);
    const result = await greeter.invoke(new Invocation({ methodName: 'sayHello', args: ['world'] }));
    console.log(result.value);
    // #endregion usage

    expect(log).toHaveBeenCalledTimes(1);
    expect(String(log.mock.calls[0]?.[0])).toMatch(/^hello from 10\.0\.0\.[12]:20880$/);
    expect(providers.map((p) => p.calls)).toEqual([1, 1]);
  });

  it('shows the usage snippet verbatim', () => {
    expect(readme).toContain('```ts\n' + region('usage') + '\n```');
  });

  it('lists every contributed extension name and documents every URL key the code reads', () => {
    for (const name of ['failover', 'failfast', 'failsafe', 'failback', 'forking', 'broadcast', 'available']) {
      expect(readme).toContain(`| \`weft.rpc.Cluster\` | \`${name}\``);
    }
    for (const name of ['random', 'roundrobin', 'leastactive', 'consistenthash', 'shortestresponse']) {
      expect(readme).toContain(`| \`weft.rpc.LoadBalance\` | \`${name}\``);
    }
    for (const key of Object.values(ClusterKeys)) expect(readme).toContain(`| \`${key}\` |`);
  });
});
