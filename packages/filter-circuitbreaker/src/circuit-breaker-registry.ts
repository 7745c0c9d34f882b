import type { ApplicationEvents, Logger } from '@weft/core';

import { CircuitBreaker, type CircuitBreakerState, type CircuitBreakerTransitionReason } from './circuit-breaker.js';
import { describeRule, type CircuitBreakerRule } from './circuit-breaker-rule.js';

/**
 * A breaker's state change, as delivered to {@link CircuitBreakerRegistry.onStateChange} listeners.
 *
 * @example
 * ```ts
 * registry.onStateChange((e: CircuitBreakerStateChange) => metrics.gauge(e.resource, e.to));
 * ```
 */
export interface CircuitBreakerStateChange {
  /** The resource: `<serviceKey>` or `<serviceKey>#<method>`, with `@<address>` when per address. */
  readonly resource: string;
  /** The service key. */
  readonly service: string;
  /** The method, for a per-method breaker. */
  readonly method: string | undefined;
  /** The provider address, for a per-address breaker. */
  readonly address: string | undefined;
  readonly from: CircuitBreakerState;
  readonly to: CircuitBreakerState;
  readonly reason: CircuitBreakerTransitionReason;
  /** For `tripped`: the ratio or count that went over the threshold. */
  readonly value: number | undefined;
  /** For `tripped`: the calls of the window. */
  readonly total: number | undefined;
  /** The rule the breaker obeys. */
  readonly rule: CircuitBreakerRule;
  /** The registry's clock at the change (ms). */
  readonly at: number;
}

/** A listener of state changes. */
export type CircuitBreakerListener = (event: CircuitBreakerStateChange) => void;

/**
 * The breakers of one application, by resource, and the events of their state changes.
 *
 * @remarks
 * Owned by the application's `circuitbreaker` filter (application scope): nothing is shared between
 * applications. A breaker is created at the first call of its resource and replaced, in the closed state, when its
 * rule changes (an equal rule keeps it and its state). Each transition logs one warning (`circuit breaker
 * org.acme.Greeter#sayHello: closed → open (tripped: error-ratio 0.8 over 10 calls; …)`) and is delivered
 * synchronously to every listener; a listener that throws is logged and changes nothing. Time comes from a
 * millisecond clock that never goes back (`Date.now()`, held when the wall clock steps back; a step forward
 * acts as a pause); tests replace it with {@link CircuitBreakerRegistry.useClock}.
 *
 * @example
 * ```ts
 * const registry = circuitBreakersOf(app);
 * const stop = registry.onStateChange((e) => console.log(`${e.resource}: ${e.from} → ${e.to} (${e.reason})`));
 * registry.get('org.acme.Greeter#sayHello')?.state; // 'closed'
 * stop();
 * ```
 */
export class CircuitBreakerRegistry {
  private readonly breakers = new Map<string, CircuitBreaker>();
  private listeners: readonly CircuitBreakerListener[] = [];
  private lastNow = 0;
  /**
   * Milliseconds that never go back: `Date.now()` (a third of `performance.now()`'s cost on Node 20, and the
   * closed path reads the clock once per call), held at its highest value when the wall clock steps back.
   */
  private readonly monotonic = (): number => {
    const now = Date.now();
    return now > this.lastNow ? (this.lastNow = now) : this.lastNow;
  };
  private clockFn: () => number = this.monotonic;
  private readonly sink = (breaker: CircuitBreaker, from: CircuitBreakerState, to: CircuitBreakerState, reason: CircuitBreakerTransitionReason): void =>
    this.changed(breaker, from, to, reason);

  constructor(
    private readonly logger: Logger,
    private readonly events?: ApplicationEvents,
  ) {}

  /** The registry's clock (ms, monotonic unless replaced). */
  get now(): () => number {
    return this.clockFn;
  }

  /** Replaces the clock (for tests: a fake clock drives every breaker of the application). */
  useClock(clock: () => number): void {
    this.clockFn = clock;
  }

  /** The breaker of a resource, if one was created. */
  get(resource: string): CircuitBreaker | undefined {
    return this.breakers.get(resource);
  }

  /** Every breaker, by resource. */
  entries(): IterableIterator<[string, CircuitBreaker]> {
    return this.breakers.entries();
  }

  /** How many breakers exist. */
  get size(): number {
    return this.breakers.size;
  }

  /** Subscribes to state changes; returns the function that unsubscribes. */
  onStateChange(listener: CircuitBreakerListener): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  /**
   * The breaker obeying `rule`: the existing one of its resource when its rule is equal, else a new one (a
   * changed rule starts over; the change is an event when the state differs).
   */
  breakerFor(rule: CircuitBreakerRule): CircuitBreaker {
    const existing = this.breakers.get(rule.resource);
    if (existing !== undefined && (existing.rule === rule || existing.rule.signature === rule.signature)) return existing;
    const breaker = new CircuitBreaker(rule, this.sink);
    if (existing !== undefined) existing.retired = true;
    this.breakers.set(rule.resource, breaker);
    if (existing !== undefined && existing.state !== breaker.state) this.changed(breaker, existing.state, breaker.state, 'rule-changed');
    else if (existing === undefined && breaker.state !== 'closed') this.changed(breaker, 'closed', breaker.state, 'rule-changed');
    return breaker;
  }

  /**
   * Removes the breakers whose resource is not in `resources` (no rule names them any more): a breaker that was not
   * closed reports a change to `closed` (reason `rule-removed`) when `report` is set (not while the application shuts
   * down); the application's event channel hears `circuitbreaker.removed` for each, so observers drop its series.
   */
  retain(resources: ReadonlySet<string>, report: boolean): void {
    for (const [resource, breaker] of [...this.breakers]) {
      if (resources.has(resource)) continue;
      breaker.retired = true;
      this.breakers.delete(resource);
      if (breaker.state !== 'closed' && report) this.changed(breaker, breaker.state, 'closed', 'rule-removed');
      const rule = breaker.rule;
      this.events?.emit({ type: 'circuitbreaker.removed', service: rule.service, method: rule.method, resource, address: rule.address });
    }
  }

  /** Forgets every breaker and listener (the application shut down). */
  clear(): void {
    for (const breaker of this.breakers.values()) breaker.retired = true;
    this.breakers.clear();
    this.listeners = [];
  }

  private changed(breaker: CircuitBreaker, from: CircuitBreakerState, to: CircuitBreakerState, reason: CircuitBreakerTransitionReason): void {
    const rule = breaker.rule;
    const tripped = reason === 'tripped';
    const event: CircuitBreakerStateChange = {
      resource: rule.resource,
      service: rule.service,
      method: rule.method,
      address: rule.address,
      from,
      to,
      reason,
      value: tripped ? breaker.lastTripValue : undefined,
      total: tripped ? breaker.lastTripTotal : undefined,
      rule,
      at: this.clockFn(),
    };
    try {
      this.logger.warn(`circuit breaker ${rule.resource}: ${from} → ${to} (${explain(event)}; rule: ${describeRule(rule)}).`);
    } catch {
      // A logger that throws never breaks the call.
    }
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        try {
          this.logger.error(`circuit breaker ${rule.resource}: a state change listener threw; the call is unaffected.`, error);
        } catch {
          // Ignored, as above.
        }
      }
    }
    // The application's event channel (metrics and other observers that do not import this package).
    this.events?.emit({ type: 'circuitbreaker.state', service: rule.service, method: rule.method, resource: rule.resource, address: rule.address, from, to, reason });
  }
}

function explain(event: CircuitBreakerStateChange): string {
  const rule = event.rule;
  switch (event.reason) {
    case 'tripped': {
      const value = event.value ?? 0;
      const shown = rule.strategy === 'error-count' ? String(value) : String(Math.round(value * 1000) / 1000);
      return `tripped: ${rule.strategy ?? ''} ${shown} over ${event.total ?? 0} calls`;
    }
    case 'probing':
      return `open for ${rule.openDuration} ms: admitting ${rule.probes} probe${rule.probes === 1 ? '' : 's'}`;
    case 'probe-failed':
      return `a probe failed: open for another ${rule.openDuration} ms`;
    case 'probe-timed-out':
      return `the probes were still in flight after ${rule.openDuration} ms: open for another ${rule.openDuration} ms`;
    case 'recovered':
      return `${rule.probes} probe${rule.probes === 1 ? '' : 's'} succeeded`;
    case 'rule-changed':
      return 'the rule changed';
    case 'rule-removed':
      return 'no provider chain has a rule for it any more';
  }
}
