// weft explain --registry applies the registry's override rules before routing, as a consumer's directory does:
// a provider an override disables is left out, a configured weight is shown, a tag set by an override routes.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';

import { URL } from '@weft/core';
import { EmbeddedRegistry } from '@weft/registry-embedded';
import { createTestApp, RecordingLogger } from '@weft/test-utils';

import { json, weft } from './support/cli.ts';

let dir: string;
let registry: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-cli-explain-overrides-'));
  registry = `embedded://${dir}`;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function register(...urls: string[]): Promise<void> {
  const embedded = new EmbeddedRegistry(URL.parse(`${registry}?file-cache=false`), new RecordingLogger(), dir);
  for (const url of urls) await embedded.register(URL.parse(url));
  await embedded.destroy();
}

const provider = (host: string, extra = '') =>
  `tri://${host}:50051/org.acme.Users?interface=org.acme.Users&side=provider&dynamic=false&methods=findUser,getUser${extra}`;

describe('weft explain: the sample call meets the override rules first', () => {
  const project = createTestApp(['@weft/core', '@weft/cluster', '@weft/routers']);
  afterAll(() => project.cleanup());
  const explain = (...more: string[]) => weft(['explain', '--side', 'consumer', 'org.acme.Users', '--root', project.root, '--registry', registry, ...more]);

  it('leaves out a provider an override disables and shows a configured weight', async () => {
    await register(
      provider('10.0.0.1'),
      provider('10.0.0.2'),
      provider('10.0.0.3'),
      'override://10.0.0.2:50051/org.acme.Users?category=configurators&dynamic=false&disabled=true',
      'override://10.0.0.3:50051/org.acme.Users?category=configurators&dynamic=false&weight=0',
    );
    const text = await explain('--method', 'findUser');
    expect(text.stderr).toBe('');
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('A sample call findUser(), routed among the 3 provider(s)');
    expect(text.stdout).toContain('  override rules matching these providers (2): 10.0.0.2:50051: disabled=true; 10.0.0.3:50051: weight=0\n');
    expect(text.stdout).toContain('  disabled by an override: 10.0.0.2:50051\n');
    expect(text.stdout).toContain('  → the load balance chooses among: 10.0.0.1:50051, 10.0.0.3:50051 (weight 0)\n');

    const data = json<{ routers: { sample: { overrides: { disabled: string[]; weights: Record<string, number> }; steps: { router: string; selected: string[] }[] } } }>(
      await explain('--method', 'findUser', '--json'),
    );
    expect(data.routers.sample.overrides.disabled).toEqual(['10.0.0.2:50051']);
    expect(data.routers.sample.overrides.weights).toEqual({ '10.0.0.3:50051': 0 });
    expect(data.routers.sample.steps.map((s) => [s.router, s.selected])).toEqual([
      ['tag', ['10.0.0.1:50051', '10.0.0.3:50051']],
      ['condition', ['10.0.0.1:50051', '10.0.0.3:50051']],
    ]);
  });

  it('a tag given to a provider by an override is what the tag router sees', async () => {
    await register(provider('10.0.0.1'), provider('10.0.0.2'), 'override://10.0.0.2:50051/org.acme.Users?category=configurators&dynamic=false&dubbo.tag=gray');
    const data = json<{ routers: { sample: { steps: { router: string; selected: string[] }[] } } }>(
      await explain('--method', 'getUser', '--attachment', 'dubbo.tag=gray', '--json'),
    );
    expect(data.routers.sample.steps[0]).toEqual(expect.objectContaining({ router: 'tag', selected: ['10.0.0.2:50051'] }));
  });

  it('without override rules nothing is printed about them', async () => {
    await register(provider('10.0.0.1'));
    const text = await explain('--method', 'findUser');
    expect(text.stdout).not.toContain('override rules');
    expect(text.stdout).toContain('  → the load balance chooses among: 10.0.0.1:50051\n');
  });
});
