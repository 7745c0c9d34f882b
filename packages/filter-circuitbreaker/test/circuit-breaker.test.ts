// The breaker's state machine (Sentinel's AbstractCircuitBreaker with bounded half-open probes) and its sliding
// window, driven by explicit times: every transition as a table, exactly-at-threshold cases, the minimum request
// amount, the window rolling over, and concurrent probes admitted exactly up to `probes`.
// (governance-resilience-observability.md §5.2–§5.4)
import { describe, expect, it } from 'vitest';

import { URL } from '@weft/core';
import {
  CircuitBreaker,
  circuitBreakerRuleOf,
  Outcome,
  REJECT,
  SlidingWindow,
  type CircuitBreakerRule,
  type CircuitBreakerState,
  type CircuitBreakerTransitionReason,
} from '@weft/filter-circuitbreaker';

function ruleOf(query: string, method = 'sayHello'): CircuitBreakerRule {
  const rule = circuitBreakerRuleOf(URL.parse(`tri://10.0.0.1:50051/org.acme.Greeter?interface=org.acme.Greeter&${query}`), method);
  if (rule === undefined) throw new Error(`test bug: no rule in ${query}`);
  return rule;
}

interface Change {
  readonly from: CircuitBreakerState;
  readonly to: CircuitBreakerState;
  readonly reason: CircuitBreakerTransitionReason;
}

function breakerOf(query: string): { breaker: CircuitBreaker; changes: Change[] } {
  const changes: Change[] = [];
  const breaker = new CircuitBreaker(ruleOf(query), (_b, from, to, reason) => changes.push({ from, to, reason }));
  return { breaker, changes };
}

/** Passes and completes `n` calls at time `at` with the outcome and response time given. */
function calls(breaker: CircuitBreaker, n: number, at: number, outcome: Outcome, rt = 0): void {
  for (let i = 0; i < n; i++) {
    const token = breaker.tryPass(at);
    expect(token, `call ${i + 1} of ${n} at ${at} was refused (state ${breaker.state})`).toBe(0);
    breaker.complete(at + rt, rt, outcome, token);
  }
}

describe('SlidingWindow', () => {
  it('counts within the window and forgets buckets as they slide out', () => {
    const window = new SlidingWindow(1000, 10);
    window.record(0, true, false);
    window.record(50, false, true);
    window.record(950, false, false);
    expect([window.total(999), window.errorCount(999), window.slowCount(999)]).toEqual([3, 1, 1]);
    // At 1000 the bucket [0, 100) leaves: the two calls in it are gone.
    expect([window.total(1000), window.errorCount(1000), window.slowCount(1000)]).toEqual([1, 0, 0]);
    // The call at 950 is in the bucket [900, 1000): it leaves when the window reaches 1900.
    expect(window.total(1899)).toBe(1);
    expect(window.total(1900)).toBe(0);
  });

  it('with one bucket is a tumbling, epoch-aligned window (Sentinel: 5 + 5 errors across a boundary never see 10)', () => {
    const window = new SlidingWindow(1000, 1);
    for (let i = 0; i < 5; i++) window.record(990, true, false);
    expect(window.errorCount(999)).toBe(5);
    for (let i = 0; i < 5; i++) window.record(1001, true, false);
    expect(window.errorCount(1001)).toBe(5);
  });

  it('a long pause clears everything at once, and a clock going back counts into the newest bucket', () => {
    const window = new SlidingWindow(1000, 4);
    window.record(100, true, false);
    window.record(600, true, false);
    expect(window.total(1_000_000)).toBe(0);
    window.record(1_000_000, false, false);
    window.record(500, true, false);
    expect([window.total(1_000_000), window.errorCount(1_000_000)]).toEqual([2, 1]);
  });
});

describe('CircuitBreaker transitions (a table, fake times)', () => {
  const rows: readonly {
    readonly name: string;
    readonly rule: string;
    /** [calls, outcome, response time] completed at t=100. */
    readonly traffic: readonly (readonly [number, Outcome, number])[];
    readonly state: CircuitBreakerState;
  }[] = [
    // error-ratio: strictly above the threshold trips; exactly at it does not.
    { name: 'error-ratio 3/5 > 0.5 trips', rule: 'circuitbreaker=error-ratio&circuitbreaker.threshold=0.5', traffic: [[2, Outcome.SUCCESS, 0], [3, Outcome.ERROR, 0]], state: 'open' },
    { name: 'error-ratio 2/4 = 0.5 does not trip (min 4)', rule: 'circuitbreaker=error-ratio&circuitbreaker.threshold=0.5&circuitbreaker.min-requests=4', traffic: [[2, Outcome.SUCCESS, 0], [2, Outcome.ERROR, 0]], state: 'closed' },
    { name: 'error-ratio 1.0 trips when every call failed', rule: 'circuitbreaker=error-ratio&circuitbreaker.threshold=1', traffic: [[5, Outcome.ERROR, 0]], state: 'open' },
    { name: 'error-ratio 1.0 does not trip with one success', rule: 'circuitbreaker=error-ratio&circuitbreaker.threshold=1', traffic: [[1, Outcome.SUCCESS, 0], [9, Outcome.ERROR, 0]], state: 'closed' },
    // minimum request amount: below it nothing trips, whatever the ratio.
    { name: '4 errors of 4 calls < min 5: closed', rule: 'circuitbreaker=error-ratio', traffic: [[4, Outcome.ERROR, 0]], state: 'closed' },
    { name: 'the 5th call (a success) reaches min 5 with 4/5 errors: open', rule: 'circuitbreaker=error-ratio', traffic: [[4, Outcome.ERROR, 0], [1, Outcome.SUCCESS, 0]], state: 'open' },
    // error-count: trips on errors > threshold.
    { name: 'error-count 3: 3 errors stay closed', rule: 'circuitbreaker=error-count&circuitbreaker.threshold=3&circuitbreaker.min-requests=1', traffic: [[3, Outcome.ERROR, 0]], state: 'closed' },
    { name: 'error-count 3: the 4th error trips', rule: 'circuitbreaker=error-count&circuitbreaker.threshold=3&circuitbreaker.min-requests=1', traffic: [[4, Outcome.ERROR, 0]], state: 'open' },
    { name: 'error-count 0 trips on the first error once min is met', rule: 'circuitbreaker=error-count&circuitbreaker.threshold=0&circuitbreaker.min-requests=2', traffic: [[1, Outcome.SUCCESS, 0], [1, Outcome.ERROR, 0]], state: 'open' },
    { name: 'error-count: 10 errors of 10 calls below min 11 stay closed', rule: 'circuitbreaker=error-count&circuitbreaker.threshold=3&circuitbreaker.min-requests=11', traffic: [[10, Outcome.ERROR, 0]], state: 'closed' },
    // slow-ratio: slow ⇔ rt > slow-rt (strict); threshold 1 means "all slow".
    { name: 'slow-ratio 1: 5 calls at rt 101 > 100 trip', rule: 'circuitbreaker=slow-ratio&circuitbreaker.slow-rt=100', traffic: [[5, Outcome.SUCCESS, 101]], state: 'open' },
    { name: 'slow-ratio: rt exactly 100 is not slow', rule: 'circuitbreaker=slow-ratio&circuitbreaker.slow-rt=100', traffic: [[5, Outcome.SUCCESS, 100]], state: 'closed' },
    { name: 'slow-ratio 1: one fast call keeps it closed', rule: 'circuitbreaker=slow-ratio&circuitbreaker.slow-rt=100', traffic: [[1, Outcome.SUCCESS, 5], [9, Outcome.SUCCESS, 500]], state: 'closed' },
    { name: 'slow-ratio 0.5: 3 slow of 5 trip', rule: 'circuitbreaker=slow-ratio&circuitbreaker.slow-rt=100&circuitbreaker.threshold=0.5', traffic: [[2, Outcome.SUCCESS, 5], [3, Outcome.SUCCESS, 500]], state: 'open' },
    { name: 'slow-ratio ignores errors', rule: 'circuitbreaker=slow-ratio&circuitbreaker.slow-rt=100', traffic: [[5, Outcome.ERROR, 5]], state: 'closed' },
    { name: 'slow-ratio: slow-rt 0.4 rounds to 0, so rt 1 is slow', rule: 'circuitbreaker=slow-ratio&circuitbreaker.slow-rt=0.4', traffic: [[5, Outcome.SUCCESS, 1]], state: 'open' },
    // ignored outcomes (cancelled, an inner breaker's refusal) count for nothing.
    { name: 'ignored outcomes never count', rule: 'circuitbreaker=error-ratio&circuitbreaker.min-requests=1', traffic: [[10, Outcome.IGNORED, 0]], state: 'closed' },
    // error-ratio never trips on slowness.
    { name: 'error-ratio ignores slowness', rule: 'circuitbreaker=error-ratio', traffic: [[10, Outcome.SUCCESS, 5000]], state: 'closed' },
  ];
  for (const row of rows) {
    it(`${row.name} → ${row.state}`, () => {
      const { breaker, changes } = breakerOf(row.rule);
      for (const [n, outcome, rt] of row.traffic) calls(breaker, n, 100, outcome, rt);
      expect(breaker.state).toBe(row.state);
      expect(changes).toEqual(row.state === 'open' ? [{ from: 'closed', to: 'open', reason: 'tripped' }] : []);
    });
  }

  it('open refuses until open-duration has elapsed; then exactly one call passes as the probe (half-open)', () => {
    const { breaker, changes } = breakerOf('circuitbreaker=error-ratio&circuitbreaker.open-duration=3000');
    calls(breaker, 5, 100, Outcome.ERROR);
    expect(breaker.state).toBe('open');
    expect(breaker.retryIn(100)).toBe(3000);
    expect(breaker.tryPass(3099)).toBe(REJECT);
    const probe = breaker.tryPass(3100);
    expect(probe).toBeGreaterThan(0);
    expect(breaker.state).toBe('half-open');
    expect(breaker.tryPass(3100)).toBe(REJECT);
    expect(breaker.tryPass(3200)).toBe(REJECT);
    expect(changes.map((c) => `${c.from}→${c.to}:${c.reason}`)).toEqual(['closed→open:tripped', 'open→half-open:probing']);
  });

  it('half-open: a successful probe closes with an empty window; a failed one re-opens for another open-duration', () => {
    const { breaker, changes } = breakerOf('circuitbreaker=error-ratio&circuitbreaker.open-duration=1000');
    calls(breaker, 5, 0, Outcome.ERROR);
    let probe = breaker.tryPass(1000);
    breaker.complete(1010, 10, Outcome.ERROR, probe);
    expect(breaker.state).toBe('open');
    expect(breaker.tryPass(2009)).toBe(REJECT);
    probe = breaker.tryPass(2010);
    expect(breaker.state).toBe('half-open');
    breaker.complete(2020, 10, Outcome.SUCCESS, probe);
    expect(breaker.state).toBe('closed');
    expect(breaker.snapshot(2020)).toEqual({ total: 0, errors: 0, slow: 0 });
    expect(changes.map((c) => `${c.to}:${c.reason}`)).toEqual(['open:tripped', 'half-open:probing', 'open:probe-failed', 'half-open:probing', 'closed:recovered']);
  });

  it('slow-ratio: a slow probe re-opens (a fast one closes)', () => {
    const { breaker } = breakerOf('circuitbreaker=slow-ratio&circuitbreaker.slow-rt=50&circuitbreaker.open-duration=1000');
    calls(breaker, 5, 0, Outcome.SUCCESS, 60);
    expect(breaker.state).toBe('open');
    let probe = breaker.tryPass(1100);
    breaker.complete(1160, 60, Outcome.SUCCESS, probe);
    expect(breaker.state).toBe('open');
    probe = breaker.tryPass(2200);
    breaker.complete(2210, 10, Outcome.SUCCESS, probe);
    expect(breaker.state).toBe('closed');
  });

  it('concurrent calls in half-open: exactly `probes` are admitted; all must succeed to close; one failure re-opens', () => {
    const { breaker } = breakerOf('circuitbreaker=error-ratio&circuitbreaker.probes=3&circuitbreaker.open-duration=1000');
    calls(breaker, 5, 0, Outcome.ERROR);
    const tokens = Array.from({ length: 10 }, () => breaker.tryPass(1000));
    expect(tokens.filter((t) => t > 0)).toHaveLength(3);
    expect(tokens.filter((t) => t === REJECT)).toHaveLength(7);
    const [a, b, c] = tokens.filter((t) => t > 0) as [number, number, number];
    breaker.complete(1001, 1, Outcome.SUCCESS, a);
    breaker.complete(1002, 2, Outcome.SUCCESS, b);
    expect(breaker.state).toBe('half-open');
    breaker.complete(1003, 3, Outcome.SUCCESS, c);
    expect(breaker.state).toBe('closed');

    calls(breaker, 5, 5000, Outcome.ERROR);
    const again = Array.from({ length: 3 }, () => breaker.tryPass(6000));
    breaker.complete(6001, 1, Outcome.SUCCESS, again[0] as number);
    breaker.complete(6002, 1, Outcome.ERROR, again[1] as number);
    expect(breaker.state).toBe('open');
    // The last probe of the failed round completes later: it belongs to an old round and decides nothing.
    breaker.complete(6003, 1, Outcome.SUCCESS, again[2] as number);
    expect(breaker.state).toBe('open');
    expect(breaker.retryIn(6003)).toBe(999);
  });

  it('a probe still in flight after open-duration does not keep the breaker half-open: the round fails, a later call probes again', () => {
    const { breaker, changes } = breakerOf('circuitbreaker=error-ratio&circuitbreaker.open-duration=1000');
    calls(breaker, 5, 0, Outcome.ERROR);
    const stuck = breaker.tryPass(1000);
    expect(breaker.tryPass(1999)).toBe(REJECT);
    expect(breaker.state).toBe('half-open');
    expect(breaker.tryPass(2000)).toBe(REJECT);
    expect(breaker.state).toBe('open');
    expect(breaker.retryIn(2000)).toBe(1000);
    const probe = breaker.tryPass(3000);
    expect(probe).toBeGreaterThan(stuck);
    // The stuck probe ends at last: it belongs to an old round and decides nothing.
    breaker.complete(3001, 2001, Outcome.ERROR, stuck);
    expect(breaker.state).toBe('half-open');
    breaker.complete(3002, 2, Outcome.SUCCESS, probe);
    expect(breaker.state).toBe('closed');
    expect(changes.map((c) => `${c.to}:${c.reason}`)).toEqual(['open:tripped', 'half-open:probing', 'open:probe-timed-out', 'half-open:probing', 'closed:recovered']);
  });

  it('a cancelled probe frees its place for another probe', () => {
    const { breaker } = breakerOf('circuitbreaker=error-ratio&circuitbreaker.open-duration=1000');
    calls(breaker, 5, 0, Outcome.ERROR);
    const probe = breaker.tryPass(1000);
    expect(breaker.tryPass(1000)).toBe(REJECT);
    breaker.complete(1001, 1, Outcome.IGNORED, probe);
    const next = breaker.tryPass(1002);
    expect(next).toBeGreaterThan(0);
    breaker.complete(1003, 1, Outcome.SUCCESS, next);
    expect(breaker.state).toBe('closed');
  });

  it('only probes decide: calls admitted before the trip complete in open and half-open without a transition', () => {
    const { breaker, changes } = breakerOf('circuitbreaker=error-ratio&circuitbreaker.open-duration=1000');
    const early = [breaker.tryPass(0), breaker.tryPass(0)];
    calls(breaker, 5, 0, Outcome.ERROR);
    breaker.complete(10, 10, Outcome.SUCCESS, early[0] as number);
    expect(breaker.state).toBe('open');
    const probe = breaker.tryPass(1000);
    breaker.complete(1001, 1001, Outcome.SUCCESS, early[1] as number);
    expect(breaker.state).toBe('half-open');
    breaker.complete(1002, 2, Outcome.SUCCESS, probe);
    expect(breaker.state).toBe('closed');
    expect(changes).toHaveLength(3);
  });

  it('the window rolls over: errors older than the window no longer trip it', () => {
    const { breaker } = breakerOf('circuitbreaker=error-count&circuitbreaker.threshold=4&circuitbreaker.min-requests=1&circuitbreaker.window=1000&circuitbreaker.buckets=10');
    calls(breaker, 4, 0, Outcome.ERROR); // bucket [0, 100)
    calls(breaker, 1, 1000, Outcome.ERROR); // [0, 100) slid out: 1 error in the window
    expect(breaker.state).toBe('closed');
    calls(breaker, 3, 1500, Outcome.ERROR);
    expect(breaker.snapshot(1500)).toEqual({ total: 4, errors: 4, slow: 0 });
    calls(breaker, 1, 1999, Outcome.ERROR); // 5 errors within [1000, 2000) → > 4
    expect(breaker.state).toBe('open');
  });

  it('forced states ignore statistics', () => {
    const open = breakerOf('circuitbreaker=error-ratio&circuitbreaker.force=open').breaker;
    expect(open.state).toBe('forced-open');
    expect(open.tryPass(0)).toBe(REJECT);
    expect(open.tryPass(1e9)).toBe(REJECT);
    const closed = breakerOf('circuitbreaker=error-ratio&circuitbreaker.force=closed').breaker;
    expect(closed.state).toBe('forced-closed');
    for (let i = 0; i < 100; i++) closed.complete(0, 0, Outcome.ERROR, closed.tryPass(0));
    expect(closed.state).toBe('forced-closed');
    expect(closed.tryPass(0)).toBe(0);
  });
});

describe('circuitBreakerRuleOf', () => {
  it('reads method level first, with Sentinel-like defaults per strategy', () => {
    const rule = ruleOf('circuitbreaker=error-ratio&sayHello.circuitbreaker=error-count&sayHello.circuitbreaker.window=2000');
    expect(rule).toMatchObject({ strategy: 'error-count', threshold: 5, window: 2000, buckets: 10, minRequests: 5, openDuration: 5000, probes: 1, bizErrors: true, resource: 'org.acme.Greeter#sayHello', method: 'sayHello', address: undefined });
    expect(ruleOf('circuitbreaker=slow-ratio')).toMatchObject({ threshold: 1, slowRt: 1000 });
    expect(ruleOf('circuitbreaker=error-ratio')).toMatchObject({ threshold: 0.5 });
  });

  it('no strategy and no force: no rule; an unknown strategy reads as none', () => {
    expect(circuitBreakerRuleOf(URL.parse('tri://h:1/org.acme.Greeter?timeout=5'), 'sayHello')).toBeUndefined();
    expect(circuitBreakerRuleOf(URL.parse('tri://h:1/org.acme.Greeter?circuitbreaker=sometimes'), 'sayHello')).toBeUndefined();
    expect(ruleOf('circuitbreaker.force=open')).toMatchObject({ strategy: undefined, force: 'open' });
  });

  it('resources: per method by default, shared by the service on request (a method with its own keys keeps its own), per address on request', () => {
    expect(ruleOf('circuitbreaker=error-ratio&circuitbreaker.resource=service').resource).toBe('org.acme.Greeter');
    expect(ruleOf('circuitbreaker=error-ratio&circuitbreaker.resource=service', 'other').resource).toBe('org.acme.Greeter');
    expect(ruleOf('circuitbreaker=error-ratio&circuitbreaker.resource=service&sayHello.circuitbreaker.threshold=0.9').resource).toBe('org.acme.Greeter#sayHello');
    expect(ruleOf('circuitbreaker=error-ratio&circuitbreaker.per-address=true').resource).toBe('org.acme.Greeter#sayHello@10.0.0.1:50051');
    expect(ruleOf('circuitbreaker=error-ratio&circuitbreaker.resource=service&circuitbreaker.per-address=true').resource).toBe('org.acme.Greeter@10.0.0.1:50051');
  });
});

describe('the closed-path shortcut (succeeded) behaves as complete(SUCCESS)', () => {
  it('a success that reaches the minimum request amount trips an error ratio already above the threshold', () => {
    const { breaker, changes } = breakerOf('circuitbreaker=error-ratio&circuitbreaker.min-requests=5&circuitbreaker.threshold=0.5');
    calls(breaker, 4, 1000, Outcome.ERROR);
    expect(breaker.state).toBe('closed');
    breaker.succeeded(1000);
    expect(changes).toEqual([{ from: 'closed', to: 'open', reason: 'tripped' }]);
    expect([breaker.lastTripValue, breaker.lastTripTotal]).toEqual([0.8, 5]);
  });

  it('counts into the bucket of its time, across bucket boundaries and after a clock step back', () => {
    const window = new SlidingWindow(1000, 10);
    expect(window.recordSuccess(99)).toBe(1);
    expect(window.recordSuccess(100)).toBe(2);
    expect(window.recordSuccess(50)).toBe(3); // the clock went back: counted in the newest bucket [100, 200)
    expect(window.total(1099)).toBe(2); // [0, 100) slid out at 1000, [100, 200) stays until 1100
    expect(window.total(1100)).toBe(0);
  });

  it('in half-open and open states takes the full path (a probe result is not a plain success)', () => {
    const { breaker, changes } = breakerOf('circuitbreaker=error-ratio&circuitbreaker.min-requests=2&circuitbreaker.open-duration=100');
    calls(breaker, 2, 0, Outcome.ERROR);
    breaker.succeeded(10); // late success of a call admitted before the breaker opened: counted, no transition
    expect(breaker.state).toBe('open');
    expect(changes.map((c) => c.to)).toEqual(['open']);
  });
});
