import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

import { Cluster, defineService, ExtensionError, ExtensionErrorCode, KNOWN_PARAMETERS, Logger, ParameterRegistry, WeftApplication } from '@weft/core';
import { boundedEditDistance, discoverManifests, parseManifest } from '@weft/core/spi';

import { FirstCluster } from './support/first-cluster.js';

class RecordingLogger extends Logger {
  readonly warnings: string[] = [];
  readonly errors: string[] = [];
  debug(): void {}
  info(): void {}
  warn(message: string): void {
    this.warnings.push(message);
  }
  error(message: string): void {
    this.errors.push(message);
  }
}

const Greeter = defineService('org.acme.Greeter', {
  sayHello: { args: [String], returns: String },
  count: { returns: Number },
});
const impl = { sayHello: (name: string) => `hello ${name}`, count: () => 1 };

const roots: string[] = [];
const apps: WeftApplication[] = [];

/** An application root; with `limits`, it depends on a third-party package whose manifest declares `rate` (per method) and `rate.window`. */
function newRoot(limits = false): string {
  const root = mkdtempSync(join(tmpdir(), 'weft-keys-'));
  roots.push(root);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', dependencies: limits ? { 'acme-limits': '1.0.0' } : {} }));
  if (limits) {
    const pkg = join(root, 'node_modules', 'acme-limits');
    mkdirSync(join(pkg, 'META-INF', 'weft'), { recursive: true });
    writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: 'acme-limits', version: '1.0.0' }));
    writeFileSync(
      join(pkg, 'META-INF', 'weft', 'acme.limits.Limiter.json'),
      JSON.stringify({ fixed: { module: './dist/fixed.js', export: 'Fixed', keys: [{ key: 'rate', method: true }, 'rate.window'] } }),
    );
  }
  return root;
}

async function start(options: { limits?: boolean; strict?: boolean; declare?: string[]; logger?: Logger } = {}): Promise<WeftApplication> {
  const app = await WeftApplication.start({
    root: newRoot(options.limits),
    name: 'shop',
    logger: options.logger,
    strict: options.strict,
    parameters: options.declare === undefined ? undefined : { declare: options.declare },
  });
  apps.push(app);
  app.model.getExtensionLoader(Cluster).addExtension('failover', FirstCluster);
  return app;
}

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.shutdown({ timeout: 100 })));
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

describe('boundedEditDistance', () => {
  it('counts insertions, deletions, substitutions and adjacent transpositions', () => {
    expect(boundedEditDistance('tsp', 'tps', 3)).toBe(1);
    expect(boundedEditDistance('sayHelo.mock', 'sayHello.mock', 3)).toBe(1);
    expect(boundedEditDistance('timeout', 'timeuot', 3)).toBe(1);
    expect(boundedEditDistance('retries', 'retires', 3)).toBe(1);
    expect(boundedEditDistance('kitten', 'sitting', 3)).toBe(3);
    expect(boundedEditDistance('', 'abc', 3)).toBe(3);
    expect(boundedEditDistance('same', 'same', 0)).toBe(0);
  });

  it('reports anything beyond the bound as bound + 1, cheaply for hostile lengths', () => {
    expect(boundedEditDistance('timeout', 'retries', 2)).toBe(3);
    expect(boundedEditDistance('a'.repeat(100_000), 'b', 2)).toBe(3);
    const started = performance.now();
    expect(boundedEditDistance('x'.repeat(50_000), 'y'.repeat(50_000), 3)).toBe(4);
    expect(performance.now() - started).toBeLessThan(200);
  });
});

describe('manifest "keys"', () => {
  it('reads service-level and method-level keys', () => {
    const { entries, problems } = parseManifest(JSON.stringify({ tps: { module: './dist/tps.js', keys: ['tps.limiter', { key: 'tps', method: true }, { key: 'tps.interval', method: false }] } }));
    expect(problems).toEqual([]);
    expect(entries[0]?.keys).toEqual([
      { key: 'tps.limiter', method: false, secret: false },
      { key: 'tps', method: true, secret: false },
      { key: 'tps.interval', method: false, secret: false },
    ]);
    expect(parseManifest(JSON.stringify({ tps: { module: './dist/tps.js' } })).entries[0]?.keys).toEqual([]);
  });

  it('reports every malformed key with its JSON pointer', () => {
    const { entries, problems } = parseManifest(
      JSON.stringify({ tps: { module: './dist/tps.js', keys: ['ok', '', 'a..b', 7, { key: 'x', method: 'yes' }, { name: 'y' }, 'k'.repeat(129)] } }),
    );
    expect(entries).toEqual([]);
    expect(problems).toEqual([
      '/tps/keys/1: "" is not a URL key (letters, digits, "_", "-", dot-separated, up to 128 characters)',
      '/tps/keys/2: "a..b" is not a URL key (letters, digits, "_", "-", dot-separated, up to 128 characters)',
      '/tps/keys/3: must be a URL key (letters, digits, "_", "-", dot-separated, up to 128 characters)',
      '/tps/keys/4/method: must be true or false',
      '/tps/keys/5/name: unknown property (allowed: key, method, secret)',
      '/tps/keys/5: must be a URL key (letters, digits, "_", "-", dot-separated, up to 128 characters)',
      `/tps/keys/6: "${'k'.repeat(129)}" is not a URL key (letters, digits, "_", "-", dot-separated, up to 128 characters)`,
    ]);
    expect(parseManifest(JSON.stringify({ tps: { module: './dist/tps.js', keys: 'tps' } })).problems).toEqual([
      '/tps/keys: must be an array of URL keys ("tps.limiter") or {"key": "tps", "method": true, "secret": false} objects',
    ]);
  });
});

describe('ParameterRegistry', () => {
  it('knows Weft\'s own keys, installed manifests\' keys and declared keys; x- keys are the application\'s', () => {
    const keys = ParameterRegistry.fromIndex(discoverManifests(newRoot(true)), { declare: ['audit.level'] });
    expect(keys.check(['interface', 'methods', 'side', 'timestamp', 'application', 'group', 'version', 'timeout', 'anyhost'], [], 'refer(x)')).toEqual([]);
    expect(keys.check(['rate', 'rate.window', 'sayHello.rate', 'audit.level', 'sayHello.audit.level', 'x-team', 'sayHello.x-team'], ['sayHello'], 'refer(x)')).toEqual([]);
  });

  it('suggests the closest known key, service- and method-level', () => {
    const keys = ParameterRegistry.fromIndex(discoverManifests(newRoot(true)));
    expect(keys.check(['rtae'], ['sayHello'], 'refer(org.acme.Greeter)')).toEqual(['`rtae`: unknown parameter in refer(org.acme.Greeter); did you mean `rate`?']);
    expect(keys.check(['sayHelo.rate'], ['sayHello', 'count'], 'refer(org.acme.Greeter)')).toEqual([
      '`sayHelo.rate`: unknown parameter in refer(org.acme.Greeter); did you mean `sayHello.rate`?',
    ]);
    expect(keys.check(['sayHello.rtae'], ['sayHello', 'count'], 'refer(org.acme.Greeter)')).toEqual([
      '`sayHello.rtae`: unknown parameter in refer(org.acme.Greeter); did you mean `sayHello.rate`?',
    ]);
    expect(keys.check(['sayHello.rate.window'], ['sayHello'], 'export(org.acme.Greeter)')).toEqual([
      '`sayHello.rate.window`: `rate.window` cannot be set per method, so it has no effect (in export(org.acme.Greeter)); set `rate.window` for the whole service',
    ]);
  });

  it('suggests nothing far away, and says how to pass an own key', () => {
    const keys = ParameterRegistry.fromIndex(discoverManifests(newRoot()));
    expect(keys.check(['flavour'], [], 'refer(org.acme.Greeter)')).toEqual([
      '`flavour`: unknown parameter in refer(org.acme.Greeter); no known parameter is close (your own keys: prefix them with `x-` or declare them in parameters.declare)',
    ]);
  });

  it('says which first-party package reads a key that is not installed', () => {
    const keys = ParameterRegistry.fromIndex(discoverManifests(newRoot()));
    expect(keys.check(['tps'], ['sayHello'], 'export(org.acme.Greeter)')).toEqual([
      '`tps` in export(org.acme.Greeter) is read by `@weft/filter-tpslimit`, which is not installed, so it has no effect (npm install @weft/filter-tpslimit)',
    ]);
    expect(keys.check(['sayHello.mock'], ['sayHello'], 'refer(org.acme.Greeter)')).toEqual([
      '`sayHello.mock` in refer(org.acme.Greeter): `mock` is read by `@weft/mock`, which is not installed, so it has no effect (npm install @weft/mock)',
    ]);
    expect(keys.check(['tsp'], ['sayHello'], 'refer(org.acme.Greeter)')).toEqual([
      '`tsp`: unknown parameter in refer(org.acme.Greeter); did you mean `tps` (read by `@weft/filter-tpslimit`, which is not installed)?',
    ]);
  });

  it('keeps a hostile key harmless: shown cut and escaped, no suggestion work, at most 20 keys described', () => {
    const keys = ParameterRegistry.fromIndex(discoverManifests(newRoot()));
    const [long] = keys.check(['t'.repeat(10_000)], [], 'override(x)');
    expect(long).toBe(`\`${'t'.repeat(80)}…\`: unknown parameter in override(x); no known parameter is close (your own keys: prefix them with \`x-\` or declare them in parameters.declare)`);
    expect(keys.check(['a\nb`'], [], 'override(x)')[0]).toContain('`a\\u000ab\\u0060`');
    const many = keys.check(Array.from({ length: 1000 }, (_, i) => `junk${i}`), [], 'override(x)');
    expect(many).toHaveLength(21);
    expect(many[20]).toBe('980 more unknown parameters in override(x)');
  });

  it('covers every catalogue key of @weft/core without any plugin installed', () => {
    const keys = ParameterRegistry.fromIndex(discoverManifests(newRoot()));
    const core = [...KNOWN_PARAMETERS.values()].filter((row) => row.packages.includes('@weft/core')).map((row) => row.key);
    expect(keys.check(core, [], 'x')).toEqual([]);
  });
});

describe('WeftApplication and unknown keys', () => {
  it('warns at export and refer, naming the key, the call and the suggestion', async () => {
    const logger = new RecordingLogger();
    const app = await start({ limits: true, logger });
    await app.export(Greeter, impl, { parameters: { rtae: 5 }, methods: { sayHello: { rtae: 1 } } });
    expect(logger.warnings).toEqual([
      '`rtae`: unknown parameter in export(org.acme.Greeter); did you mean `rate`?',
      '`sayHello.rtae`: unknown parameter in export(org.acme.Greeter); did you mean `sayHello.rate`?',
    ]);
    logger.warnings.length = 0;
    const greeter = await app.refer(Greeter, { parameters: { 'sayHelo.rate': 3, rate: 10 } });
    expect(logger.warnings).toEqual(['`sayHelo.rate`: unknown parameter in refer(org.acme.Greeter); did you mean `sayHello.rate`?']);
    expect(await greeter.sayHello('ann')).toBe('hello ann');
    logger.warnings.length = 0;
    const direct = await app.refer(Greeter, { url: 'injvm://127.0.0.1/org.acme.Greeter?timeuot=5' });
    expect(logger.warnings).toEqual([
      '`timeuot`: unknown parameter in refer(org.acme.Greeter): url=injvm://127.0.0.1/org.acme.Greeter?timeuot=5; did you mean `timeout`?',
    ]);
    expect(await direct.count()).toBe(1);
  });

  it('warns about an override, and applies it', async () => {
    const logger = new RecordingLogger();
    const app = await start({ logger });
    const greeter = await app.refer(Greeter, {});
    await app.export(Greeter, impl);
    expect(logger.warnings).toEqual([]);
    const url = app.override(greeter, { timeuot: 50, 'sayHelo.timeout': 20, timeout: null });
    expect(logger.warnings).toEqual([
      '`timeuot`: unknown parameter in override(org.acme.Greeter); did you mean `timeout`?',
      '`sayHelo.timeout`: unknown parameter in override(org.acme.Greeter); did you mean `sayHello.timeout`?',
    ]);
    expect(url.getParameter('timeuot')).toBe('50');
  });

  it('names a key of a plugin that is not installed', async () => {
    const logger = new RecordingLogger();
    const app = await start({ logger });
    await app.export(Greeter, impl, { parameters: { tps: 10 } });
    expect(logger.warnings).toEqual([
      '`tps` in export(org.acme.Greeter) is read by `@weft/filter-tpslimit`, which is not installed, so it has no effect (npm install @weft/filter-tpslimit)',
    ]);
  });

  it('lets the application pass its own keys: x- prefixed or declared', async () => {
    const logger = new RecordingLogger();
    const app = await start({ logger, declare: ['audit.level'] });
    await app.export(Greeter, impl, { parameters: { 'x-team': 'payments', 'audit.level': 'full' }, methods: { sayHello: { 'x-team': 'greeters', 'audit.level': 'min' } } });
    await app.refer(Greeter, { parameters: { 'x-team': 'payments' } });
    expect(logger.warnings).toEqual([]);
  });

  it('strict: an unknown key fails export, refer and override with ERR_SPI_UNKNOWN_PARAMETER, and nothing is applied', async () => {
    const app = await start({ strict: true, limits: true, logger: new RecordingLogger() });
    const exported = app.export(Greeter, impl, { parameters: { rtae: 5 } });
    await expect(exported).rejects.toBeInstanceOf(ExtensionError);
    await expect(exported).rejects.toMatchObject({
      code: ExtensionErrorCode.UNKNOWN_PARAMETER,
      message:
        '`rtae`: unknown parameter in export(org.acme.Greeter); did you mean `rate`? (strict mode: unknown parameters are errors; fix the key, install the package that reads it, or mark your own keys with the x- prefix or parameters.declare)',
    });
    await expect(app.refer(Greeter, { methods: { sayHello: { rtae: 1 } } })).rejects.toMatchObject({
      code: ExtensionErrorCode.UNKNOWN_PARAMETER,
      message: expect.stringContaining('`sayHello.rtae`: unknown parameter in refer(org.acme.Greeter); did you mean `sayHello.rate`?'),
    });
    const greeter = await app.refer(Greeter, { parameters: { rate: 1, 'x-team': 'a' } });
    const before = app.getReferenceUrl(greeter);
    expect(() => app.override(greeter, { timeout: 10, timeuot: 50 })).toThrow(/`timeuot`: unknown parameter in override\(org\.acme\.Greeter\); did you mean `timeout`\?/);
    expect(app.getReferenceUrl(greeter)).toBe(before);
  });

  it('strict: an unknown key of the registry URL fails start', async () => {
    const started = WeftApplication.start({ root: newRoot(), strict: true, registry: 'embedded:///tmp/x?pol.interval=10', logger: new RecordingLogger() });
    await expect(started).rejects.toMatchObject({
      code: ExtensionErrorCode.UNKNOWN_PARAMETER,
      message: expect.stringContaining('`pol.interval`: unknown parameter in start(): registry=embedded:///tmp/x?pol.interval=10; did you mean `poll.interval` (read by `@weft/registry-embedded`, which is not installed)?'),
    });
  });
});
