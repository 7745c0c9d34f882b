import { afterEach, describe, expect, it } from 'vitest';

import { ConfigValidator, ExtensionError, Filter, URL } from '@weft/core';
import { AccessLogConfigValidator, AccessLogFilter } from '@weft/filter-accesslog';

import { closeAll, Greeter, startApp } from './support/harness.js';

afterEach(closeAll);

const provider = (query: string) => URL.parse(`injvm://127.0.0.1/org.acme.Greeter?interface=org.acme.Greeter${query}`);

describe('the Filter manifest', () => {
  it('activates accesslog in the provider group only when the accesslog key is set (2.7 style)', async () => {
    const { app } = await startApp();
    const filters = app.model.getExtensionLoader(Filter);
    const select = (query: string, group = 'provider') => filters.selectActivateNames(provider(query), 'service.filter', group);

    expect(select('')).not.toContain('accesslog');
    expect(select('&accesslog=true')).toContain('accesslog');
    expect(select('&accesslog=default')).toContain('accesslog');
    expect(select('&accesslog=logs/access.log')).toContain('accesslog');
    expect(select('&sayHello.accesslog=true')).toContain('accesslog');
    // ConfigUtils-empty values do not activate it.
    for (const off of ['false', '0', 'null', 'N/A', 'FALSE']) expect(select(`&accesslog=${off}`)).not.toContain('accesslog');
    // An unrelated dotted key with the same prefix does not either.
    expect(select('&accesslog.format=json')).not.toContain('accesslog');
    // `-accesslog` removes it.
    expect(filters.selectActivateNames(provider('&accesslog=true&service.filter=-accesslog'), 'service.filter', 'provider')).not.toContain(
      'accesslog',
    );
    // Never on the consumer side.
    expect(select('&accesslog=true', 'consumer')).not.toContain('accesslog');
    expect(filters.selectActivateNames(provider('&accesslog=true'), 'reference.filter', 'consumer')).not.toContain('accesslog');
  });

  it('builds the real filter class, one instance per application', async () => {
    const a = await startApp();
    const b = await startApp({ name: 'other' });
    const url = provider('&accesslog=true');
    const fromA = a.app.model.getExtensionLoader(Filter).getActivateExtensions(url, 'service.filter', 'provider');
    const fromB = b.app.model.getExtensionLoader(Filter).getActivateExtensions(url, 'service.filter', 'provider');
    const filterA = fromA.find((f) => f instanceof AccessLogFilter);
    const filterB = fromB.find((f) => f instanceof AccessLogFilter);
    expect(filterA).toBeInstanceOf(AccessLogFilter);
    expect(filterB).toBeInstanceOf(AccessLogFilter);
    expect(filterA).not.toBe(filterB);
  });

  it('an application with only @weft/core and this package gets this filter and no other', async () => {
    const { app } = await startApp({ packages: ['@weft/core', '@weft/filter-accesslog'] });
    const filters = app.model.getExtensionLoader(Filter);
    expect(filters.getSupportedExtensions()).toEqual(['accesslog']);
    expect(JSON.stringify(filters.getExtensionSource('accesslog'))).toContain('filter-accesslog');
    expect(app.model.getExtensionLoader(ConfigValidator).getSupportedExtensions()).toEqual(['accesslog']);
    expect(filters.getActivateExtensions(provider('&accesslog=true'), 'service.filter', 'provider').map((f) => f.constructor)).toEqual([
      AccessLogFilter,
    ]);
  });
});

describe('the ConfigValidator manifest', () => {
  it('activates the validator with the filter, and it rejects bad keys at export time, naming them', async () => {
    const { app } = await startApp();
    const validators = app.model.getExtensionLoader(ConfigValidator);
    expect(validators.selectActivateNames(provider('&accesslog=x.log'), undefined, 'provider')).toEqual(['accesslog']);
    expect(validators.selectActivateNames(provider(''), undefined, 'provider')).toEqual([]);
    expect(validators.getExtension('accesslog')).toBeInstanceOf(AccessLogConfigValidator);

    const impl = {
      sayHello: () => '',
      ping: () => '',
      seq: () => 0,
      buy: () => '',
      now: () => '',
    };
    const bad: [Record<string, string>, RegExp][] = [
      [{ 'accesslog.buffer.size': 'lots' }, /accesslog\.buffer\.size=lots is not a positive integer/],
      [{ 'accesslog.flush.interval': '0' }, /accesslog\.flush\.interval=0 is not a positive integer.*milliseconds/],
      [{ 'accesslog.max.pending': '1.5' }, /accesslog\.max\.pending=1\.5 is not a positive integer/],
      [{ 'accesslog.format': 'xml' }, /accesslog\.format=xml is not a known format.*"text".*"json"/],
    ];
    for (const [parameters, message] of bad) {
      const attempt = app.export(Greeter, impl, { parameters: { accesslog: 'x.log', ...parameters } });
      await expect(attempt).rejects.toBeInstanceOf(ExtensionError);
      await expect(attempt).rejects.toThrow(message);
      await expect(attempt).rejects.toThrow(/^export\(org\.acme\.Greeter\): /);
    }
    // Without accesslog the keys are not read, so they are not checked either.
    await expect(app.export(Greeter, impl, { parameters: { 'accesslog.format': 'xml' } })).resolves.toBeDefined();
  });
});
