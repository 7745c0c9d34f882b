// configureProviders: what a consumer's directory makes of registered providers and override rules, for tools.
import { describe, expect, it } from 'vitest';

import { URL } from '@weft/core';
import { configureProviders } from '@weft/core/spi';

const consumer = URL.parse('consumer://10.1.1.1/org.acme.Users?interface=org.acme.Users&side=consumer&application=shop&timeout=1000');
const provider = (host: string, extra = '') => URL.parse(`tri://${host}:50051/org.acme.Users?interface=org.acme.Users&side=provider&application=users${extra}`);

describe('configureProviders', () => {
  it('merges each provider with the consumer URL and applies the matching override rules', () => {
    const rules = [
      URL.parse('override://10.0.0.2:50051/org.acme.Users?category=configurators&disabled=true'),
      URL.parse('override://10.0.0.3:50051/org.acme.Users?category=configurators&weight=10'),
      URL.parse('override://0.0.0.0/org.acme.Users?category=configurators&timeout=3000'),
    ];
    const { consumerUrl, providers } = configureProviders(consumer, [provider('10.0.0.1'), provider('10.0.0.2'), provider('10.0.0.3'), URL.parse('mock://0.0.0.0/org.acme.Users')], rules);
    expect(consumerUrl.getParameter('timeout')).toBe('3000');
    expect(providers.map((p) => [p.url.getAddress(), p.enabled, p.url.getParameter('weight') ?? null, p.url.getParameter('remote.application')])).toEqual([
      ['10.0.0.1:50051', true, null, 'users'],
      ['10.0.0.2:50051', false, null, 'users'],
      ['10.0.0.3:50051', true, '10', 'users'],
    ]);
    // A port-less 0.0.0.0 rule reaches the providers too (Dubbo's legacy rule); rules come in application order.
    expect(providers[1]?.rules.map((r) => r.url.getAddress())).toEqual(['0.0.0.0', '10.0.0.2:50051']);
    expect(providers[0]?.rules.map((r) => r.url.getAddress())).toEqual(['0.0.0.0']);
    expect(providers[0]?.url.getParameter('timeout')).toBe('3000');
  });

  it('an empty:// rule means no rules; a consumer naming protocols keeps only those providers', () => {
    const { providers } = configureProviders(
      consumer.addParameter('protocol', 'dubbo'),
      [provider('10.0.0.1'), URL.parse('dubbo://10.0.0.9:20880/org.acme.Users?interface=org.acme.Users&side=provider')],
      [URL.parse('empty://0.0.0.0/org.acme.Users?category=configurators')],
    );
    expect(providers.map((p) => p.url.getAddress())).toEqual(['10.0.0.9:20880']);
  });
});
