// weft override against an embedded registry directory: a live consumer obeys what the CLI writes; invalid rules
// are never written; unreachable registries fail fast with the address in the message.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { defineService, RpcError, RpcErrorCode, WeftApplication } from '@weft/core';
import { createTestApp, RecordingLogger } from '@weft/test-utils';

import { cliDir, json, weft, type RunResult } from './support/cli.ts';

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  count: { returns: Number },
});

interface Listed {
  registry: string;
  service: string;
  rules: { url: string; address: string; group: string | null; version: string | null; application: string | null; enabled: boolean; parameters: Record<string, string> }[];
}

let dir: string;
let registry: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'weft-cli-registry-'));
  registry = `embedded://${dir}`;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const override = (...argv: string[]): Promise<RunResult> => weft(['override', ...argv]);
const list = async (...flags: string[]): Promise<Listed> => json<Listed>(await override('list', '--registry', registry, '--service', 'org.acme.Greeter', '--json', ...flags));
const ruleFiles = () => {
  const folder = join(dir, 'dubbo', 'org.acme.Greeter', 'configurators');
  return existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith('.json')) : [];
};

describe('weft override against a running consumer', () => {
  const consumerApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/registry-embedded']);
  afterAll(() => consumerApp.cleanup());

  it('set → the consumer degrades sayHello; list shows the rule; rm → the consumer is back; list is empty', async () => {
    const app = await WeftApplication.start({ root: consumerApp.root, name: 'shop', logger: new RecordingLogger(), registry: `${registry}?poll.interval=50&file-cache=false` });
    try {
      const greeter = await app.refer(Greeter, { check: false, retries: 0 });
      await expect(greeter.sayHello('ann')).rejects.toMatchObject({ code: RpcErrorCode.NO_INVOKER });

      const set = await override('set', '--registry', registry, '--service', 'org.acme.Greeter', 'sayHello.mock=force:return "degraded"');
      expect(set.stderr).toBe('');
      expect(set.code).toBe(0);
      expect(set.stdout).toContain(`Wrote the override rule for org.acme.Greeter at 0.0.0.0 to ${registry}:`);
      expect(set.stdout).toContain('override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&sayHello.mock=force:return%20%22degraded%22');

      // Persistent: the entry file holds the rule and no owning process.
      expect(ruleFiles()).toHaveLength(1);
      const entry = JSON.parse(readFileSync(join(dir, 'dubbo', 'org.acme.Greeter', 'configurators', ruleFiles()[0] as string), 'utf8')) as { url: string; pid?: number };
      expect(entry.pid).toBeUndefined();
      expect(entry.url).toContain('dynamic=false');

      await vi.waitFor(() => expect(app.getReferenceUrl(greeter)?.getParameter('sayHello.mock')).toBe('force:return "degraded"'), { timeout: 5000, interval: 50 });
      await expect(greeter.sayHello('ann')).resolves.toBe('degraded');
      await expect(greeter.count()).rejects.toMatchObject({ code: RpcErrorCode.NO_INVOKER });

      const listed = await list();
      expect(listed.rules).toEqual([
        {
          url: 'override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&sayHello.mock=force:return%20%22degraded%22',
          address: '0.0.0.0',
          service: 'org.acme.Greeter',
          group: null,
          version: null,
          application: null,
          enabled: true,
          parameters: { 'sayHello.mock': 'force:return "degraded"' },
        },
      ]);
      const text = await override('list', '--registry', registry, '--service', 'org.acme.Greeter');
      expect(text.stdout).toMatch(/0\.0\.0\.0\s+-\s+-\s+-\s+sayHello\.mock=force:return "degraded"/);

      const rm = await override('rm', '--registry', registry, '--service', 'org.acme.Greeter', 'sayHello.mock');
      expect(rm.code).toBe(0);
      expect(rm.stdout).toContain('Removed from');
      await vi.waitFor(() => expect(app.getReferenceUrl(greeter)?.getParameter('sayHello.mock')).toBeUndefined(), { timeout: 5000, interval: 50 });
      const error = await greeter.sayHello('ann').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(RpcError);
      expect((await list()).rules).toEqual([]);
      expect((await override('list', '--registry', registry, '--service', 'org.acme.Greeter')).stdout).toBe(`No override rules for org.acme.Greeter at ${registry}.\n`);
      expect(ruleFiles()).toEqual([]);
    } finally {
      await app.shutdown();
    }
  });
});

describe('weft override set', () => {
  it('rejects an invalid mock expression and writes nothing (exit 1)', async () => {
    const result = await override('set', '--registry', registry, '--service', 'org.acme.Greeter', 'mock=force:retrun null');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('weft override: error: rejected, nothing written: override rule for org.acme.Greeter: mock=force:retrun null is not a valid mock expression');
    expect(ruleFiles()).toEqual([]);
    expect((await list()).rules).toEqual([]);
  });

  it('checks method-level mock expressions too', async () => {
    const result = await override('set', '--registry', registry, '--service', 'org.acme.Greeter', 'sayHello.mock=return {oops');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('(sayHello.mock): mock=return {oops is not a valid mock expression');
    expect(ruleFiles()).toEqual([]);
  });

  it('rejects non-numbers for numeric keys, at service and method level, before connecting', async () => {
    const cases: [string, string][] = [
      ['timeout=abc', 'timeout=abc: expected a finite decimal number'],
      ['sayHello.timeout=1s', 'sayHello.timeout=1s: expected a finite decimal number'],
      ['retries=1.5', 'retries=1.5: expected a whole number'],
      ['tps.interval=soon', 'tps.interval=soon: expected a finite decimal number'],
    ];
    for (const [pair, message] of cases) {
      const result = await override('set', '--registry', 'zookeeper://127.0.0.1:1', '--service', 'org.acme.Greeter', pair);
      expect(result.code, pair).toBe(1);
      expect(result.stderr, pair).toContain(`rejected, nothing written: ${message}`);
    }
  });

  it('merges keys into the rule with the same identity; other identities get rules of their own', async () => {
    expect((await override('set', '--registry', registry, '--service', 'org.acme.Greeter', 'timeout=3000')).code).toBe(0);
    const second = await override('set', '--registry', registry, '--service', 'org.acme.Greeter', 'retries=2', 'timeout=5000');
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('It replaces:');
    const versioned = await override('set', '--registry', registry, '--service', 'org.acme.Greeter', '--version', '1.0.0', '--address', '10.0.0.5:50051', 'weight=50', '--json');
    expect(json(versioned)).toMatchObject({
      ok: true,
      rule: 'override://10.0.0.5:50051/org.acme.Greeter?category=configurators&dynamic=false&version=1.0.0&weight=50',
      replaced: [],
      unchanged: false,
    });
    const again = await override('set', '--registry', registry, '--service', 'org.acme.Greeter', 'timeout=5000');
    expect(again.stdout).toContain('Unchanged: the rule for org.acme.Greeter at 0.0.0.0 already sets that.');

    const all = await list();
    expect(all.rules.map((r) => [r.address, r.version, r.parameters])).toEqual(
      expect.arrayContaining([
        ['0.0.0.0', null, { timeout: '5000', retries: '2' }],
        ['10.0.0.5:50051', '1.0.0', { weight: '50' }],
      ]),
    );
    expect(all.rules).toHaveLength(2);
    expect((await list('--version', '1.0.0')).rules.map((r) => r.address)).toEqual(['10.0.0.5:50051']);
    expect((await list('--address', '0.0.0.0')).rules.map((r) => r.parameters)).toEqual([{ timeout: '5000', retries: '2' }]);
    expect(ruleFiles()).toHaveLength(2);
  });

  it('reads the registry from WEFT_REGISTRY', async () => {
    const result = await weft(['override', 'set', '--service', 'org.acme.Greeter', 'timeout=100'], { env: { WEFT_REGISTRY: registry } });
    expect(result.code).toBe(0);
    expect((await list()).rules.map((r) => r.parameters)).toEqual([{ timeout: '100' }]);
  });
});

describe('weft override rm', () => {
  beforeEach(async () => {
    expect((await override('set', '--registry', registry, '--service', 'org.acme.Greeter', 'timeout=3000', 'retries=2')).code).toBe(0);
    expect((await override('set', '--registry', registry, '--service', 'org.acme.Greeter', '--group', 'blue', 'mock=fail:return null')).code).toBe(0);
  });

  it('removes keys from the rule, keeping the rest', async () => {
    const result = await override('rm', '--registry', registry, '--service', 'org.acme.Greeter', 'timeout', '--json');
    expect(result.code).toBe(0);
    expect(json(result)).toMatchObject({
      removed: ['override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&timeout=3000&retries=2'],
      written: ['override://0.0.0.0/org.acme.Greeter?category=configurators&dynamic=false&retries=2'],
    });
    expect((await list()).rules.map((r) => [r.group, r.parameters])).toEqual(
      expect.arrayContaining([
        [null, { retries: '2' }],
        ['blue', { mock: 'fail:return null' }],
      ]),
    );
  });

  it('a key no rule of that identity sets is an error (exit 1), nothing removed', async () => {
    const result = await override('rm', '--registry', registry, '--service', 'org.acme.Greeter', 'mock');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no override rule for org.acme.Greeter at 0.0.0.0 sets mock (its rule sets timeout, retries); nothing removed');
    expect((await list()).rules).toHaveLength(2);
  });

  it('--all removes the rules matching the flags given; with none given, every rule of the service', async () => {
    const blue = await override('rm', '--registry', registry, '--service', 'org.acme.Greeter', '--all', '--group', 'blue');
    expect(blue.code).toBe(0);
    expect((await list()).rules.map((r) => r.group)).toEqual([null]);
    expect((await override('rm', '--registry', registry, '--service', 'org.acme.Greeter', '--all')).code).toBe(0);
    expect((await list()).rules).toEqual([]);
    const nothing = await override('rm', '--registry', registry, '--service', 'org.acme.Greeter', '--all');
    expect(nothing.code).toBe(1);
    expect(nothing.stderr).toContain(`no override rules for org.acme.Greeter at ${registry}; nothing removed`);
  });
});

describe('weft override: bad input and unreachable registries', () => {
  it('usage errors exit 2 with a clear message', async () => {
    const cases: [string[], string][] = [
      [['set', '--registry', 'embedded:///tmp/x', 'timeout=1'], 'missing --service <interface>'],
      [['set', '--service', 'org.acme.Greeter', 'timeout=1'], 'missing --registry <url> (or the WEFT_REGISTRY environment variable)'],
      [['set', '--registry', '://nowhere', '--service', 'org.acme.Greeter', 'timeout=1'], 'cannot parse the registry URL "://nowhere"'],
      [['set', '--registry', 'embedded:///tmp/x', '--service', 'not a service', 'timeout=1'], 'unknown service "not a service"'],
      [['set', '--registry', 'embedded:///tmp/x', '--service', 'org.acme.Greeter'], 'missing key=value'],
      [['set', '--registry', 'embedded:///tmp/x', '--service', 'org.acme.Greeter', 'group=blue'], '"group" is part of the rule\'s identity, not a setting: use --group instead'],
      [['set', '--registry', 'embedded:///tmp/x', '--service', 'org.acme.Greeter', 'timeout='], 'has an empty value: to remove a key from a rule, use weft override rm timeout'],
      [['set', '--registry', 'embedded:///tmp/x', '--service', 'org.acme.Greeter', '--address', 'host:notaport', 'timeout=1'], '--address "host:notaport" is not host or host:port'],
      [['set', '--registry', 'embedded:///tmp/x', '--service', 'org.acme.Greeter', '--timeout', 'soon', 'timeout=1'], '--timeout must be a whole number'],
      [['rm', '--registry', 'embedded:///tmp/x', '--service', 'org.acme.Greeter'], 'missing <key>...'],
      [['rm', '--registry', 'embedded:///tmp/x', '--service', 'org.acme.Greeter', 'timeout', '--all'], 'give keys to remove, or --all, not both'],
      [['list', '--registry', 'embedded:///tmp/x', '--service', 'org.acme.Greeter', 'extra'], 'list takes no arguments'],
      [['purge', '--registry', 'embedded:///tmp/x'], 'unknown subcommand "purge": expected set, list or rm'],
      [[], 'missing subcommand: set, list or rm'],
    ];
    for (const [argv, message] of cases) {
      const result = await override(...argv);
      expect(result.code, argv.join(' ')).toBe(2);
      expect(result.stderr, argv.join(' ')).toContain(message);
    }
  });

  it('an embedded registry that cannot be created exits 1 naming it', async () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'not a directory');
    const started = Date.now();
    const result = await override('list', '--registry', `embedded://${file}/registry`, '--service', 'org.acme.Greeter');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`weft override: error: cannot reach registry embedded://${file}/registry: cannot create the registry folder ${file}/registry: ENOTDIR`);
    expect(Date.now() - started).toBeLessThan(3000);
    const set = await override('set', '--registry', `embedded://${file}/registry`, '--service', 'org.acme.Greeter', 'timeout=1');
    expect(set.code).toBe(1);
    expect(set.stderr).toContain('cannot reach registry');
  });

  it('zookeeper://127.0.0.1:1 exits 1 within seconds, naming the address', async () => {
    const zookeeperBuilt = existsSync(join(cliDir, '..', 'registry-zookeeper', 'dist', 'zookeeper-registry-factory.js'));
    const started = Date.now();
    const result = await override('set', '--registry', 'zookeeper://127.0.0.1:1', '--service', 'org.acme.Greeter', '--timeout', '1500', 'timeout=1000');
    expect(result.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(6000);
    expect(result.stderr).toContain(zookeeperBuilt ? 'cannot reach registry zookeeper://127.0.0.1:1' : 'no registry client for zookeeper://');
  });

  it('a registry protocol no installed client speaks exits 1, listing the clients', async () => {
    const result = await override('list', '--registry', 'redis://127.0.0.1:6379', '--service', 'org.acme.Greeter');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/no registry client for redis:\/\/ is installed with weft \(available: embedded[,)]/);
  });
});

describe('weft override set checks the rule against what the registry knows', () => {
  const consumerApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/registry-embedded']);
  afterAll(() => consumerApp.cleanup());

  /** A consumer of org.acme.Greeter registered in the registry (its URL carries interface, methods and its own keys). */
  async function withConsumer(run: () => Promise<void>): Promise<void> {
    const app = await WeftApplication.start({
      root: consumerApp.root,
      name: 'shop',
      logger: new RecordingLogger(),
      registry: `${registry}?poll.interval=50&file-cache=false`,
      parameters: { declare: ['audit.level'] },
    });
    try {
      await app.refer(Greeter, { check: false, parameters: { 'audit.level': 'full' } });
      await run();
    } finally {
      await app.shutdown({ timeout: 100 });
    }
  }

  it('refuses an unknown key with the closest one, and writes nothing', async () => {
    await withConsumer(async () => {
      const result = await override('set', '--registry', registry, '--service', 'org.acme.Greeter', 'tsp=5');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        'weft override: error: rejected, nothing written (--force writes it anyway): `tsp`: unknown parameter in override rule for org.acme.Greeter; did you mean `tps`?',
      );
      const method = await override('set', '--registry', registry, '--service', 'org.acme.Greeter', 'sayHello.tsp=5');
      expect(method.code).toBe(1);
      expect(method.stderr).toContain('`sayHello.tsp`: unknown parameter in override rule for org.acme.Greeter; did you mean `sayHello.tps`?');
      expect(ruleFiles()).toEqual([]);
    });
  });

  it('refuses an unknown method, naming the methods and the closest key', async () => {
    await withConsumer(async () => {
      const result = await override('set', '--registry', registry, '--service', 'org.acme.Greeter', 'sayHelo.mock=force:return null');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        'rejected, nothing written (--force writes it anyway): `sayHelo.mock`: unknown method sayHelo of org.acme.Greeter (methods: count, sayHello); did you mean `sayHello.mock`?',
      );
      expect(ruleFiles()).toEqual([]);
    });
  });

  it('refuses a service nothing is registered for, suggesting the registered one', async () => {
    await withConsumer(async () => {
      const result = await override('set', '--registry', registry, '--service', 'org.acme.Greter', 'timeout=3000');
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `rejected, nothing written (--force writes it anyway): unknown service org.acme.Greter: nothing is registered for it at ${registry}; did you mean org.acme.Greeter?`,
      );
    });
  });

  it('accepts known keys and the consumers\' own keys; --force writes an unknown one anyway', async () => {
    await withConsumer(async () => {
      const ok = await override('set', '--registry', registry, '--service', 'org.acme.Greeter', 'sayHello.timeout=300', 'audit.level=min', 'x-team=a');
      expect(ok.stderr).toBe('');
      expect(ok.code).toBe(0);
      const forced = await override('set', '--registry', registry, '--service', 'org.acme.Greeter', '--force', 'tsp=5');
      expect(forced.stderr).toBe('');
      expect(forced.code).toBe(0);
      expect(forced.stdout).toContain('tsp=5');
      const elsewhere = await override('set', '--registry', registry, '--service', 'org.acme.Greter', '--force', 'timeout=1');
      expect(elsewhere.code).toBe(0);
    });
  });
});
