import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';

import { ApplicationEvents, URL, type ApplicationModel, type WeftEvent } from '@weft/core';
import { Registry, type Metric } from 'prom-client';

import { CollectedCounter, CollectedGauge, CollectedHistogram, type Sample } from './collected-metric.js';
import { MetricsDefaults } from './metrics-keys.js';
import { MethodStats } from './method-stats.js';

/** The label names of every RPC series (Dubbo's `MethodMetric`). */
export const RPC_LABELS = ['application_name', 'interface', 'method', 'group', 'version'] as const;

/** Which side of a call a series counts. */
export type MetricsSide = 'provider' | 'consumer';

/** Options of {@link WeftMetrics.listen}. */
export interface MetricsServerOptions {
  /** TCP port; 0 picks a free one. @defaultValue `20888` (Dubbo 3.1's exporter port) */
  readonly port?: number;
  /** Address to bind. @defaultValue `'127.0.0.1'` */
  readonly host?: string;
  /** The scrape path. @defaultValue `'/metrics'` */
  readonly path?: string;
}

/** A running `/metrics` endpoint. */
export interface MetricsServer {
  /** The bound port. */
  readonly port: number;
  /** The scrape URL, e.g. `http://127.0.0.1:20888/metrics`. */
  readonly url: string;
  /** Stops listening. */
  close(): Promise<void>;
}

/** An event counter keyed by its label values. */
class EventCounts {
  readonly counts = new Map<string, { labels: Record<string, string>; value: number }>();

  add(labels: Record<string, string>, by = 1): void {
    const key = Object.values(labels).join('\u0000');
    const entry = this.counts.get(key);
    if (entry === undefined) this.counts.set(key, { labels, value: by });
    else entry.value += by;
  }

  set(labels: Record<string, string>, value: number): void {
    this.counts.set(Object.values(labels).join('\u0000'), { labels, value });
  }

  /** Drops the series whose labels match (a resource that no longer exists). */
  removeWhere(matches: (labels: Record<string, string>) => boolean): void {
    for (const [key, entry] of this.counts) if (matches(entry.labels)) this.counts.delete(key);
  }

  samples(): Sample[] {
    return [...this.counts.values()].map(({ labels, value }) => ({ labels, value }));
  }
}

const BREAKER_STATES = ['closed', 'open', 'half-open', 'forced-open', 'forced-closed'] as const;

/**
 * The metrics of one application: its prom-client registry, the series the `metrics` filter counts, the events
 * it listens to, and the optional `/metrics` endpoint.
 *
 * @remarks
 * One per application scope (`metricsOf(app)`, or created by the filter when the first chain is built): two
 * applications in a process never share a registry or a series. Sample names and labels follow Dubbo 3.2+ (see the
 * package README for the list); prom-client formats the exposition. Per-call counting happens in plain fields of
 * one {@link MethodStats} per label set; prom-client reads them on every scrape. The endpoint and the events
 * subscriptions end when the application is destroyed.
 *
 * @example
 * ```ts
 * const metrics = metricsOf(app);
 * const server = await metrics.listen({ port: 9464 });   // http://127.0.0.1:9464/metrics
 * metrics.registerInto(myRegistry);                       // or: your own prom-client Registry serves them
 * ```
 */
export class WeftMetrics {
  /** The application's own prom-client registry (what the endpoint serves). */
  readonly registry = new Registry();
  private readonly series = { provider: new Map<string, MethodStats>(), consumer: new Map<string, MethodStats>() };
  private readonly mocks = new EventCounts();
  private readonly refusals = new EventCounts();
  private readonly breakers = new EventCounts();
  private readonly notifications = new EventCounts();
  private readonly notifiedUrls = new EventCounts();
  private readonly connections = new EventCounts();
  private readonly families: Metric[] = [];
  private readonly servers = new Set<Server>();

  constructor(private readonly app: ApplicationModel) {
    this.define();
    const events = app.getService(ApplicationEvents);
    const stops = [
      events.on('mock.force', (e) => this.mocks.add({ ...this.eventLabels(e), mode: 'force' })),
      events.on('mock.fail', (e) => this.mocks.add({ ...this.eventLabels(e), mode: 'fail' })),
      events.on('limit.refused', (e) => this.refusals.add({ ...this.eventLabels(e), limiter: String(e['limiter']) })),
      events.on('circuitbreaker.state', (e) => this.breakerChanged(e)),
      events.on('circuitbreaker.removed', (e) => this.breakers.removeWhere((labels) => labels['resource'] === String(e['resource'] ?? ''))),
      events.on('registry.notify', (e) => this.notified(e)),
      events.on('connection.opened', (e) => this.connected(e, 1)),
      events.on('connection.closed', (e) => this.connected(e, -1)),
    ];
    app.onDestroy(async () => {
      for (const stop of stops) stop();
      await Promise.all([...this.servers].map((server) => closeServer(server)));
    });
  }

  /** The metrics of an application scope, created on first use. */
  static of(app: ApplicationModel): WeftMetrics {
    if (!app.hasService(WeftMetrics)) app.registerService(WeftMetrics, new WeftMetrics(app));
    return app.getService(WeftMetrics);
  }

  /**
   * The series of one label set on one side, created on first use (at chain build or first call of a method —
   * never per call: the filter keeps what this returns).
   */
  statsOf(side: MetricsSide, url: URL, method: string): MethodStats {
    const labels = {
      application_name: this.app.name,
      interface: url.getParameter('interface') || url.path,
      method,
      group: url.getParameter('group') ?? '',
      version: url.getParameter('version') ?? '',
    };
    const key = Object.values(labels).join('\u0000');
    const map = this.series[side];
    let stats = map.get(key);
    if (stats === undefined) map.set(key, (stats = new MethodStats(labels)));
    return stats;
  }

  /**
   * Registers every family into another prom-client registry (the application's own), so that its existing
   * endpoint serves them too. A name already taken there throws prom-client's error.
   */
  registerInto(registry: Registry): void {
    for (const family of this.families) registry.registerMetric(family);
  }

  /** The exposition text of this application's registry (what `/metrics` answers). */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  /**
   * Serves the registry over HTTP: `GET <path>` answers 200 with the text exposition; other paths 404, other
   * methods 405. Bound to 127.0.0.1 unless `host` says otherwise.
   */
  async listen(options: MetricsServerOptions = {}): Promise<MetricsServer> {
    const host = options.host ?? MetricsDefaults.HOST;
    const path = options.path ?? MetricsDefaults.PATH;
    const server = createServer((request, response) => {
      const target = (request.url ?? '/').split('?')[0];
      if (target !== path) {
        response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end(`Not found: ${target}; metrics are at ${path}\n`);
        return;
      }
      if (request.method !== 'GET' && request.method !== 'HEAD') {
        response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end(`Method ${request.method ?? ''} not allowed\n`);
        return;
      }
      this.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': this.registry.contentType }).end(request.method === 'HEAD' ? undefined : text),
        (error: unknown) => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`Collecting metrics failed: ${String(error)}\n`),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? MetricsDefaults.PORT, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.unref();
    this.servers.add(server);
    const address = server.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    const shown = host.includes(':') ? `[${host}]` : host;
    return {
      port,
      url: `http://${shown}:${port}${path}`,
      close: async () => {
        this.servers.delete(server);
        await closeServer(server);
      },
    };
  }

  private eventLabels(event: WeftEvent): Record<string, string> {
    const url = event['url'];
    const parameter = (key: string): string => (url instanceof URL ? (url.getParameter(key) ?? '') : '');
    return {
      application_name: this.app.name,
      interface: event.service ?? '',
      method: event.method ?? '',
      group: parameter('group'),
      version: parameter('version'),
    };
  }

  private breakerChanged(event: WeftEvent): void {
    const base = { application_name: this.app.name, resource: String(event['resource'] ?? ''), method: event.method ?? '' };
    for (const state of BREAKER_STATES) this.breakers.set({ ...base, state }, event['to'] === state ? 1 : 0);
  }

  private notified(event: WeftEvent): void {
    const labels = {
      application_name: this.app.name,
      interface: event.service ?? '',
      category: String(event['category'] ?? ''),
      registry: String(event['registry'] ?? ''),
    };
    this.notifications.add(labels);
    this.notifiedUrls.set(labels, Number(event['urls'] ?? 0));
  }

  private connected(event: WeftEvent, by: number): void {
    this.connections.add({ application_name: this.app.name, protocol: String(event['protocol'] ?? ''), side: String(event['side'] ?? '') }, by);
  }

  private define(): void {
    const registry = this.registry;
    const add = (family: Metric): void => {
      this.families.push(family);
    };
    const rpcLabels = [...RPC_LABELS];
    for (const side of ['provider', 'consumer'] as const) {
      const map = this.series[side];
      const each = (value: (s: MethodStats) => number): (() => Sample[]) => () => [...map.values()].map((s) => ({ labels: s.labels, value: value(s) }));
      const counter = (name: string, help: string, value: (s: MethodStats) => number): void =>
        add(new CollectedCounter({ name: `dubbo_${side}_${name}`, help, labelNames: rpcLabels, registry, read: each(value) }));
      const gauge = (name: string, help: string, value: (s: MethodStats) => number): void =>
        add(new CollectedGauge({ name: `dubbo_${side}_${name}`, help, labelNames: rpcLabels, registry, read: each(value) }));
      counter('requests_total', `Requests the ${side} started.`, (s) => s.total);
      gauge('requests_processing_total', `Requests the ${side} has in flight.`, (s) => s.processing);
      counter('requests_succeed_total', `Requests that completed without an error.`, (s) => s.succeed);
      counter('requests_failed_total', `Requests that failed, for any reason.`, (s) => s.failed);
      counter('requests_business_failed_total', `Requests that failed with a business error.`, (s) => s.business);
      counter('requests_timeout_total', `Requests that timed out.`, (s) => s.timeout);
      counter('requests_limit_total', `Requests refused by a limit (tps, executes, actives).`, (s) => s.limit);
      counter('requests_failed_network_total', `Requests that failed on the network.`, (s) => s.network);
      counter('requests_failed_codec_total', `Requests whose arguments or result could not be (de)serialized.`, (s) => s.codec);
      counter('requests_unknown_failed_total', `Requests that failed for another reason.`, (s) => s.unknown);
      if (side === 'consumer') {
        counter('requests_failed_service_unavailable_total', `Requests refused by the provider's policy (forbidden).`, (s) => s.serviceUnavailable);
      }
      gauge('rt_milliseconds_last', 'Response time of the last request (ms).', (s) => s.rtLast);
      gauge('rt_milliseconds_min', 'Smallest response time (ms).', (s) => (s.rtCount === 0 ? 0 : s.rtMin));
      gauge('rt_milliseconds_max', 'Largest response time (ms).', (s) => s.rtMax);
      gauge('rt_milliseconds_sum', 'Sum of the response times (ms).', (s) => s.rtSum);
      gauge('rt_milliseconds_avg', 'Average response time (ms, integer division as Dubbo).', (s) => (s.rtCount === 0 ? 0 : Math.floor(s.rtSum / s.rtCount)));
      for (const [q, name] of [
        [0.5, 'p50'],
        [0.9, 'p90'],
        [0.95, 'p95'],
        [0.99, 'p99'],
      ] as const) {
        add(
          new CollectedGauge({
            name: `dubbo_${side}_rt_milliseconds_${name}`,
            help: `The ${name} response time over the last 120 s (ms), interpolated in the histogram buckets.`,
            labelNames: rpcLabels,
            registry,
            read: () => [...map.values()].filter((s) => s.rtCount > 0).map((s) => ({ labels: s.labels, value: s.quantile(q) })).filter((s) => !Number.isNaN(s.value)),
          }),
        );
      }
      const histogram = `dubbo_${side}_rt_milliseconds_histogram_seconds`;
      add(
        new CollectedHistogram({
          name: histogram,
          help: 'Response times (seconds).',
          labelNames: rpcLabels,
          registry,
          read: () => [...map.values()].flatMap((s) => histogramSamples(histogram, s)),
        }),
      );
    }
    add(
      new CollectedCounter({
        name: 'weft_consumer_mock_total',
        help: 'Calls answered by a mock: mode force (no provider called) or fail (degraded after a framework failure).',
        labelNames: [...rpcLabels, 'mode'],
        registry,
        read: () => this.mocks.samples(),
      }),
    );
    add(
      new CollectedCounter({
        name: 'weft_provider_requests_refused_total',
        help: 'Calls a provider limiter refused (limiter tps or executelimit).',
        labelNames: [...rpcLabels, 'limiter'],
        registry,
        read: () => this.refusals.samples(),
      }),
    );
    add(
      new CollectedGauge({
        name: 'weft_consumer_circuitbreaker_state',
        help: 'Circuit breaker state per resource (closed, open, half-open, forced-open, forced-closed): 1 for the current state, 0 for the others.',
        labelNames: ['application_name', 'resource', 'method', 'state'],
        registry,
        read: () => this.breakers.samples(),
      }),
    );
    add(
      new CollectedCounter({
        name: 'dubbo_registry_notify_requests_total',
        help: 'Registry notifications received (per service and category).',
        labelNames: ['application_name', 'interface', 'category', 'registry'],
        registry,
        read: () => this.notifications.samples(),
      }),
    );
    add(
      new CollectedGauge({
        name: 'dubbo_registry_notify_num_last',
        help: 'URLs in the last registry notification (per service and category).',
        labelNames: ['application_name', 'interface', 'category', 'registry'],
        registry,
        read: () => this.notifiedUrls.samples(),
      }),
    );
    add(
      new CollectedGauge({
        name: 'weft_connections',
        help: 'Open connections, by protocol and side (from connection.opened / connection.closed events).',
        labelNames: ['application_name', 'protocol', 'side'],
        registry,
        read: () => this.connections.samples(),
      }),
    );
    add(
      new CollectedGauge({
        name: 'dubbo_application_info_total',
        help: 'The application (value 1).',
        labelNames: ['application_name', 'hostname'],
        registry,
        read: () => [{ labels: { application_name: this.app.name, hostname: hostname() }, value: 1 }],
      }),
    );
  }
}

function histogramSamples(name: string, stats: MethodStats): Sample[] {
  const samples: Sample[] = [];
  let cumulative = 0;
  stats.bounds.forEach((bound, i) => {
    cumulative += stats.buckets[i] as number;
    samples.push({ metricName: `${name}_bucket`, labels: { le: bound }, sharedLabels: { ...stats.labels }, value: cumulative });
  });
  cumulative += stats.buckets[stats.bounds.length] as number;
  samples.push({ metricName: `${name}_bucket`, labels: { le: '+Inf' }, sharedLabels: { ...stats.labels }, value: cumulative });
  samples.push({ metricName: `${name}_sum`, labels: {}, sharedLabels: { ...stats.labels }, value: stats.rtSum / 1000 });
  samples.push({ metricName: `${name}_count`, labels: {}, sharedLabels: { ...stats.labels }, value: stats.rtCount });
  return samples;
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}
