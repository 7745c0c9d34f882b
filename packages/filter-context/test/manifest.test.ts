import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterEach, describe, expect, it } from 'vitest';

import { ConfigValidator, ExtensionErrorCode, Filter, URL } from '@weft/core';
import { ConsumerContextFilter, ContextFilter, TimeoutCountdownConfigValidator } from '@weft/filter-context';

import { Stock, startApp, type Started } from './support/shop.js';

let started: Started | undefined;
afterEach(async () => {
  await started?.close();
  started = undefined;
});

const PROVIDER_URL = URL.parse('injvm://127.0.0.1/org.acme.Stock?interface=org.acme.Stock&side=provider&application=shop');
const CONSUMER_URL = URL.parse('injvm://127.0.0.1/org.acme.Stock?interface=org.acme.Stock&side=consumer&application=shop');
const MIN_INT = -2147483648;

describe('the manifests', () => {
  it('declare context (provider) and consumercontext (consumer), both at Integer.MIN_VALUE', () => {
    const file = join(dirname(fileURLToPath(import.meta.url)), '..', 'META-INF', 'weft', 'weft.rpc.Filter.json');
    const manifest = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    expect(Object.keys(manifest).filter((k) => k !== '$schema')).toEqual(['context', 'consumercontext']);
    expect(manifest['context']).toMatchObject({
      module: './dist/context-filter.js',
      export: 'ContextFilter',
      activate: { group: ['provider'], order: MIN_INT },
    });
    expect(manifest['consumercontext']).toMatchObject({
      module: './dist/consumer-context-filter.js',
      export: 'ConsumerContextFilter',
      activate: { group: ['consumer'], order: MIN_INT },
    });
  });

  it('give an application with only core and this package exactly these two filters, activated by group', async () => {
    started = await startApp(['@weft/core', '@weft/filter-context']);
    const filters = started.app.model.getExtensionLoader(Filter);
    expect(filters.getSupportedExtensions()).toEqual(['consumercontext', 'context']);
    for (const name of ['context', 'consumercontext']) {
      expect(JSON.stringify(filters.getExtensionSource(name))).toContain('@weft/filter-context');
    }
    expect(filters.getExtension('context')).toBeInstanceOf(ContextFilter);
    expect(filters.getExtension('consumercontext')).toBeInstanceOf(ConsumerContextFilter);
    expect(filters.selectActivateNames(PROVIDER_URL, 'service.filter', 'provider')).toEqual(['context']);
    expect(filters.selectActivateNames(CONSUMER_URL, 'reference.filter', 'consumer')).toEqual(['consumercontext']);
    // Users remove them with `-name`, like any activated filter.
    expect(filters.selectActivateNames(PROVIDER_URL.addParameter('service.filter', '-context'), 'service.filter', 'provider')).toEqual([]);
    expect(filters.selectActivateNames(CONSUMER_URL.addParameter('reference.filter', '-consumercontext'), 'reference.filter', 'consumer')).toEqual(
      [],
    );
    const validators = started.app.model.getExtensionLoader(ConfigValidator);
    expect(validators.getSupportedExtensions()).toEqual(['timeout-countdown']);
    expect(validators.getActivateExtensions(CONSUMER_URL, undefined, 'consumer')).toEqual([validators.getExtension('timeout-countdown')]);
    expect(validators.getExtension('timeout-countdown')).toBeInstanceOf(TimeoutCountdownConfigValidator);
    expect(validators.selectActivateNames(PROVIDER_URL, undefined, 'provider')).toEqual([]);
  });

  it('put context and consumercontext outermost, before filters with any other order', async () => {
    started = await startApp(['@weft/core', '@weft/filter-context']);
    const filters = started.app.model.getExtensionLoader(Filter);
    class Early extends Filter {
      invoke(...args: Parameters<Filter['invoke']>) {
        return args[0].invoke(args[1]);
      }
    }
    filters.addExtension('early', Early, { activate: { group: ['provider', 'consumer'], order: -2147483000 } });
    expect(filters.selectActivateNames(PROVIDER_URL, 'service.filter', 'provider')).toEqual(['context', 'early']);
    expect(filters.selectActivateNames(CONSUMER_URL, 'reference.filter', 'consumer')).toEqual(['consumercontext', 'early']);
  });
});

describe('timeout-countdown (config validator)', () => {
  it('rejects enable-timeout-countdown values other than true/false at refer time, naming the key', async () => {
    started = await startApp();
    const { app } = started;
    await expect(app.refer(Stock, { parameters: { 'enable-timeout-countdown': 'yes' } })).rejects.toMatchObject({
      code: ExtensionErrorCode.INVALID_PARAMETER,
      message: expect.stringContaining('refer(org.acme.Stock): enable-timeout-countdown=yes must be true or false') as unknown,
    });
    await expect(app.refer(Stock, { methods: { reserve: { 'enable-timeout-countdown': '0' } } })).rejects.toMatchObject({
      code: ExtensionErrorCode.INVALID_PARAMETER,
      message: expect.stringContaining('reserve.enable-timeout-countdown=0 must be true or false') as unknown,
    });
    const stock = await app.refer(Stock, { parameters: { 'enable-timeout-countdown': 'FALSE' }, methods: { reserve: { 'enable-timeout-countdown': 'true' } } });
    expect(app.getReferenceUrl(stock)?.getParameter('enable-timeout-countdown')).toBe('FALSE');
  });

  it('refuses an override with a bad value and keeps the previous configuration', async () => {
    started = await startApp();
    const { app } = started;
    const stock = await app.refer(Stock);
    expect(() => app.override(stock, { 'reserve.enable-timeout-countdown': 'nope' })).toThrow(/reserve\.enable-timeout-countdown=nope must be true or false/);
    expect(app.getReferenceUrl(stock)?.getParameter('reserve.enable-timeout-countdown')).toBeUndefined();
    expect(app.override(stock, { 'enable-timeout-countdown': false }).getParameter('enable-timeout-countdown')).toBe('false');
  });
});
