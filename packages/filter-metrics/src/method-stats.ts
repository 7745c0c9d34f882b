import { RpcError, RpcErrorCode } from '@weft/core';

/** The failure classes of Dubbo's RPC metrics (`MetricsSupport.getMetricsKey`). */
export type FailureClass = 'business' | 'timeout' | 'limit' | 'network' | 'codec' | 'unknown';

/**
 * The failure class of a thrown value or a result's exception, by Dubbo's rules.
 *
 * @remarks An `RpcError`: `timeout` (and Weft's `timeout-terminate`) → timeout, `limit-exceeded` → limit, `biz` →
 * business, `serialization` → codec, `network` → network, anything else → unknown. Any other value (the business
 * error an implementation threw) → business.
 *
 * @example
 * ```ts
 * failureClassOf(new RpcError(RpcErrorCode.TIMEOUT, 'late')); // 'timeout'
 * ```
 */
export function failureClassOf(error: unknown): FailureClass {
  if (!(error instanceof RpcError)) return 'business';
  switch (error.code) {
    case RpcErrorCode.TIMEOUT:
    case RpcErrorCode.TIMEOUT_TERMINATE:
      return 'timeout';
    case RpcErrorCode.LIMIT_EXCEEDED:
      return 'limit';
    case RpcErrorCode.BIZ:
      return 'business';
    case RpcErrorCode.SERIALIZATION:
      return 'codec';
    case RpcErrorCode.NETWORK:
      return 'network';
    default:
      return 'unknown';
  }
}

/** Upper bounds (seconds) of the response-time histogram buckets. */
export const DEFAULT_BUCKETS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The sliding window of the percentile gauges: 10 slices of 12 s (Dubbo: 120 s, 10 buckets). */
const SLICES = 10;
const SLICE_MS = 12_000;
/** Epoch ms of `performance.now()`'s zero (a constant of the process). */
const TIME_ORIGIN = performance.timeOrigin;

/**
 * The counters of one label set (application, interface, method, group, version) on one side.
 *
 * @remarks Plain fields updated by the `metrics` filter on every call (no allocation, no hashing); prom-client
 * reads them when `/metrics` is scraped. Response times are kept in ms for the Dubbo gauges, and in histogram
 * buckets (cumulative since start, and over a sliding 120 s window for the p50/p90/p95/p99 gauges).
 *
 * @example
 * ```ts
 * const stats = new MethodStats({ application_name: 'demo', interface: 'org.acme.Greeter', method: 'sayHello', group: '', version: '' });
 * const start = performance.now();
 * stats.begin(); stats.succeeded(start, performance.now());
 * ```
 */
export class MethodStats {
  total = 0;
  processing = 0;
  succeed = 0;
  failed = 0;
  business = 0;
  timeout = 0;
  limit = 0;
  network = 0;
  codec = 0;
  unknown = 0;
  serviceUnavailable = 0;
  rtLast = 0;
  rtMin = Infinity;
  rtMax = 0;
  rtSum = 0;
  rtCount = 0;
  /** Observations per bucket (not cumulative); the last slot is `+Inf`. */
  readonly buckets: Float64Array;
  private readonly slices: Float64Array;
  private readonly sliceEpochs: Float64Array;
  /** The slice the last observation went to: its offset in `slices`, and the epoch ms it spans, [from, until). */
  private sliceBase = 0;
  private sliceFrom = 0;
  private sliceUntil = 0;

  constructor(
    /** The label values of this series. */
    readonly labels: Readonly<Record<string, string>>,
    /** Upper bounds, seconds. */
    readonly bounds: readonly number[] = DEFAULT_BUCKETS,
  ) {
    this.buckets = new Float64Array(bounds.length + 1);
    this.slices = new Float64Array(SLICES * (bounds.length + 1));
    this.sliceEpochs = new Float64Array(SLICES).fill(-1);
  }

  /** A call starts. */
  begin(): void {
    this.total++;
    this.processing++;
  }

  /** A call started at `start` finished without an error at `end` (both `performance.now()`). */
  succeeded(start: number, end: number): void {
    this.processing--;
    this.succeed++;
    this.observe(start, end);
  }

  /** A call failed with `error` (thrown, or the exception of its result); times as for `succeeded`. */
  failedWith(error: unknown, start: number, end: number): void {
    this.processing--;
    this.failed++;
    switch (failureClassOf(error)) {
      case 'business':
        this.business++;
        break;
      case 'timeout':
        this.timeout++;
        break;
      case 'limit':
        this.limit++;
        break;
      case 'network':
        this.network++;
        break;
      case 'codec':
        this.codec++;
        break;
      default:
        this.unknown++;
    }
    if (error instanceof RpcError && error.code === RpcErrorCode.FORBIDDEN) this.serviceUnavailable++;
    this.observe(start, end);
  }

  private observe(start: number, end: number): void {
    const ms = end - start;
    this.rtLast = ms;
    if (ms < this.rtMin) this.rtMin = ms;
    if (ms > this.rtMax) this.rtMax = ms;
    this.rtSum += ms;
    this.rtCount++;
    const seconds = ms / 1000;
    const bounds = this.bounds;
    let at = 0;
    while (at < bounds.length && seconds > (bounds[at] as number)) at++;
    this.buckets[at]!++;
    // The slice of `end` is the cached one for every call of the same 12 s (no division, no modulo per call).
    const atMs = TIME_ORIGIN + end;
    if (!(atMs >= this.sliceFrom && atMs < this.sliceUntil)) this.enterSlice(atMs);
    this.slices[this.sliceBase + at]!++;
  }

  /** Makes the slice of `epochMs` (epoch ms) the cached one, clearing it if it last held an older window. */
  private enterSlice(epochMs: number): void {
    const epoch = Math.floor(epochMs / SLICE_MS);
    const slice = epoch % SLICES;
    const width = this.bounds.length + 1;
    if (this.sliceEpochs[slice] !== epoch) {
      this.sliceEpochs[slice] = epoch;
      this.slices.fill(0, slice * width, slice * width + width);
    }
    this.sliceBase = slice * width;
    this.sliceFrom = epoch * SLICE_MS;
    this.sliceUntil = (epoch + 1) * SLICE_MS;
  }

  /**
   * The `q` quantile (0–1) of the response times of the last 120 s, in ms, interpolated inside its bucket as
   * Prometheus' `histogram_quantile` does; `NaN` without observations.
   */
  quantile(q: number, nowMs: number = TIME_ORIGIN + performance.now()): number {
    const width = this.bounds.length + 1;
    const current = Math.floor(nowMs / SLICE_MS);
    const counts = new Float64Array(width);
    let total = 0;
    for (let slice = 0; slice < SLICES; slice++) {
      const epoch = this.sliceEpochs[slice] as number;
      if (epoch < 0 || current - epoch >= SLICES) continue;
      for (let i = 0; i < width; i++) {
        const n = this.slices[slice * width + i] as number;
        counts[i]! += n;
        total += n;
      }
    }
    if (total === 0) return Number.NaN;
    const rank = q * total;
    let seen = 0;
    for (let i = 0; i < width; i++) {
      const n = counts[i] as number;
      if (seen + n >= rank && n > 0) {
        if (i === this.bounds.length) return (this.bounds[i - 1] ?? 0) * 1000;
        const lower = i === 0 ? 0 : (this.bounds[i - 1] as number);
        const upper = this.bounds[i] as number;
        return (lower + (upper - lower) * ((rank - seen) / n)) * 1000;
      }
      seen += n;
    }
    return (this.bounds[this.bounds.length - 1] ?? 0) * 1000;
  }
}
