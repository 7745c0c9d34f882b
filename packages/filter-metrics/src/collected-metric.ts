import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** One sample: its label values, value, and (histograms) its sample name. */
export interface Sample {
  readonly labels: Record<string, string | number>;
  readonly value: number;
  readonly metricName?: string;
  /** Histograms: the series' labels, apart from `le` in `labels` (prom-client's own sample shape). */
  readonly sharedLabels?: Record<string, string>;
}

/** What a collected family needs: name, help, label names, and the function that reads its samples at scrape time. */
export interface CollectedOptions {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly string[];
  readonly registry: Registry;
  readonly read: () => Sample[];
}

/**
 * A prom-client counter whose samples are read from Weft's own counters when scraped.
 *
 * @remarks The `metrics` filter counts in plain fields (no label hashing per call); prom-client formats them.
 * @example
 * ```ts
 * new CollectedCounter({ name: 'dubbo_provider_requests_total', help: '…', labelNames: ['method'], registry, read: () => [] });
 * ```
 */
export class CollectedCounter extends Counter {
  private readonly read: () => Sample[];

  constructor(options: CollectedOptions) {
    super({ name: options.name, help: options.help, labelNames: options.labelNames, registers: [options.registry] });
    this.read = options.read;
  }

  override async get(): ReturnType<Counter['get']> {
    const base = await super.get();
    return { ...base, values: this.read() };
  }
}

/**
 * A prom-client gauge whose samples are read from Weft's own state when scraped.
 *
 * @example
 * ```ts
 * new CollectedGauge({ name: 'dubbo_provider_requests_processing_total', help: '…', labelNames: [], registry, read: () => [] });
 * ```
 */
export class CollectedGauge extends Gauge {
  private readonly read: () => Sample[];

  constructor(options: CollectedOptions) {
    super({ name: options.name, help: options.help, labelNames: options.labelNames, registers: [options.registry] });
    this.read = options.read;
  }

  override async get(): ReturnType<Gauge['get']> {
    const base = await super.get();
    return { ...base, values: this.read() };
  }
}

/**
 * A prom-client histogram whose `_bucket` / `_sum` / `_count` samples are read from Weft's own buckets when scraped.
 *
 * @example
 * ```ts
 * new CollectedHistogram({ name: 'dubbo_provider_rt_milliseconds_histogram_seconds', help: '…', labelNames: [], registry, read: () => [] });
 * ```
 */
export class CollectedHistogram extends Histogram {
  private readonly read: () => Sample[];
  private readonly family: { readonly name: string; readonly help: string };

  constructor(options: CollectedOptions) {
    super({ name: options.name, help: options.help, labelNames: options.labelNames, registers: [options.registry] });
    this.read = options.read;
    this.family = { name: options.name, help: options.help };
  }

  /**
   * What prom-client's registry formats (its `Histogram.get()` reads it too): the samples of Weft's buckets.
   * @internal
   */
  async getForPromString(): Promise<{ name: string; help: string; type: 'histogram'; values: Sample[]; aggregator: 'sum' }> {
    await Promise.resolve();
    return { name: this.family.name, help: this.family.help, type: 'histogram', values: this.read(), aggregator: 'sum' };
  }
}
