import type { CircuitBreakerRule } from './circuit-breaker-rule.js';
import { SlidingWindow } from './sliding-window.js';

/**
 * The states of a breaker: Sentinel's three, and the two a rule can force (`circuitbreaker.force`).
 *
 * @example
 * ```ts
 * if (breaker.state === 'open') console.log(`retry in ${breaker.retryIn(now)} ms`);
 * ```
 */
export type CircuitBreakerState = 'closed' | 'open' | 'half-open' | 'forced-open' | 'forced-closed';

/** Why a breaker changed state. */
export type CircuitBreakerTransitionReason =
  /** The window's statistic went over the threshold. */
  | 'tripped'
  /** The open duration elapsed and a call came: it is the first probe. */
  | 'probing'
  /** A probe failed (an error, or slow under `slow-ratio`). */
  | 'probe-failed'
  /** The probes of a half-open round were still in flight after `openDuration`: the round counts as failed. */
  | 'probe-timed-out'
  /** Every probe succeeded. */
  | 'recovered'
  /** The rule changed (a pushed override): the breaker starts over, or a forced state began or ended. */
  | 'rule-changed'
  /** No rule names the breaker's resource any more (an override removed it): the breaker is gone, calls pass. */
  | 'rule-removed';

/**
 * How a call ended, for the statistics.
 *
 * @example
 * ```ts
 * breaker.complete(now, rt, Outcome.ERROR, token);
 * ```
 */
export const Outcome = {
  SUCCESS: 0,
  ERROR: 1,
  /** Not counted: the caller cancelled it, or an inner breaker refused it. */
  IGNORED: 2,
} as const;

/** One of the {@link Outcome} values. */
export type Outcome = (typeof Outcome)[keyof typeof Outcome];

/** What {@link CircuitBreaker.tryPass} answers when it refuses the call; `0` admits it normally, a positive number admits a probe. */
export const REJECT = -1;

/** Called on each state change; the registry turns it into an event and a log line. */
export type TransitionSink = (breaker: CircuitBreaker, from: CircuitBreakerState, to: CircuitBreakerState, reason: CircuitBreakerTransitionReason) => void;

/**
 * One breaker: the state machine of a resource under a degrade rule, driven by the times it is given.
 *
 * @remarks
 * Sentinel's `AbstractCircuitBreaker`, with bounded half-open probes (see the package README for the table of
 * transitions). `tryPass(now)` decides on entry; `complete(now, rt, outcome, token)` counts each admitted call
 * once when it ends. Closed: every call passes; each completion is counted in the sliding window, then, once the
 * window holds `minRequests` calls, the statistic is compared with the threshold (strictly above trips; a ratio
 * threshold of 1 trips when every call is slow or failed) → open until `now + openDuration`. Open: calls are
 * refused until then; the first call after it turns the breaker half-open and is the first probe. Half-open: up
 * to `probes` calls are admitted as probes, the others refused; the first probe that fails re-opens the breaker
 * (for another `openDuration`); when all `probes` succeeded it closes with an empty window. Only probes decide:
 * calls admitted before the breaker opened are counted but change nothing. A cancelled probe frees its place;
 * a round whose probes are still in flight `openDuration` after it began fails (`probe-timed-out`).
 * Forced states ignore statistics: `forced-open` refuses everything, `forced-closed` admits everything.
 * Synchronous and allocation-free.
 *
 * @example
 * ```ts
 * const breaker = new CircuitBreaker(rule, () => undefined);
 * const token = breaker.tryPass(now);
 * if (token !== REJECT) breaker.complete(now + 12, 12, Outcome.SUCCESS, token);
 * ```
 */
export class CircuitBreaker {
  private current: CircuitBreakerState;
  private readonly window: SlidingWindow;
  /** Increases each time the breaker opens: a probe token is the generation it was admitted in. */
  private generation = 1;
  private nextRetry = 0;
  private probesAdmitted = 0;
  /** When the current half-open round began. */
  private halfOpenSince = 0;
  private probesSucceeded = 0;
  /** The statistic that last tripped the breaker, and the calls it was computed over. */
  private tripValue = 0;
  private tripTotal = 0;

  constructor(
    readonly rule: CircuitBreakerRule,
    private readonly sink: TransitionSink,
  ) {
    this.window = new SlidingWindow(rule.window, rule.buckets);
    this.current = rule.force === 'open' ? 'forced-open' : rule.force === 'closed' ? 'forced-closed' : 'closed';
  }

  /** Set when the registry replaced this breaker (its rule changed): whoever cached it must ask again. */
  retired = false;

  /** The current state. */
  get state(): CircuitBreakerState {
    return this.current;
  }

  /** The ratio or count that last tripped the breaker (0 before it ever tripped). */
  get lastTripValue(): number {
    return this.tripValue;
  }

  /** The calls of the window when it last tripped. */
  get lastTripTotal(): number {
    return this.tripTotal;
  }

  /** Milliseconds until an open breaker admits a probe (0 when it would now, or is not open). */
  retryIn(now: number): number {
    return this.current === 'open' ? Math.max(0, this.nextRetry - now) : 0;
  }

  /** Calls, errors and slow calls in the window at `now`. */
  snapshot(now: number): { readonly total: number; readonly errors: number; readonly slow: number } {
    return { total: this.window.total(now), errors: this.window.errorCount(now), slow: this.window.slowCount(now) };
  }

  /**
   * Decides whether a call may pass at `now`: `0` (admitted), a positive probe token (admitted as a half-open
   * probe: hand it back to {@link CircuitBreaker.complete}), or {@link REJECT}.
   */
  tryPass(now: number): number {
    switch (this.current) {
      case 'closed':
      case 'forced-closed':
        return 0;
      case 'open':
        if (now < this.nextRetry) return REJECT;
        this.probesAdmitted = 1;
        this.probesSucceeded = 0;
        this.halfOpenSince = now;
        this.transition('half-open', 'probing');
        return this.generation;
      case 'half-open':
        if (this.probesAdmitted >= this.rule.probes) {
          // A probe that never ends (no timeout) must not keep the breaker half-open forever.
          if (now - this.halfOpenSince >= this.rule.openDuration) this.open(now, 'probe-timed-out');
          return REJECT;
        }
        this.probesAdmitted++;
        return this.generation;
      case 'forced-open':
        return REJECT;
    }
  }

  /** Counts an admitted call that ended at `now` after `rt` ms; `token` is what `tryPass` answered for it. */
  complete(now: number, rt: number, outcome: Outcome, token: number): void {
    const state = this.current;
    if (state === 'forced-closed' || state === 'forced-open' || outcome === Outcome.IGNORED) {
      if (outcome === Outcome.IGNORED && token > 0 && token === this.generation && state === 'half-open') this.probesAdmitted--;
      return;
    }
    const rule = this.rule;
    const slow = rule.strategy === 'slow-ratio' && rt > rule.slowRt;
    const error = outcome === Outcome.ERROR;
    if (token > 0) {
      if (token !== this.generation || state !== 'half-open') return;
      if (error || slow) {
        this.open(now, 'probe-failed');
      } else if (++this.probesSucceeded >= rule.probes) {
        this.window.reset();
        this.transition('closed', 'recovered');
      }
      return;
    }
    this.window.record(now, error, slow);
    if (state !== 'closed' || rule.strategy === undefined) return;
    // `record` just moved the window to `now`: its totals are current.
    const total = this.window.lastTotal;
    if (total >= rule.minRequests) this.check(now, total);
  }

  /**
   * A successful, untimed call outside a probe ended at `now`: {@link CircuitBreaker.complete} with
   * `Outcome.SUCCESS` and token 0, on a shorter path (one bucket check, one counter; the rule is checked only
   * once the minimum number of calls is reached).
   */
  succeeded(now: number): void {
    if (this.current !== 'closed') {
      this.complete(now, 0, Outcome.SUCCESS, 0);
      return;
    }
    const window = this.window;
    const total = window.recordSuccess(now);
    if (total >= this.rule.minRequests && this.rule.strategy !== undefined) this.check(now, total);
  }

  /** Trips the breaker when the window's figures (current as of `now`, `total` calls) break the rule. */
  private check(now: number, total: number): void {
    const rule = this.rule;
    const threshold = rule.threshold;
    let value: number;
    let trips: boolean;
    if (rule.strategy === 'error-count') {
      value = this.window.lastErrors;
      trips = value > threshold;
    } else {
      value = (rule.strategy === 'slow-ratio' ? this.window.lastSlow : this.window.lastErrors) / total;
      trips = value > threshold || (threshold === 1 && value === 1);
    }
    if (trips) {
      this.tripValue = value;
      this.tripTotal = total;
      this.open(now, 'tripped');
    }
  }

  private open(now: number, reason: CircuitBreakerTransitionReason): void {
    this.nextRetry = now + this.rule.openDuration;
    this.generation++;
    this.probesAdmitted = 0;
    this.probesSucceeded = 0;
    this.transition('open', reason);
  }

  private transition(to: CircuitBreakerState, reason: CircuitBreakerTransitionReason): void {
    const from = this.current;
    this.current = to;
    this.sink(this, from, to, reason);
  }
}
