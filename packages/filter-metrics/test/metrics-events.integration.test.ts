// Weft's own series, fed by the application's event channel: registry notifications (embedded registry, tri
// provider), executelimit refusals, circuit breaker state — and Dubbo's processing gauge back at 0 afterwards.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, RpcError, WeftApplication, type CallableProxy } from '@weft/core';
import { metricsOf } from '@weft/filter-metrics';
import { createTestApp, freePort, type TestApp } from '@weft/test-utils';

const Greeter = defineService('org.acme.Greeter', {
  busy: { args: [], returns: String },
  closedDoor: { args: [], returns: String },
});

let testApp: TestApp;
let dir: string;
let app: WeftApplication;
let families: ParsedFamily[];

function value(name: string, labels: Record<string, string>): number | undefined {
  const found = families.find((f) => f.name === name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return found?.value === undefined ? undefined : Number(found.value);
}

let greeter: CallableProxy<(typeof Greeter)['methods']>;

beforeAll(async () => {
  testApp = createTestApp(
    ['@weft/core', '@weft/cluster', '@weft/protocol-triple', '@weft/registry-embedded', '@weft/filter-executelimit', '@weft/filter-circuitbreaker', '@weft/filter-metrics'],
    { prefix: 'weft-metrics-events' },
  );
  dir = mkdtempSync(join(tmpdir(), 'weft-metrics-registry-'));
  app = await WeftApplication.start({
    root: testApp.root,
    name: 'metrics-events',
    registry: `embedded://${dir}?poll.interval=50&file-cache=false`,
    logger: { debug() {}, info() {}, warn() {}, error() {} },
  });
  const port = await freePort();
  await app.export(
    Greeter,
    { busy: () => new Promise<string>((resolve) => setTimeout(() => resolve('done'), 150)), closedDoor: () => 'open' },
    { protocol: 'tri', host: '127.0.0.1', port, methods: { busy: { executes: 1 } } },
  );
  greeter = await app.refer(Greeter, { retries: 0, timeout: 3000, methods: { closedDoor: { 'circuitbreaker.force': 'open' } } });
  const outcomes = await Promise.all([greeter.busy(), greeter.busy()].map((p) => p.then(String, (e: unknown) => (e instanceof RpcError ? e.code : 'other'))));
  expect(outcomes.sort()).toEqual(['done', 'limit-exceeded']);
  expect(await greeter.closedDoor().catch((e: unknown) => (e instanceof RpcError ? e.code : 'other'))).toBe('circuit-open');
  families = parsePrometheusTextFormat(await metricsOf(app).scrape());
});
afterAll(async () => {
  await app?.shutdown({ timeout: 2000 });
  testApp?.cleanup();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

describe('series fed by events', () => {
  it('counts registry notifications per service and category, with the URL count of the last one', () => {
    const providers = { application_name: 'metrics-events', interface: 'org.acme.Greeter', category: 'providers' };
    expect(value('dubbo_registry_notify_requests_total', providers)).toBeGreaterThanOrEqual(1);
    expect(value('dubbo_registry_notify_num_last', providers)).toBe(1);
    expect(families.find((f) => f.name === 'dubbo_registry_notify_requests_total')?.metrics.map((m) => m.labels?.['registry'])).toContain(`embedded://${dir}`);
  });

  it('counts the executelimit refusal by limiter and method; the provider sees it as a limit failure', () => {
    const busy = { application_name: 'metrics-events', interface: 'org.acme.Greeter', method: 'busy' };
    expect(value('weft_provider_requests_refused_total', { ...busy, limiter: 'executelimit' })).toBe(1);
    expect(value('dubbo_provider_requests_limit_total', busy)).toBe(1);
    expect(value('dubbo_provider_requests_total', busy)).toBe(2);
    expect(value('dubbo_provider_requests_processing_total', busy)).toBe(0);
  });

  it('counts the open tri connections of the provider (the consumer holds one)', () => {
    expect(value('weft_connections', { application_name: 'metrics-events', protocol: 'tri', side: 'provider' })).toBe(1);
  });

  it('shows the forced-open breaker: 1 for forced-open, 0 for the other states', () => {
    const resource = { application_name: 'metrics-events', resource: 'org.acme.Greeter#closedDoor' };
    const states = ['closed', 'open', 'half-open', 'forced-open', 'forced-closed'];
    expect(states.map((state) => value('weft_consumer_circuitbreaker_state', { ...resource, state }))).toEqual([0, 0, 0, 1, 0]);
    // A refusal of an open breaker never reached the provider.
    expect(value('dubbo_provider_requests_total', { application_name: 'metrics-events', interface: 'org.acme.Greeter', method: 'closedDoor' })).toBeUndefined();
  });

  it('drops the breaker series when an override removes the breaker rule (its chain is rebuilt without the filter)', async () => {
    app.override(greeter, { 'closedDoor.circuitbreaker.force': null });
    const deadline = Date.now() + 5000;
    let after = families;
    for (;;) {
      const answer = await greeter.closedDoor().catch((e: unknown) => (e instanceof RpcError ? e.code : 'other'));
      after = parsePrometheusTextFormat(await metricsOf(app).scrape());
      const series = after.find((f) => f.name === 'weft_consumer_circuitbreaker_state')?.metrics ?? [];
      if (answer === 'open' && !series.some((m) => m.labels?.['resource'] === 'org.acme.Greeter#closedDoor')) break;
      if (Date.now() > deadline) throw new Error(`the breaker series stayed: ${JSON.stringify(series)}`);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(after.find((f) => f.name === 'dubbo_consumer_requests_succeed_total')?.metrics.some((m) => m.labels?.['method'] === 'closedDoor')).toBe(true);
  });
});
