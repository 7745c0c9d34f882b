import { performance } from 'node:perf_hooks';

import { ApplicationModel, Filter, Result, type Invocation, type Invoker } from '@weft/core';
import { Inject } from '@weft/core/spi';

import { MetricsDefaults, MetricsKeys } from './metrics-keys.js';
import type { MethodStats } from './method-stats.js';
import { WeftMetrics } from './weft-metrics.js';

/** The series of one invoker: resolved once (labels from its URL), then one lookup per call. */
class InvokerSeries {
  private readonly methods = new Map<string, MethodStats>();
  private readonly perService: MethodStats | undefined;
  // A one-entry cache in front of the map: an invoker usually sees the same method call after call.
  private lastMethod: string | undefined;
  private lastStats: MethodStats | undefined;

  constructor(
    private readonly metrics: WeftMetrics,
    private readonly invoker: Invoker,
  ) {
    const url = invoker.getUrl();
    this.side = url.getParameter('side') === 'consumer' ? 'consumer' : 'provider';
    const level = url.getParameter(MetricsKeys.LEVEL, MetricsDefaults.LEVEL);
    this.perService = level === 'service' ? metrics.statsOf(this.side, url, '') : undefined;
    this.handsOver = this.side === 'consumer' && url.protocol === 'injvm';
    this.serviceKey = url.getServiceKey() ?? url.path;
  }

  readonly side: 'provider' | 'consumer';
  /** A consumer of an in-process (injvm) provider: its clock readings are shared with the provider's filter. */
  readonly handsOver: boolean;
  /** `[group/]interface[:version]` of the invoker: what a handed-over reading is matched by. */
  readonly serviceKey: string;

  of(method: string): MethodStats {
    if (method === this.lastMethod) return this.lastStats as MethodStats;
    return this.lookUp(method);
  }

  private lookUp(method: string): MethodStats {
    let stats = this.perService;
    if (stats === undefined) {
      stats = this.methods.get(method);
      if (stats === undefined) this.methods.set(method, (stats = this.metrics.statsOf(this.side, this.invoker.getUrl(), method)));
    }
    this.lastMethod = method;
    this.lastStats = stats;
    return stats;
  }
}

/**
 * Counts every call in Dubbo's Prometheus metrics: the `metrics` extension of `weft.rpc.Filter`.
 *
 * @remarks
 * Extension `metrics` of `weft.rpc.Filter`, application scope, activated in groups `provider` and `consumer`
 * (installing the package turns it on; `-metrics` in `service.filter` / `reference.filter` turns it off), order
 * MIN+100 on the provider (just inside `context`, as Dubbo's `MetricsProviderFilter`), outermost on the consumer:
 * ```
 *  consumer: cluster → [ consumercontext → metrics → … ] → protocol invoker     (one count per attempt)
 *  provider: exporter → [ context → metrics → … → tps → … ] → implementation   (limit refusals counted here)
 * ```
 * Per call it does two `performance.now()` reads (`node:perf_hooks`' object: the global `performance` is a getter,
 * twice the cost) and a few field increments on the {@link MethodStats} of the invoker's label set (resolved when
 * the invoker and method are first seen, never per call); a completed `Result` passes through without a promise
 * hop, allocation or closure. A result carrying a business error and a rejection both count as failed,
 * classified as Dubbo does (see `failureClassOf`). Series live in the application's {@link WeftMetrics}.
 *
 * An injvm call runs the consumer's and the provider's filter in one synchronous stretch, and they share readings:
 * the provider's filter starts at the consumer's start reading (it is handed over for the same method, taken once,
 * and withdrawn when the consumer's invoke returns), and when the provider answers synchronously the consumer ends
 * at the provider's end reading. The provider's end is always read, so the implementation is always measured; the
 * consumer filters between the two `metrics` filters count in both response times (on the way in) or in neither
 * (on the way out). Two reads per call instead of four; calls that wait read the consumer's end themselves.
 *
 * @example
 * ```ts
 * // Installed: every export and refer is counted. Serve them:
 * await metricsOf(app).listen({ port: 9464 });
 * ```
 */
export class MetricsFilter extends Filter {
  private readonly metrics: WeftMetrics;
  private readonly series = new WeakMap<Invoker, InvokerSeries>();
  // Two one-entry caches in front of the WeakMap: an injvm call runs a consumer and a provider chain, alternately.
  private lastInvoker: Invoker | undefined;
  private lastSeries: InvokerSeries | undefined;
  private previousInvoker: Invoker | undefined;
  private previousSeries: InvokerSeries | undefined;
  /** The start reading an injvm consumer call hands to the provider call it enters (`NaN`: none), and that call. */
  private handedStart = Number.NaN;
  private handedService: string | undefined;
  private handedMethod: string | undefined;
  /** The end reading a provider call that took a handed start gives back when it answers synchronously. */
  private handedEnd = Number.NaN;

  constructor(@Inject(ApplicationModel) app: ApplicationModel) {
    super();
    this.metrics = WeftMetrics.of(app);
  }

  /** Counts the call, its outcome and its response time. */
  invoke(invoker: Invoker, invocation: Invocation): Result | Promise<Result> {
    const series =
      invoker === this.lastInvoker
        ? (this.lastSeries as InvokerSeries)
        : invoker === this.previousInvoker
          ? (this.previousSeries as InvokerSeries)
          : this.seriesOf(invoker);
    const method = invocation.methodName;
    const stats = series.of(method);
    stats.begin();
    // An injvm consumer hands its start reading to the provider call it enters (taken once, matched by service and
    // method) and takes that call's end reading back; any other call reads its own.
    const handsOver = series.handsOver;
    let start: number;
    let took = false;
    if (handsOver) {
      start = performance.now();
      this.handedStart = start;
      this.handedService = series.serviceKey;
      this.handedMethod = method;
      this.handedEnd = Number.NaN;
    } else {
      start = this.handedStart;
      took = start === start && series.side === 'provider' && method === this.handedMethod && series.serviceKey === this.handedService;
      if (took) this.handedStart = Number.NaN;
      else start = performance.now();
    }
    let answer: Result | Promise<Result>;
    try {
      answer = invoker.invoke(invocation);
    } catch (error) {
      if (handsOver) this.handedStart = Number.NaN;
      stats.failedWith(error, start, performance.now());
      throw error;
    }
    if (handsOver) this.handedStart = Number.NaN;
    if (!(answer instanceof Result)) return settle(answer, stats, start);
    let end: number;
    if (handsOver) {
      // The provider's end reading, when its filter answered in this stretch; else (refused before it) a new one.
      end = this.handedEnd;
      if (end !== end) end = performance.now();
      this.handedEnd = Number.NaN;
    } else {
      end = performance.now();
      if (took) this.handedEnd = end;
    }
    if (answer.hasException()) stats.failedWith(answer.exception, start, end);
    else stats.succeeded(start, end);
    return answer;
  }

  private seriesOf(invoker: Invoker): InvokerSeries {
    let series = this.series.get(invoker);
    if (series === undefined) this.series.set(invoker, (series = new InvokerSeries(this.metrics, invoker)));
    this.previousInvoker = this.lastInvoker;
    this.previousSeries = this.lastSeries;
    this.lastInvoker = invoker;
    this.lastSeries = series;
    return series;
  }
}

// Outside the class and the per-call function: the closures are only created for calls that really wait.
function settle(pending: Promise<Result>, stats: MethodStats, start: number): Promise<Result> {
  return pending.then(
    (result) => {
      if (result.hasException()) stats.failedWith(result.exception, start, performance.now());
      else stats.succeeded(start, performance.now());
      return result;
    },
    (error: unknown) => {
      stats.failedWith(error, start, performance.now());
      throw error;
    },
  );
}
