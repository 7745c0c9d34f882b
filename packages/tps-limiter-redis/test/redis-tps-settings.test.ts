// Configuration of the `redis` limiter: every key checked with a message naming the key, where the value came
// from, what is accepted and the closest accepted value; passwords never echoed; the application's
// RedisTpsConfig under the URL keys; and the export-time validator inside a real application (no Redis needed:
// every export here is refused before connecting).
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';

import { defineService, ExtensionError, ExtensionErrorCode, URL, WeftApplication } from '@weft/core';
import { RedisTpsConfig, RedisTpsDefaults, redisTpsSettingsOf } from '@weft/tps-limiter-redis';
import { createTestApp, RecordingLogger, type TestApp } from '@weft/test-utils';

const WHERE = 'export(org.acme.Greeter)';
const base = URL.parse('tri://127.0.0.1:50051/org.acme.Greeter?tps=10&tps.limiter=redis');

function settings(parameters: Record<string, string>, config?: RedisTpsConfig) {
  return redisTpsSettingsOf(base.addParameters(parameters), config, WHERE);
}

function failure(run: () => unknown): ExtensionError {
  try {
    run();
  } catch (error) {
    if (error instanceof ExtensionError) return error;
    throw error;
  }
  throw new Error('expected an ExtensionError');
}

describe('redisTpsSettingsOf', () => {
  it('has documented defaults', () => {
    expect(settings({})).toEqual({
      address: 'redis://127.0.0.1:6379',
      maskedAddress: 'redis://127.0.0.1:6379',
      prefix: 'weft:tps:',
      window: 'fixed',
      onError: 'local',
      timeout: 100,
    });
    expect(RedisTpsDefaults.ON_ERROR).toBe('local');
  });

  it('reads every key, case-insensitively for the choices', () => {
    expect(
      settings({
        'tps.redis.address': 'rediss://ann:pw@cache.internal:6380/2',
        'tps.redis.prefix': 'shop:',
        'tps.redis.window': 'Sliding',
        'tps.redis.on-error': 'closed',
        'tps.redis.timeout': '250',
      }),
    ).toEqual({
      address: 'rediss://ann:pw@cache.internal:6380/2',
      maskedAddress: 'rediss://ann:***@cache.internal:6380/2',
      prefix: 'shop:',
      window: 'sliding',
      onError: 'closed',
      timeout: 250,
    });
  });

  it('takes what the URL does not set from the application RedisTpsConfig', () => {
    const config = new RedisTpsConfig({ address: 'redis://:pw@10.0.0.5:6379', onError: 'open', timeout: 40, window: 'sliding' });
    const got = settings({ 'tps.redis.window': 'fixed' }, config);
    expect(got).toMatchObject({ address: 'redis://:pw@10.0.0.5:6379', maskedAddress: 'redis://:***@10.0.0.5:6379', onError: 'open', timeout: 40, window: 'fixed' });
  });

  it.each([
    [{ 'tps.redis.window': 'slidng' }, 'tps.redis.window=slidng (provider URL) is not valid: expected fixed or sliding; did you mean sliding?'],
    [{ 'tps.redis.window': 'rolling' }, 'tps.redis.window=rolling (provider URL) is not valid: expected fixed or sliding.'],
    [{ 'tps.redis.on-error': 'close' }, 'tps.redis.on-error=close (provider URL) is not valid: expected one of local, open, closed; did you mean closed?'],
    [{ 'tps.redis.on-error': 'fail-fast' }, 'tps.redis.on-error=fail-fast (provider URL) is not valid: expected one of local, open, closed.'],
    [{ 'tps.redis.timeout': '0' }, 'tps.redis.timeout=0 (provider URL) is not valid: expected an integer from 1 to 60000 (milliseconds).'],
    [{ 'tps.redis.timeout': '1.5' }, 'tps.redis.timeout=1.5 (provider URL) is not valid: expected an integer from 1 to 60000 (milliseconds).'],
    [{ 'tps.redis.timeout': '600000' }, 'tps.redis.timeout=600000 (provider URL) is not valid: expected an integer from 1 to 60000 (milliseconds).'],
    [{ 'tps.redis.prefix': 'my prefix' }, 'tps.redis.prefix=my prefix (provider URL) is not valid: expected at most 256 characters, without spaces or control characters.'],
    [{ 'tps.redis.address': 'http://10.0.0.5:6379' }, 'tps.redis.address=http://10.0.0.5:6379 (provider URL) is not valid: the scheme is http://; expected redis://'],
    [{ 'tps.redis.address': 'reds://10.0.0.5' }, 'tps.redis.address=reds://10.0.0.5 (provider URL) is not valid: the scheme is reds:// (did you mean redis://?); expected'],
    [{ 'tps.redis.address': 'redis://10.0.0.5:6379/cache' }, 'tps.redis.address=redis://10.0.0.5:6379/cache (provider URL) is not valid: the database "cache" is not a number'],
  ])('refuses %o with a message naming the key, the source and what is accepted', (parameters, message) => {
    const error = failure(() => settings(parameters));
    expect(error.code).toBe(ExtensionErrorCode.INVALID_PARAMETER);
    expect(error.message).toContain(`${WHERE}: ${message}`);
  });

  it('names RedisTpsConfig as the source of a bad application setting', () => {
    const error = failure(() => settings({}, new RedisTpsConfig({ window: 'hopping' })));
    expect(error.message).toBe(`${WHERE}: tps.redis.window=hopping (RedisTpsConfig) is not valid: expected fixed or sliding.`);
  });

  it('never echoes the password of a bad address', () => {
    for (const address of ['http://:hunter22@10.0.0.5:6379', 'redis://:hunter22@10.0.0.5:6379/x', 'redis://:hunter22@:6379']) {
      const error = failure(() => settings({ 'tps.redis.address': address }));
      expect(error.message).toContain('tps.redis.address=');
      expect(error.message).not.toContain('hunter22');
    }
  });

  it('keeps messages short for hostile values', () => {
    const error = failure(() => settings({ 'tps.redis.window': 'x'.repeat(100_000) }));
    expect(error.message.length).toBeLessThan(400);
  });
});

describe('the tps-redis config validator, at export', () => {
  const Greeter = defineService('org.acme.Greeter', { sayHello: { args: [String], returns: String } });
  let testApp: TestApp;
  let app: WeftApplication;
  beforeAll(() => {
    testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/filter-tpslimit', '@weft/tps-limiter-redis'], { prefix: 'weft-tps-redis-config' });
  });
  afterAll(() => testApp.cleanup());
  beforeEach(async () => {
    app = await WeftApplication.start({ root: testApp.root, name: 'tps-redis-config', logger: new RecordingLogger() });
  });
  afterEach(async () => {
    await app.shutdown();
  });
  const exporting = (parameters: Record<string, string | number>) =>
    app.export(Greeter, { sayHello: async (n: string) => n }, { parameters }).then(
      () => undefined,
      (error: unknown) => error,
    );

  it('refuses a bad tps.redis.* value before the service is exported', async () => {
    const error = await exporting({ tps: 10, 'tps.limiter': 'redis', 'tps.redis.on-error': 'opne' });
    expect(error).toBeInstanceOf(ExtensionError);
    expect((error as ExtensionError).message).toContain(
      'export(org.acme.Greeter): tps.redis.on-error=opne (provider URL) is not valid: expected one of local, open, closed; did you mean open?',
    );
  });

  it('refuses a tps.redis.* key while another limiter decides: it would have no effect', async () => {
    const error = await exporting({ tps: 10, 'tps.redis.window': 'sliding' });
    expect((error as ExtensionError).message).toContain(
      'export(org.acme.Greeter): tps.redis.window is set but tps.limiter=memory (the default) decides, so it has no effect. Set tps.limiter=redis',
    );
  });

  it('knows the keys: no unknown-key warning for tps.redis.*', async () => {
    const logger = new RecordingLogger();
    const strict = await WeftApplication.start({ root: testApp.root, name: 'strict', logger, strict: true });
    try {
      // Strict mode throws on an unknown key; the validator then refuses the bad timeout — so the key was known.
      const error = await strict
        .export(Greeter, { sayHello: async (n: string) => n }, { parameters: { tps: 10, 'tps.limiter': 'redis', 'tps.redis.timeout': -1 } })
        .then(() => undefined, (e: unknown) => e);
      expect((error as ExtensionError).message).toContain('tps.redis.timeout=-1 (provider URL) is not valid');
    } finally {
      await strict.shutdown();
    }
  });
});
