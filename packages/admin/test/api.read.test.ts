// The read endpoints against real applications on an embedded registry: the service list with its counts and
// search, one service in detail (secrets masked), 404 with the closest name, and metrics scraped from real
// `@weft/filter-metrics` endpoints — given, and discovered from a registration's `metrics.port` — showing request
// rates and the mock answers a forced mock produces.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { URL, type WeftApplication } from '@weft/core';
import { startAdmin, type AdminServer } from '@weft/admin';
import { metricsOf } from '@weft/filter-metrics';
import { createTestApp, freePort, RecordingLogger, type TestApp } from '@weft/test-utils';

import { AdminClient, eventually } from './support/admin-client.ts';
import { startConsumer, startProvider, type GreeterClient, type RunningProvider } from './support/services.ts';

const TOKEN = 'console-read-token';
const SERVICE = 'org.acme.Greeter';
let app: TestApp;
let dir: string;
let registry: string;
let admin: AdminServer;
let client: AdminClient;
let provider: RunningProvider;
let consumer: { app: WeftApplication; greeter: GreeterClient };
let consumerMetrics: string;
let providerMetricsPort: number;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  app = createTestApp(['@weft/core', '@weft/cluster', '@weft/mock', '@weft/protocol-triple', '@weft/registry-embedded', '@weft/filter-metrics', '@weft/filter-circuitbreaker'], { prefix: 'weft-admin-read' });
  dir = mkdtempSync(join(tmpdir(), 'weft-admin-read-'));
  registry = `embedded://${dir}`;
  const live = `${registry}?poll.interval=50&file-cache=false`;
  providerMetricsPort = await freePort();
  provider = await startProvider(app.root, live, 'a', { 'metrics.port': String(providerMetricsPort) });
  const providerEndpoint = await metricsOf(provider.app).listen({ port: providerMetricsPort });
  consumer = await startConsumer(app.root, live);
  const consumerEndpoint = await metricsOf(consumer.app).listen({ port: 0 });
  consumerMetrics = consumerEndpoint.url;
  closers.push(() => providerEndpoint.close(), () => consumerEndpoint.close(), () => consumer.app.shutdown({ timeout: 1000 }), () => provider.app.shutdown({ timeout: 1000 }));
  // a provider URL written by hand, with a secret parameter (Weft itself never registers secrets)
  const secret = URL.parse(`tri://127.0.0.1:1/org.acme.Vault?interface=org.acme.Vault&side=provider&category=providers&application=vault&methods=open&token=s3cret&dynamic=false`);
  await provider.app.registry!.register(secret);
  admin = await startAdmin({ registry, port: 0, token: TOKEN, logger: new RecordingLogger(), metrics: [consumerMetrics], scrapeInterval: 200 });
  client = new AdminClient(admin.url);
  await client.login(TOKEN);
  await eventually(() => consumer.greeter.sayHello('ann'), (v) => v === 'hello ann from a');
});

afterAll(async () => {
  await admin?.close();
  for (const close of closers.reverse()) await close();
  app?.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe('GET /api/services', () => {
  it('lists every service with its providers, consumers, applications and rule counts; q filters by substring', async () => {
    // metrics are null until two scrapes of an endpoint that reports the service
    const all = await eventually(() => client.get('/api/services'), (list: { service: string; rps: number | null }[]) => list[0]?.rps !== null);
    expect(all.map((s: { service: string }) => s.service)).toEqual(['org.acme.Greeter', 'org.acme.Vault']);
    expect(all[0]).toEqual({
      service: SERVICE,
      group: null,
      version: null,
      providers: { total: 1, enabled: 1 },
      consumers: 1,
      applications: ['provider-a', 'shop'],
      overrides: 0,
      routes: 0,
      mock: null,
      errorRate: 0,
      p99: expect.any(Number),
      rps: expect.any(Number),
    });
    expect(all[1]).toMatchObject({ service: 'org.acme.Vault', consumers: 0, errorRate: null, p99: null, rps: null });
    expect((await client.get('/api/services?q=VAULT')).map((s: { service: string }) => s.service)).toEqual(['org.acme.Vault']);
    expect(await client.get('/api/services?q=nothing-like-it')).toEqual([]);
  });
});

describe('GET /api/services/<interface>', () => {
  it('shows methods, providers, consumers, overrides and routes', async () => {
    const detail = await client.get(`/api/services/${encodeURIComponent(SERVICE)}`);
    expect(detail.service).toBe(SERVICE);
    expect(detail.methods).toEqual([
      { name: 'count', returns: 'Number' },
      { name: 'sayHello', returns: 'String' },
    ]);
    expect(detail.providers).toEqual([
      expect.objectContaining({ address: provider.address, application: 'provider-a', protocol: 'tri', group: null, version: null, weight: 100, enabled: true }),
    ]);
    expect(detail.providers[0].parameters).toMatchObject({ interface: SERVICE, 'metrics.port': String(providerMetricsPort) });
    expect(detail.consumers).toEqual([expect.objectContaining({ address: expect.any(String), application: 'shop' })]);
    expect(detail.overrides).toEqual([]);
    expect(detail.routes).toEqual([]);
    expect((await client.get(`/api/services/${SERVICE}?group=other`)).providers).toEqual([]);
  });

  it('masks secret parameters everywhere', async () => {
    const detail = await client.get('/api/services/org.acme.Vault');
    expect(detail.providers[0].parameters.token).toBe('***');
    expect(detail.providers[0].url).toContain('token=***');
    expect(JSON.stringify(detail)).not.toContain('s3cret');
  });

  it('an unknown service is 404 naming the closest one; a malformed name is 400', async () => {
    const near = await client.call('GET', '/api/services/org.acme.Greter');
    expect(near.status).toBe(404);
    expect(near.body).toEqual({ error: `unknown service org.acme.Greter: nothing is registered for it at ${registry}; did you mean org.acme.Greeter?` });
    const far = await client.call('GET', '/api/services/com.example.Nothing');
    expect(far.status).toBe(404);
    expect(far.body.error).toContain('(services: org.acme.Greeter, org.acme.Vault)');
    const bad = await client.call('GET', `/api/services/${encodeURIComponent('not a name')}`);
    expect(bad.status).toBe(400);
    expect((await client.call('POST', '/api/services')).status).toBe(405);
    const metrics = await client.call('GET', '/api/services/org.acme.Greter/metrics');
    expect(metrics.status).toBe(404);
    expect(metrics.body.error).toContain('did you mean org.acme.Greeter?');
    expect((await client.call('DELETE', `/api/services/${SERVICE}/metrics`, {})).status).toBe(405);
  });
});

/** Calls `call` every 5 ms (ignoring failures) until `stop()`, which resolves once the last call ended. */
function keepCalling(call: () => Promise<unknown>): { stop(): Promise<void> } {
  let done = false;
  const loop = (async () => {
    while (!done) {
      await call().catch(() => undefined);
      await new Promise((r) => setTimeout(r, 5));
    }
  })();
  return {
    stop: () => {
      done = true;
      return loop;
    },
  };
}

describe('GET /api/services/<interface>/metrics', () => {
  it('scrapes the given endpoint and the one a registration announces (metrics.port): request rates, latency, mock answers', async () => {
    const traffic = keepCalling(() => consumer.greeter.sayHello('ann'));
    try {
      const busy = await eventually(
        () => client.get(`/api/services/${SERVICE}/metrics`),
        (m: { interval: number; points: { rps: number }[] }) => m.points.some((p) => p.rps > 10),
      );
      expect(busy.interval).toBe(200);
      const last = busy.points[busy.points.length - 1];
      expect(last).toEqual({
        t: expect.any(Number),
        rps: expect.any(Number),
        errorsPerSecond: { timeout: 0, business: 0, network: 0, limit: 0, codec: 0, unknown: 0 },
        p50: expect.any(Number),
        p99: expect.any(Number),
        mockPerSecond: { force: 0, fail: 0 },
        breaker: null,
      });
      const summary = (await client.get('/api/services?q=Greeter'))[0];
      expect(summary.rps).toBeGreaterThan(0);
      expect(summary.errorRate).toBe(0);

      await client.act('POST', `/api/services/${SERVICE}/mock`, { method: 'sayHello', mock: 'force:return "degraded"', confirm: true });
      await eventually(
        () => client.get(`/api/services/${SERVICE}/metrics`),
        (m: { points: { mockPerSecond: { force: number } }[] }) => (m.points[m.points.length - 1]?.mockPerSecond.force ?? 0) > 10,
      );
    } finally {
      await traffic.stop();
    }
  });

  it('shows the circuit breaker state a forced breaker reports, and the refused calls as failures', async () => {
    const traffic = keepCalling(() => consumer.greeter.count());
    try {
      await client.act('POST', `/api/services/${SERVICE}/breaker`, { method: 'count', state: 'open', confirm: true });
      await eventually(
        () => client.get(`/api/services/${SERVICE}/metrics`),
        (m: { points: { breaker: string | null; errorsPerSecond: Record<string, number> }[] }) =>
          m.points.some((p) => p.breaker === 'forced-open' && Object.values(p.errorsPerSecond).reduce((a, b) => a + b, 0) > 0),
      );
      await expect(consumer.greeter.count()).rejects.toMatchObject({ code: 'circuit-open' });
      await client.act('POST', `/api/services/${SERVICE}/breaker`, { method: 'count', state: 'auto', confirm: true });
      await eventually(() => consumer.greeter.count(), (n) => n === 42);
    } finally {
      await traffic.stop();
    }
  });

  it('an endpoint that fails or answers garbage is logged once and does not stop the others', async () => {
    const bad = createServer((req, res) => {
      if (req.url === '/500') res.writeHead(500).end('boom');
      else res.writeHead(200, { 'content-type': 'text/plain' }).end('{not prometheus\n\u0000\u0001 at all');
    });
    await new Promise<void>((resolve) => bad.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(bad.address() as AddressInfo).port}`;
    const logger = new RecordingLogger();
    const own = await startAdmin({ registry, port: 0, token: TOKEN, logger, metrics: [`${base}/500`, `${base}/garbage`, consumerMetrics], scrapeInterval: 100 });
    const traffic = keepCalling(() => consumer.greeter.count());
    try {
      const ownClient = new AdminClient(own.url);
      await ownClient.login(TOKEN);
      const metrics = await eventually(() => ownClient.get(`/api/services/${SERVICE}/metrics`), (m: { points: { rps: number }[] }) => m.points.filter((p) => p.rps > 0).length >= 3);
      expect(metrics.points.length).toBeGreaterThanOrEqual(3);
      const failures = logger.of('warn').filter((m) => m.includes(`${base}/500`));
      expect(failures).toEqual([`weft admin: cannot scrape ${base}/500`]);
    } finally {
      await traffic.stop();
      await own.close();
      await new Promise<void>((resolve) => bad.close(() => resolve()));
    }
  });

  it('finds an endpoint from a registration carrying metrics.port (no endpoint given)', async () => {
    const own = await startAdmin({ registry, port: 0, token: TOKEN, logger: new RecordingLogger(), scrapeInterval: 200 });
    const traffic = keepCalling(() => consumer.greeter.count());
    try {
      const ownClient = new AdminClient(own.url);
      await ownClient.login(TOKEN);
      // only the provider's endpoint (discovered) reports the service: its provider-side series
      await eventually(() => ownClient.get(`/api/services/${SERVICE}/metrics`), (m: { points: { rps: number }[] }) => m.points.some((p) => p.rps > 10));
      expect((await ownClient.get('/api/services/org.acme.Vault/metrics')).points).toEqual([]);
    } finally {
      await traffic.stop();
      await own.close();
    }
  });
});
