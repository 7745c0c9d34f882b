// The `metrics` filter in real provider and consumer chains (injvm export + refer in one WeftApplication), a scripted
// mix of calls, and the application's /metrics endpoint scraped over HTTP and parsed by a Prometheus text-format
// parser: exact counts per method and failure class, mock and limit events, histogram buckets.
// (governance-resilience-observability.md §6)
import { request } from 'node:http';

import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { defineService, Filter, RpcError, URL, WeftApplication, type CallableProxy } from '@weft/core';
import { MetricsFilter, metricsOf, type MetricsServer } from '@weft/filter-metrics';
import { createTestApp, type TestApp } from '@weft/test-utils';

const Greeter = defineService('org.acme.Greeter', {
  hello: { args: [String], returns: String },
  slow: { args: [], returns: String },
  limited: { args: [], returns: String },
  degraded: { args: [], returns: String },
  forced: { args: [], returns: String },
});
type GreeterMethods = (typeof Greeter)['methods'];

class NoSuchName extends Error {
  override name = 'NoSuchName';
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const impl = {
  hello: (name: string) => {
    if (name === 'boom') throw new NoSuchName(`no ${name}`);
    return `hello ${name}`;
  },
  slow: async () => {
    await sleep(200);
    return 'late';
  },
  limited: () => 'admitted',
  degraded: async () => {
    await sleep(150);
    return 'too late';
  },
  forced: () => 'never',
};

let testApp: TestApp;
let app: WeftApplication;
let greeter: CallableProxy<GreeterMethods>;
let server: MetricsServer;

async function outcome(call: () => Promise<unknown>): Promise<string> {
  try {
    return `ok: ${String(await call())}`;
  } catch (error) {
    return error instanceof RpcError ? error.code : (error as Error).name;
  }
}

function scrape(url: string): Promise<{ status: number; type: string; body: string }> {
  return new Promise((resolve, reject) => {
    request(url, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, type: String(response.headers['content-type']), body }));
    })
      .on('error', reject)
      .end();
  });
}

/** The value of `name`'s sample for `method` (and extra labels); undefined when the series does not exist. */
function sample(families: ParsedFamily[], name: string, labels: Record<string, string>): number | undefined {
  const family = families.find((f) => f.name === name);
  const found = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return found?.value === undefined ? undefined : Number(found.value);
}

let families: ParsedFamily[];
let scrapedText: string;
const of = (method: string) => ({ application_name: 'metrics-test', interface: 'org.acme.Greeter', method, group: '', version: '' });

beforeAll(async () => {
  testApp = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/filter-tpslimit', '@weft/filter-metrics'], { prefix: 'weft-metrics' });
  app = await WeftApplication.start({ root: testApp.root, name: 'metrics-test' });
  server = await metricsOf(app).listen({ port: 0 });
  await app.export(Greeter, impl, { methods: { limited: { tps: 2, 'tps.interval': 60_000 } } });
  greeter = await app.refer(Greeter, {
    retries: 0,
    parameters: { copy: false },
    methods: { slow: { timeout: 50 }, degraded: { timeout: 30, mock: 'return "fallback"' }, forced: { mock: 'force:return "forced"' } },
  });
  const script: [string, () => Promise<unknown>][] = [
    ['ok: hello a', () => greeter.hello('a')],
    ['ok: hello b', () => greeter.hello('b')],
    ['ok: hello c', () => greeter.hello('c')],
    ['NoSuchName', () => greeter.hello('boom')],
    ['NoSuchName', () => greeter.hello('boom')],
    ['timeout', () => greeter.slow()],
    ['ok: admitted', () => greeter.limited()],
    ['ok: admitted', () => greeter.limited()],
    ['limit-exceeded', () => greeter.limited()],
    ['ok: fallback', () => greeter.degraded()],
    ['ok: fallback', () => greeter.degraded()],
    ['ok: forced', () => greeter.forced()],
    ['ok: forced', () => greeter.forced()],
    ['ok: forced', () => greeter.forced()],
  ];
  const seen: string[] = [];
  for (const [, call] of script) seen.push(await outcome(call));
  expect(seen).toEqual(script.map(([expected]) => expected));
  await sleep(300); // the provider finishes the calls the consumer gave up on
  const scraped = await scrape(server.url);
  expect(scraped.status).toBe(200);
  expect(scraped.type).toBe('text/plain; version=0.0.4; charset=utf-8');
  scrapedText = scraped.body;
  families = parsePrometheusTextFormat(scraped.body);
});
afterAll(async () => {
  await app?.shutdown({ timeout: 2000 });
  testApp?.cleanup();
});

describe('activation (manifest)', () => {
  it('is in provider and consumer chains once installed', () => {
    const url = URL.parse('injvm://127.0.0.1/org.acme.Greeter?interface=org.acme.Greeter&side=consumer');
    const loader = app.model.getExtensionLoader(Filter);
    expect(loader.getActivateExtensions(url, 'reference.filter', 'consumer').some((f) => f instanceof MetricsFilter)).toBe(true);
    expect(loader.getActivateExtensions(url.addParameter('side', 'provider'), 'service.filter', 'provider').some((f) => f instanceof MetricsFilter)).toBe(true);
  });
});

describe('RPC counters after the scripted mix (scraped over HTTP)', () => {
  it('counts the provider side per method and failure class', () => {
    const rows = ['hello', 'slow', 'limited', 'degraded', 'forced'].map((method) => [
      method,
      ...['requests_total', 'requests_succeed_total', 'requests_failed_total', 'requests_business_failed_total', 'requests_timeout_total', 'requests_limit_total', 'requests_processing_total'].map(
        (name) => sample(families, `dubbo_provider_${name}`, of(method)),
      ),
    ]);
    expect(rows).toEqual([
      ['hello', 5, 3, 2, 2, 0, 0, 0],
      ['slow', 1, 1, 0, 0, 0, 0, 0],
      ['limited', 3, 2, 1, 0, 0, 1, 0],
      ['degraded', 2, 2, 0, 0, 0, 0, 0],
      // force mock never reaches a provider: no series at all
      ['forced', undefined, undefined, undefined, undefined, undefined, undefined, undefined],
    ]);
  });

  it('counts the consumer side per attempt: timeouts, limit refusals seen by the caller, business errors', () => {
    const rows = ['hello', 'slow', 'limited', 'degraded', 'forced'].map((method) => [
      method,
      ...['requests_total', 'requests_succeed_total', 'requests_failed_total', 'requests_business_failed_total', 'requests_timeout_total', 'requests_limit_total', 'requests_unknown_failed_total'].map(
        (name) => sample(families, `dubbo_consumer_${name}`, of(method)),
      ),
    ]);
    expect(rows).toEqual([
      ['hello', 5, 3, 2, 2, 0, 0, 0],
      ['slow', 1, 0, 1, 0, 1, 0, 0],
      ['limited', 3, 2, 1, 0, 0, 1, 0],
      ['degraded', 2, 0, 2, 0, 2, 0, 0],
      ['forced', undefined, undefined, undefined, undefined, undefined, undefined, undefined],
    ]);
    expect(sample(families, 'dubbo_consumer_requests_processing_total', of('slow'))).toBe(0);
  });

  it('counts mock degradations by mode and method, and the tps refusal by limiter', () => {
    expect(sample(families, 'weft_consumer_mock_total', { ...of('degraded'), mode: 'fail' })).toBe(2);
    expect(sample(families, 'weft_consumer_mock_total', { ...of('forced'), mode: 'force' })).toBe(3);
    expect(families.find((f) => f.name === 'weft_consumer_mock_total')?.metrics).toHaveLength(2);
    expect(sample(families, 'weft_provider_requests_refused_total', { ...of('limited'), limiter: 'tps' })).toBe(1);
  });

  it('puts each observation in the right histogram bucket (read through prom-client\'s registry JSON)', async () => {
    // parse-prometheus-text-format folds labelled histograms into one: buckets are read from prom-client's JSON.
    const json = await metricsOf(app).registry.getMetricsAsJSON();
    const histogram = (side: string, method: string) => {
      const values = json.find((m) => m.name === `dubbo_${side}_rt_milliseconds_histogram_seconds`)?.values ?? [];
      const mine = values.filter((v) => v.labels['method'] === method);
      const named = (suffix: string) => mine.filter((v) => (v as { metricName?: string }).metricName?.endsWith(suffix));
      return {
        buckets: Object.fromEntries(named('_bucket').map((v) => [String(v.labels['le']), v.value])),
        count: named('_count')[0]?.value,
        sum: named('_sum')[0]?.value ?? 0,
      };
    };
    const consumerSlow = histogram('consumer', 'slow');
    expect(consumerSlow.count).toBe(1);
    expect(consumerSlow.buckets['0.025']).toBe(0);
    expect(consumerSlow.buckets['0.25']).toBe(1);
    expect(consumerSlow.buckets['+Inf']).toBe(1);
    const providerSlow = histogram('provider', 'slow');
    expect(providerSlow.buckets['0.1']).toBe(0);
    expect(providerSlow.buckets['0.25']).toBe(1);
    expect(providerSlow.sum).toBeGreaterThanOrEqual(0.19);
    const hello = histogram('provider', 'hello');
    expect(hello.count).toBe(5);
    expect(hello.buckets['0.025']).toBe(5);
    expect(Object.keys(hello.buckets).sort()).toEqual(['0.0005', '0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'].sort());
    // The same buckets in the scraped text.
    expect(scrapedText).toContain('dubbo_provider_rt_milliseconds_histogram_seconds_bucket{le="0.25",application_name="metrics-test",interface="org.acme.Greeter",method="slow",group="",version=""} 1');
    // Gauges in ms: the provider's slow call took about 200 ms; p99 of it lies in its bucket (0.1–0.25 s).
    const p99 = sample(families, 'dubbo_provider_rt_milliseconds_p99', of('slow')) ?? 0;
    expect(p99).toBeGreaterThan(100);
    expect(p99).toBeLessThanOrEqual(250);
    expect(sample(families, 'dubbo_provider_rt_milliseconds_max', of('slow'))).toBeGreaterThanOrEqual(190);
  });
});

describe('the endpoint and other registries', () => {
  it('answers 404 off its path and serves on loopback', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const missing = await scrape(server.url.replace('/metrics', '/other'));
    expect([missing.status, missing.body]).toEqual([404, 'Not found: /other; metrics are at /metrics\n']);
  });

  it('registers every family into an existing prom-client registry, read there with its own JSON', async () => {
    const own = new Registry();
    metricsOf(app).registerInto(own);
    const json = await own.getMetricsAsJSON();
    const total = json.find((m) => m.name === 'dubbo_provider_requests_total');
    expect(total?.values.find((v) => v.labels['method'] === 'hello')?.value).toBe(5);
  });

  it('keeps applications apart: a second application has its own registry with no series', async () => {
    const other = await WeftApplication.start({ root: testApp.root, name: 'metrics-other' });
    try {
      expect(metricsOf(other)).not.toBe(metricsOf(app));
      const text = await metricsOf(other).scrape();
      expect(parsePrometheusTextFormat(text).find((f) => f.name === 'dubbo_provider_requests_total')?.metrics ?? []).toEqual([]);
    } finally {
      await other.shutdown({ timeout: 2000 });
    }
  });
});
