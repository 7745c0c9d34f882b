import type { Invocation, URL } from '@weft/core';

import { TpsLimiter } from './tps-limiter.js';
import { tpsRuleOf, type TpsRule } from './tps-rule.js';

/** One fixed window: how many calls it admitted since it started. */
interface Window {
  rate: number;
  interval: number;
  /** Start of the current window (clock ms). */
  start: number;
  /** Calls admitted in the current window. */
  admitted: number;
  /** Last call that consulted this window (clock ms); the window is dropped 2 intervals after it. */
  lastCall: number;
}

/** The windows of one service: the shared one, and those of methods with method-level settings. */
interface ServiceWindows {
  service: Window | undefined;
  methods: Map<string, Window> | undefined;
}

/** Rules cached per URL: more distinct method names than this are read from the URL on every call. */
const MAX_CACHED_METHODS = 256;

/** Monotonic milliseconds: wall-clock jumps (NTP, manual changes) never stretch or shrink a window. */
const monotonic = (): number => performance.now();

/**
 * The default `weft.filter.TpsLimiter`: exact fixed windows kept in memory, per application.
 *
 * @remarks
 * Extension `memory` (the default) of `weft.filter.TpsLimiter`, application scope. For each service key
 * (`[group/]interface[:version]`) it keeps one window shared by the methods without method-level settings, and
 * one window per method that sets `<method>.tps` or `<method>.tps.interval` (see {@link tpsRuleOf}). A window
 * opens at the first call, admits at most `rate` calls, and is replaced by a fresh one at the first call
 * `interval` ms or more after it opened — Dubbo's `StatItem`, but exact: JavaScript runs one decision at a time,
 * so a window never admits more than `rate` calls and a refused call consumes nothing.
 *
 * The rule is read from the URL on every call: a changed rate applies at once to the current window (calls it
 * already admitted count against the new rate — lowering the rate never resets the budget), and a changed
 * interval decides when the current window ends. A method without a limit passes without touching any window
 * (Dubbo deletes the service's window then). Like every fixed window, up to 2×rate calls can pass within one
 * interval straddling a window boundary; plug in another limiter (`tps.limiter`) for a sliding window.
 *
 * Memory stays bounded: a window not consulted for two of its intervals is dropped during a later call (no
 * timers), which never changes a decision. Time comes from a monotonic clock; tests may pass their own `clock` (milliseconds).
 *
 * @example
 * ```ts
 * const limiter = new MemoryTpsLimiter(() => fakeNow);
 * const url = URL.parse('injvm://127.0.0.1/org.acme.Greeter?tps=2&tps.interval=1000');
 * const call = new Invocation({ methodName: 'sayHello' });
 * limiter.isAllowable(url, call); // true
 * limiter.isAllowable(url, call); // true
 * limiter.isAllowable(url, call); // false, until fakeNow moves 1000 ms on
 * ```
 */
export class MemoryTpsLimiter extends TpsLimiter {
  private readonly services = new Map<string, ServiceWindows>();
  /** Rules read from each URL, per method: URLs are immutable, so a replaced URL is simply a new key. */
  private readonly rules = new WeakMap<URL, Map<string, TpsRule>>();
  /** No window can expire before this time: sweeps happen only from then on. */
  private nextSweep = Number.POSITIVE_INFINITY;
  private windowCount = 0;

  /** @param clock - current time in milliseconds, monotonic. @defaultValue `performance.now` */
  constructor(private readonly clock: () => number = monotonic) {
    super();
  }

  /** How many windows are kept (for monitoring and tests). */
  get size(): number {
    return this.windowCount;
  }

  /** Admits the call if its window has room (counting it), else refuses it; unlimited calls keep no window. */
  isAllowable(url: URL, invocation: Invocation): boolean {
    const method = invocation.methodName;
    let byMethod = this.rules.get(url);
    if (byMethod === undefined) this.rules.set(url, (byMethod = new Map()));
    let rule = byMethod.get(method);
    if (rule === undefined) {
      rule = tpsRuleOf(url, method);
      // Method names come from callers: never let unknown ones grow the cache without bound.
      if (byMethod.size < MAX_CACHED_METHODS) byMethod.set(method, rule);
    }
    const { rate, interval, scope } = rule;
    if (rate === 0) return true;
    const now = this.clock();
    if (now >= this.nextSweep) this.sweep(now);
    const key = url.getServiceKey() ?? url.toIdentityString();
    let windows = this.services.get(key);
    if (windows === undefined) this.services.set(key, (windows = { service: undefined, methods: undefined }));
    let window: Window | undefined;
    if (scope === 'service') {
      window = windows.service;
      if (window === undefined) windows.service = window = this.open(rate, interval, now);
    } else {
      const methods = (windows.methods ??= new Map());
      window = methods.get(method);
      if (window === undefined) methods.set(method, (window = this.open(rate, interval, now)));
    }
    window.rate = rate;
    window.interval = interval;
    // `now < start`: a test clock went back; start over rather than refuse for the whole gap.
    if (now - window.start >= interval || now < window.start) {
      window.start = now;
      window.admitted = 0;
    }
    window.lastCall = now;
    const expiry = now + 2 * interval;
    if (expiry < this.nextSweep) this.nextSweep = expiry;
    if (window.admitted >= rate) return false;
    window.admitted++;
    return true;
  }

  /** Forgets every window. */
  destroy(): void {
    this.services.clear();
    this.windowCount = 0;
    this.nextSweep = Number.POSITIVE_INFINITY;
  }

  private open(rate: number, interval: number, now: number): Window {
    this.windowCount++;
    return { rate, interval, start: now, admitted: 0, lastCall: now };
  }

  /**
   * Drops the windows not consulted for two intervals or more, and notes when the next one can expire. Dropping
   * never changes a decision: such a window would have been restarted by its next call anyway.
   */
  private sweep(now: number): void {
    let next = Number.POSITIVE_INFINITY;
    const alive = (window: Window): boolean => {
      const expiry = window.lastCall + 2 * window.interval;
      if (now >= expiry) {
        this.windowCount--;
        return false;
      }
      if (expiry < next) next = expiry;
      return true;
    };
    for (const [key, windows] of this.services) {
      if (windows.service !== undefined && !alive(windows.service)) windows.service = undefined;
      if (windows.methods !== undefined) {
        for (const [method, window] of windows.methods) if (!alive(window)) windows.methods.delete(method);
        if (windows.methods.size === 0) windows.methods = undefined;
      }
      if (windows.service === undefined && windows.methods === undefined) this.services.delete(key);
    }
    this.nextSweep = next;
  }
}
