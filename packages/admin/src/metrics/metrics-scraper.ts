import parsePrometheusTextFormat from 'parse-prometheus-text-format';

import type { Logger } from '@weft/core';

/**
 * Failure classes of the console's charts (Dubbo's classification, as `@weft/filter-metrics` counts them).
 *
 * @remarks The keys of {@link MetricsPoint.errorsPerSecond}, in display order.
 * @example
 * ```ts
 * for (const kind of ERROR_KINDS) console.log(kind, point.errorsPerSecond[kind]);
 * ```
 */
export const ERROR_KINDS = ['timeout', 'business', 'network', 'limit', 'codec', 'unknown'] as const;
/** One failure class. */
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** A circuit breaker's state as `weft_consumer_circuitbreaker_state` reports it. */
export type BreakerState = 'closed' | 'open' | 'half-open' | 'forced-open' | 'forced-closed';

/** One point of a service's series. */
export interface MetricsPoint {
  /** Epoch ms of the scrape. */
  readonly t: number;
  readonly rps: number;
  readonly errorsPerSecond: Readonly<Record<ErrorKind, number>>;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly mockPerSecond: { readonly force: number; readonly fail: number };
  readonly breaker: BreakerState | null;
}

/** Counter totals of one service in one scrape. */
interface Totals {
  requests: number;
  errors: Record<ErrorKind, number>;
  mockForce: number;
  mockFail: number;
  p50: number | null;
  p99: number | null;
  breaker: BreakerState | null;
}

const COUNTERS: Readonly<Record<ErrorKind, string>> = {
  timeout: 'requests_timeout_total',
  business: 'requests_business_failed_total',
  network: 'requests_failed_network_total',
  limit: 'requests_limit_total',
  codec: 'requests_failed_codec_total',
  unknown: 'requests_unknown_failed_total',
};
const BREAKER_RANK: Readonly<Record<BreakerState, number>> = { closed: 0, 'forced-closed': 1, 'half-open': 2, open: 3, 'forced-open': 4 };
/** The most bytes read from one endpoint per scrape. */
const MAX_SCRAPE_BYTES = 8 * 1024 * 1024;
/** The most services tracked. */
const MAX_SERVICES = 2000;

/** One service's totals at one endpoint: each side's RPC series, and the mock and breaker series. */
interface ServiceSample {
  consumer: Totals | undefined;
  provider: Totals | undefined;
  extra: Totals;
}

/** One endpoint's last scrape. */
interface EndpointSample {
  readonly t: number;
  readonly services: ReadonlyMap<string, ServiceSample>;
}

/**
 * Adds the per-second rates of `now` against `then` (the same endpoint's previous totals) to `sum`; a counter
 * lower than before (the process restarted) counts from 0. Gauges (p50, p99) and the breaker state are taken, not
 * differenced: the highest wins.
 */
function addRates(sum: Totals, now: Totals, then: Totals | undefined, dt: number): Totals {
  const rate = (a: number, b: number | undefined) => (b === undefined ? 0 : Math.max(0, a >= b ? a - b : a) / dt);
  sum.requests += rate(now.requests, then?.requests);
  for (const kind of ERROR_KINDS) sum.errors[kind] += rate(now.errors[kind], then?.errors[kind]);
  sum.mockForce += rate(now.mockForce, then?.mockForce);
  sum.mockFail += rate(now.mockFail, then?.mockFail);
  if (now.p50 !== null) sum.p50 = Math.max(sum.p50 ?? 0, now.p50);
  if (now.p99 !== null) sum.p99 = Math.max(sum.p99 ?? 0, now.p99);
  if (now.breaker !== null && (sum.breaker === null || BREAKER_RANK[now.breaker] > BREAKER_RANK[sum.breaker])) sum.breaker = now.breaker;
  return sum;
}

function emptyTotals(): Totals {
  return { requests: 0, errors: { timeout: 0, business: 0, network: 0, limit: 0, codec: 0, unknown: 0 }, mockForce: 0, mockFail: 0, p50: null, p99: null, breaker: null };
}

/** The interface of a breaker resource: `[group/]interface[:version][#method][@address]`. */
function resourceInterface(resource: string): string {
  let r = resource;
  const at = r.indexOf('@');
  if (at >= 0) r = r.slice(0, at);
  const hash = r.indexOf('#');
  if (hash >= 0) r = r.slice(0, hash);
  const slash = r.indexOf('/');
  if (slash >= 0) r = r.slice(slash + 1);
  const colon = r.indexOf(':');
  if (colon >= 0) r = r.slice(0, colon);
  return r;
}

/** Options of {@link MetricsScraper}. */
export interface MetricsScraperOptions {
  /** Endpoints always scraped. */
  readonly endpoints: readonly string[];
  /** Finds more endpoints (from registrations); called at most every `discoverEvery` scrapes. */
  readonly discover?: () => Promise<readonly string[]>;
  /** Scrape interval, ms. @defaultValue 5000 */
  readonly interval?: number;
  /** How long the series go back, ms. @defaultValue 10 min */
  readonly window?: number;
  /** Timeout of one endpoint's scrape, ms. @defaultValue min(interval, 3000) */
  readonly timeout?: number;
  readonly logger: Logger;
}

/**
 * Scrapes Prometheus endpoints of Weft applications (`@weft/filter-metrics`) every interval and keeps, per
 * service, the last ~10 minutes of request rate, failure rates by class, p50/p99, mock answers per second and
 * circuit breaker state.
 *
 * @remarks Parsed with `parse-prometheus-text-format`. Rates are computed per endpoint — the counter deltas between
 * its last two scrapes over the time between them (a counter that went down, a restart, counts from 0) — and
 * summed over methods and endpoints. A call is counted once: consumer-side series when any endpoint reports them
 * for the service, else provider-side ones (so a console scraping both sides does not double them). Latency is the
 * highest p50/p99 gauge. The breaker is the most severe state of the service's resources. One scraper per
 * server, no module state; bounded: endpoints answer at most 8 MiB, 2000 services are tracked.
 * @example
 * ```ts
 * const scraper = new MetricsScraper({ endpoints: ['http://127.0.0.1:20888/metrics'], logger });
 * scraper.start();
 * scraper.points('org.acme.Greeter');
 * await scraper.stop();
 * ```
 */
export class MetricsScraper {
  readonly interval: number;
  private readonly capacity: number;
  private readonly timeout: number;
  private readonly series = new Map<string, MetricsPoint[]>();
  private previous = new Map<string, EndpointSample>();
  private readonly discovered = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private ticks = 0;
  private readonly warned = new Set<string>();

  constructor(private readonly options: MetricsScraperOptions) {
    this.interval = Math.max(100, options.interval ?? 5000);
    this.capacity = Math.max(2, Math.ceil((options.window ?? 10 * 60 * 1000) / this.interval));
    this.timeout = options.timeout ?? Math.min(this.interval, 3000);
  }

  /** Every endpoint scraped: the configured ones, then the discovered ones. */
  get endpoints(): string[] {
    return [...new Set([...this.options.endpoints, ...this.discovered])];
  }

  /** Starts scraping (the first scrape at once). */
  start(): void {
    if (this.timer !== undefined || this.stopped) return;
    const loop = () => {
      this.running = this.scrapeOnce().finally(() => {
        this.running = undefined;
        if (!this.stopped) {
          this.timer = setTimeout(loop, this.interval);
          this.timer.unref?.();
        }
      });
    };
    this.timer = setTimeout(loop, 0);
    this.timer.unref?.();
  }

  /** Stops scraping and waits for a scrape in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    await this.running;
  }

  /** The service's points, oldest first. */
  points(service: string): readonly MetricsPoint[] {
    return [...(this.series.get(service) ?? [])];
  }

  /** The latest rates of a service: `null` when no endpoint reports it. */
  summary(service: string): { rps: number; errorRate: number; p99: number | null } | null {
    const list = this.series.get(service);
    const last = list?.[list.length - 1];
    if (last === undefined) return null;
    const errors = ERROR_KINDS.reduce((sum, k) => sum + last.errorsPerSecond[k], 0);
    return { rps: round(last.rps), errorRate: last.rps > 0 ? round(errors / last.rps) : 0, p99: last.p99 };
  }

  /** Scrapes every endpoint once and appends a point per service (once an endpoint was scraped twice). */
  async scrapeOnce(): Promise<void> {
    if (this.options.discover !== undefined && this.ticks++ % 6 === 0) {
      try {
        for (const e of await this.options.discover()) if (this.discovered.size < 1000) this.discovered.add(e);
      } catch (error) {
        this.warnOnce('discover', 'weft admin: cannot discover metrics endpoints from the registry', error);
      }
    }
    const t = Date.now();
    const endpoints = this.endpoints;
    const scraped = await Promise.all(endpoints.map(async (endpoint) => ({ endpoint, t: Date.now(), services: await this.scrapeEndpoint(endpoint) })));
    const rates = new Map<string, { consumer: Totals | undefined; provider: Totals | undefined; extra: Totals }>();
    const next = new Map<string, EndpointSample>();
    for (const { endpoint, t: at, services } of scraped) {
      if (services === undefined) continue;
      next.set(endpoint, { t: at, services });
      const before = this.previous.get(endpoint);
      if (before === undefined) continue;
      const dt = Math.max(0.001, (at - before.t) / 1000);
      for (const [service, now] of services) {
        const then = before.services.get(service);
        const sum = rates.get(service) ?? { consumer: undefined, provider: undefined, extra: emptyTotals() };
        rates.set(service, sum);
        for (const side of ['consumer', 'provider'] as const) {
          const current = now[side];
          if (current === undefined) continue;
          sum[side] = addRates(sum[side] ?? emptyTotals(), current, then?.[side], dt);
        }
        sum.extra = addRates(sum.extra, now.extra, then?.extra, dt);
      }
    }
    this.previous = next;
    for (const [service, sum] of rates) {
      // Consumer-side series count each call once where it is made; provider-side ones only when no consumer reports.
      const chosen = sum.consumer ?? sum.provider ?? emptyTotals();
      const point: MetricsPoint = {
        t,
        rps: round(chosen.requests),
        errorsPerSecond: Object.fromEntries(ERROR_KINDS.map((k) => [k, round(chosen.errors[k])])) as Record<ErrorKind, number>,
        p50: chosen.p50,
        p99: chosen.p99,
        mockPerSecond: { force: round(sum.extra.mockForce), fail: round(sum.extra.mockFail) },
        breaker: sum.extra.breaker,
      };
      let list = this.series.get(service);
      if (list === undefined) {
        if (this.series.size >= MAX_SERVICES) continue;
        list = [];
        this.series.set(service, list);
      }
      list.push(point);
      if (list.length > this.capacity) list.splice(0, list.length - this.capacity);
    }
  }

  /** One endpoint's totals per service and side; `undefined` when it did not answer Prometheus text. */
  private async scrapeEndpoint(endpoint: string): Promise<Map<string, ServiceSample> | undefined> {
    let text: string;
    try {
      const response = await fetch(endpoint, { signal: AbortSignal.timeout(this.timeout), headers: { accept: 'text/plain' } });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      const length = Number(response.headers.get('content-length') ?? 0);
      if (length > MAX_SCRAPE_BYTES) throw new Error(`the answer has ${length} bytes, more than ${MAX_SCRAPE_BYTES}`);
      text = await response.text();
      if (text.length > MAX_SCRAPE_BYTES) throw new Error(`the answer is larger than ${MAX_SCRAPE_BYTES} bytes`);
      this.warned.delete(endpoint);
    } catch (error) {
      this.warnOnce(endpoint, `weft admin: cannot scrape ${endpoint}`, error);
      return undefined;
    }
    let families;
    try {
      families = parsePrometheusTextFormat(text);
    } catch (error) {
      this.warnOnce(endpoint, `weft admin: ${endpoint} did not answer Prometheus text`, error);
      return undefined;
    }
    const local = new Map<string, ServiceSample>();
    const slot = (service: string) => {
      let s = local.get(service);
      if (s === undefined) {
        if (local.size >= MAX_SERVICES) return undefined;
        local.set(service, (s = { consumer: undefined, provider: undefined, extra: emptyTotals() }));
      }
      return s;
    };
    for (const family of families) {
      const match = /^dubbo_(consumer|provider)_(.+)$/.exec(family.name);
      for (const sample of family.metrics) {
        const labels = sample.labels ?? {};
        const value = Number(sample.value ?? NaN);
        if (family.name === 'weft_consumer_circuitbreaker_state') {
          const state = labels['state'] as BreakerState | undefined;
          const extra = value === 1 && state !== undefined && state in BREAKER_RANK ? slot(resourceInterface(labels['resource'] ?? ''))?.extra : undefined;
          if (extra !== undefined && state !== undefined && (extra.breaker === null || BREAKER_RANK[state] > BREAKER_RANK[extra.breaker])) extra.breaker = state;
          continue;
        }
        const service = labels['interface'];
        if (service === undefined || service === '' || !Number.isFinite(value)) continue;
        const s = slot(service);
        if (s === undefined) continue;
        if (family.name === 'weft_consumer_mock_total') {
          if (labels['mode'] === 'force') s.extra.mockForce += value;
          else if (labels['mode'] === 'fail') s.extra.mockFail += value;
          continue;
        }
        if (match === null) continue;
        const side = match[1] as 'consumer' | 'provider';
        const name = match[2] as string;
        const totals = (s[side] ??= emptyTotals());
        if (name === 'requests_total') totals.requests += value;
        else if (name === 'rt_milliseconds_p50') totals.p50 = Math.max(totals.p50 ?? 0, value);
        else if (name === 'rt_milliseconds_p99') totals.p99 = Math.max(totals.p99 ?? 0, value);
        else for (const kind of ERROR_KINDS) if (name === COUNTERS[kind]) totals.errors[kind] += value;
      }
    }
    return local;
  }

  private warnOnce(key: string, message: string, error: unknown): void {
    if (this.warned.has(key)) return;
    if (this.warned.size < 1000) this.warned.add(key);
    try {
      this.options.logger.warn(message, error);
    } catch {
      // a logger that throws never stops the scraper
    }
  }
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}
