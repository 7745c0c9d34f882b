// weft explain: the chain a URL gets and a verdict for every installed filter, from manifests only.
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { createTestApp, type TestApp } from '@weft/test-utils';

import { ACME_FILTERS, json, TRIPWIRE_MODULE, weft, writePackage } from './support/cli.ts';

interface Verdict {
  name: string;
  package: string;
  position: number;
  reason: string;
  detail: string;
  activatedBy: { key: string; value: string; method: string | null } | null;
}
interface Explained {
  service: string;
  side: string;
  filterKey: string;
  url: string;
  filterList: string[] | null;
  chain: Verdict[];
  excluded: Verdict[];
  errors: string[];
  warnings: string[];
}

let app: TestApp;
let acmeDir: string;

beforeAll(() => {
  app = createTestApp(['@weft/core']);
  acmeDir = writePackage(app.root, ACME_FILTERS);
});
afterAll(() => app.cleanup());

async function explain(...argv: string[]): Promise<Explained> {
  const result = await weft(['explain', '--json', ...argv], { cwd: app.root });
  return json<Explained>(result);
}

const reasons = (e: Explained) => Object.fromEntries(e.excluded.map((v) => [v.name, v.reason]));

describe('weft explain', () => {
  it('explains the provider chain of a service name: in order, and why each filter is in or out', async () => {
    const e = await explain('--side', 'provider', 'org.acme.Greeter', '--param', 'tps=5');
    expect(e.url).toBe('provider://127.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&side=provider&tps=5');
    expect(e.filterKey).toBe('service.filter');
    expect(e.chain.map((c) => c.name)).toEqual(['echo', 'tps']);
    expect(e.chain[0]).toMatchObject({ position: 0, reason: 'activated', package: 'acme-filters@2.0.0', activatedBy: null });
    expect(e.chain[0]?.detail).toBe('activated automatically (group provider, no URL key needed, order -100)');
    expect(e.chain[1]).toMatchObject({ position: 1, reason: 'activated', activatedBy: { key: 'tps', value: '5', method: null } });
    expect(reasons(e)).toEqual({ audit: 'key-missing', cache: 'key-missing', 'consumer-log': 'group-mismatch', plain: 'not-activatable' });
    expect(e.excluded.find((v) => v.name === 'cache')?.detail).toBe('needs URL key cache=lru (at interface or method level)');
    expect(e.excluded.find((v) => v.name === 'consumer-log')?.detail).toBe('activates in group consumer, not "provider"');
    expect(e.errors).toEqual([]);
  });

  it('prints the chain as a diagram and two tables', async () => {
    const result = await weft(['explain', '--side', 'consumer', 'org.acme.Greeter', '--param', 'audit=on'], { cwd: app.root });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('Consumer filter chain of org.acme.Greeter');
    expect(result.stdout).toContain('reference.filter = (not set: automatic activation only)');
    expect(result.stdout).toContain('proxy → cluster → [ consumer-log → audit ] → protocol invoker');
    expect(result.stdout).toMatch(/1\s+consumer-log\s+acme-filters@2\.0\.0\s+activated automatically \(group consumer, no URL key needed, order 0\)/);
    expect(result.stdout).toMatch(/2\s+audit\s+acme-filters@2\.0\.0\s+activated automatically \(group provider\/consumer, URL key audit set, order 50\): audit=on/);
    expect(result.stdout).toMatch(/Not in the chain:[\s\S]*echo\s+acme-filters@2\.0\.0\s+activates in group provider, not "consumer"/);
  });

  it('--method writes the keys at method level: the filter is in the chain (of every method), activated by that method', async () => {
    const e = await explain('--side', 'provider', 'org.acme.Greeter', '--method', 'sayHello', '--param', 'tps=5');
    expect(e.url).toContain('sayHello.tps=5');
    expect(e.chain.map((c) => c.name)).toEqual(['echo', 'tps']);
    expect(e.chain[1]?.activatedBy).toEqual({ key: 'tps', value: '5', method: 'sayHello' });
    const text = await weft(['explain', '--side', 'provider', 'org.acme.Greeter', '--method', 'sayHello', '--param', 'tps=5'], { cwd: app.root });
    expect(text.stdout).toContain("sayHello.tps=5 (method level: in every method's chain, applied to sayHello calls)");
  });

  it('a plain value that is "false" or "0" does not activate, and the method-level value is then not consulted', async () => {
    expect((await explain('--side', 'provider', 'org.acme.Greeter', '--param', 'tps=false')).chain.map((c) => c.name)).toEqual(['echo']);
    expect((await explain('--side', 'provider', 'org.acme.Greeter', '--param', 'tps=0', '--param', 'sayHello.tps=5')).chain.map((c) => c.name)).toEqual(['echo']);
  });

  it('a key:expected condition needs that exact value', async () => {
    expect(reasons(await explain('--side', 'provider', 'org.acme.Greeter', '--param', 'cache=fifo'))['cache']).toBe('key-missing');
    const lru = await explain('--side', 'provider', 'org.acme.Greeter', '--param', 'cache=lru');
    expect(lru.chain.map((c) => c.name)).toEqual(['echo', 'cache']);
  });

  it('explains a filter list: explicit names, -name, -default and default placement', async () => {
    const consumer = await explain('--side', 'consumer', 'org.acme.Greeter', '--filter', 'plain,-consumer-log');
    expect(consumer.filterKey).toBe('reference.filter');
    expect(consumer.filterList).toEqual(['plain', '-consumer-log']);
    expect(consumer.chain).toEqual([expect.objectContaining({ name: 'plain', reason: 'explicit', detail: 'named explicitly in the list' })]);
    expect(reasons(consumer)).toMatchObject({ 'consumer-log': 'removed', echo: 'group-mismatch', audit: 'key-missing' });
    expect(consumer.excluded.find((v) => v.name === 'consumer-log')?.detail).toBe('removed by "-consumer-log"');

    const noDefault = await explain('--side', 'provider', 'org.acme.Greeter', '--filter', '-default,tps');
    expect(noDefault.chain.map((c) => [c.name, c.reason])).toEqual([['tps', 'explicit']]);
    expect(reasons(noDefault)['echo']).toBe('default-removed');

    const placed = await explain('--side', 'provider', 'org.acme.Greeter', '--filter', 'plain,default');
    expect(placed.chain.map((c) => c.name)).toEqual(['plain', 'echo']);
  });

  it('takes a URL: its side= is the default --side, its service.filter the list', async () => {
    const e = await explain('tri://10.0.0.5:50051/org.acme.Greeter?side=provider&audit=true&service.filter=-echo');
    expect(e.side).toBe('provider');
    expect(e.chain.map((c) => c.name)).toEqual(['audit']);
    expect(reasons(e)['echo']).toBe('removed');
  });

  it('shows the protocol a URL names: its package and the keys it sets, or that it is not installed', async () => {
    const dubbo = createTestApp(['@weft/core', '@weft/protocol-dubbo'], { prefix: 'weft-cli-explain-dubbo' });
    try {
      const shown = await weft(['explain', 'dubbo://10.0.0.5:20880/org.acme.Greeter?side=provider&payload=1024&heartbeat=30000'], { cwd: dubbo.root });
      expect(shown.code).toBe(0);
      expect(shown.stdout).toContain('  protocol     dubbo (@weft/protocol-dubbo@0.1.0; payload=1024 heartbeat=30000)\n');
      const json = JSON.parse((await weft(['explain', '--json', 'dubbo://10.0.0.5:20880/org.acme.Greeter?side=consumer'], { cwd: dubbo.root })).stdout) as { protocol: unknown };
      expect(json.protocol).toEqual({ name: 'dubbo', package: '@weft/protocol-dubbo@0.1.0', settings: [] });
    } finally {
      dubbo.cleanup();
    }
    const missing = await weft(['explain', 'dubbo://10.0.0.5:20880/org.acme.Greeter?side=provider'], { cwd: app.root });
    expect(missing.stdout).toContain('  protocol     dubbo (not installed)\n');
  });

  it('with a methods= list, only the listed methods\' keys count, and --method warns when it names another', async () => {
    const url = 'tri://10.0.0.5:50051/org.acme.Greeter?side=provider&methods=count&sayHello.tps=5';
    expect((await explain(url)).chain.map((c) => c.name)).toEqual(['echo']);
    const warned = await weft(['explain', url, '--method', 'sayHello', '--param', 'audit=on'], { cwd: app.root });
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain('warning: the URL\'s methods=count does not list sayHello: activation ignores its method-level keys');
  });

  it('a list naming a filter that is not installed exits 1 (the application would refuse it); removing one only warns', async () => {
    const unknown = await weft(['explain', '--side', 'consumer', 'org.acme.Greeter', '--filter', 'nope,default'], { cwd: app.root });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('error: reference.filter names "nope", which is not installed: the application refuses this URL at refer time.');
    expect(unknown.stderr).toContain('Installed filters: audit, cache, consumer-log, echo, plain, tps.');
    const removal = await weft(['explain', '--side', 'consumer', 'org.acme.Greeter', '--filter', '-nope'], { cwd: app.root });
    expect(removal.code).toBe(0);
    expect(removal.stderr).toContain('warning: reference.filter removes "nope", which is not installed: the removal has no effect');
  });

  it('bad input exits 2: an unknown service, an unparsable URL, a URL without a service, a missing --side', async () => {
    const cases: [string[], string][] = [
      [['--side', 'provider', 'not a service!'], 'unknown service "not a service!": not a service interface name'],
      [['--side', 'provider', 'org..Greeter'], 'unknown service "org..Greeter"'],
      [['--side', 'provider', '1Greeter'], 'unknown service "1Greeter"'],
      [['--side', 'provider', 'tri://127.0.0.1:99999/org.acme.Greeter'], 'cannot parse the URL "tri://127.0.0.1:99999/org.acme.Greeter": Invalid URL'],
      [['--side', 'provider', 'tri://[::1/org.acme.Greeter'], 'cannot parse the URL'],
      [['--side', 'provider', 'tri://127.0.0.1:50051'], 'names no service'],
      [['--side', 'provider', 'tri://127.0.0.1:50051/org.acme.Greeter-v2'], 'unknown service "org.acme.Greeter-v2"'],
      [['org.acme.Greeter'], 'missing --side provider|consumer'],
      [['tri://127.0.0.1:50051/org.acme.Greeter'], 'missing --side provider|consumer (the URL has no side=provider|consumer parameter)'],
      [['--side', 'provider'], 'missing <url-or-service>'],
      [['--side', 'provider', 'org.acme.Greeter', '--param', 'tps'], '--param "tps" must be key=value'],
      [['--side', 'provider', 'org.acme.Greeter', '--method', 'say-hello'], '--method "say-hello" is not a method name'],
    ];
    for (const [argv, message] of cases) {
      const result = await weft(['explain', ...argv], { cwd: app.root });
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toContain(message);
      expect(result.stdout).toBe('');
    }
  });

  it('never imports filter code', async () => {
    await explain('--side', 'provider', 'org.acme.Greeter', '--param', 'tps=5');
    expect(existsSync(join(acmeDir, 'imported.txt'))).toBe(false);
  });
});

describe('weft explain on broken installs', () => {
  it('a name declared by two packages, and an invalid filter manifest, are errors (exit 1): the application would not start', async () => {
    const broken = createTestApp(['@weft/core']);
    try {
      writePackage(broken.root, ACME_FILTERS);
      writePackage(broken.root, {
        name: 'other-filters',
        files: { 'index.js': TRIPWIRE_MODULE },
        manifests: { 'weft.rpc.Filter': { tps: { module: './index.js', activate: { group: ['provider'], value: ['tps'] } } } },
      });
      writePackage(broken.root, { name: 'bad-filters', manifests: { 'weft.rpc.Filter': '{ "x": ' } });
      const result = await weft(['explain', '--json', '--side', 'provider', 'org.acme.Greeter', '--param', 'tps=5'], { cwd: broken.root });
      expect(result.code).toBe(1);
      const e = json<Explained>(result);
      expect(e.chain.map((c) => c.name)).toEqual(['echo']);
      expect(e.excluded.find((v) => v.name === 'tps')).toMatchObject({ reason: 'clash', package: 'acme-filters@2.0.0, other-filters@1.0.0' });
      expect(e.errors).toHaveLength(2);
      expect(e.errors[0]).toContain('filter "tps" is declared by acme-filters@2.0.0 (node_modules/acme-filters/META-INF/weft/weft.rpc.Filter.json) and other-filters@1.0.0');
      expect(e.errors[1]).toContain('invalid filter manifest node_modules/bad-filters/META-INF/weft/weft.rpc.Filter.json: not valid JSON');
    } finally {
      broken.cleanup();
    }
  });

  it('before/after constraints that form a cycle exit 1 with ERR_SPI_CYCLE', async () => {
    const cyclic = createTestApp(['@weft/core']);
    try {
      writePackage(cyclic.root, {
        name: 'cyclic-filters',
        manifests: {
          'weft.rpc.Filter': {
            a: { module: './a.js', activate: { group: ['provider'], before: ['b'] } },
            b: { module: './b.js', activate: { group: ['provider'], before: ['a'] } },
          },
        },
      });
      const result = await weft(['explain', '--side', 'provider', 'org.acme.Greeter'], { cwd: cyclic.root });
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('form a cycle: a → b → a');
      expect(result.stderr).toContain('[ERR_SPI_CYCLE]');
    } finally {
      cyclic.cleanup();
    }
  });

  it('explains the workspace filter packages as installed (tps activates on the provider side only)', async () => {
    const real = createTestApp(['@weft/core', '@weft/filter-tpslimit']);
    try {
      const provider = json<Explained>(await weft(['explain', '--json', '--side', 'provider', 'org.acme.Greeter', '--param', 'tps=100'], { cwd: real.root }));
      expect(provider.chain.find((c) => c.name === 'tps')).toMatchObject({ package: '@weft/filter-tpslimit@0.1.0', reason: 'activated' });
      const consumer = json<Explained>(await weft(['explain', '--json', '--side', 'consumer', 'org.acme.Greeter', '--param', 'tps=100'], { cwd: real.root }));
      expect(consumer.excluded.find((c) => c.name === 'tps')).toMatchObject({ reason: 'group-mismatch' });
    } finally {
      real.cleanup();
    }
  });
});

describe('weft explain shows the settings of the filters in the chain (the circuit breaker and its rule)', () => {
  let cb: TestApp;
  beforeAll(() => {
    cb = createTestApp(['@weft/core', '@weft/filter-circuitbreaker'], { prefix: 'weft-cli-explain-cb' });
  });
  afterAll(() => cb.cleanup());

  it('lists the circuitbreaker keys the URL sets, plain and per method, in text and JSON', async () => {
    const argv = [
      'explain',
      '--side',
      'consumer',
      'org.acme.Greeter',
      '--param',
      'circuitbreaker=error-ratio',
      '--param',
      'circuitbreaker.threshold=0.3',
      '--param',
      'sayHello.circuitbreaker.open-duration=10000',
      '--param',
      'timeout=500',
    ];
    const text = await weft(argv, { cwd: cb.root });
    expect(text.code).toBe(0);
    expect(text.stdout).toContain('  proxy → cluster → [ circuitbreaker ] → protocol invoker\n');
    expect(text.stdout).toMatch(/1\s+circuitbreaker\s+@weft\/filter-circuitbreaker@0\.1\.0\s+activated automatically .*: circuitbreaker=error-ratio/);
    expect(text.stdout).toContain('Their settings (the URL keys each one declares, as this URL sets them; unset keys take their defaults):');
    expect(text.stdout).toMatch(/circuitbreaker\s+circuitbreaker=error-ratio circuitbreaker\.threshold=0\.3 sayHello\.circuitbreaker\.open-duration=10000\n/);
    const e = json<{ chain: { name: string; settings: { key: string; value: string }[] }[] }>(await weft([...argv.slice(0, 1), '--json', ...argv.slice(1)], { cwd: cb.root }));
    expect(e.chain.find((c) => c.name === 'circuitbreaker')?.settings).toEqual([
      { key: 'circuitbreaker', value: 'error-ratio' },
      { key: 'circuitbreaker.threshold', value: '0.3' },
      { key: 'sayHello.circuitbreaker.open-duration', value: '10000' },
    ]);
  });

  it('a forced breaker (circuitbreaker.force only) is in the chain, activated by that key', async () => {
    const e = json<{ chain: { name: string; activatedBy: { key: string; value: string; method: string | null } | null }[] }>(
      await weft(['explain', '--json', '--side', 'consumer', 'org.acme.Greeter', '--method', 'sayHello', '--param', 'circuitbreaker.force=open'], { cwd: cb.root }),
    );
    expect(e.chain.map((c) => c.name)).toEqual(['circuitbreaker']);
    expect(e.chain[0]?.activatedBy).toEqual({ key: 'circuitbreaker.force', value: 'open', method: 'sayHello' });
  });
});
